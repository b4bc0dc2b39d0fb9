/**
 * A new user's first hour, as the README tells it: pack the package, install the tarball into a program of their
 * own OUTSIDE this repository, configure it, `pulumi up`. docs/guide.md's "Using it in your own program" blocks are
 * run literally (placeholders replaced by the emulator's values), so the docs cannot drift from what works. The
 * program then type-checks with the `pulumi new typescript` tsconfig and with a stricter variant, and its state
 * stores the provider as a small require() of the installed package. The install line takes the newest
 * @pulumi/pulumi beside the tarball: the project keeps one copy of it (`npm ls`), and the quick start
 * (examples/quickstart/index.ts) runs from that project too.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { engineBinDir, repoRoot } from "./harness";
import { codeBlocks, docPath, SHELL_LANGUAGES, shellCommands } from "./readme";

/** The version the README's install line names: the package's own. */
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;

jest.setTimeout(600_000);

const SECTION = "Using it in your own program";

/** The tsconfig `pulumi new typescript` writes. */
const PULUMI_NEW_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

/** What `npm ls --all --json` prints: a tree of dependencies. */
interface NpmTree {
  version?: string;
  dependencies?: Record<string, NpmTree>;
}

/** Every version of @pulumi/pulumi in the tree, deduplicated entries included. */
function pulumiVersions(tree: NpmTree): string[] {
  return Object.entries(tree.dependencies ?? {}).flatMap(([name, dependency]) => [
    ...(name === "@pulumi/pulumi" && dependency.version ? [dependency.version] : []),
    ...pulumiVersions(dependency),
  ]);
}

/** Compares two `x.y.z` versions numerically. */
function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if (pa![i] !== pb![i]) return pa![i]! - pb![i]!;
  return 0;
}

