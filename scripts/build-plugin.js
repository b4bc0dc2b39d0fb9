#!/usr/bin/env node
/**
 * `npm run plugin`: builds the native provider plugin `pulumi-resource-platform` (plugin/) into a tarball that
 * `pulumi plugin install resource platform <version> --file <tarball>` installs offline, and that runs with nothing
 * installed (no Node.js on PATH):
 *
 *   pulumi-resource-platform      a launcher (sh; `.cmd` on windows, where the engine looks for `<name>.exe` or
 *                                 `<name>.cmd`): runs the `node` beside it on the bundle beside it
 *   pulumi-resource-platform.js   plugin/main.ts and everything it needs (grpc-js, google-protobuf, undici,
 *                                 zod, re2js, the SDK) in ONE file: no node_modules beside it
 *   node (node.exe)               that platform's official Node.js 24, unchanged (scripts/node-runtimes.js)
 *   LICENSE, LICENSE.node         ours, and Node.js's
 *
 * Why an unchanged `node` beside the bundle rather than a single executable application (the bundle injected into
 * `node` with postject): an injected Mach-O must be signed again or macOS refuses to run it, and the Windows binary
 * loses its Authenticode signature, while Node.js's own binaries, untouched, keep the signatures Node.js's release
 * gave them; the archive is the same size either way (the binary is nearly all of it). What a single executable
 * offers for start-up, V8's code cache, the launcher has too: NODE_COMPILE_CACHE, `.compile-cache` beside it
 * (bench/plugin-startup.ts: 5% less CPU to the port line on a quiet machine, 25% on a busy one).
 *
 * into dist-plugin/pulumi-resource-platform-v<version>-<os>-<arch>.tar.gz for this machine's platform (the same
 * bytes as that archive of `npm run release`). The directory dist-plugin/bin holds the same files, for a project's
 * `Pulumi.yaml` `plugins.providers[].path`. Before packing, the launcher is started from an empty temporary
 * directory with an empty PATH and must print its port. The LAST line printed is the tarball's absolute path.
 *
 * plugin/ is type-checked with the rest (tsconfig.json) but not compiled into dist/ (tsconfig.build.json): the
 * bundle is made from the TypeScript sources, and plugin/ imports ../package.json and ../schema.json, which tsc
 * would copy into dist/, where a dist/package.json would become the package scope of everything under dist/.
 *
 * scripts/release.js (`npm run release`) reuses bundle(), archiveEntries() and smokeTest() for every platform, and
 * scripts/build-emulator.js the launchers for `platform-emulator`.
 */
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");
const { hostPlatform, nodeRuntimes, tarMember } = require("./node-runtimes.js");

const root = path.resolve(__dirname, "..");
const { version } = require(path.join(root, "package.json"));
const name = "pulumi-resource-platform";
const out = path.join(root, "dist-plugin");
const bin = path.join(out, "bin");

/**
 * The launcher for linux and darwin: the `node` beside it on `script` beside it. Only the shell's builtins find
 * them (an empty PATH will do), following symbolic links to the launcher (only then is `readlink` called: the one
 * on PATH, else /usr/bin's, which linux and macOS have).
 */
function unixLauncher(command, script, about) {
  return `#!/bin/sh
# ${command} v${version}: ${about}
# Runs the Node.js beside it (node, from the same archive) on ${script}: nothing else to install.
self=$0
while [ -L "$self" ]; do
  link=$(readlink "$self" 2>/dev/null || /usr/bin/readlink "$self")
  case $link in /*) self=$link ;; *) self=\${self%/*}/$link ;; esac
done
case $self in */*) here=\${self%/*} ;; *) here=. ;; esac
# V8's code cache, kept beside it (skipped where that is not writable): less CPU to start.
NODE_COMPILE_CACHE=\${NODE_COMPILE_CACHE:-$here/.compile-cache}
export NODE_COMPILE_CACHE
exec "$here/node" "$here/${script}" "$@"
`;
}

/**
 * The launcher for windows, `<command>.cmd` (the engine looks for `<name>.exe` or `<name>.cmd` there): node.exe
 * beside it on the bundle beside it (`%~dp0`: this script's directory, with its trailing backslash). CRLF ends.
 */
function windowsLauncher(command, script, about) {
  return [
    "@echo off",
    `rem ${command} v${version}: ${about}`,
    `rem Runs the Node.js beside it (node.exe, from the same archive) on ${script}: nothing else to install.`,
    "setlocal",
    "rem V8's code cache, kept beside it (skipped where that is not writable): less CPU to start.",
    'if not defined NODE_COMPILE_CACHE set "NODE_COMPILE_CACHE=%~dp0.compile-cache"',
    `"%~dp0node.exe" "%~dp0${script}" %*`,
    "",
  ].join("\r\n");
}

const ABOUT = "the Pulumi provider plugin of the Platform Management API.";
const LAUNCHER = unixLauncher(name, `${name}.js`, ABOUT);
const WINDOWS_LAUNCHER = windowsLauncher(name, `${name}.js`, ABOUT);

/** The bare `@pulumi/pulumi` becomes plugin/pulumi-stub.ts (see there); its proto stubs stay real. */
const pulumiStub = {
  name: "pulumi-stub",
  setup(build) {
    build.onResolve({ filter: /^@pulumi\/pulumi$/ }, () => ({
      path: path.join(root, "plugin", "pulumi-stub.ts"),
    }));
  },
};

