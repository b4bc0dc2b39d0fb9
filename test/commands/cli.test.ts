/**
 * The command-line tools' command lines (commands/program.ts, each tool's spec): `--help` of each tool and of each
 * command, on stdout with exit code 0, agrees with the options tables of the docs (generated from the same specs:
 * scripts/generate-cli-docs.js); a misspelt command or option is refused in one line naming the nearest one, with the
 * exit code of a refusal (1); `--version` is the package's; and `--help` loads neither the Pulumi SDK, the API client,
 * the emulator nor the review page's script (the built tools are spawned with a hook that records every module).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main as accessMain } from "../../commands/access/cli";
import { ACCESS_TOOL } from "../../commands/access/spec";
import { DEFAULT_UNUSED_AFTER_DAYS } from "../../commands/access/review";
import { main as importMain } from "../../commands/import/cli";
import { IMPORT_TOOL } from "../../commands/import/spec";
import { IMPORT_KINDS } from "../../commands/kinds";
import { parseCommandLine, UsageError, type ToolSpec } from "../../commands/program";
import { EMULATOR_TOOL } from "../../emulator/cli-spec";
import { RESOURCES } from "../../provider/catalogue";
import { SDK_VERSION } from "../../sdk/version";
import { capture } from "./fixtures";

const root = path.resolve(__dirname, "..", "..");

/** What a tool prints for `argv`: stdout, stderr lines, exit code. */
type Run = (argv: string[]) => Promise<{ code: number; out: string; err: string[] }>;

const inProcess =
  (main: typeof accessMain): Run =>
  async (argv) => {
    const io = capture({});
    const code = await main(argv, io);
    return { code, out: io.out, err: io.err };
  };

/** The emulator's CLI starts a server when loaded: its command line is read through the parser alone. */
const emulatorRun: Run = async (argv) => {
  const io = capture({});
  try {
    const parsed = parseCommandLine(EMULATOR_TOOL, argv, io);
    return { code: typeof parsed === "number" ? parsed : 0, out: io.out, err: io.err };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { code: 1, out: io.out, err: [...io.err, `platform-emulator: ${error.message}`] };
  }
};

const TOOLS: Array<{ tool: ToolSpec; run: Run; doc: string; bin: string }> = [
  { tool: ACCESS_TOOL, run: inProcess(accessMain), doc: "docs/access-review.md", bin: "commands/access/cli" },
  { tool: IMPORT_TOOL, run: inProcess(importMain), doc: "docs/adopting.md", bin: "commands/import/cli" },
  { tool: EMULATOR_TOOL, run: emulatorRun, doc: "emulator/README.md", bin: "emulator/cli" },
];

/**
 * The options tables of a tool's docs, by command (`""` for the tool without a command): each option's long name
 * and its default (`undefined` when none).
 */
