/**
 * README "Your first hour, in each language", run literally: `npm run release` once, in the repository,
 * then each language's block, as one bash script, in its own empty directory, Pulumi home and file backend, against
 * an in-process emulator; then the optional policy pack block in the YAML block's directory. Each block installs the plugin from the release's archive and its SDK from the release
 * folder, and its `pulumi up` makes one folder under the organization. How long each block takes is printed, for the
 * README's timings.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { engineBinDir, repoRoot, testPassphrase } from "./harness";
import { sh } from "./shell";
import { forgetJavaSdk } from "./java-project";
import { codeBlocks, readmePath, SHELL_LANGUAGES } from "./readme";

jest.setTimeout(900_000);

const section = "Your first hour, in each language";
const allBlocks = codeBlocks(readmePath(repoRoot)).filter(
  (b) => b.section === section && SHELL_LANGUAGES.has(b.language),
);
/** The optional last step: the policy pack, run in one of the languages' directories (YAML's, the quickest). */
const policyBlock = allBlocks.find((b) => b.text.includes("--policy-pack"));
const blocks = allBlocks.filter((b) => b !== policyBlock);
const version = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;
const languages = ["typescript", "python", "go", "yaml", "java"];
/**
 * The versions templates/java/pom.xml gives that are Maven's own, which the Java block's pom.xml repeats: the POM
 * model's and the plugins'.
 */
const mavenPluginVersions = [
  ...fs
    .readFileSync(path.join(repoRoot, "templates", "java", "pom.xml"), "utf8")
    .matchAll(
      /<artifactId>[\w-]+-plugin<\/artifactId>\s*<version>(\d+\.\d+\.\d+)<\/version>|<modelVersion>(\d+\.\d+\.\d+)<\/modelVersion>/g,
    ),
].map((m) => (m[1] ?? m[2])!);

describe("README: your first hour, in each language", () => {
  let emulator: Emulator;
  let release: string;
  const scratch: string[] = [];
  /** Each language's directory and environment, for the policy pack step. */
  const ran: Record<string, { dir: string; env: Record<string, string> }> = {};
  const timings: string[] = [];

  beforeAll(async () => {
    const [build] = blocks;
    expect(build?.text.trim()).toBe("npm run release");
    const started = Date.now();
    const output = (await sh(build!.text, repoRoot, {})).output;
    release = output.trim().split("\n").pop() ?? "";
    timings.push(`release: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(fs.existsSync(path.join(release, "SHA256SUMS"))).toBe(true);
    emulator = await startEmulator();
  });

  afterAll(async () => {
    await emulator?.close();
    for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
    if (timings.length > 0) console.info(`first hour timings:\n${timings.join("\n")}`);
  });

  it("has one block per language, each with the plugin install line, at package.json's version", () => {
    expect(blocks.map((b) => /^mkdir (\S+)/.exec(b.text)?.[1])).toEqual([
      undefined,
      ...languages.map((l) => `hello-${l}`),
    ]);
    for (const block of blocks.slice(1)) {
      expect(block.text).toContain(
        `pulumi plugin install resource platform ${version} --file ` +
          `"$RELEASE/pulumi-resource-platform-v${version}-linux-amd64.tar.gz"`,
      );
    }
    // Every version the section gives is the package's, or the engine's for Pulumi's own SDK, or a Maven plugin's
    // as the Java template pins it.
    const section = blocks.map((b) => b.text).join("\n");
    const versions = new Set(section.match(/\d+\.\d+\.\d+/g));
    expect(mavenPluginVersions.length).toBeGreaterThan(0);
    for (const pinned of mavenPluginVersions) versions.delete(pinned);
    expect([...versions].sort()).toEqual(["3.248.0", version].sort());
  });

  it.each(languages)("%s: from an empty directory to a first pulumi up", async (language) => {
    const block = blocks.find((b) => b.text.startsWith(`mkdir hello-${language} `));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `first-hour-${language}-`));
    scratch.push(dir);
    const env = {
      RELEASE: release,
      ORGANIZATION_UID: emulator.orgUid,
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: emulator.token,
      PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
      PULUMI_PLATFORM_STATE_DIR: dir,
      PULUMI_HOME: path.join(dir, "home"),
      PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: testPassphrase,
    };

    if (language === "java") forgetJavaSdk();
    if (language === "go") {
      // The release's Go module keeps its version from one commit to the next: drop any copy of it the module cache
      // holds (and only it), so `go get` takes this release's.
      const cache = spawnSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).stdout.trim();
      for (const dir of ["github.com/pulumi-platform", "cache/download/github.com/pulumi-platform"]) {
        spawnSync("chmod", ["-R", "u+w", path.join(cache, dir)]);
        fs.rmSync(path.join(cache, dir), { recursive: true, force: true });
      }
    }

    const started = Date.now();
    const output = (await sh(block!.text, dir, env)).output;
    ran[language] = { dir: path.join(dir, `hello-${language}`), env };
    const up = /Duration: (\S+)/.exec(output)?.[1] ?? "?";
    timings.push(`${language}: ${((Date.now() - started) / 1000).toFixed(0)} s, of which pulumi up ${up}`);

    expect(output).toMatch(/\+ 2 created/); // the folder and the stack
    const groups = [];
    for await (const g of emulator.client.groups.list({ childrenOf: emulator.orgUid })) groups.push(g);
    const folder = groups.find((g) => g.name === `hello-${language}`);
    expect(folder).toBeDefined();
    expect(output).toContain(`folderUid: "${folder?.uid}"`);
    expect(output).not.toContain(emulator.token);
  });

  it("the optional policy pack step: the release's pack checks the YAML stack, which breaks no rule", async () => {
    expect(policyBlock).toBeDefined();
    const yaml = ran["yaml"];
    expect(yaml).toBeDefined();
    const started = Date.now();
    const output = (await sh(policyBlock!.text, yaml!.dir, yaml!.env)).output;
    timings.push(`policy pack (install and preview): ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(output).toContain(`pulumi-platform@v${version}`);
    expect(output).not.toMatch(/mandatory|advisory/);
  });
});