describe("a user's own program, outside the repository, set up as the README says", () => {
  let emulator: Emulator;
  let work: string;
  let program: string;
  let env: NodeJS.ProcessEnv;

  /** Runs a shell command; asynchronously, because the emulator answers from this process's event loop. */
  const sh = (command: string, cwd: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn("bash", ["-c", command], { cwd, env });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      child.on("close", (status) =>
        status === 0
          ? resolve(stdout)
          : reject(new Error(`\`${command}\` failed (${status}):\n${stdout}\n${stderr}`)),
      );
    });

  beforeAll(async () => {
    emulator = await startEmulator();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-platform-user-"));
    program = path.join(work, "my-program");
    fs.mkdirSync(program);
    const state = path.join(work, "state");
    env = {
      ...process.env,
      PATH: `${engineBinDir()}:${process.env["PATH"] ?? ""}`,
      PULUMI_HOME: path.join(state, "home"),
      PULUMI_BACKEND_URL: `file://${path.join(state, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "user-program-e2e-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      NO_COLOR: "1",
      // What the README's placeholders stand for.
      PLATFORM_TOKEN_VALUE: emulator.token,
      ORGANIZATION_UID: emulator.orgUid,
    };
    for (const key of Object.keys(env))
      if (key.startsWith("PLATFORM_") && key !== "PLATFORM_TOKEN_VALUE") delete env[key];
    fs.mkdirSync(path.join(state, "backend"), { recursive: true });
  });

  afterAll(async () => {
    if (program) await sh("pulumi destroy --yes --non-interactive", program).catch(() => undefined);
    await emulator?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("runs the README's commands and program as written, and up creates the group", async () => {
    const blocks = codeBlocks(docPath(repoRoot, "docs/guide.md")).filter((b) => b.section === SECTION);
    const [inRepo, inProgram] = blocks.filter((b) => SHELL_LANGUAGES.has(b.language)).map(shellCommands);
    const source = blocks.find((b) => b.language === "ts")?.text;
    expect(inRepo).toEqual(["npm ci", "npm run pack"]);
    expect(inProgram?.length).toBeGreaterThan(3);
    expect(source).toBeDefined();

    // In the repository (npm ci has run already): `npm run pack`, whose last line is the tarball.
    const tarball = execFileSync("npm", ["run", "--silent", "pack", "--", path.join(work, "pack")], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    })
      .trim()
      .split("\n")
      .pop() as string;
    expect(fs.existsSync(tarball)).toBe(true);

    // The user's project, as `pulumi new typescript` makes it.
    fs.writeFileSync(path.join(program, "Pulumi.yaml"), "name: my-program\nruntime: nodejs\n");
    fs.writeFileSync(
      path.join(program, "package.json"),
      JSON.stringify({
        name: "my-program",
        main: "index.ts",
        devDependencies: { typescript: "~5.9.3", "@types/node": "^20.19.0" },
      }),
    );
    fs.writeFileSync(path.join(program, "tsconfig.json"), JSON.stringify(PULUMI_NEW_TSCONFIG, null, 2));
    fs.writeFileSync(path.join(program, "index.ts"), `${source}\n`);

    for (const command of inProgram ?? []) {
      const literal = command
        .replace(`/path/to/pulumi-platform-${PACKAGE_VERSION}.tgz`, tarball)
        .replace("https://api.example.dev", emulator.url)
        .replace(/^pulumi up$/, "pulumi up --yes --non-interactive");
      await sh(literal, program);
    }

    const outputs = JSON.parse(await sh("pulumi stack output --json", program)) as { teamUid: string };
    expect(outputs.teamUid).toMatch(new RegExp(`^${emulator.orgUid}/[0-9a-f]{16}$`));
    await expect(emulator.client.groups.get(outputs.teamUid)).resolves.toMatchObject({
      name: "team-a",
      description: "Team A",
    });
  });

  it("the project holds one copy of @pulumi/pulumi, at least the newest the repository is tested with", async () => {
    const tree = JSON.parse(await sh("npm ls @pulumi/pulumi --all --json", program)) as NpmTree;
    const versions = new Set(pulumiVersions(tree));
    expect([...versions]).toHaveLength(1);
    const nested = path.join(program, "node_modules", "pulumi-platform", "node_modules", "@pulumi", "pulumi");
    expect(fs.existsSync(nested)).toBe(false);
    const locked = (
      JSON.parse(fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
        packages: Record<string, { version: string }>;
      }
    ).packages["node_modules/@pulumi/pulumi"]!.version;
    const [installed] = [...versions];
    expect(compareVersions(installed!, locked)).toBeGreaterThanOrEqual(0);
  });

  it("the quick start runs from the same project: up, a no-change preview, destroy", async () => {
    const quickstart = path.join(work, "quickstart");
    fs.mkdirSync(quickstart);
    fs.writeFileSync(path.join(quickstart, "Pulumi.yaml"), "name: quickstart\nruntime: nodejs\n");
    fs.copyFileSync(path.join(repoRoot, "examples/quickstart/index.ts"), path.join(quickstart, "index.ts"));
    fs.symlinkSync(path.join(program, "node_modules"), path.join(quickstart, "node_modules"));
    fs.copyFileSync(path.join(program, "package.json"), path.join(quickstart, "package.json"));
    try {
      await sh("pulumi stack init quickstart --non-interactive", quickstart);
      await sh(`pulumi config set platform:apiUrl ${emulator.url} --stack quickstart`, quickstart);
      await sh('pulumi config set organization "$ORGANIZATION_UID" --stack quickstart', quickstart);
      await sh(
        'pulumi config set --secret platform:token "$PLATFORM_TOKEN_VALUE" --stack quickstart',
        quickstart,
      );
      const up = await sh("pulumi up --yes --skip-preview --non-interactive --stack quickstart", quickstart);
      expect(up).toMatch(/\+ 7 created/);
      await sh("pulumi preview --expect-no-changes --non-interactive --stack quickstart", quickstart);
      const destroy = await sh("pulumi destroy --yes --non-interactive --stack quickstart", quickstart);
      expect(destroy).toMatch(/- 7 deleted/);
    } finally {
      await sh("pulumi stack rm quickstart --yes --force --non-interactive", quickstart).catch(
        () => undefined,
      );
      await sh("pulumi stack select dev --non-interactive", program).catch(() => undefined);
    }
  });

  it("the package is installed as a real directory and the state stores a small require() of it", async () => {
    const installed = path.join(program, "node_modules", "pulumi-platform");
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    const state = JSON.parse(await sh("pulumi stack export", program)) as {
      deployment: { resources: { type: string; inputs?: { __provider?: string } }[] };
    };
    const group = state.deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/iam:Group");
    const serialized = group?.inputs?.__provider ?? "";
    expect(serialized).toContain('require("pulumi-platform/dist/provider/iam/group.provider.js")');
    expect(Buffer.byteLength(serialized)).toBeLessThan(400);
    expect(JSON.stringify(state)).not.toContain(emulator.token);
  });

  it("a preview with no API address or credentials fails with the configuration error, before any request", async () => {
    await sh("pulumi stack init bare --non-interactive", program);
    try {
      await sh(`pulumi config set organization ${emulator.orgUid} --stack bare`, program);
      emulator.clearRequestLog();
      const failure = await sh("pulumi preview --stack bare --non-interactive", program).then(
        () => "preview succeeded",
        (e: Error) => e.message,
      );
      expect(failure).toContain(
        `error: Could not plan platform:iam:Group "team-a" under group ${emulator.orgUid}: the API URL is not ` +
          "set: set platform:apiUrl (or PLATFORM_API_URL).",
      );
      expect(failure).not.toMatch(/^\s+at /m);
      expect(emulator.requestLog()).toEqual([]);
    } finally {
      await sh("pulumi stack rm bare --yes --force --non-interactive", program);
      await sh("pulumi stack select dev --non-interactive", program);
    }
  });

  it.each([
    ["the pulumi new typescript tsconfig", {}],
    ["with esModuleInterop and skipLibCheck: false", { esModuleInterop: true, skipLibCheck: false }],
  ])("the program type-checks: %s", (_label, extra) => {
    const config = {
      ...PULUMI_NEW_TSCONFIG,
      compilerOptions: { ...PULUMI_NEW_TSCONFIG.compilerOptions, ...extra },
    };
    fs.writeFileSync(path.join(program, "tsconfig.check.json"), JSON.stringify(config));
    const tsc = path.join(program, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync("node", [tsc, "-p", "tsconfig.check.json", "--noEmit"], {
      cwd: program,
      encoding: "utf8",
    });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
