#!/usr/bin/env node
/**
 * The emulator as a command that runs with nothing installed, for people who point the service's Terraform
 * provider, command-line tool or Go SDK at it and have no Node.js project: `npm run release` packs, per platform,
 * platform-emulator-v<version>-<os>-<arch>.tar.gz:
 *
 *   platform-emulator (.cmd on windows)   the launcher: the `node` beside it on the bundle beside it
 *   platform-emulator.js                  emulator/cli.ts and everything it needs in ONE file (the gRPC
 *                                         descriptors are compiled in: no .proto file is read at run time)
 *   node (node.exe)                       that platform's official Node.js 24, unchanged (scripts/node-runtimes.js)
 *   LICENSE, LICENSE.node                 ours, and Node.js's
 *
 * the same runtime choice as the plugin's (scripts/build-plugin.js says why).
 *
 *   node scripts/build-emulator.js [dir]   the files for this machine's platform, unpacked into dir (default
 *                                          dist-emulator/), smoke-tested; prints the directory last
 *
 * May import: node built-ins, esbuild, ./build-plugin.js, ./node-runtimes.js.
 */
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const esbuild = require("esbuild");
const plugin = require("./build-plugin.js");
const { hostPlatform, nodeRuntimes } = require("./node-runtimes.js");

const root = path.resolve(__dirname, "..");
const { version } = plugin;
const command = "platform-emulator";
const ABOUT = "the emulator of the Platform Management API v2beta1 (REST and gRPC on one port).";
/** What the emulator prints once it listens (emulator/cli.ts), with the lines after it. */
const READY = /PLATFORM_ORG_UID=\S+\n/;

/**
 * emulator/cli.ts bundled (one file): the files of the archive other than the launcher, node and the licenses
 * ({ name, data }).
 */
async function emulatorFiles() {
  const result = await esbuild.build({
    entryPoints: [path.join(root, "emulator", "cli.ts")],
    write: false,
    outfile: path.join(os.tmpdir(), `${command}.js`),
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "none",
    // The shebang of emulator/cli.ts stays out: the launcher runs the bundle with the node beside it.
    banner: { js: `// ${command} v${version}: bundled by scripts/build-emulator.js from emulator/cli.ts.` },
    plugins: [plugin.sdkVersion],
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  return [{ name: `${command}.js`, data: Buffer.from(output.contents) }];
}

/** The archive's entries for `runtime`'s platform (scripts/release.js's tarGz takes them). */
async function emulatorEntries(runtime, files) {
  return plugin.archiveEntries(runtime, command, files ?? (await emulatorFiles()), ABOUT);
}

/** Starts the emulator of `entries` from an empty directory with an empty PATH; resolves with what it printed. */
function smokeTest(entries) {
  return plugin.smokeTest(entries, command, ["--quiet"], READY);
}

async function main() {
  const out = path.resolve(process.argv[2] ?? path.join(root, "dist-emulator"));
  const platform = hostPlatform();
  if (platform === undefined)
    throw new Error(`no Node.js runtime is carried for ${process.platform}-${process.arch}`);
  const [runtime] = nodeRuntimes([platform]);
  const entries = await emulatorEntries(runtime);
  await smokeTest(entries);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  plugin.writeEntries(out, entries);
  console.error(
    `${command} v${version} for ${platform} (Node.js ${runtime.version}): started with an empty PATH`,
  );
  console.log(out);
}

module.exports = { command, emulatorFiles, emulatorEntries, smokeTest };

if (require.main === module) {
  main().catch((err) => {
    console.error(`build-emulator: ${err.message}`);
    process.exit(1);
  });
}
