#!/usr/bin/env node
/**
 * Regenerates every generated file of the repository, in the order they depend on each other, or checks that none
 * has drifted from its sources. The one list of generators is GENERATORS below: a new generator is one entry there
 * (a script under scripts/ that writes its files, exports `outputs()`, the paths it writes relative to the repository,
 * and with `--check` exits non-zero, saying what differs, when they are out of date), and both `npm run generate` and
 * the drift tests pick it up. What a generator writes is named as generated (test/repository.test.ts).
 *
 *   npm run generate                      # runs every generator in order
 *   npm run generate -- --check           # (or `npm run generate:check`) exits 1 if any generated file drifted
 *   npm run generate -- --only types,docs # just these, still in order
 *   npm run generate -- --no-engine       # leaves out the generators that need the Pulumi engine (the SDKs)
 *   npm run generate -- --outputs         # prints, as JSON, what each generator writes (writes nothing)
 *
 * The unit drift test (test/provider/declarations.test.ts) checks each generator that needs no engine; the SDKs'
 * check, which runs `pulumi package gen-sdk`, is in the end-to-end suite (test/e2e/native-sdks.e2e.test.ts).
 */
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

/**
 * In the order they must run: each reads what the ones before it wrote.
 *   - name: what `--only` takes and what the old `npm run <name>` runs;
 *   - script: the generator under scripts/;
 *   - writes: what it generates, for messages and docs;
 *   - engine: true when it needs the Pulumi engine (scripts/pulumi-env.sh).
 */
const GENERATORS = [
  {
    name: "protos",
    script: "generate-protos.js",
    writes: "emulator/grpc/descriptor-set.generated.ts (from emulator/grpc/proto, with buf)",
  },
  {
    name: "wire",
    script: "generate-wire.js",
    writes: "sdk/schemas/openapi.generated.ts (from spec/openapi-v2beta1.json)",
  },
  { name: "schema", script: "generate-schema.js", writes: "schema.json" },
  { name: "types", script: "generate-types.js", writes: "provider/types.generated.ts" },
  {
    name: "classes",
    script: "generate-classes.js",
    writes: "the resource classes, provider modules and data-source functions under provider/<module>/",
  },
  { name: "docs", script: "generate-docs.js", writes: "docs/reference.md and the registry pages in docs/" },
  {
    name: "cli",
    script: "generate-cli-docs.js",
    writes:
      "the command-line tools' options in docs/access-review.md, docs/adopting.md and emulator/README.md",
  },
  { name: "sdks", script: "gen-sdks.js", writes: "native-sdks/", engine: true },
];

function parse(argv) {
  const only = argv.indexOf("--only");
  const names = only >= 0 ? (argv[only + 1] ?? "").split(",").filter(Boolean) : undefined;
  const unknown = (names ?? []).filter((n) => !GENERATORS.some((g) => g.name === n));
  if (unknown.length > 0 || (only >= 0 && names.length === 0)) {
    throw new Error(
      `--only takes a comma-separated list of ${GENERATORS.map((g) => g.name).join(", ")}; got "${argv[only + 1] ?? ""}"`,
    );
  }
  return {
    check: argv.includes("--check"),
    outputs: argv.includes("--outputs"),
    noEngine: argv.includes("--no-engine"),
    names,
  };
}

/** What each generator writes, from its script's own `outputs()`: { name, script, outputs } in GENERATORS' order. */
function outputsOf(generators) {
  return generators.map(({ name, script }) => {
    const module = require(path.join(__dirname, script));
    if (typeof module.outputs !== "function") throw new Error(`scripts/${script} exports no outputs()`);
    return { name, script, outputs: module.outputs() };
  });
}

function main(argv) {
  let options;
  try {
    options = parse(argv);
  } catch (error) {
    console.error(error.message);
    return 2;
  }
  const chosen = GENERATORS.filter(
    (g) => (options.names === undefined || options.names.includes(g.name)) && !(options.noEngine && g.engine),
  );
  if (options.outputs) {
    console.log(JSON.stringify(outputsOf(chosen), null, 2));
    return 0;
  }
  const failed = [];
  for (const generator of chosen) {
    const args = [path.join(__dirname, generator.script), ...(options.check ? ["--check"] : [])];
    const run = spawnSync(process.execPath, args, { stdio: "inherit" });
    if (run.status !== 0) {
      failed.push(generator.name);
      // Writing: what comes next reads this one's output, so stop. Checking: report every drifted file at once.
      if (!options.check) break;
    }
  }
  if (failed.length > 0) {
    console.error(
      options.check
        ? `out of date: ${failed.join(", ")}; run \`npm run generate\``
        : `generator failed: ${failed[0]}`,
    );
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { GENERATORS };
