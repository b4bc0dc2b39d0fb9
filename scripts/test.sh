#!/usr/bin/env bash
# The project's one test command (README, `npm test`, .ci/run): builds the package, makes sure a Pulumi
# engine is available for the end-to-end suite, runs every jest project, and ends with one line
# `tests: N passed, N failed` read from jest's --json results. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

npm run --silent build || { echo "tests: 0 passed, 1 failed"; exit 1; }

# The end-to-end suite needs `pulumi` and its Node.js language host; scripts/pulumi-env.sh finds or builds them.
if ! engine_bin=$(bash scripts/build-engine.sh); then
  echo "test: could not build or find the Pulumi engine (see above)" >&2
  echo "tests: 0 passed, 1 failed"; exit 1
fi
export PULUMI_PLATFORM_ENGINE_BIN=$engine_bin

results=$(mktemp -t jest-results.XXXXXX.json)
npx jest --json --outputFile="$results" "$@"
status=$?
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites || 0);
  console.log(`tests: ${r.numPassedTests} passed, ${failed} failed`);
  if (r.numTotalTests === 0) process.exitCode = 1;
' "$results" || { echo "tests: 0 passed, 1 failed"; status=1; }
rm -f "$results"
exit $status
