#!/usr/bin/env bash
# Builds the package and packs it into a tarball a user installs into their own program, anywhere on disk, without
# a registry: `npm install <tarball>`. npm installs a tarball as a real directory under node_modules, so the
# provider stored in the stack's state stays a ~300-byte require() of the installed package.
#
# Usage: npm run pack [-- <destination dir>]     (default: <repo>/dist-pack)
# The LAST line printed is the tarball's absolute path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/dist-pack}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
(cd "$root" && npm run --silent build >&2)
name=$(cd "$root" && npm pack --silent --pack-destination "$dest" | tail -n 1)
echo "$dest/$name"
