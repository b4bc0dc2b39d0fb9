/**
 * Loads a module of the provider for the generators (schema.json, provider/types.generated.ts, the docs): the compiled one
 * under dist/ when it is newer than every source it is built from, else the TypeScript source through ts-node.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

/** Newest modification time of the TypeScript sources the generated files are derived from. */
function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** `name` is a module under provider/, e.g. "schema" or "catalogue". */
function loadProviderModule(name) {
  const compiled = path.join(root, "dist", "provider", `${name}.js`);
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
      `dist/provider/${name}.js is missing and ts-node is unavailable: run \`npm run build\` first.`,
    );
    process.exit(2);
  }
  return require(path.join(root, "provider", `${name}.ts`));
}

module.exports = { loadProviderModule };
