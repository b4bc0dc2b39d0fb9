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

const root = path.resolve(__dirname, "..");
const target = path.join(root, "schema.json");

/** Newest modification time of the TypeScript sources the schema is derived from. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function loadSchemaModule() {
  const compiled = path.join(root, "dist", "provider", "schema.js");
  const sources = Math.max(
    newestSource(path.join(root, "provider")),
    newestSource(path.join(root, "sdk", "schemas")),
  );
  // A stale build would write a stale schema: use the compiled module only when it is newer than the sources.
  if (fs.existsSync(compiled) && fs.statSync(compiled).mtimeMs >= sources) return require(compiled);
  try {
    require("ts-node").register({ transpileOnly: true, project: path.join(root, "tsconfig.json") });
  } catch {
    console.error(
      "dist/provider/schema.js is missing and ts-node is unavailable: run `npm run build` first.",
    );
    process.exit(2);
  }
  return require(path.join(root, "provider", "schema.ts"));
}

const text = loadSchemaModule().renderPackageSchema();
if (process.argv.includes("--check")) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : "";
  if (current !== text) {
    console.error("schema.json is out of date: run `npm run schema`.");
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
