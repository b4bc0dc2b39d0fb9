/**
 * Every shell command in the README, CONTRIBUTING.md and the pages under docs/ is a tested thing: `pulumi config` commands run against a
 * throwaway stack (so the CLI's own rules apply, e.g. it refuses a plaintext value under a key that looks like a
 * secret), `npm run` names a script that exists, `node` commands start, any other `pulumi` command names a
 * subcommand that exists with flags it takes, a `go` command names a go subcommand, `npx platform-access` and
 * `npx platform-import` a subcommand and flags their usage lists, and the "Using it in your own
 * program" section is run in full by user-program.e2e.test.ts, "Bring an existing organization" by
 * adopt.e2e.test.ts, "Your first hour, in each language" by first-hour.e2e.test.ts, "Start from a template" by
 * templates.e2e.test.ts (its pulumi commands are checked here too); docs/emulator.md's "Running the Terraform
 * provider's acceptance suite" is run by hand (it builds another repository). A command no rule knows fails
 * the test, so a new kind of command in the README gets a check when it is written.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { engineBinDir, repoRoot } from "./harness";
import { main as accessMain } from "../../commands/access/cli";
import { main as importMain } from "../../commands/import/cli";
import { codeBlocks, documentationPages, SHELL_LANGUAGES, shellCommands } from "./readme";

jest.setTimeout(300_000);

const releaseScript = require("../../scripts/release.js") as { PLATFORMS: [string, string][] };
const packageVersion = (require("../../package.json") as { version: string }).version;

/** Values for the README's placeholders. */
const PLACEHOLDERS: Record<string, string> = {
  PLATFORM_TOKEN_VALUE: "placeholder-token",
  ORGB_TOKEN: "placeholder-orgb-token",
  IDENTITY_UID: "0123456789abcdef/0123456789abcdef",
  ORGANIZATION_UID: "0123456789abcdef",
};

// The user docs under docs/ (guide, reference, registry pages) and CONTRIBUTING.md are held to the README's rules.
const pages = documentationPages(repoRoot);
const commands = pages
  .flatMap((page) => codeBlocks(page))
  .filter((b) => SHELL_LANGUAGES.has(b.language))
  // Run block by block, each as one script (heredocs and all), by first-hour.e2e.test.ts.
  .filter((b) => b.section !== "Your first hour, in each language")
  // Run by hand, outside CI: they build another repository's test suite (terraform-provider-chainguard), which
  // neither the Go module proxy nor this repository carries.
  .filter((b) => b.section !== "Running the Terraform provider's acceptance suite against the emulator")
  .flatMap((b) => shellCommands(b).map((command) => ({ section: b.section, command })));

