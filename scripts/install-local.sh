#!/usr/bin/env bash
# Installs this package into a Pulumi program the way a user's `npm install` would lay it out:
#   <program-dir>/node_modules/pulumi-platform/{package.json,dist/,schema.json}
# as a REAL directory, not a symlink. Why: a dynamic provider that is the module.exports of a file physically
# under node_modules is serialized into the stack's state as a ~260-byte `require(...)`, while one in a local or
# symlinked file is serialized by value (20+ kB per resource, frozen into state).
#
# No `npm install` happens: the copy's own dependencies (@pulumi/pulumi, undici, zod...) resolve by walking up to
# the repo's node_modules, so the program must live inside the repo (examples/<name>/), and the program and the
# package then share ONE copy of @pulumi/pulumi.
#
# Usage: scripts/install-local.sh [--no-build] <program-dir>
#   --no-build   use dist/ as it is (e.g. scripts/test.sh has just built it); otherwise `npm run build` first.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "install-local: $*" >&2; }
usage() { echo "usage: scripts/install-local.sh [--no-build] <program-dir>" >&2; exit 2; }

build=1
case "${1:-}" in
  --no-build) build=0; shift ;;
  -h | --help) usage ;;
esac
[ $# -eq 1 ] || usage
[ -d "$1" ] || { say "no such directory: $1"; exit 1; }
program=$(cd "$1" && pwd)

case "$program/" in
  "$root"/*) ;;
  *) say "$program is outside $root: the package's dependencies would not resolve (put programs under examples/)"
     exit 1 ;;
esac
# The project file may sit in a parent (the root Pulumi.yaml's `main: examples/quickstart/`).
project_dir=$program
while [ ! -f "$project_dir/Pulumi.yaml" ] && [ "$project_dir" != "$root" ]; do project_dir=$(dirname "$project_dir"); done
[ -f "$project_dir/Pulumi.yaml" ] || say "warning: no Pulumi.yaml in $program or above it"

if [ "$build" = 1 ]; then
  say "building the package (npm run build)"
  (cd "$root" && npm run --silent build >&2)
fi
[ -d "$root/dist" ] || { say "$root/dist does not exist: run 'npm run build' (or drop --no-build)"; exit 1; }

# Build the copy beside the target, then swap it in, so a failed copy never leaves a half-installed package.
target=$program/node_modules/pulumi-platform
staging=$target.installing.$$
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"
cp "$root/package.json" "$staging/"
cp -R "$root/dist" "$staging/dist"
[ -f "$root/schema.json" ] && cp "$root/schema.json" "$staging/"
rm -rf "$target"
mv "$staging" "$target"
say "installed pulumi-platform into $target"
