#!/usr/bin/env bash
# npm run bench: the benchmarks of bench/README.md, separate from the tests.
#   1. builds the package (tsc) and installs it into bench/stack (scripts/install-local.sh);
#   2. bench/emulator.ts: emulator requests/s and latency over 50,000 groups, ms per create of an identity with its
#      binding at 1,000 / 5,000 / 20,000 -> bench/results/emulator.json;
#      bench/grpc.ts: the same get, list of 200 and create through the gRPC face and its REST twin, with the ratio
#      -> bench/results/grpc.json;
#      bench/storage.ts: ms per create in memory vs --data at 1,000 / 20,000 / 50,000 groups -> bench/results/storage.json;
#   3. bench/stack.ts: API calls per operation; up / no-op up / refresh / destroy at 0, 50 and 150 ms of API latency,
#      wall and CPU per process, pulumi-platform vs the reference minimal provider (bench/minimal) vs the raw SDK;
#      state size -> bench/results/stack.json;
#   4. bench/access-review.ts: platform-access review of an organization of 3,000 objects: API calls (at most one
#      list per kind plus pages) and wall time per format (under 2 s); at 3,000 and 30,000 objects every output's size
#      and time (review text, JSON, CSV, Markdown, --since; what-can of the owner) and the HTML page's size, build
#      time, first paint and filter time in chromium -> bench/results/access-review.json;
#      bench/preview-access.ts: the quick start's preview with and without the access review (impact, preflight);
#      bench/access-plan.ts: what the access plan's summary adds (the pack's rule; platform-access plan: calls, ms);
#   5. bench/access.ts (also `npm run bench:access`): 1,000 bindings in one GroupAccess (batched creates) vs 1,000
#      RoleBindings, and the organization of step 3 with one GroupAccess per group vs one RoleBinding per binding, at
#      50 ms, the CLI's defaults -> bench/results/access.json;
#   6. bench/adopt.ts: adoption of 3,003 objects, state-first against pulumi import --file, and the first and second
#      up after it on the newest and the oldest engine -> bench/results/adopt.json;
#      bench/stacks.ts: platform-import report over 50 stacks of 100 resources, file and PostgreSQL backends: wall
#      time and engine invocations -> bench/results/stacks.json;
#      bench/plugin-startup.ts: the plugin's start-up (wall and CPU ms) and its CPU on bench/stack's preview, on the
#      node on PATH (main 564f344) against its own Node.js, with and without the code cache -> bench/results/plugin-startup.json;
#   7. bench/cli-startup.ts: start-up of each built tool: --help of each tool and command, and platform-access review
#      of the quick start's organization (wall and CPU seconds; fails over 0.3 s / 0.6 s) -> bench/results/cli-startup.json;
#   8. merges emulator.json and stack.json into bench/results/latest.json and prints the tables.
# Exits non-zero if a step fails or an operation makes more API calls than its minimum.
# Env: BENCH_SKIP_EMULATOR=1 / BENCH_SKIP_GRPC=1 / BENCH_SKIP_STORAGE=1 / BENCH_SKIP_STACK=1 / BENCH_SKIP_ACCESS_REVIEW=1 / BENCH_SKIP_PREVIEW_ACCESS=1 / BENCH_SKIP_ACCESS_PLAN=1 / BENCH_SKIP_ACCESS=1 / BENCH_SKIP_ADOPT=1 / BENCH_SKIP_STACKS=1 / BENCH_SKIP_CLI_STARTUP=1 / BENCH_SKIP_PLUGIN_STARTUP=1 to skip a part; BENCH_LARGE=1 adds the 1,000-resource runs (minutes);
# BENCH_LATENCIES (0,50,150); the sizes of bench/emulator.ts and bench/stack.ts.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { echo "bench: $*" >&2; }

say "building (npx tsc -p tsconfig.build.json)"
# Type errors in files under development elsewhere do not stop tsc from emitting; a missing dist/ does.
npx tsc -p tsconfig.build.json >/dev/null || say "tsc reported errors (dist/ emitted anyway; see npm run typecheck)"
[ -f dist/provider/index.js ] && [ -f dist/emulator/cli.js ] || { say "dist/ was not built"; exit 1; }

