/**
 * The `pulumi new` templates (templates/<language>), as README "Start from a template" and each template's
 * README.md say, against an in-process emulator, under the real engine: `npm run release` once; then per language,
 * in an empty directory with its own Pulumi home and file backend, the plugin installed from the release's archive,
 * `pulumi new <release>/templates/<language>` with the config on its command line (the token set as a secret
 * afterwards), the language's dependencies installed as the template's README.md says, a preview with the
 * repository's policy pack, `up`, a `refresh` that finds every object as it is, a preview that expects no changes,
 * and `destroy`. The folder, the identity and the
 * binding are looked up in the emulator by name after `up`, and are gone after `destroy`. Then the repository's own
 * templates: `pulumi new <repo>/templates/<language> --generate-only` gives the same project as the release's
 * template, but for the SDK files the release's carries. How long each step takes is printed.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../../emulator";
import { engineBinDir, oncePerRun, repoRoot, testPassphrase } from "./harness";
import { sh } from "./shell";

jest.setTimeout(900_000);

const version = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;
const languages = ["typescript", "python", "go", "yaml", "java"] as const;
type Language = (typeof languages)[number];
const GITHUB_ISSUER = "https://token.actions.githubusercontent.com";
/** This machine in the plugin archives' naming. */
const platform = `${process.platform === "win32" ? "windows" : process.platform}-${
  process.arch === "x64" ? "amd64" : process.arch
}`;

/** How every README installs the plugin (here, from the release's archive for this machine). */
const PLUGIN_INSTALL = `pulumi plugin install resource platform ${version} --file "$RELEASE/pulumi-resource-platform-v${version}-linux-amd64.tar.gz"`;

/** What a run of one command gave. */
/**
 * `npm run release` into a folder of its own: in the suite's run directory, once per run, else in `scratch`. The
 * folder.
 */
function buildRelease(scratch: string[]): string {
  return oncePerRun("release", () => {
    const runDir = process.env["PULUMI_PLATFORM_E2E_RUN_DIR"];
    const out = runDir
      ? path.join(runDir, "release")
      : fs.mkdtempSync(path.join(os.tmpdir(), "templates-release-"));
    if (!runDir) scratch.push(out);
    const stdout = execNode([path.join(repoRoot, "scripts", "release.js"), out]);
    return stdout.trim().split("\n").pop() ?? "";
  });
}

