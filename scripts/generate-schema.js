#!/usr/bin/env node
/**
 * Writes schema.json (the Pulumi package schema) at the repository root from the provider's zod schemas.
 *
 *   npm run build && npm run schema      # uses the compiled dist/provider/schema.js
 *   node scripts/generate-schema.js       # falls back to ts-node on provider/schema.ts when dist is absent
 *   node scripts/generate-schema.js --check   # exits 1 if schema.json differs from the code
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { loadProviderModule } = require("./provider-module");

const root = path.resolve(__dirname, "..");
const target = path.join(root, "schema.json");

function main() {
  const text = loadProviderModule("schema").renderPackageSchema();
  if (process.argv.includes("--check")) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
    if (current !== text) {
      console.error("schema.json is out of date: run `npm run generate`.");
      process.exit(1);
    }
    console.log("schema.json is up to date.");
  } else {
    fs.writeFileSync(target, text);
    const schema = JSON.parse(text);
    console.log(
      `wrote schema.json: ${Object.keys(schema.resources).length} resources, ${Object.keys(schema.functions).length} functions, ${Object.keys(schema.types).length} types`,
    );
  }
}

/** What this generator writes, relative to the repository. */
const outputs = () => [path.relative(root, target)];

if (require.main === module) main();

module.exports = { outputs };
