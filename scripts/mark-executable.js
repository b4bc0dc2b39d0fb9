#!/usr/bin/env node
/**
 * Gives every command that package.json's `bin` names the executable bit, after `tsc` has written it (tsc writes
 * 0644, and npm sets the bit only when it first links a package). Without this step, `npx platform-emulator` in a
 * checkout fails with "Permission denied" after a clean rebuild. Part of `npm run build`.
 *
 *   node scripts/mark-executable.js [package dir]   # default: the repository root
 */
"use strict";
const { chmodSync, statSync } = require("node:fs");
const { join, resolve } = require("node:path");

function markExecutable(root) {
  const manifest = require(join(root, "package.json"));
  const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
  for (const bin of bins) {
    const file = join(root, bin);
    // Read and execute for everyone who may read it, as npm links bins (mode | 0o111 where readable).
    const mode = statSync(file).mode & 0o777;
    chmodSync(file, mode | ((mode & 0o444) >> 2));
  }
  return bins;
}

if (require.main === module) markExecutable(resolve(process.argv[2] ?? join(__dirname, "..")));

module.exports = { markExecutable };
