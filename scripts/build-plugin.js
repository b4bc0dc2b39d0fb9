#!/usr/bin/env node
/**
 * `npm run plugin`: builds the native provider plugin `pulumi-resource-platform` (plugin/) into a tarball that
 * `pulumi plugin install resource platform <version> --file <tarball>` installs offline:
 *
 *   pulumi-resource-platform      a launcher (sh): `exec node <dir>/pulumi-resource-platform.js "$@"`; fails
 *                                 with a clear message when Node.js 20 or later is not on PATH
 *   pulumi-resource-platform.js   plugin/main.ts and everything it needs (grpc-js, google-protobuf, undici,
 *                                 zod, re2js, the SDK) in ONE file: no node_modules beside it
 *
 * into dist-plugin/pulumi-resource-platform-v<version>-linux-amd64.tar.gz (the platform is the engine's naming;
 * the contents are plain JavaScript and run wherever Node does). The directory dist-plugin/bin holds the same two
 * files, for a project's `Pulumi.yaml` `plugins.providers[].path`. Before packing, the bundle is started from an
 * empty temporary directory and must print its port. The LAST line printed is the tarball's absolute path.
 *
 * plugin/ is type-checked with the rest (tsconfig.json) but not compiled into dist/ (tsconfig.build.json): the
 * bundle is made from the TypeScript sources, and plugin/ imports ../package.json and ../schema.json, which tsc
 * would copy into dist/, where a dist/package.json would become the package scope of everything under dist/.
 *
 * scripts/release.js (`npm run release`) reuses bundle(), the launchers and smokeTest() to pack the same bundle for
 * every platform.
 */
"use strict";
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");

const root = path.resolve(__dirname, "..");
const { version } = require(path.join(root, "package.json"));
const name = "pulumi-resource-platform";
const out = path.join(root, "dist-plugin");
const bin = path.join(out, "bin");
const tarball = path.join(out, `${name}-v${version}-linux-amd64.tar.gz`);

const LAUNCHER = `#!/bin/sh
# ${name} v${version}: the Pulumi provider plugin of the Platform Management API. Needs Node.js 20 or later on PATH.
if ! command -v node >/dev/null 2>&1; then
  echo "${name}: Node.js 20 or later must be on PATH (no 'node' found)" >&2
  exit 1
fi
major=$(node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ] 2>/dev/null; then
  echo "${name}: Node.js 20 or later must be on PATH (found $(node --version 2>/dev/null || echo 'an unusable node'))" >&2
  exit 1
fi
exec node "$(dirname "$0")/${name}.js" "$@"
`;

/** The bare `@pulumi/pulumi` becomes plugin/pulumi-stub.ts (see there); its proto stubs stay real. */
const pulumiStub = {
  name: "pulumi-stub",
  setup(build) {
    build.onResolve({ filter: /^@pulumi\/pulumi$/ }, () => ({
      path: path.join(root, "plugin", "pulumi-stub.ts"),
    }));
  },
};

/** Starts the bundle from an empty directory (no node_modules anywhere above) and waits for its port. */
function smokeTest(launcher) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-smoke-`));
  fs.copyFileSync(launcher, path.join(dir, name));
  fs.copyFileSync(path.join(path.dirname(launcher), `${name}.js`), path.join(dir, `${name}.js`));
  fs.chmodSync(path.join(dir, name), 0o755);
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(dir, name), ["127.0.0.1:1"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const done = (err) => {
      clearTimeout(timer);
      child.kill("SIGTERM");
      fs.rmSync(dir, { recursive: true, force: true });
      if (err) reject(err);
      else resolve(stdout.trim());
    };
    const timer = setTimeout(
      () => done(new Error(`the plugin printed no port in 20 s; stderr: ${stderr}`)),
      20_000,
    );
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (/^\d+\n/.test(stdout)) done();
    });
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => {
      if (!/^\d+\n/.test(stdout))
        done(new Error(`the plugin exited (${code}) without a port; stderr: ${stderr}`));
    });
  });
}

/**
 * The launcher for Windows: the engine looks for `<name>.exe` or `<name>.cmd` there. The same Node.js check, then
 * node on the bundle beside it (`%~dp0`: this script's directory, with its trailing backslash). CRLF line ends.
 */
const WINDOWS_LAUNCHER = [
  "@echo off",
  `rem ${name} v${version}: the Pulumi provider plugin of the Platform Management API. Needs Node.js 20 or later on PATH.`,
  "where node >nul 2>nul",
  "if errorlevel 1 (",
  `  echo ${name}: Node.js 20 or later must be on PATH ^(no 'node' found^) 1>&2`,
  "  exit /b 1",
  ")",
  `node -e "process.exit(Number(process.versions.node.split('.')[0]) < 20 ? 1 : 0)"`,
  "if errorlevel 1 (",
  `  echo ${name}: Node.js 20 or later must be on PATH ^(found an older one^) 1>&2`,
  "  exit /b 1",
  ")",
  `node "%~dp0${name}.js" %*`,
  "",
].join("\r\n");

/** Bundles plugin/main.ts into `outfile` (one file, no node_modules needed beside it). */
async function bundle(outfile) {
  await esbuild.build({
    entryPoints: [path.join(root, "plugin", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    banner: { js: `// ${name} v${version}: bundled by scripts/build-plugin.js from plugin/main.ts.` },
    plugins: [pulumiStub],
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
  });
}

async function main() {
  const started = Date.now();
  fs.rmSync(bin, { recursive: true, force: true });
  fs.mkdirSync(bin, { recursive: true });
  const bundleFile = path.join(bin, `${name}.js`);
  await bundle(bundleFile);
  const launcher = path.join(bin, name);
  fs.writeFileSync(launcher, LAUNCHER, { mode: 0o755 });

  const port = await smokeTest(launcher);
  fs.rmSync(tarball, { force: true });
  execFileSync("tar", ["-czf", tarball, "-C", bin, name, `${name}.js`]);

  const kb = (file) => `${Math.round(fs.statSync(file).size / 1024)} kB`;
  console.error(
    `${name} v${version}: bundle ${kb(bundleFile)}, tarball ${kb(tarball)}, started from an empty directory ` +
      `(port ${port}), built in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.error(`install: pulumi plugin install resource platform ${version} --file ${tarball}`);
  console.log(tarball);
}

module.exports = { name, version, bundle, smokeTest, LAUNCHER, WINDOWS_LAUNCHER };

if (require.main === module) {
  main().catch((err) => {
    console.error(`build-plugin: ${err.message}`);
    process.exit(1);
  });
}
