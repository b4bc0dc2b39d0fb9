#!/usr/bin/env node
/**
 * Generates native-sdks/ (the SDKs of the native provider plugin) from schema.json with the engine's own
 * generator: `pulumi package gen-sdk schema.json --language <nodejs|go|python|java>` under our offline engine
 * (scripts/pulumi-env.sh; the generators run in our language hosts, scripts/engine/langhost, and Java's in
 * upstream's Java host, which scripts/build-engine.sh builds). Java's generator writes no build files here
 * (`buildFiles: "none"`: its are Gradle's): this script writes the Maven pom.xml and the plugin.json resource.
 *
 *   npm run sdks                              # rewrites native-sdks/{nodejs,go,python,java} and native-sdks/README.md
 *   node scripts/gen-sdks.js --out <dir>      # the same into another directory
 *   node scripts/gen-sdks.js --check          # exits 1, listing the files, if native-sdks/ differs from what the
 *                                             # current schema.json generates (test/e2e/native-sdks.e2e.test.ts)
 *
 * The package names come from schema.json's `language` section: `language.nodejs.packageName` (the npm package,
 * `pulumi-platform-native`) and `language.go.importBasePath` (`github.com/pulumi-platform/native-sdks/go/platform`;
 * the Go module is its parent, native-sdks/go). They differ from `pulumi-platform` (the dynamic-provider package)
 * and from sdk/ (the API client) on purpose.
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const schemaPath = path.join(root, "schema.json");
const defaultOut = path.join(root, "native-sdks");
const languages = ["nodejs", "go", "python", "java"];

const readme = `# native-sdks — GENERATED, do not edit

The SDKs of the native provider plugin \`pulumi-resource-platform\`, generated from [schema.json](../schema.json) by
\`npm run sdks\` (scripts/gen-sdks.js, which runs \`pulumi package gen-sdk\` under our offline engine). Do not edit
anything here by hand: change the schema (or the generator) and run \`npm run sdks\` again. The end-to-end suite
fails when this directory differs from what the current schema.json generates.

| directory | what it is |
| --- | --- |
| \`nodejs/\` | the TypeScript SDK, npm package \`pulumi-platform-native\` |
| \`go/\` | the Go SDK, module \`github.com/pulumi-platform/native-sdks/go\`, packages under \`.../go/platform\` |
| \`python/\` | the Python SDK, package \`pulumi_platform_native\` (typed: \`py.typed\`); \`bash scripts/python-env.sh --sdk\` builds its wheel |
| \`java/\` | the Java SDK, Maven \`com.pulumiplatform:platform\`, packages \`com.pulumiplatform.platform(.iam, ...)\`; its \`pom.xml\` (no Gradle) builds it with \`mvn package\` |

Not to be confused with \`pulumi-platform\` (the dynamic-provider package at the repository root) or \`sdk/\` (the
typed API client).
`;

/** Writes the SDKs and the README into outDir (languages' directories are replaced by gen-sdk). */
function generate(outDir) {
  // gen-sdk runs in a scratch directory, so a Pulumi.yaml around the repository plays no part.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gen-sdks-"));
  try {
    fs.mkdirSync(outDir, { recursive: true });
    for (const language of languages) {
      execFileSync(
        "bash",
        [
          path.join(root, "scripts", "pulumi-env.sh"),
          "pulumi",
          "package",
          "gen-sdk",
          schemaPath,
          "--language",
          language,
          "--out",
          outDir,
        ],
        { cwd: scratch, stdio: ["ignore", "inherit", "inherit"], timeout: 10 * 60_000 },
      );
    }
    writeJavaBuildFiles(path.join(outDir, "java"), JSON.parse(fs.readFileSync(schemaPath, "utf8")));
    fs.writeFileSync(path.join(outDir, "README.md"), readme);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** `text` with XML's five special characters escaped. */
function xml(text) {
  const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]);
}

/**
 * What Pulumi's Java generator leaves to a build (its Gradle files, which we do not use: \`buildFiles: "none"\`):
 * the Maven \`pom.xml\` (group: \`language.java.basePackage\`, artifact: the package's name, as its Gradle files
 * would publish it; dependencies: \`language.java.dependencies\`) and the \`plugin.json\` resource by which a Java
 * program tells the engine which plugin (name, version, server) its packages need.
 */
