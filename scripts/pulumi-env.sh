#!/usr/bin/env bash
# An offline environment for the Pulumi engine: our engine bin dir first on PATH, a local file backend, and every
# switch that keeps the CLI off the network. Two ways to use it:
#   source scripts/pulumi-env.sh                     # in your shell, then `pulumi ...`
#   scripts/pulumi-env.sh pulumi stack ls            # run one command in that environment
#
# Settings you already made win (so one `export` changes them for good):
#   PULUMI_PLATFORM_ENGINE_BIN  engine bin dir        default: what scripts/build-engine.sh prints (builds if needed)
#   PULUMI_PLATFORM_STATE_DIR   local state root      default: <repo>/.pulumi-state (gitignored)
#   PULUMI_HOME                 CLI home (plugins...) default: $PULUMI_PLATFORM_STATE_DIR/home
#   PULUMI_BACKEND_URL          where stacks live     default: file://$PULUMI_PLATFORM_STATE_DIR/backend
#   PULUMI_CONFIG_PASSPHRASE    secrets passphrase    default: a fixed, NON-secret test passphrase (below), unless
#                                                     PULUMI_CONFIG_PASSPHRASE_FILE is set. Use your own for
#                                                     anything that matters.

_pulumi_env_main() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

  if [ -z "${PULUMI_PLATFORM_ENGINE_BIN:-}" ]; then
    PULUMI_PLATFORM_ENGINE_BIN=$(bash "$root/scripts/build-engine.sh" | tail -n 1) || {
      echo "pulumi-env: no Pulumi engine (see scripts/build-engine.sh's message above)" >&2
      return 1
    }
  fi
  export PULUMI_PLATFORM_ENGINE_BIN
  case ":$PATH:" in
    *":$PULUMI_PLATFORM_ENGINE_BIN:"*) ;;
    *) export PATH="$PULUMI_PLATFORM_ENGINE_BIN:$PATH" ;;
  esac

  export PULUMI_PLATFORM_STATE_DIR=${PULUMI_PLATFORM_STATE_DIR:-$root/.pulumi-state}
  export PULUMI_HOME=${PULUMI_HOME:-$PULUMI_PLATFORM_STATE_DIR/home}
  export PULUMI_BACKEND_URL=${PULUMI_BACKEND_URL:-file://$PULUMI_PLATFORM_STATE_DIR/backend}
  if [ -z "${PULUMI_CONFIG_PASSPHRASE_FILE:-}" ]; then
    export PULUMI_CONFIG_PASSPHRASE=${PULUMI_CONFIG_PASSPHRASE-pulumi-platform-local-test-passphrase}
  fi
  case "$PULUMI_BACKEND_URL" in
    file://*) mkdir -p "${PULUMI_BACKEND_URL#file://}" ;;
  esac
  mkdir -p "$PULUMI_HOME"

  # Off the network: no update check, no plugin downloads, no package-registry lookups; the Automation API
  # accepts our self-built CLI without asking for a newer one.
  export PULUMI_SKIP_UPDATE_CHECK=true
  export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
  export PULUMI_DISABLE_REGISTRY_RESOLVE=true
  export PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK=true
  export PULUMI_SUPPRESS_NEO_LINK=true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # Executed: set up, then run the given command in that environment.
  set -euo pipefail
  _pulumi_env_main
  [ $# -gt 0 ] || { echo "usage: scripts/pulumi-env.sh <command> [args...]   (or: source scripts/pulumi-env.sh)" >&2; exit 2; }
  exec "$@"
else
  # Sourced: set up the caller's shell; never `exit` it.
  _pulumi_env_main
  unset -f _pulumi_env_main
fi
