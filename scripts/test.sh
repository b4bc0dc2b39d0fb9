#!/usr/bin/env bash
# The project's one test command (README, `npm test`, .ci/run): starts a fresh machine's slow set-up in the
# background, builds, type-checks and lints, makes sure a Pulumi engine is available for the end-to-end suite, runs
# the unit and e2e jest suites, and ends with the ten slowest test files and one line `tests: N passed, N failed`,
# read from jest's --json results. Exits non-zero on any failure.
#
# Node.js and the Pulumi engine: everything runs on the current LTS, Node.js $suite_node (the script starts itself
# again under it, from scripts/node.sh, when `node` on PATH is another version; whatever it starts, the Pulumi
# programs included, finds that `node` first on PATH), with the newest engine (scripts/build-engine.sh's default: the
# installed @pulumi/pulumi's version). Then the samples (test/e2e/samples.e2e.test.ts: the quick start, a TypeScript,
# Go, Python and YAML program on the plugin, the command-line tools) run again on each of $sample_runs, a Node.js
# major version and an engine: the other supported Node.js versions, and the oldest engine the packages declare
# (package.json's @pulumi/pulumi range starts at it).
set -uo pipefail
cd "$(dirname "$0")/.."

suite_node=24
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$suite_node" ]; then
  bash scripts/node.sh "$suite_node" >/dev/null || { echo "tests: 0 passed, 1 failed"; exit 1; }
  exec bash scripts/node.sh "$suite_node" -- bash "$PWD/scripts/test.sh" "$@"
fi
oldest_engine=$(node -p 'require("./package.json").dependencies["@pulumi/pulumi"].replace(/^\^/, "")')
newest_engine=$(node -p 'require("@pulumi/pulumi/package.json").version')
sample_runs=("22:$newest_engine" "20:$oldest_engine")

# A fresh machine's slow set-up for the end-to-end suite, started now in the background at low priority, so that
# its downloads and builds overlap the build, the lint and the unit tests instead of coming after them (minutes on a
# cold machine; a warm one finds each cached at once):
#   - Debian's chromium: the access review page is checked in a real headless browser
#     (test/e2e/access-review.e2e.test.ts); installed once when missing (a fresh CI machine has none; root);
#   - rcodesign (scripts/rcodesign.sh): test/e2e/standalone.e2e.test.ts verifies the darwin archives with it;
#   - the release's Node.js runtimes and their archive members (scripts/node-runtimes.js --members);
#   - the oldest engine, which only the samples at the end run on (its own job: waited for before them).
# Each piece caches itself under a lock or by an atomic rename, so a test that reaches one first waits for it or
# builds it; a piece that fails here says so in its log and fails again, visibly, where it is needed.
warmup_dir=$(mktemp -d -t test-warmup.XXXXXX)
(
  if [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } ||
      echo "test: could not install chromium; the access review page test will fail" >&2
  fi
  nice -n 10 bash scripts/rcodesign.sh >/dev/null || echo "test: rcodesign could not be built (see above)" >&2
  nice -n 10 node scripts/node-runtimes.js --members >/dev/null ||
    echo "test: the release's Node.js runtimes could not be fetched (see above)" >&2
) >"$warmup_dir/set-up.log" 2>&1 &
warmup_pid=$!
(nice -n 10 env PULUMI_ENGINE_VERSION="$oldest_engine" bash scripts/build-engine.sh) >"$warmup_dir/oldest-engine.log" 2>&1 &
oldest_engine_pid=$!
# Waits for a background job and prints the end of its log (a failure there is then seen where it matters).
finish_warmup() {
  wait "$1" || true
  tail -n 40 "$2" | sed 's/^/  set-up: /' >&2
}

npm run --silent build && npm run --silent typecheck && npm run --silent lint || { echo "tests: 0 passed, 1 failed"; exit 1; }

# The end-to-end suite needs `pulumi` and its Node.js language host; scripts/pulumi-env.sh finds or builds them.
if ! engine_bin=$(bash scripts/build-engine.sh); then
  echo "test: could not build or find the Pulumi engine (see above)" >&2
  echo "tests: 0 passed, 1 failed"; exit 1