function writeJavaBuildFiles(dir, schema) {
  const java = schema.language?.java;
  if (!java?.basePackage || !java.dependencies) {
    throw new Error(
      "schema.json: language.java needs basePackage and dependencies for the Java SDK's pom.xml",
    );
  }
  const resources = path.join(dir, "src", "main", "resources", ...java.basePackage.split("."), schema.name);
  const plugin = {
    resource: true,
    name: schema.name,
    version: schema.version,
    server: schema.pluginDownloadURL,
  };
  fs.mkdirSync(resources, { recursive: true });
  fs.writeFileSync(path.join(resources, "plugin.json"), `${JSON.stringify(plugin, null, 2)}\n`);
  const dependencies = Object.entries(java.dependencies)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([coordinates, version]) => {
      const [groupId, artifactId] = coordinates.split(":");
      return [
        "    <dependency>",
        `      <groupId>${xml(groupId)}</groupId>`,
        `      <artifactId>${xml(artifactId)}</artifactId>`,
        `      <version>${xml(version)}</version>`,
        "    </dependency>",
      ].join("\n");
    });
  // Plugin versions pinned (Maven's defaults are old): the jar plugin's project.build.outputTimestamp makes the jar
  // reproducible (scripts/release.js sets it to the release's file time).
  const pluginVersions = [
    ["maven-resources-plugin", "3.3.1"],
    ["maven-compiler-plugin", "3.13.0"],
    ["maven-jar-plugin", "3.4.2"],
    ["maven-install-plugin", "3.1.3"],
  ];
  const pom = `<?xml version="1.0" encoding="UTF-8"?>
<!-- GENERATED by scripts/gen-sdks.js from schema.json: do not edit. -->
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${xml(java.basePackage)}</groupId>
  <artifactId>${xml(schema.name)}</artifactId>
  <version>${xml(schema.version)}</version>
  <packaging>jar</packaging>
  <name>${xml(schema.displayName ?? schema.name)}</name>
  <description>${xml(schema.description)}</description>
  <url>${xml(schema.homepage)}</url>
  <licenses>
    <license>
      <name>${xml(schema.license)}</name>
    </license>
  </licenses>
  <scm>
    <url>${xml(schema.repository)}</url>
  </scm>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>11</maven.compiler.release>
    <project.build.outputTimestamp>1980-01-01T00:00:02Z</project.build.outputTimestamp>
  </properties>
  <dependencies>
${dependencies.join("\n")}
  </dependencies>
  <build>
    <plugins>
${pluginVersions
  .map(
    ([artifactId, version]) =>
      `      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n        <artifactId>${artifactId}</artifactId>\n        <version>${version}</version>\n      </plugin>`,
  )
  .join("\n")}
    </plugins>
  </build>
</project>
`;
  fs.writeFileSync(path.join(dir, "pom.xml"), pom);
}

/** Relative paths of every file under dir, sorted. */
function listFiles(dir, prefix = "") {
  if (!fs.existsSync(dir)) return [];
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...listFiles(path.join(dir, entry.name), relative));
    else files.push(relative);
  }
  return files.sort();
}

/**
 * The files among `files` (relative to dir) that git ignores there and does not track, by the .gitignore files that
 * apply (such as what `pip install ./native-sdks/python` leaves: build/, *.egg-info/). None when dir is not in a
 * git work tree.
 */
function ignoredFiles(dir, files) {
  if (files.length === 0) return new Set();
  const check = spawnSync("git", ["check-ignore", "-z", "--stdin"], {
    cwd: dir,
    input: files.map((file) => file.split(path.sep).join("/")).join("\0"),
    encoding: "utf8",
  });
  // 0: some are ignored, 1: none is, 128: not a git work tree (or no git).
  if (check.status !== 0) return new Set();
  return new Set(
    check.stdout
      .split("\0")
      .filter(Boolean)
      .map((file) => file.split("/").join(path.sep)),
  );
}

/**
 * The files that differ between two trees: added, removed or changed, one line each. What git ignores in the
 * actual tree is not part of it (the e2e suite and a contributor's local installs leave such files behind).
 */
function differences(expectedDir, actualDir) {
  const expected = new Set(listFiles(expectedDir));
  const present = listFiles(actualDir);
  const ignored = ignoredFiles(actualDir, present);
  const actual = new Set(present.filter((file) => !ignored.has(file)));
  const lines = [];
  for (const file of [...new Set([...expected, ...actual])].sort()) {
    if (!actual.has(file)) lines.push(`missing: ${file}`);
    else if (!expected.has(file)) lines.push(`not generated (remove it): ${file}`);
    else if (
      !fs.readFileSync(path.join(expectedDir, file)).equals(fs.readFileSync(path.join(actualDir, file)))
    ) {
      lines.push(`differs: ${file}`);
    }
  }
  return lines;
}

function main(argv) {
  if (argv.includes("--check")) {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "native-sdks-"));
    try {
      generate(fresh);
      const lines = differences(fresh, defaultOut);
      if (lines.length > 0) {
        console.error(
          `native-sdks/ is out of date with schema.json: run \`npm run sdks\`.\n${lines.join("\n")}`,
        );
        return 1;
      }
      console.log("native-sdks/ is up to date.");
      return 0;
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  }
  const outIndex = argv.indexOf("--out");
  const outDir = outIndex >= 0 ? path.resolve(argv[outIndex + 1] ?? "") : defaultOut;
  generate(outDir);
  console.log(`wrote ${languages.map((l) => path.join(outDir, l)).join(" and ")}`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

/** What this generator writes, relative to the repository: a directory, wholly generated. */
const outputs = () => [`${path.relative(root, defaultOut)}/`];

module.exports = { differences, outputs };
