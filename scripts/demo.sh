#!/usr/bin/env bash
# `npm run demo`: the quick start (root Pulumi.yaml, program in examples/quickstart) deployed by the real Pulumi
# engine against a local emulator, offline, leaving nothing behind:
#   1. builds the package if dist/ is missing or older than its sources, and the engine if missing (minutes, once);
#   2. installs the package into examples/quickstart/node_modules (scripts/install-local.sh);
#   3. starts the emulator CLI seeded with examples/quickstart/seed.json on a free port;
#   4. in a temporary file backend: a fresh stack `demo`, config `organization` (the emulator's organization),
#      `platform:apiUrl`, and `platform:token` as a SECRET read from stdin (never on a command line);
#   5. `pulumi preview` (the plan), `pulumi up --yes --skip-preview` (the plan was just shown: the README's fast path),
#      `pulumi stack output`, `pulumi preview --expect-no-changes`;
#   6. on any exit (success, failure, Ctrl-C): stops the emulator, removes the temporary backend and the stack's
#      config file. Exits non-zero if any step fails.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stack=demo
program=examples/quickstart
step=0
say() { echo "demo: $*" >&2; }
heading() { step=$((step + 1)); printf '\n==> %s. %s\n' "$step" "$*" >&2; }

[ -d node_modules/@pulumi/pulumi ] || { say "dependencies are missing: run 'npm ci' first"; exit 1; }

tmp=$(mktemp -d -t pulumi-platform-demo.XXXXXX)
emulator_pid=
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill -TERM "$emulator_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$emulator_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
    say "emulator stopped"
  fi
  rm -rf "$tmp"
  if [ "$status" = 0 ]; then say "done; temporary backend removed"; else say "FAILED (exit $status); cleaned up"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

heading "Package"
if [ ! -f dist/provider/index.js ] || [ ! -f dist/emulator/cli.js ] ||
   [ -n "$(find sdk provider emulator -name '*.ts' -newer dist/provider/index.js -print -quit)" ]; then
  say "building dist/ (npm run build)"
  npm run --silent build
else
  say "dist/ is up to date"
fi
bash scripts/install-local.sh --no-build "$program"

heading "Pulumi engine"
engine_bin=$(bash scripts/build-engine.sh | tail -n 1)

heading "Emulator"
# In its own process group (set -m), so a Ctrl-C reaches pulumi (which cancels cleanly) but not the emulator it
# is still talking to; the EXIT trap stops the emulator afterwards.
set -m
node dist/emulator/cli.js --port 0 --seed "$program/seed.json" --quiet >"$tmp/emulator.out" 2>"$tmp/emulator.err" &
emulator_pid=$!
set +m
for _ in $(seq 200); do
  grep -q '^PLATFORM_ORG_UID=' "$tmp/emulator.out" && break
  kill -0 "$emulator_pid" 2>/dev/null || { say "the emulator exited:"; cat "$tmp/emulator.err" >&2; exit 1; }
  sleep 0.1
done
value() { sed -n "s/^$1=//p" "$tmp/emulator.out" | head -n 1; }
api_url=$(value PLATFORM_API_URL)
token=$(value PLATFORM_TOKEN)
org_uid=$(value PLATFORM_ORG_UID)
[ -n "$api_url" ] && [ -n "$token" ] && [ -n "$org_uid" ] || { say "the emulator did not start in 20 s"; exit 1; }
say "emulator (pid $emulator_pid) at $api_url, organization $org_uid"

# A hermetic, offline Pulumi: temp backend and home, a throwaway passphrase, none of the caller's PLATFORM_*
# settings (the stack config below is the only source of endpoint and credentials).
unset PULUMI_ACCESS_TOKEN PULUMI_CONFIG_PASSPHRASE_FILE PLATFORM_API_URL PLATFORM_AUTH_URL PLATFORM_TOKEN \
  PLATFORM_IDENTITY PLATFORM_IDENTITY_TOKEN PLATFORM_IDENTITY_TOKEN_FILE
export PULUMI_PLATFORM_ENGINE_BIN=$engine_bin
export PULUMI_PLATFORM_STATE_DIR=$tmp/pulumi
export PULUMI_HOME=$tmp/pulumi/home
export PULUMI_BACKEND_URL=file://$tmp/pulumi/backend
export PULUMI_CONFIG_PASSPHRASE=pulumi-platform-demo-passphrase
# shellcheck source=scripts/pulumi-env.sh
source scripts/pulumi-env.sh
export NO_COLOR=1

heading "Stack '$stack' in a temporary backend"
# The stack's config file (Pulumi.demo.yaml) stays in the temp dir: `stack init` runs beside a copy of
# Pulumi.yaml there (it writes the file next to the project file), and every later command names it with
# --config-file. Nothing is written into the repo, and a Pulumi.demo.yaml of your own is left alone.
mkdir -p "$tmp/project"
cp Pulumi.yaml "$tmp/project/"
(cd "$tmp/project" && pulumi stack init "$stack" --non-interactive)
cfg=(--stack "$stack" --config-file "$tmp/project/Pulumi.$stack.yaml" --non-interactive)
pulumi config set "${cfg[@]}" organization "$org_uid"
pulumi config set "${cfg[@]}" platform:apiUrl "$api_url"
printf '%s' "$token" | pulumi config set "${cfg[@]}" --secret platform:token
unset token
say "config: organization=$org_uid platform:apiUrl=$api_url platform:token=[secret]"

heading "pulumi preview (the plan)"
pulumi preview "${cfg[@]}"

heading "pulumi up --yes --skip-preview (the plan above, applied without previewing it again)"
started=$(date +%s%N)
pulumi up --yes --skip-preview "${cfg[@]}"
say "pulumi up took $(( ($(date +%s%N) - started) / 1000000 )) ms"

heading "Stack outputs"
pulumi stack output --stack "$stack" --non-interactive

heading "pulumi preview --expect-no-changes"
pulumi preview --expect-no-changes "${cfg[@]}"
