#!/usr/bin/env node
/**
 * `npm run release [-- <dir>]`: every artifact of a release, built from the one version in package.json, into one
 * folder (default <repo>/dist-release, emptied first). The LAST line printed is the folder's absolute path.
 *
 *   pulumi-platform-<v>.tgz                                  the dynamic package (scripts/pack.sh: npm pack)
 *   pulumi-resource-platform-v<v>-<os>-<arch>.tar.gz         the plugin for linux and darwin on amd64 and arm64 and
 *                                                            windows on amd64, running with nothing installed: one
 *                                                            esbuild bundle (built once), that platform's official
 *                                                            node binary unchanged (scripts/node-runtimes.js) and
 *                                                            the launcher of the OS (sh, or .cmd on windows),
 *                                                            LICENSE and Node.js's LICENSE.node
 *   platform-emulator-v<v>-<os>-<arch>.tar.gz                the emulator for the same platforms, the same way
 *                                                            (scripts/build-emulator.js): its bundle and node
 *   pulumi-platform-native-<v>.tgz                           the TypeScript SDK: native-sdks/nodejs compiled by tsc,
 *                                                            its package.json beside the .js (npm install <file>)
 *   goproxy/github.com/pulumi-platform/native-sdks/go/@v/    the Go SDK as a module proxy serves it: list,
 *                                                            v<v>.info, v<v>.mod, v<v>.zip (GOPROXY=file://<dir>/goproxy)
 *   *.whl of the Python SDK                                  when native-sdks/python exists (python -m build, with
 *                                                            PULUMI_PLATFORM_PYTHON, else the environment
 *                                                            scripts/python-env.sh makes, which has the build tools)
 *   maven/com/pulumiplatform/platform/<v>/                   the Java SDK as a Maven repository folder serves it:
 *                                                            platform-<v>.jar (native-sdks/java built by `mvn
 *                                                            package`, reproducible) and platform-<v>.pom, each with
 *                                                            its .sha1 (a <repository> with url file://<dir>/maven)
 *   pulumi-platform-policy-v<v>.tar.gz                       the policy pack (policy/): PulumiPolicy.yaml, its
 *                                                            package.json, the bundle dist/index.js, README.md
 *                                                            (docs/policy-pack.md); `npm install` in it, then
 *                                                            `pulumi preview --policy-pack <dir>`
 *   templates/<language>/                                    the `pulumi new` templates (templates/: typescript,
 *                                                            python, go, yaml, java), their tracked files;
 *                                                            typescript's carries the TypeScript SDK's tarball,
 *                                                            python's the wheel and java's the maven/ folder, which
 *                                                            their dependency files name by a path in the project
 *                                                            itself (`pulumi new` copies them into it)
 *   schema.json                                              the plugin's schema
 *   SHA256SUMS                                               `sha256sum -c SHA256SUMS` in the folder checks them all
 *
 * Deterministic: two builds of the same commit give the same bytes. Every archive we write has its entries sorted,
 * uid/gid 0, fixed modes (0755 launchers and node, 0644 the rest) and one mtime, SOURCE_DATE_EPOCH or else the commit's
 * time; gzip has no name and mtime 0. npm pack normalizes its tarballs the same way (fixed 1985 mtime, uid 0);
 * dist/ is rebuilt from clean so no stale file of an older build gets in. The Go .info's Time is that same time.
 *
 * The SDKs carry the schema's version, which must be package.json's (`npm run generate` otherwise).
 */
