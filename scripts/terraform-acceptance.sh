#!/usr/bin/env bash
# The Terraform provider's acceptance suite (chainguard-dev/terraform-provider-chainguard, `internal/provider`,
# `^TestAcc`) against this repository's emulator, over its gRPC face: run by hand, never by CI (the provider is not
# on the Go module proxy, so its source comes from a checkout you give).
#
#   scripts/terraform-acceptance.sh --provider DIR [--sdk DIR] [--run REGEXP] [--keep]
#
#   --provider DIR  a checkout of chainguard-dev/terraform-provider-chainguard (left untouched: built from a copy)
#   --sdk DIR       a checkout of chainguard-dev/sdk, for when the version the provider's go.mod pins is not on
#                   your Go module proxy (its tag is exported into the work directory; the checkout is untouched)
#   --run REGEXP    the tests to run (default ^TestAcc)
#   --keep          keep the work directory (the emulator's log, the suite's output) instead of removing it
#
# Needs: node and npm (this repository; not with PLATFORM_EMULATOR), go (the provider's go.mod names its version; GOTOOLCHAIN fetches it from
# the module proxy), curl, jq, and terraform on PATH (else built with `go install` from the module proxy).
# It prints where each step runs, starts the emulator and stops it (and nothing else) on exit, and ends with the
# totals it expects and the totals it got. Exit status 0 when every in-scope test passed and every list the
# suite's destroy checks sent was answered.
set -euo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }

PROVIDER=""
SDK=""
RUN='^TestAcc'
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --provider) PROVIDER=$2; shift 2 ;;
    --sdk) SDK=$2; shift 2 ;;
    --run) RUN=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$PROVIDER" ] || { echo "--provider DIR is required" >&2; usage >&2; exit 2; }
if [ ! -f "$PROVIDER/go.mod" ]; then
  echo "$PROVIDER is not a checkout of terraform-provider-chainguard (no go.mod)" >&2
  exit 2