export TS_NODE_TRANSPILE_ONLY=1
status=0
if [ "${BENCH_SKIP_EMULATOR:-0}" != 1 ]; then
  say "emulator: bench/emulator.ts"
  BENCH_BUILD=0 npx ts-node bench/emulator.ts || status=$?
fi
if [ "${BENCH_SKIP_GRPC:-0}" != 1 ]; then
  say "gRPC vs REST: bench/grpc.ts (get, list of 200, create through each face of one emulator)"
  BENCH_BUILD=0 npx ts-node bench/grpc.ts || status=$?
fi
if [ "${BENCH_SKIP_STORAGE:-0}" != 1 ]; then
  say "emulator storage: bench/storage.ts (npm run bench:storage runs it alone)"
  BENCH_BUILD=0 npx ts-node bench/storage.ts || status=$?
fi
if [ "${BENCH_SKIP_ACCESS_REVIEW:-0}" != 1 ]; then
  say "access review: bench/access-review.ts (platform-access review of 3,000 objects: calls and wall time)"
  npx ts-node bench/access-review.ts || status=$?
fi
if [ "${BENCH_SKIP_PREVIEW_ACCESS:-0}" != 1 ]; then
  say "preview access review: bench/preview-access.ts (the quick start's preview with and without it)"
  npx ts-node bench/preview-access.ts || status=$?
fi
if [ "${BENCH_SKIP_ACCESS_PLAN:-0}" != 1 ]; then
  say "access plan: bench/access-plan.ts (the summary's cost on the quick start's preview, and at 3,000 objects)"
  npx ts-node bench/access-plan.ts || status=$?
fi
if [ "${BENCH_SKIP_STACK:-0}" != 1 ]; then
  say "stack: installing the package into bench/stack"
  bash scripts/install-local.sh --no-build bench/stack
  # The reference minimal dynamic provider and the native variant's classes, installed the same way (real
  # directories under node_modules).
  for variant in minimal native; do
    rm -rf "bench/stack/node_modules/pulumi-platform-bench-$variant"
    cp -R "bench/$variant" "bench/stack/node_modules/pulumi-platform-bench-$variant"
  done
  # The native plugin, when this checkout can build it: its tarball is installed into each native stack.
  if node -e 'process.exit(require("./package.json").scripts.plugin ? 0 : 1)'; then
    say "stack: building the native plugin (npm run plugin)"
    BENCH_PLUGIN_TARBALL=$(npm run -s plugin | tail -n 1)
    export BENCH_PLUGIN_TARBALL
  fi
  say "stack: bench/stack.ts (API calls, then up / no-op up / refresh / destroy per latency and variant, then the raw SDK)"
  npx ts-node bench/stack.ts || status=$?
fi
if [ "${BENCH_SKIP_PLUGIN_STARTUP:-0}" != 1 ]; then
  say "plugin start-up: bench/plugin-startup.ts (before and after it carried its own Node.js; the 200-resource preview)"
  npx ts-node bench/plugin-startup.ts || status=$?
fi

if [ "${BENCH_SKIP_ACCESS:-0}" != 1 ]; then
  say "access: installing the package into bench/access; bench/access.ts"
  bash scripts/install-local.sh --no-build bench/access
  timeout 3600 npx ts-node bench/access.ts || status=$?
fi

if [ "${BENCH_SKIP_ADOPT:-0}" != 1 ]; then
  say "adoption: bench/adopt.ts (3,003 objects, state-first against pulumi import --file)"
  npx ts-node bench/adopt.ts || status=$?
fi

if [ "${BENCH_SKIP_STACKS:-0}" != 1 ]; then
  say "many stacks: bench/stacks.ts (the report over 50 stacks of 100 resources, file and PostgreSQL backends)"
  npx ts-node bench/stacks.ts || status=$?
fi

if [ "${BENCH_SKIP_CLI_STARTUP:-0}" != 1 ]; then
  say "command-line start-up: bench/cli-startup.ts (--help of every command, a review of the quick start's organization)"
  npx ts-node bench/cli-startup.ts || status=$?
fi

npx ts-node bench/report.ts
exit "$status"