"use strict";
const { execFileSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const fflate = require("fflate");
const tarStream = require("tar-stream");
const plugin = require("./build-plugin.js");
const emulator = require("./build-emulator.js");
const { hostPlatform, nodeRuntimes } = require("./node-runtimes.js");
const policy = require("./build-policy.js");

const root = path.resolve(__dirname, "..");
const { version } = require(path.join(root, "package.json"));
const GO_MODULE = "github.com/pulumi-platform/native-sdks/go";
/** The platforms of the plugin archives, in the engine's naming. */
const PLATFORMS = [
  ["linux", "amd64"],
  ["linux", "arm64"],
  ["darwin", "amd64"],
  ["darwin", "arm64"],
  ["windows", "amd64"],
];

const say = (line) => console.error(`release: ${line}`);

/** SOURCE_DATE_EPOCH, else the time of the commit checked out, else 1980-01-01 (the earliest a zip can say). */
function sourceDateEpoch() {
  const fromEnv = process.env["SOURCE_DATE_EPOCH"];
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv)) return Number(fromEnv);
  try {
    const out = execFileSync("git", ["log", "-1", "--format=%ct", "HEAD"], { cwd: root, encoding: "utf8" });
    return Math.max(Number(out.trim()), 315532800);
  } catch {
    return 315532800;
  }
}

// ---- archives -------------------------------------------------------------------------------------------------
// Written by tar-stream (the tar) and fflate (gzip, zip and its CRC-32); what keeps the bytes reproducible is ours:
// entries sorted by name, fixed modes, uid/gid 0 and no owner names, one mtime, gzip without name or mtime.

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** ustar's blocks: a header, then the data padded with zeros to a whole block. */
const BLOCK = 512;
const padded = (size) => size + ((BLOCK - (size % BLOCK)) % BLOCK);

/**
 * A gzipped ustar archive of `entries` ({ name, data, mode, member? }): regular files only, sorted by name, uid/gid
 * 0, no user or group names, every mtime `mtime` (seconds); gzip without name or mtime and with the OS byte Unix,
 * so the bytes depend on nothing but the entries. An entry's `member`, when given, is its data (padded to a block)
 * already gzipped (scripts/node-runtimes.js's tarMember): the archive is then several gzip members one after the
 * other (RFC 1952; gzip, tar, Go's and Python's readers read them as one stream), ours around that one.
 */
async function tarGz(entries, mtime) {
  const sorted = [...entries].sort(byName);
  const raw = await tar(sorted, mtime);
  // fflate writes gzip's OS byte as Unix and, with mtime 0, no time (zlib's OS byte depends on its build).
  const gzip = (bytes) => Buffer.from(fflate.gzipSync(bytes, { level: 9, mtime: 0 }));
  const members = [];
  let start = 0;
  let offset = 0;
  for (const entry of sorted) {
    offset += BLOCK; // its header: one block, every name being shorter than ustar's 100 bytes (checked below)
    if (entry.member !== undefined) {
      members.push(gzip(raw.subarray(start, offset)), entry.member);
      start = offset + padded(entry.data.length);
    }
    offset += padded(entry.data.length);
  }
  if (raw.length !== offset + 2 * BLOCK) {
    throw new Error(`tar: ${raw.length} bytes, not the ${offset + 2 * BLOCK} of one header block per entry`);
  }
  members.push(gzip(raw.subarray(start)));
  return Buffer.concat(members);
}

