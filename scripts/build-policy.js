#!/usr/bin/env node
/**
 * `npm run policy` (and `npm run build`): bundles the policy pack (policy/index.ts and what it imports: its rules,
 * re2js, the provider's duration parser) into policy/dist/index.js, the `main` of policy/package.json, which the
 * engine runs through @pulumi/pulumi's cmd/run-policy-pack. @pulumi/policy and @pulumi/pulumi stay outside the
 * bundle: the pack must share the one copy the runner loads (found from the pack's directory upwards: the
 * repository's node_modules here, the pack's own after `npm install` in a release copy). JavaScript, because the
 * runner would otherwise type-check TypeScript on every preview.
 *
 * scripts/release.js reuses bundlePolicy() to pack the same bundle.
 */
"use strict";
const path = require("node:path");
const esbuild = require("esbuild");

const root = path.resolve(__dirname, "..");
const policyDir = path.join(root, "policy");

/** Writes the bundle to `outfile` (default policy/dist/index.js) and returns its path. */
async function bundlePolicy(outfile = path.join(policyDir, "dist", "index.js")) {
  await esbuild.build({
    entryPoints: [path.join(policyDir, "index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["@pulumi/policy", "@pulumi/pulumi", "@pulumi/pulumi/*"],
    logLevel: "warning",
  });
  return outfile;
}

module.exports = { bundlePolicy, policyDir };

if (require.main === module) {
  bundlePolicy().then(
    (file) => console.log(file),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