function execNode(args: string[]): string {
  const result = spawnSync(process.execPath, args, {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 10 * 60_000,
  });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}`);
  return result.stdout;
}

/** Every file under `dir`, relative, sorted; what `pulumi new` made of a template. */
function filesUnder(dir: string, prefix = ""): string[] {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((d) => {
      const relative = path.join(prefix, d.name);
      return d.isDirectory() ? filesUnder(dir, relative) : [relative];
    })
    .sort();
}

/**
 * How each template's README.md (and the README's "Start from a template") installs the language's dependencies.
 * The test runs them with Pulumi's own SDK held at the engine's version: the templates ask for a range from the
 * oldest version tested, whose newest is not what this engine is.
 */
const DEPENDENCIES: Record<Language, string[]> = {
  typescript: ["npm install"],
  python: ["python3 -m venv venv", "venv/bin/pip install -r requirements.txt"],
  go: [
    "GOPROXY=file://$RELEASE/goproxy,https://proxy.golang.org GONOSUMDB=github.com/pulumi-platform go mod tidy",
  ],
  yaml: [],
  // Maven downloads what pom.xml names at the first preview (Pulumi's Java host runs `mvn compile exec:java`).
  java: [],
};

function installDependencies(language: Language, pulumiVersion: string): string {
  const pinned = (command: string) =>
    command === "npm install"
      ? // The engine's SDK, leaving package.json's range as the template wrote it.
        `npm install --no-audit --no-fund --no-save @pulumi/pulumi@${pulumiVersion}`
      : command.endsWith("pip install -r requirements.txt")
        ? // PyPI lags npm by a few releases: the newest up to the engine's version.
          `${command} --quiet --disable-pip-version-check "pulumi<=${pulumiVersion}"`
        : command;
  return ["true", ...DEPENDENCIES[language].map(pinned)].join(" && ");
}

describe("pulumi new templates, from the release folder, against the emulator", () => {
  let emulator: Emulator;
  let release: string;
  let pulumiVersion: string;
  const scratch: string[] = [];
  const timings: string[] = [];
  /** The project each language's release template made (for the comparison with the repository's templates). */
  const made: Partial<Record<Language, string>> = {};

  beforeAll(async () => {
    const started = Date.now();
    release = buildRelease(scratch);
    timings.push(`release: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(fs.existsSync(path.join(release, "SHA256SUMS"))).toBe(true);
    const engineVersion = spawnSync(path.join(engineBinDir(), "pulumi"), ["version"], { encoding: "utf8" });
    pulumiVersion = engineVersion.stdout.trim().replace(/^v/, "");
    expect(pulumiVersion).toMatch(/^\d+\.\d+\.\d+$/);
    emulator = await startEmulator();
  });

  afterAll(async () => {
    await emulator?.close();
    // Go marks what it downloads read-only.
    for (const dir of scratch) spawnSync("chmod", ["-R", "u+w", dir]);
    for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
    if (timings.length > 0) console.info(`templates timings:\n${timings.join("\n")}`);
  });

  it("the release holds each template, typescript's, python's and java's with the SDK files their dependencies name", () => {
    for (const language of languages) {
      expect(fs.existsSync(path.join(release, "templates", language, "Pulumi.yaml"))).toBe(true);
    }
    expect(fs.readdirSync(path.join(release, "templates", "typescript"))).toContain(
      `pulumi-platform-native-${version}.tgz`,
    );
    expect(fs.readdirSync(path.join(release, "templates", "python"))).toContain(
      `pulumi_platform_native-${version}-py3-none-any.whl`,
    );
    expect(
      fs.existsSync(
        path.join(release, "templates", "java", "maven", "com", "pulumiplatform", "platform", version),
      ),
    ).toBe(true);
    const sums = fs.readFileSync(path.join(release, "SHA256SUMS"), "utf8");
    expect(sums).toContain(`  templates/typescript/pulumi-platform-native-${version}.tgz\n`);
  });

  it("the README and each template's README.md give the commands this test runs", () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const section = readme.slice(
      readme.indexOf("## Start from a template"),
      readme.indexOf("## Where to read on"),
    );
    for (const language of languages) {
      const own = fs.readFileSync(path.join(repoRoot, "templates", language, "README.md"), "utf8");
      expect(section).toContain(`\`pulumi new "$RELEASE/templates/${language}"\``);
      expect(section).toContain(`\`pulumi new "$CHECKOUT/templates/${language}"\``);
      expect(section).toContain(DEPENDENCIES[language].join(" && ") || "nothing");
      for (const command of DEPENDENCIES[language])
        expect({ language, own }).toEqual({ language, own: expect.stringContaining(command) });
      expect(own).toContain(PLUGIN_INSTALL);
    }
    expect(section).toContain(PLUGIN_INSTALL);
    expect(section).toContain("pulumi config set --secret platform:token");
    expect(section).toContain("pulumi preview --policy-pack");
  });

  it.each(languages)("%s: pulumi new, preview with the policy pack, up, destroy", async (language) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `templates-${language}-`));
    scratch.push(dir);
    const project = path.join(dir, "project");
    fs.mkdirSync(project);
    const env = {
      RELEASE: release,
      PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(),
      PULUMI_PLATFORM_STATE_DIR: dir,
      PULUMI_HOME: path.join(dir, "home"),
      PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: testPassphrase,
    };
    const name = `tmpl-${language}`;
    const repository = `acme/${name}`;
    const step = async (label: string, script: string, stdin = ""): Promise<string> => {
      const ran = await sh(script, project, env, stdin);
      timings.push(`${language} ${label}: ${ran.seconds.toFixed(1)} s`);
      return ran.output;
    };

    if (language === "java") {
      // The same for the Java SDK, which Maven keeps in ~/.m2 once it has taken it from the project's maven/.
      fs.rmSync(path.join(os.homedir(), ".m2", "repository", "com", "pulumiplatform"), {
        recursive: true,
        force: true,
      });
    }
    if (language === "go") {
      // The release's Go module keeps its version from one commit to the next: drop any copy of it the module cache
      // holds (and only it), so `go mod tidy` takes this release's.
      const cache = spawnSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).stdout.trim();
      for (const sub of ["github.com/pulumi-platform", "cache/download/github.com/pulumi-platform"]) {
        spawnSync("chmod", ["-R", "u+w", path.join(cache, sub)]);
        fs.rmSync(path.join(cache, sub), { recursive: true, force: true });
      }
    }

    await step("plugin install", PLUGIN_INSTALL.replace("linux-amd64", platform));
    const created = await step(
      "pulumi new",
      [
        `pulumi new "${release}/templates/${language}" --yes --force --non-interactive --stack dev --name ${name}`,
        `-c organization=${emulator.orgUid} -c githubRepository=${repository} -c audience=${emulator.url}`,
        `-c platform:apiUrl=${emulator.url}`,
      ].join(" "),
    );
    expect(created).toContain(`Created project '${name}'`);
    expect(created).toContain("Created stack 'dev'");
    expect(created).toContain("README.md"); // the template's quickstart names it
    // The token on stdin, as a secret: never on a command line, never in plain text in the stack's file.
    await step("config set --secret", "pulumi config set --secret platform:token", emulator.token);
    const stackFile = fs.readFileSync(path.join(project, "Pulumi.dev.yaml"), "utf8");
    expect(stackFile).toMatch(/platform:token:\s+secure: /);
    expect(stackFile).not.toContain(emulator.token);
    made[language] = project;

    await step("dependencies", installDependencies(language, pulumiVersion));

    const preview = await step(
      "preview with the policy pack",
      `pulumi preview --policy-pack "${path.join(repoRoot, "policy")}"`,
    );
    expect(preview).toMatch(/\+ 4 to create/); // the stack, the folder, the identity, the binding
    expect(preview).toContain(`pulumi-platform@v${version}`); // the pack ran
    expect(preview).not.toMatch(/mandatory/);

    const up = await step("up", "pulumi up --yes --skip-preview");
    expect(up).toMatch(/\+ 4 created/);
    expect(up).not.toContain(emulator.token);
    const outputs = JSON.parse(await step("stack output", "pulumi stack output --json")) as Record<
      string,
      string
    >;

    // By name, in the emulator: the folder under the organization, the identity in it, the binding on it.
    const groups = [];
    for await (const g of emulator.client.groups.list({ childrenOf: emulator.orgUid })) groups.push(g);
    const folder = groups.find((g) => g.name === `${name}-dev`);
    expect(folder?.uid).toBe(outputs["folderUid"]);
    const identity = await emulator.client.identities.get(outputs["identityUid"]!);
    expect(identity).toMatchObject({
      name: "github-actions",
      claimMatch: {
        issuer: GITHUB_ISSUER,
        subject: `repo:${repository}:ref:refs/heads/main`,
        audience: emulator.url,
      },
    });
    expect(identity.uid.startsWith(`${folder!.uid}/`)).toBe(true);
    const binding = await emulator.client.roleBindings.get(outputs["roleBindingUid"]!);
    expect(binding).toMatchObject({
      group: { uid: folder!.uid },
      identity: { uid: identity.uid },
      role: { name: "registry.pull" },
    });

    const refreshed = await step("refresh", "pulumi refresh --yes --skip-preview");
    expect(refreshed).toMatch(/4 unchanged/);
    await step("preview, no changes", "pulumi preview --expect-no-changes");
    const destroyed = await step("destroy", "pulumi destroy --yes --skip-preview");
    expect(destroyed).toMatch(/- 4 deleted/);
    await expect(emulator.client.roleBindings.get(binding.uid)).rejects.toThrow();
    await expect(emulator.client.identities.get(identity.uid)).rejects.toThrow();
    await expect(emulator.client.groups.get(folder!.uid)).rejects.toThrow();
  });

  it.each(languages)(
    "%s: the repository's template makes the release's project, but for the SDK files",
    async (language) => {
      const fromRelease = made[language];
      expect(fromRelease).toBeDefined();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `templates-repo-${language}-`));
      scratch.push(dir);
      // Pulumi's home (where `pulumi new` writes its log) outside the directory compared.
      const state = fs.mkdtempSync(path.join(os.tmpdir(), `templates-repo-state-${language}-`));
      scratch.push(state);
      const env = { PULUMI_PLATFORM_ENGINE_BIN: engineBinDir(), PULUMI_PLATFORM_STATE_DIR: state };
      const script =
        `pulumi new "${path.join(repoRoot, "templates", language)}" --generate-only --yes --force ` +
        `--non-interactive --name tmpl-${language}`;
      await sh(script, dir, env, "");

      const sdkFiles = {
        typescript: [`pulumi-platform-native-${version}.tgz`],
        python: [`pulumi_platform_native-${version}-py3-none-any.whl`],
        go: [],
        yaml: [],
        java: ["jar", "jar.sha1", "pom", "pom.sha1"].map(
          (ext) => `maven/com/pulumiplatform/platform/${version}/platform-${version}.${ext}`,
        ),
      }[language];
      const generated = filesUnder(dir).filter((f) => f !== "Pulumi.yaml");
      // What the release's project holds beyond the template: the stack's file and what its dependencies made.
      const installed = /^(Pulumi\.dev\.yaml|package-lock\.json|node_modules|venv|policy|target)(\/|$)/;
      const released = filesUnder(fromRelease!).filter((f) => f !== "Pulumi.yaml" && !installed.test(f));
      expect(released.sort()).toEqual([...generated, ...sdkFiles].sort());
      for (const file of generated) {
        if (language === "go" && /^go\.(mod|sum)$/.test(file)) continue; // `go mod tidy` rewrote them
        expect({ file, text: fs.readFileSync(path.join(dir, file), "utf8") }).toEqual({
          file,
          text: fs.readFileSync(path.join(fromRelease!, file), "utf8"),
        });
      }
    },
  );
});