/** The ustar bytes of `sorted` (see tarGz), ending with its two zero blocks. */
async function tar(sorted, mtime) {
  const pack = tarStream.pack();
  const chunks = [];
  pack.on("data", (chunk) => chunks.push(chunk));
  const ended = new Promise((resolve, reject) => {
    pack.on("end", resolve);
    pack.on("error", reject);
  });
  for (const entry of sorted) {
    const header = {
      name: entry.name,
      type: "file",
      size: entry.data.length,
      mode: entry.mode,
      mtime: new Date(mtime * 1000),
      uid: 0,
      gid: 0,
      uname: "",
      gname: "",
    };
    await new Promise((resolve, reject) =>
      pack.entry(header, entry.data, (error) => (error ? reject(error) : resolve())),
    );
  }
  pack.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/**
 * The Date whose local wall clock reads what the UTC clock reads at `seconds`: a zip's DOS time is a wall clock,
 * which fflate takes in local time, and ours is UTC whatever the machine's zone (main() also sets TZ=UTC, which
 * covers the hour a daylight-saving jump skips).
 */
function utcWallClock(seconds) {
  const utc = new Date(Math.max(seconds, 315532800) * 1000);
  return new Date(
    utc.getUTCFullYear(),
    utc.getUTCMonth(),
    utc.getUTCDate(),
    utc.getUTCHours(),
    utc.getUTCMinutes(),
    utc.getUTCSeconds(),
  );
}

/** A zip of `entries` ({ name, data }), sorted by name, deflated, every time `mtime` (seconds, as UTC). */
function zip(entries, mtime) {
  const files = {};
  const options = { level: 9, mtime: utcWallClock(mtime), os: 3, attrs: (0o100644 << 16) >>> 0 };
  for (const entry of [...entries].sort(byName)) {
    // fflate keeps the object's key order, which puts integer-like keys first: none of ours is one.
    if (/^\d+$/.test(entry.name))
      throw new Error(`zip: a name that is a number would be reordered: ${entry.name}`);
    files[entry.name] = [entry.data, options];
  }
  return Buffer.from(fflate.zipSync(files));
}

/** Every file under `dir`, as paths relative to it with `/` separators. */
function filesUnder(dir, prefix = "") {
  const files = [];
  for (const dirent of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
    if (dirent.isDirectory()) files.push(...filesUnder(dir, relative));
    else if (dirent.isFile()) files.push(relative);
  }
  return files;
}

function run(command, args, options = {}) {
  return execFileSync(command, args, {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 10 * 60_000,
    ...options,
  });
}

// ---- the artifacts ---------------------------------------------------------------------------------------------

/** The dynamic package, dist/ built from clean (a stale file of an older build would be packed too). */
function dynamicPackage(out) {
  fs.rmSync(path.join(root, "dist"), { recursive: true, force: true });
  return run("bash", [path.join(root, "scripts", "pack.sh"), out])
    .trim()
    .split("\n")
    .pop();
}

/**
 * The plugin and the emulator for every platform, each archive carrying that platform's Node.js (build-plugin.js
 * says why): one bundle of each, then one archive per platform. This machine's archive of each is started, with an
 * empty PATH, before anything is written.
 */
async function standaloneArchives(out, work, mtime) {
  const runtimes = nodeRuntimes(PLATFORMS.map(([os, arch]) => `${os}-${arch}`));
  const bundleFile = path.join(work, "plugin", `${plugin.name}.js`);
  await plugin.bundle(bundleFile);
  const pluginFiles = [{ name: `${plugin.name}.js`, data: fs.readFileSync(bundleFile) }];
  const emulatorFiles = await emulator.emulatorFiles();
  const host = runtimes.find((runtime) => runtime.platform === hostPlatform());
  if (host !== undefined) {
    const port = await plugin.smokeTest(
      plugin.archiveEntries(host, plugin.name, pluginFiles, plugin.ABOUT),
      plugin.name,
      ["127.0.0.1:1"],
      plugin.PORT_LINE,
    );
    say(`the ${host.platform} plugin started from an empty directory with an empty PATH (port ${port})`);
    await emulator.smokeTest(await emulator.emulatorEntries(host, emulatorFiles));
    say(`the ${host.platform} emulator started from an empty directory with an empty PATH`);
  }
  const files = [];
  for (const runtime of runtimes) {
    const pluginFile = path.join(out, `${plugin.name}-v${version}-${runtime.platform}.tar.gz`);
    const entries = plugin.archiveEntries(runtime, plugin.name, pluginFiles, plugin.ABOUT);
    fs.writeFileSync(pluginFile, await tarGz(entries, mtime));
    const emulatorFile = path.join(out, `${emulator.command}-v${version}-${runtime.platform}.tar.gz`);
    fs.writeFileSync(
      emulatorFile,
      await tarGz(await emulator.emulatorEntries(runtime, emulatorFiles), mtime),
    );
    files.push(pluginFile, emulatorFile);
  }
  return files;
}

/** The policy pack as its own folder: the pack's files and its bundle, versioned with the provider. */
async function policyPackArchive(out, work, mtime) {
  const manifest = JSON.parse(fs.readFileSync(path.join(policy.policyDir, "package.json"), "utf8"));
  if (manifest.version !== version) {
    throw new Error(`policy/package.json has version ${manifest.version}, package.json ${version}`);
  }
  const bundleFile = await policy.bundlePolicy(path.join(work, "policy", "index.js"));
  const file = path.join(out, `pulumi-platform-policy-v${version}.tar.gz`);
  const entry = (name, from) => ({ name, data: fs.readFileSync(from), mode: 0o644 });
  fs.writeFileSync(
    file,
    await tarGz(
      [
        entry("PulumiPolicy.yaml", path.join(policy.policyDir, "PulumiPolicy.yaml")),
        entry("package.json", path.join(policy.policyDir, "package.json")),
        entry("dist/index.js", bundleFile),
        entry("README.md", path.join(root, "docs", "policy-pack.md")),
        entry("LICENSE", path.join(root, "LICENSE")),
      ],
      mtime,
    ),
  );
  return file;
}

/** native-sdks/nodejs compiled into an installable package: the .js and .d.ts beside its package.json. */
function typescriptSdk(out, work) {
  const source = path.join(root, "native-sdks", "nodejs");
  const manifest = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8"));
  if (manifest.version !== version || manifest.pulumi?.version !== version) {
    throw new Error(
      `native-sdks/nodejs/package.json says ${manifest.version}, package.json ${version}: ` +
        "run `npm run generate`",
    );
  }
  const staged = path.join(work, "nodejs");
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  // No source maps: they would point at sources the package does not ship, by a path that depends on `work`.
  run(process.execPath, [
    tsc,
    "-p",
    path.join(source, "tsconfig.json"),
    "--outDir",
    staged,
    "--sourceMap",
    "false",
    "--declarationMap",
    "false",
  ]);
  fs.copyFileSync(path.join(source, "package.json"), path.join(staged, "package.json"));
  fs.copyFileSync(path.join(source, "README.md"), path.join(staged, "README.md"));
  fs.copyFileSync(path.join(root, "LICENSE"), path.join(staged, "LICENSE"));
  const name = run("npm", ["pack", "--silent", "--pack-destination", out], { cwd: staged }).trim();
  return path.join(out, name.split("\n").pop());
}

/** The Go SDK as a module proxy serves it (`go help goproxy`): list, .info, .mod and the module zip. */
function goModule(out, mtime) {
  const source = path.join(root, "native-sdks", "go");
  const goMod = fs.readFileSync(path.join(source, "go.mod"));
  const declared = /^module\s+(\S+)/m.exec(goMod.toString("utf8"))?.[1];
  if (declared !== GO_MODULE)
    throw new Error(`native-sdks/go/go.mod declares '${declared}', not ${GO_MODULE}`);
  const v = `v${version}`;
  const dir = path.join(out, "goproxy", ...GO_MODULE.split("/"), "@v");
  fs.mkdirSync(dir, { recursive: true });
  const prefix = `${GO_MODULE}@${v}/`;
  const entries = filesUnder(source).map((file) => ({
    name: prefix + file,
    data: fs.readFileSync(path.join(source, file)),
  }));
  // The module's own LICENSE: the Go module mirror and pkg.go.dev look for it at the module root.
  if (!entries.some((e) => e.name === `${prefix}LICENSE`)) {
    entries.push({ name: `${prefix}LICENSE`, data: fs.readFileSync(path.join(root, "LICENSE")) });
  }
  const time = new Date(mtime * 1000).toISOString().replace(/\.000Z$/, "Z");
  fs.writeFileSync(path.join(dir, `${v}.zip`), zip(entries, mtime));
  fs.writeFileSync(path.join(dir, `${v}.mod`), goMod);
  fs.writeFileSync(path.join(dir, `${v}.info`), `${JSON.stringify({ Version: v, Time: time })}\n`);
  fs.writeFileSync(path.join(dir, "list"), `${v}\n`);
  return dir;
}

/**
 * The Java SDK as a Maven repository folder (`maven/<group path>/<artifact>/<v>/`): native-sdks/java built by
 * `mvn package` from a copy (Maven writes target/ beside the sources), its jar reproducible through
 * project.build.outputTimestamp set to the release's file time, its pom as generated, and a .sha1 of each, which
 * Maven checks. Maven (`mvn` on PATH) downloads the SDK's dependencies and plugins into ~/.m2 the first time.
 * The folder.
 */
function javaSdk(out, mtime) {
  const source = path.join(root, "native-sdks", "java");
  const pom = fs.readFileSync(path.join(source, "pom.xml"), "utf8");
  const field = (name) => new RegExp(`^  <${name}>([^<]+)</${name}>$`, "m").exec(pom)?.[1];
  const [groupId, artifactId, pomVersion] = [field("groupId"), field("artifactId"), field("version")];
  if (pomVersion !== version) {
    throw new Error(
      `native-sdks/java/pom.xml says ${pomVersion}, package.json ${version}: run \`npm run generate\``,
    );
  }
  const probe = require("node:child_process").spawnSync("mvn", ["--version"], { stdio: "ignore" });
  if (probe.error) {
    throw new Error(
      `the Java SDK is built with Maven, and 'mvn' could not be run (${probe.error.message}): install Maven and a JDK 11 or later`,
    );
  }
  const copy = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "pulumi-platform-java-sdk-"));
  try {
    fs.cpSync(source, copy, { recursive: true });
    // Maven's jar plugin takes no time before 1980-01-01T00:00:02Z (a zip's DOS time counts in 2 s steps).
    const timestamp = new Date(Math.max(mtime, 315532802) * 1000).toISOString().replace(/\.000Z$/, "Z");
    run(
      "mvn",
      ["-B", "-q", "-Dstyle.color=never", `-Dproject.build.outputTimestamp=${timestamp}`, "package"],
      {
        cwd: copy,
        // Maven prints its errors on stdout: to our stderr, as the last line of our stdout is the folder.
        stdio: ["ignore", 2, "inherit"],
      },
    );
    const dir = path.join(out, "maven", ...groupId.split("."), artifactId, version);
    fs.mkdirSync(dir, { recursive: true });
    const files = [
      [path.join(copy, "target", `${artifactId}-${version}.jar`), `${artifactId}-${version}.jar`],
      [path.join(source, "pom.xml"), `${artifactId}-${version}.pom`],
    ];
    for (const [from, name] of files) {
      const data = fs.readFileSync(from);
      fs.writeFileSync(path.join(dir, name), data);
      fs.writeFileSync(path.join(dir, `${name}.sha1`), crypto.createHash("sha1").update(data).digest("hex"));
    }
    return path.join(out, "maven");
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** The virtual environment scripts/python-env.sh makes (cached; the last line it prints). */
function pythonEnvironment() {
  const stdout = execFileSync("bash", [path.join(root, "scripts", "python-env.sh")], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return stdout.trim().split("\n").pop();
}

/**
 * The Python SDK's wheel, when there is one. Built from a copy (setuptools writes build/ and *.egg-info beside the
 * sources, which are generated and drift-checked). No sdist: its gzip header carries the build time, so two builds
 * would differ.
 */
function pythonSdk(out, mtime) {
  const source = path.join(root, "native-sdks", "python");
  if (!fs.existsSync(source)) {
    say("no native-sdks/python: no Python wheel in this release");
    return [];
  }
  const python = process.env["PULUMI_PLATFORM_PYTHON"] || path.join(pythonEnvironment(), "bin", "python");
  const copy = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "pulumi-platform-python-sdk-"));
  try {
    fs.cpSync(source, copy, { recursive: true });
    const before = new Set(fs.readdirSync(out));
    // No isolation: the build backend comes from that Python's environment, so nothing is downloaded.
    run(python, ["-m", "build", "--no-isolation", "--wheel", "--outdir", out, copy], {
      env: { ...process.env, SOURCE_DATE_EPOCH: String(mtime) },
      stdio: ["ignore", "ignore", "inherit"],
    });
    return fs
      .readdirSync(out)
      .filter((f) => !before.has(f))
      .map((f) => path.join(out, f));
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * The `pulumi new` templates: each tracked file of templates/<language>, and the SDK files a template's dependency
 * file names by a path in the project itself (`file:pulumi-platform-native-<v>.tgz`, requirements.txt's
 * `--find-links .`, pom.xml's repository `file://${project.basedir}/maven`), which `pulumi new` copies into the
 * project with the rest. Go's module comes from the release's goproxy/ (GOPROXY), YAML needs none. Only tracked files: a checkout's node_modules/, venv/ or stack files never
 * get in.
 */
function templates(out, sdkFiles) {
  const listed = run("git", ["ls-files", "-z", "--", "templates"])
    .split("\0")
    .filter((f) => f !== "");
  if (listed.length === 0) throw new Error("no tracked file under templates/");
  for (const file of listed) {
    const target = path.join(out, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(path.join(root, file), target);
  }
  for (const [language, files] of Object.entries(sdkFiles)) {
    const dir = path.join(out, "templates", language);
    if (!fs.existsSync(path.join(dir, "Pulumi.yaml"))) throw new Error(`no template templates/${language}`);
    for (const file of files) fs.cpSync(file, path.join(dir, path.basename(file)), { recursive: true });
  }
}

/** SHA256SUMS over every file in `out` (paths relative to it, sorted), in `sha256sum -c`'s format. */
function checksums(out) {
  const lines = filesUnder(out)
    .filter((file) => file !== "SHA256SUMS")
    .sort()
    .map((file) => {
      const digest = crypto
        .createHash("sha256")
        .update(fs.readFileSync(path.join(out, file)))
        .digest("hex");
      return `${digest}  ${file}\n`;
    });
  fs.writeFileSync(path.join(out, "SHA256SUMS"), lines.join(""));
}

async function main() {
  // A zip's DOS times are wall-clock times: in UTC, every machine writes the same ones.
  process.env["TZ"] = "UTC";
  const started = Date.now();
  const out = path.resolve(process.argv[2] ?? path.join(root, "dist-release"));
  const mtime = sourceDateEpoch();
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const work = fs.mkdtempSync(path.join(require("node:os").tmpdir(), "pulumi-platform-release-"));
  try {
    say(`v${version}, file times ${new Date(mtime * 1000).toISOString()}, into ${out}`);
    dynamicPackage(out);
    await standaloneArchives(out, work, mtime);
    await policyPackArchive(out, work, mtime);
    const typescript = typescriptSdk(out, work);
    goModule(out, mtime);
    const python = pythonSdk(out, mtime);
    const java = javaSdk(out, mtime);
    templates(out, { typescript: [typescript], python, java: [java] });
    fs.copyFileSync(path.join(root, "schema.json"), path.join(out, "schema.json"));
    checksums(out);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  for (const file of filesUnder(out).sort()) {
    say(`${String(fs.statSync(path.join(out, file)).size).padStart(9)}  ${file}`);
  }
  say(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(out);
}

module.exports = { tarGz, zip, sourceDateEpoch, javaSdk, PLATFORMS, GO_MODULE };

if (require.main === module) {
  main().catch((err) => {
    console.error(`release: ${err.message}`);
    process.exit(1);
  });
}