function run(command: string, cwd: string, env: NodeJS.ProcessEnv, untilOutput?: RegExp) {
  return new Promise<{ status: number | null; output: string }>((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env, detached: true });
    let output = "";
    const stop = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        // gone already
      }
    };
    const timer = setTimeout(stop, 60_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (untilOutput?.test(output)) stop();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

describe("the README's shell commands", () => {
  let scratch: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-readme-"));
    fs.writeFileSync(path.join(scratch, "Pulumi.yaml"), "name: readme-check\nruntime: nodejs\n");
    // The service's own CLI, which the README uses to print a token: a stand-in that prints one.
    fs.mkdirSync(path.join(scratch, "bin"));
    fs.writeFileSync(path.join(scratch, "bin", "chainctl"), "#!/bin/sh\necho placeholder-cli-token\n", {
      mode: 0o755,
    });
    env = {
      ...process.env,
      ...PLACEHOLDERS,
      PATH: `${engineBinDir()}:${path.join(scratch, "bin")}:${process.env["PATH"] ?? ""}`,
      PULUMI_HOME: path.join(scratch, ".home"),
      PULUMI_BACKEND_URL: `file://${path.join(scratch, ".backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "readme-e2e-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      NO_COLOR: "1",
    };
    fs.mkdirSync(path.join(scratch, ".backend"));
    const init = await run("pulumi stack init readme --non-interactive", scratch, env);
    expect(init.status).toBe(0);
  });

  afterAll(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("there are commands to check", () => {
    expect(commands.length).toBeGreaterThan(10);
  });

  const scripts = (
    JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;

  it.each(commands)("[$section] $command", async ({ section, command }) => {
    if (section === "Using it in your own program") {
      // Run in full, in order, by user-program.e2e.test.ts (they need a real program and an API).
      return;
    }
    if (section === "Bring an existing organization") {
      // Run in full, in order, by adopt.e2e.test.ts (they need an organization and a Terraform state).
      return;
    }
    if (section === "Start from a template" && !command.startsWith("pulumi ")) {
      // templates.e2e.test.ts runs each template the way this section says (the project's files, installs and
      // the token on stdin) and checks the section's commands; its pulumi commands are checked below.
      return;
    }
    if (/^npm (ci|test|install)\b/.test(command)) return; // what CI itself runs, and plain installs
    const npmRun = /^npm run ([\w:-]+)/.exec(command);
    if (npmRun) {
      expect(Object.keys(scripts)).toContain(npmRun[1]);
      return;
    }
    if (command.startsWith("pulumi config ")) {
      const result = await run(`set -o pipefail; ${command} --non-interactive`, scratch, env);
      expect(result.output).not.toMatch(/error|not found/i);
      expect(result.status).toBe(0);
      return;
    }
    if (command === "mkdir -p platform-emulator") return; // where the next command unpacks the emulator
    const unpackEmulator =
      /^tar -xzf "\$RELEASE\/platform-emulator-v([\d.]+)-([a-z]+)-([a-z0-9]+)\.tar\.gz" -C platform-emulator$/.exec(
        command,
      );
    if (unpackEmulator) {
      // An archive `npm run release` makes (scripts/release.js: its version, one of its platforms).
      const [, version, osName, arch] = unpackEmulator;
      expect(version).toBe(packageVersion);
      expect(releaseScript.PLATFORMS).toContainEqual([osName, arch]);
      return;
    }
    if (command.startsWith("platform-emulator/platform-emulator ")) {
      // The emulator unpacked from the release (its files for this machine, scripts/build-emulator.js) starts with
      // the options given (on a free port) and says where it listens.
      const dir = path.join(scratch, "platform-emulator");
      if (!fs.existsSync(path.join(dir, "platform-emulator"))) {
        const build = await run(`node scripts/build-emulator.js ${dir}`, repoRoot, env);
        expect(build.output).toContain("started with an empty PATH");
      }
      const line = command.replace(/--port \d+/, "--port 0").replace(/^platform-emulator\//, `${dir}/`);
      const result = await run(line, repoRoot, env, /listening on http/);
      expect(result.output).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      return;
    }
    if (command.startsWith("node ")) {
      // Starts (on a free port instead of the example's), says where it listens, and is stopped.
      const result = await run(command.replace(/--port \d+/, "--port 0"), repoRoot, env, /listening on http/);
      expect(result.output).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      return;
    }
    const pulumiCommand = /^(?:[A-Z_]+=\S+ )*pulumi ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/.exec(command);
    if (pulumiCommand) {
      // Any other pulumi command (up, refresh, plugin install...): the subcommand exists and takes every flag
      // the README gives it, in this engine.
      const [, first, second] = pulumiCommand;
      let help = await run(`pulumi ${first} ${second ?? ""} --help`, scratch, env);
      // The subcommand's own help names it in its usage line, or among its aliases (3.276 made `state delete` an
      // alias of `state remove`); otherwise `second` was an argument and the help is the command's.
      const isAlias = new RegExp(`^Aliases:\\n\\s+.*\\b${second ?? ""}\\b`, "m").test(help.output);
      if (help.status !== 0 || !(help.output.includes(`pulumi ${first} ${second ?? ""}`.trim()) || isAlias))
        help = await run(`pulumi ${first} --help`, scratch, env);
      expect(help.status).toBe(0);
      for (const flag of command.match(/ --?[a-z][\w-]*/g) ?? []) {
        expect(help.output).toContain(`${flag.trim()}`);
      }
      return;
    }
    const accessCommand = /^npx platform-access ([a-z-]+)/.exec(command);
    if (accessCommand) {
      // Run for real by test/commands/access.test.ts; here: the subcommand and every flag the docs give it exist.
      let usage = "";
      const code = await accessMain([accessCommand[1]!, "--help"], {
        env: {},
        stdout: (text) => void (usage += text),
        stderr: () => undefined,
      });
      expect(code).toBe(0);
      expect(usage).toContain(`platform-access ${accessCommand[1]} `);
      for (const flag of command.match(/ --[a-z][\w-]*/g) ?? []) expect(usage).toContain(flag.trim());
      return;
    }
    const importCommand = /^npx platform-import(?: ([a-z][a-z-]*))?/.exec(command);
    if (importCommand) {
      // Run for real by test/commands and adopt.e2e.test.ts; here: the subcommand and every flag the docs give it
      // exist (in the command's own --help, or the tool's without a command).
      let usage = "";
      const code = await importMain(
        importCommand[1] !== undefined ? [importCommand[1], "--help"] : ["--help"],
        {
          env: {},
          stdout: (text) => void (usage += text),
          stderr: () => undefined,
        },
      );
      expect(code).toBe(0);
      if (importCommand[1] !== undefined) expect(usage).toContain(`platform-import ${importCommand[1]} `);
      for (const flag of command.match(/ --[a-z][\w-]*/g) ?? []) expect(usage).toContain(flag.trim());
      return;
    }
    const goCommand = /^(?:[A-Z_]+=\S+ )*go ([a-z]+)/.exec(command);
    if (goCommand) {
      // A go subcommand that exists; release.e2e.test.ts has `go mod download` fetch from the release's goproxy/.
      const help = await run(`go help ${goCommand[1]}`, scratch, env);
      expect(help.status).toBe(0);
      expect(help.output).toContain(`usage: go ${goCommand[1]}`);
      return;
    }
    throw new Error(`no check for README command \`${command}\`: add one to ${path.basename(__filename)}`);
  });
});