/**
 * sdk/version.ts finds the version in the package.json above it at run time; a bundle has none above it (it would
 * say 0.0.0, in `--version` and every request's User-Agent), so it is given the version it is built from.
 */
const sdkVersion = {
  name: "sdk-version",
  setup(build) {
    build.onLoad({ filter: /[\\/]sdk[\\/]version\.ts$/ }, (args) =>
      args.path === path.join(root, "sdk", "version.ts")
        ? { contents: `export const SDK_VERSION: string = ${JSON.stringify(version)};`, loader: "ts" }
        : undefined,
    );
  },
};

/**
 * The files of a standalone archive for `runtime`'s platform ({ name, data, mode, member? }, scripts/release.js's
 * tarGz takes them): the launcher of its OS, `files` (the bundle and what it reads), `node` with its gzip member,
 * LICENSE and Node.js's as LICENSE.node.
 */
function archiveEntries(runtime, command, files, about) {
  const script = files[0].name;
  const windows = runtime.platform.startsWith("windows-");
  const launcher = windows
    ? { name: `${command}.cmd`, data: Buffer.from(windowsLauncher(command, script, about)), mode: 0o755 }
    : { name: command, data: Buffer.from(unixLauncher(command, script, about)), mode: 0o755 };
  const entries = [
    launcher,
    ...files.map((file) => ({ mode: 0o644, ...file })),
    {
      name: runtime.binaryName,
      data: fs.readFileSync(runtime.binaryFile),
      mode: 0o755,
      member: tarMember(runtime),
    },
    { name: "LICENSE", data: fs.readFileSync(path.join(root, "LICENSE")), mode: 0o644 },
  ];
  if (runtime.licenseFile !== undefined) {
    entries.push({ name: "LICENSE.node", data: fs.readFileSync(runtime.licenseFile), mode: 0o644 });
  }
  return entries;
}

/** Writes `entries` into `dir` with their modes (what the archive unpacks to). */
function writeEntries(dir, entries) {
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, entry.data, { mode: entry.mode });
    fs.chmodSync(file, entry.mode);
  }
}

/**
 * Starts `command` of `entries` (written into an empty directory, no node_modules anywhere above) with an EMPTY
 * PATH, so no `node` of the machine can be found, and resolves with its stdout once it matches `ready` (20 s).
 */
function smokeTest(entries, command, args, ready) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${command}-smoke-`));
  writeEntries(dir, entries);
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(dir, command), args, {
      cwd: dir,
      env: { PATH: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let settled = false;
    const done = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGTERM");
      child.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
      if (err) reject(err);
      else resolve(stdout.trim());
    };
    const timer = setTimeout(
      () => done(new Error(`${command} printed nothing ready in 20 s; stderr: ${stderr}`)),
      20_000,
    );
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (ready.test(stdout)) done();
    });
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", (error) => done(new Error(`${command} did not start: ${error.message}`)));
    child.on("exit", (code) => {
      if (!ready.test(stdout)) done(new Error(`${command} exited (${code}) before ready; stderr: ${stderr}`));
    });
  });
}

/** The plugin prints its port first (the plugin protocol's one line). */
const PORT_LINE = /^\d+\n/;

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
    plugins: [pulumiStub, sdkVersion],
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
  });
}

async function main() {
  const started = Date.now();
  const platform = hostPlatform();
  if (platform === undefined)
    throw new Error(`no Node.js runtime is carried for ${process.platform}-${process.arch}`);
  const [runtime] = nodeRuntimes([platform]);
  fs.rmSync(bin, { recursive: true, force: true });
  fs.mkdirSync(bin, { recursive: true });
  const bundleFile = path.join(bin, `${name}.js`);
  await bundle(bundleFile);
  const entries = archiveEntries(
    runtime,
    name,
    [{ name: `${name}.js`, data: fs.readFileSync(bundleFile) }],
    ABOUT,
  );
  writeEntries(bin, entries);

  const port = await smokeTest(entries, name, ["127.0.0.1:1"], PORT_LINE);
  // The same bytes as the release's archive of this platform (scripts/release.js; required here, not above: it
  // requires this file).
  const release = require("./release.js");
  const tarball = path.join(out, `${name}-v${version}-${platform}.tar.gz`);
  fs.writeFileSync(tarball, await release.tarGz(entries, release.sourceDateEpoch()));

  const kb = (file) => `${Math.round(fs.statSync(file).size / 1024)} kB`;
  console.error(
    `${name} v${version}: bundle ${kb(bundleFile)}, Node.js ${runtime.version}, tarball ${kb(tarball)}, started ` +
      `from an empty directory with an empty PATH (port ${port}), built in ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.error(`install: pulumi plugin install resource platform ${version} --file ${tarball}`);
  console.log(tarball);
}

module.exports = {
  name,
  version,
  ABOUT,
  bundle,
  archiveEntries,
  writeEntries,
  smokeTest,
  PORT_LINE,
  sdkVersion,
  LAUNCHER,
  WINDOWS_LAUNCHER,
};

if (require.main === module) {
  main().catch((err) => {
    console.error(`build-plugin: ${err.message}`);
    process.exit(1);
  });
}
