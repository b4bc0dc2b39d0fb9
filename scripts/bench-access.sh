#!/usr/bin/env bash
# npm run bench:access: 1,000 role bindings held by one GroupAccess against 1,000 RoleBinding resources, under the
# real engine with the CLI's defaults at 50 ms of API latency (bench/access.ts -> bench/results/access.json).
# Drives the real engine for minutes: not part of npm test; on a shared machine, run it under the e2e lock.
# Env: BENCH_ACCESS_BINDINGS (1000), BENCH_ACCESS_LATENCY_MS (50), BENCH_ACCESS_FORMS (group-access,role-binding).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { echo "bench:access: $*" >&2; }

say "building (npx tsc -p tsconfig.build.json)"
npx tsc -p tsconfig.build.json >/dev/null || say "tsc reported errors (dist/ emitted anyway; see npm run typecheck)"
[ -f dist/provider/index.js ] && [ -f dist/emulator/cli.js ] || { say "dist/ was not built"; exit 1; }
bash scripts/install-local.sh --no-build bench/access
# The whole run is bounded (bench/access.ts also bounds each command).
TS_NODE_TRANSPILE_ONLY=1 timeout 3600 npx ts-node bench/access.ts