fi
# PLATFORM_EMULATOR: the release's standalone `platform-emulator` (its archive carries its own Node.js); without it
# the emulator is built from this checkout, which needs node and npm.
needed="go curl jq"
[ -n "${PLATFORM_EMULATOR:-}" ] || needed="node npm $needed"
for tool in $needed; do
  command -v "$tool" > /dev/null || { echo "$tool is needed and not on PATH" >&2; exit 2; }
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROVIDER=$(cd "$PROVIDER" && pwd)
[ -z "$SDK" ] || SDK=$(cd "$SDK" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/terraform-acceptance.XXXXXX")
EMULATOR_PID=""

step() { printf '\n== [%s] %s\n' "$1" "$2"; }

cleanup() {
  if [ -n "$EMULATOR_PID" ] && kill -0 "$EMULATOR_PID" 2> /dev/null; then
    kill -INT "$EMULATOR_PID" 2> /dev/null || true
    wait "$EMULATOR_PID" 2> /dev/null || true
  fi
  if [ "$KEEP" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Tests out of the emulator's scope, and what they do against it.
OUT_OF_SCOPE=(
  "TestAccResourceIdentityUsage: fails (fetches an ID token from a public test issuer on the internet)"
  "TestAccResourceSubscription: fails (event subscriptions are not emulated)"
  "TestAccResourceDeployment_basic: skips (registry deployments; needs TF_ACC_REPO_ID)"
  "TestAccResourceDeployment_chartsOnly: skips (registry deployments; needs TF_ACC_REPO_ID)"
)
out_of_scope() { printf '%s\n' "${OUT_OF_SCOPE[@]}" | cut -d: -f1; }

if [ -n "${PLATFORM_EMULATOR:-}" ]; then
  [ -x "$PLATFORM_EMULATOR" ] || { echo "PLATFORM_EMULATOR=$PLATFORM_EMULATOR is not an executable" >&2; exit 2; }
  emulator=("$PLATFORM_EMULATOR")
else
  step "this repository, $ROOT" "building the emulator (npm run build)"
  (cd "$ROOT" && npm run build --silent)
  emulator=(node "$ROOT/dist/emulator/cli.js")
fi

step "this machine" "terraform"
if command -v terraform > /dev/null; then
  TERRAFORM=$(command -v terraform)
else
  TERRAFORM_VERSION=${TERRAFORM_VERSION:-v1.9.8}
  echo "no terraform on PATH: building github.com/hashicorp/terraform@$TERRAFORM_VERSION from the Go module proxy"
  GOBIN="$WORK/bin" go install "github.com/hashicorp/terraform@$TERRAFORM_VERSION"
  TERRAFORM="$WORK/bin/terraform"
fi
"$TERRAFORM" version | head -1

step "a copy of the provider, $WORK/provider" "building the acceptance tests (go test -c)"
cp -a "$PROVIDER/." "$WORK/provider"
SDK_VERSION=$(awk '$1 == "chainguard.dev/sdk" { print $2 }' "$WORK/provider/go.mod")
echo "the provider pins chainguard.dev/sdk $SDK_VERSION"
if [ -n "$SDK" ]; then
  echo "from the checkout $SDK, tag $SDK_VERSION, exported to $WORK/sdk"
  mkdir "$WORK/sdk"
  git -C "$SDK" archive "$SDK_VERSION" | tar -x -C "$WORK/sdk"
  (cd "$WORK/provider" && go mod edit -replace "chainguard.dev/sdk=$WORK/sdk" && go mod tidy)
fi
(cd "$WORK/provider" && go test -c -o "$WORK/provider.test" ./internal/provider)

step "this repository's emulator, started here" "one repo seeded (the image-repo data sources need one)"
DIGEST=sha256:$(printf '0%.0s' $(seq 64))
printf '{"repos":[{"name":"nginx","tags":[{"name":"latest","digest":"%s"}]}]}' "$DIGEST" > "$WORK/seed.json"
"${emulator[@]}" --port "${PORT:-0}" --seed "$WORK/seed.json" > "$WORK/emulator.log" 2>&1 &
EMULATOR_PID=$!
for _ in $(seq 100); do
  grep -q '^PLATFORM_ORG_UID=' "$WORK/emulator.log" && break
  kill -0 "$EMULATOR_PID" 2> /dev/null || { cat "$WORK/emulator.log" >&2; exit 1; }
  sleep 0.2
done
URL=$(sed -n 's/^PLATFORM_API_URL=//p' "$WORK/emulator.log")
ORG=$(sed -n 's/^PLATFORM_ORG_UID=//p' "$WORK/emulator.log")
BOOT=$(sed -n 's/^PLATFORM_TOKEN=//p' "$WORK/emulator.log")
[ -n "$URL" ] && [ -n "$ORG" ] || { echo "the emulator did not start:" >&2; cat "$WORK/emulator.log" >&2; exit 1; }
echo "emulator at $URL (pid $EMULATOR_PID), organization $ORG"

step "the emulator, over REST" "a workload identity owning the organization, and its ID token"
AUTH="Authorization: Bearer $BOOT"
JSON='Content-Type: application/json'
ID=$(curl -sf "$URL/iam/v2beta1/identities/$ORG" -H "$AUTH" -H "$JSON" \
  -d "{\"name\":\"tf-acc\",\"claimMatch\":{\"issuer\":\"$URL/oidc\",\"subject\":\"tf-acc\"}}" | jq -r .uid)
OWNER=$(curl -sf "$URL/iam/v2beta1/roles?name=owner" -H "$AUTH" | jq -r '.roles[0].uid')
curl -sf "$URL/iam/v2beta1/roleBindings/$ORG" -H "$AUTH" -H "$JSON" \
  -d "{\"identityUid\":\"$ID\",\"roleUid\":\"$OWNER\"}" > /dev/null
IDTOKEN=$(curl -sf "$URL/_emulator/oidc/mint" -H "$JSON" \
  -d '{"subject":"tf-acc","expiresInSeconds":36000}' | jq -r .idToken)
echo "identity $ID"

# The suite's own client (its destroy checks) reads the SDK's token cache, which the provider's CI fills with a
# chainctl login. The SDK reads the file byte for byte (chainguard.dev/sdk auth/token): a trailing newline would
# become part of the token, every destroy check's list would be refused as unauthenticated, and the checks, which
# skip that error, would check nothing. So the token is written with printf '%s', never echo or jq -r alone.
step "this machine, $WORK/cache" "the exchanged token where the SDK's cache has it, without a trailing newline"
export XDG_CACHE_HOME="$WORK/cache"
CACHE_DIR="$XDG_CACHE_HOME/chainguard/${URL//\//-}"
mkdir -p "$CACHE_DIR"
TOKEN=$(curl -sf -X POST "$URL/sts/exchange?aud=$URL&identity=$ID" -H "Authorization: Bearer $IDTOKEN" | jq -r .token)
printf '%s' "$TOKEN" > "$CACHE_DIR/oidc-token"
chmod 600 "$CACHE_DIR/oidc-token"
curl -sf -X DELETE "$URL/_emulator/requests" > /dev/null

step "the provider's tests, against the emulator over gRPC" "$RUN"
set +e
TF_ACC=1 TF_ACC_CONSOLE_API=$URL TF_ACC_AUDIENCE=$URL TF_ACC_ISSUER=$URL TF_ACC_GROUP_ID=$ORG \
  TF_CHAINGUARD_IDENTITY=$ID TF_CHAINGUARD_IDENTITY_TOKEN=$IDTOKEN TF_ACC_TERRAFORM_PATH=$TERRAFORM \
  "$WORK/provider.test" -test.run "$RUN" -test.v -test.count=1 -test.timeout 60m 2>&1 | tee "$WORK/suite.log"
set -e

step "the emulator's request log" "the lists the suite sent (its destroy checks read through them)"
curl -sf "$URL/_emulator/requests" > "$WORK/requests.json"
LISTS=$(jq '[.requests[] | select((.rpc // "") | test("/List"))] | length' "$WORK/requests.json")
REFUSED=$(jq '[.requests[] | select((.rpc // "") | test("/List")) | select(.status != 200)] | length' \
  "$WORK/requests.json")
UNAUTHENTICATED=$(jq '[.requests[] | select(.status == 401)] | length' "$WORK/requests.json")
echo "$LISTS list calls, $REFUSED of them not answered 200; $UNAUTHENTICATED calls refused as unauthenticated"

# Top-level results only: subtests are indented.
passed=$(grep -E '^--- PASS: ' "$WORK/suite.log" | awk '{print $3}' | sort)
failed=$(grep -E '^--- FAIL: ' "$WORK/suite.log" | awk '{print $3}' | sort)
skipped=$(grep -E '^--- SKIP: ' "$WORK/suite.log" | awk '{print $3}' | sort)
count() { printf '%s\n' "$1" | grep -c . || true; }
ran=$(printf '%s\n' "$passed" "$failed" "$skipped" | grep -c . || true)
in_scope_failed=$(printf '%s\n' "$failed" | grep -v -x -F -f <(out_of_scope) | grep . || true)
in_scope_skipped=$(printf '%s\n' "$skipped" | grep -v -x -F -f <(out_of_scope) | grep . || true)
in_scope=$((ran - $(printf '%s\n' "$passed" "$failed" "$skipped" | grep -x -F -f <(out_of_scope) | grep -c . || true)))

step "totals" "expected, then got"
cat << EOF
expected (terraform-provider-chainguard 5085c9f, July 2026: 28 ^TestAcc tests): 24 in scope, all passing;
  out of scope:
$(printf '    %s\n' "${OUT_OF_SCOPE[@]}")
  and every list the destroy checks send answered 200 (none unauthenticated).
got: $ran tests run: $(count "$passed") passed, $(count "$failed") failed, $(count "$skipped") skipped; $in_scope in scope
EOF
status=0
if [ -n "$in_scope_failed" ]; then echo "in scope and failed:"; printf '  %s\n' $in_scope_failed; status=1; fi
if [ -n "$in_scope_skipped" ]; then echo "in scope and skipped:"; printf '  %s\n' $in_scope_skipped; status=1; fi
if [ "$REFUSED" != 0 ]; then echo "$REFUSED list calls were not answered 200 (see $WORK/requests.json)"; status=1; fi
[ "$status" = 0 ] && echo "every in-scope test passed; every list answered 200"
[ "$status" = 0 ] || KEEP=1
exit "$status"