fi
export PULUMI_PLATFORM_ENGINE_BIN=$engine_bin

# The many-stacks test runs the engine's DIY backend on PostgreSQL (test/e2e/stacks.e2e.test.ts, a server it starts
# in a temporary directory): Debian's postgresql, installed once when missing (a fresh CI machine has none; root).
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; } ||
    echo "test: could not install postgresql; the many-stacks test will fail" >&2
fi

# Two jest runs: the in-process suites in parallel, then the end-to-end suite serially (it drives pulumi CLI
# processes on a two-core machine). Arguments go to both (e.g. a test name pattern).
results_dir=$(mktemp -d -t jest-results.XXXXXX)
status=0
npx jest --selectProjects unit --testTimeout=60000 --json --outputFile="$results_dir/unit.json" "$@" || status=1
finish_warmup "$warmup_pid" "$warmup_dir/set-up.log"
# Set-up the e2e files share (the plugin tarball, the generated SDK compiled) is made once per run, in a directory
# that lives as long as the run (test/e2e/harness.ts, oncePerRun); dist/ was built above.
mkdir "$results_dir/e2e-run"
PULUMI_PLATFORM_E2E_RUN_DIR="$results_dir/e2e-run" PULUMI_PLATFORM_BUILT=1 \
  npx jest --selectProjects e2e --testPathIgnorePatterns /node_modules/ 'samples\.e2e\.test\.ts$' --runInBand \
  --testTimeout=300000 --json --outputFile="$results_dir/e2e.json" "$@" || status=1
# The samples on the other Node.js versions and the oldest engine; the run's shared set-up serves them too.
finish_warmup "$oldest_engine_pid" "$warmup_dir/oldest-engine.log"
if ! oldest_engine_bin=$(PULUMI_ENGINE_VERSION=$oldest_engine bash scripts/build-engine.sh); then
  echo "test: could not build or find the Pulumi engine $oldest_engine (see above)" >&2
  status=1
fi
results=("$results_dir/unit.json" "$results_dir/e2e.json")
for run in "${sample_runs[@]}"; do
  node_major=${run%%:*} engine=${run#*:}
  bin=$engine_bin
  [ "$engine" = "$oldest_engine" ] && bin=$oldest_engine_bin
  echo "test: the samples on Node.js $node_major, engine $engine" >&2
  results+=("$results_dir/samples-node$node_major-engine$engine.json")
  PULUMI_PLATFORM_E2E_RUN_DIR="$results_dir/e2e-run" PULUMI_PLATFORM_BUILT=1 PULUMI_ENGINE_VERSION=$engine \
    PULUMI_PLATFORM_ENGINE_BIN=$bin PULUMI_PLATFORM_SAMPLE_NODE=$node_major PULUMI_PLATFORM_SAMPLE_ENGINE=$engine \
    bash scripts/node.sh "$node_major" -- npx jest --selectProjects e2e --runInBand --testTimeout=300000 --json \
    --outputFile="${results[-1]}" --passWithNoTests test/e2e/samples.e2e.test.ts "$@" || status=1
done
node -e '
  const fs = require("fs");
  const path = require("path");
  let passed = 0, failed = 0, total = 0;
  const files = [];
  for (const file of process.argv.slice(1)) {
    if (!fs.existsSync(file)) { failed += 1; continue; }      // a run that crashed before writing results
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    passed += r.numPassedTests;
    failed += r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
    total += r.numTotalTests;
    const run = /samples-(.*)\.json$/.exec(file);
    for (const t of r.testResults)
      files.push({ name: path.relative(process.cwd(), t.name) + (run ? ` (${run[1]})` : ""), ms: t.endTime - t.startTime });
  }
  // Where the suite spends its time: a test file that grows slow shows up here before CI hits its limit.
  files.sort((a, b) => b.ms - a.ms);
  console.log("slowest test files:");
  for (const f of files.slice(0, 10)) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name}`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  if (total === 0 || failed > 0) process.exitCode = 1;
' "${results[@]}" || status=1
rm -rf "$results_dir" "$warmup_dir"
exit $status
