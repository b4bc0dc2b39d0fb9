#!/usr/bin/env node
/**
 * Copies the gRPC face's .proto files (emulator/grpc/proto) next to the compiled loader in dist/, which tsc does
 * not do: emulator/grpc/protos.ts finds them beside itself, in the sources and in the built package alike. The
 * old copy is removed first, so a deleted .proto does not linger in dist. Part of `npm run build`.
 *
 *   node scripts/copy-protos.js [package dir]   # default: the repository root
 */
"use strict";
const { cpSync, rmSync } = require("node:fs");
const { join, resolve } = require("node:path");

const PROTO_DIR = join("emulator", "grpc", "proto");

function copyProtos(root) {
  const from = join(root, PROTO_DIR);
  const to = join(root, "dist", PROTO_DIR);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  return to;
}

if (require.main === module) copyProtos(resolve(process.argv[2] ?? join(__dirname, "..")));

module.exports = { copyProtos };