function documented(doc: string, tool: ToolSpec): Map<string, Map<string, string | undefined>> {
  const text = fs.readFileSync(path.join(root, doc), "utf8");
  const region = text.slice(
    text.indexOf(`<!-- options:${tool.name} -->`),
    text.indexOf(`<!-- /options:${tool.name} -->`),
  );
  const commands = new Map<string, Map<string, string | undefined>>();
  let current: Map<string, string | undefined> | undefined;
  for (const line of region.split("\n")) {
    // A command's usage line (`platform-import report <group uid> [options]`), not the line on --help below them.
    const usage = new RegExp(`^\`${tool.name}(?: ([a-z-]+))?(?: [[<][^\`]*)?\`:`).exec(line);
    if (usage !== null) {
      const name = tool.commands.some((c) => c.name === usage[1]) ? usage[1]! : "";
      commands.set(name, (current = new Map()));
      continue;
    }
    const row = /^\| `(?:-\w, )?(--[\w-]+)[^`]*` +\| *(.*?) *\|/.exec(line);
    if (row !== null && current !== undefined)
      current.set(row[1]!, row[2] === "" ? undefined : row[2]!.replace(/^`(.*)`$/, "$1"));
  }
  return commands;
}

/** The options a command's `--help` lists (its own: --help and --version left out), with the default it says. */
function helpOptions(help: string): Map<string, string | undefined> {
  const section = help.slice(help.indexOf("\nOptions:\n"), help.search(/\n(Commands|Exit codes):\n/));
  // One entry per option: its first line and the lines its description wraps onto.
  const entries = section
    .split(/\n(?= {2}-)/)
    .map((entry) => entry.replace(/\s*\n\s*/g, " ").trim())
    .filter((entry) => entry.startsWith("-"));
  const options = new Map<string, string | undefined>();
  for (const entry of entries) {
    const name = /^(?:-\w, )?(--[\w-]+)/.exec(entry)![1]!;
    options.set(name, /\(default: (.*?)\)(?: \(repeatable\))?$/.exec(entry)?.[1]);
  }
  options.delete("--help");
  options.delete("--version");
  return options;
}

describe.each(TOOLS)("$tool.name", ({ tool, run, doc }) => {
  const commands = [...(tool.root !== undefined ? [tool.root] : []), ...tool.commands];

  it("--help lists its commands on stdout, exit 0", async () => {
    const help = await run(["--help"]);
    expect([help.code, help.err]).toEqual([0, []]);
    expect(help.out).toContain(`Usage: ${tool.name} [options]`);
    for (const command of tool.commands) expect(help.out).toMatch(new RegExp(`^ {2}${command.name} `, "m"));
  });

  it.each(commands.map((c) => [c.name || "(no command)", c] as const))(
    "%s --help describes each option and its default exactly as the docs' table does",
    async (_name, command) => {
      const help = await run(command.name === "" ? ["--help"] : [command.name, "--help"]);
      expect([help.code, help.err]).toEqual([0, []]);
      for (const option of command.options) expect(help.out).toContain(option.help.slice(0, 40));
      const table = documented(doc, tool).get(command.name);
      expect(table).toBeDefined();
      expect(helpOptions(help.out)).toEqual(table);
    },
  );

  it("--version is the package's", async () => {
    expect(await run(["--version"])).toEqual({ code: 0, out: `${SDK_VERSION}\n`, err: [] });
  });

  it("refuses a misspelt option in one line, naming the nearest one, exit 1", async () => {
    const [command] = commands.filter((c) => c.options.some((o) => o.value !== undefined));
    const option = command!.options.find((o) => o.value !== undefined)!;
    const misspelt = `--${option.name.slice(3)}`; // one letter dropped
    const argv = [command!.name, misspelt, "x"].filter((a) => a !== "");
    const refused = await run(argv);
    expect(refused).toEqual({
      code: 1,
      out: "",
      err: [`${tool.name}: unknown option ${misspelt} (did you mean ${option.name}?)`],
    });
  });
});

describe.each(TOOLS.filter(({ tool }) => tool.commands.length > 0))(
  "$tool.name commands",
  ({ tool, run }) => {
    it("refuses a misspelt command in one line, naming the nearest one, exit 1", async () => {
      const name = tool.commands[0]!.name;
      const misspelt = `${name.slice(0, 2)}${name[3]}${name[2]}${name.slice(4)}`; // two letters swapped
      expect(await run([misspelt, "x"])).toEqual({
        code: 1,
        out: "",
        err: [`${tool.name}: unknown command ${misspelt} (did you mean ${name}?)`],
      });
    });

    it("help COMMAND is COMMAND --help", async () => {
      const name = tool.commands[0]!.name;
      expect(await run(["help", name])).toEqual(await run([name, "--help"]));
    });
  },
);

describe("the specs", () => {
  it("say the defaults the commands use", () => {
    const review = ACCESS_TOOL.commands.find((c) => c.name === "review")!;
    expect(review.options.find((o) => o.name === "--unused-after")?.default).toBe(
      `${DEFAULT_UNUSED_AFTER_DAYS}d`,
    );
  });

  it("each option once per command, and the usage errors the tests of each command rely on", async () => {
    for (const tool of [ACCESS_TOOL, IMPORT_TOOL, EMULATOR_TOOL])
      for (const command of [...(tool.root ? [tool.root] : []), ...tool.commands]) {
        const names = command.options.map((o) => o.name);
        expect(new Set(names).size).toBe(names.length);
      }
    const access = inProcess(accessMain);
    expect((await access(["review", "x", "--html="])).err).toEqual(["platform-access: --html needs a FILE"]);
    expect((await access(["review", "x", "--since", "a", "--since", "b"])).err).toEqual([
      "platform-access: --since is given more than once",
    ]);
    expect((await access(["review", "x", "--json=yes"])).err).toEqual([
      "platform-access: --json takes no value",
    ]);
    expect((await access(["who-can", "CAP_REPO_LIST", "--on"])).err).toEqual([
      "platform-access: --on needs a GROUP_UID",
    ]);
    // No command: the help, on stderr, and the exit code of a refusal.
    const bare = await access([]);
    expect([bare.code, bare.out, bare.err.join("\n")]).toEqual([1, "", expect.stringContaining("Commands:")]);
  });

  it("platform-import's kinds are the catalogue's resources", () => {
    const declarations = new Set(RESOURCES.map((r) => r.declaration));
    for (const kind of Object.values(IMPORT_KINDS)) expect(declarations.has(kind.declaration)).toBe(true);
  });
});

describe("what --help loads", () => {
  const HEAVY = [
    /node_modules\/@pulumi\//,
    /node_modules\/zod\//,
    /node_modules\/fastify\//,
    /\/sdk\/client\./,
    /\/provider\//,
    /\/emulator\/(index|server|service|store)\./,
    /page-script\./,
  ];

  it.each(TOOLS.map(({ tool, bin }) => [tool.name, bin]))(
    "%s --help loads its parser and its spec, not the SDKs, the emulator or the page",
    (_name, bin) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cli-modules-"));
      const record = path.join(dir, "modules.txt");
      const run = spawnSync(
        process.execPath,
        [
          "--require",
          path.join(__dirname, "record-modules.js"),
          "--require",
          "ts-node/register/transpile-only",
          path.join(root, `${bin}.ts`),
          "--help",
        ],
        { cwd: root, env: { ...process.env, RECORD_MODULES_TO: record }, encoding: "utf8" },
      );
      expect([run.status, run.stderr]).toEqual([0, ""]);
      const recorded = fs.readFileSync(record, "utf8");
      fs.rmSync(dir, { recursive: true, force: true });
      const loaded = recorded
        .split("\n")
        .filter(
          (file) =>
            !/node_modules\/(ts-node|typescript|@cspotcode|@tsconfig|source-map|acorn|arg|create-require|diff|make-error|v8-compile-cache-lib|yn|@jridgewell)\//.test(
              file,
            ),
        );
      expect(loaded.filter((file) => HEAVY.some((heavy) => heavy.test(file)))).toEqual([]);
      expect(loaded.some((file) => file.includes("node_modules/commander/"))).toBe(true);
    },
  );
});
