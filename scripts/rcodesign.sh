#!/usr/bin/env bash
# rcodesign (the `apple-codesign` crate: Apple code signing in Rust, runs on linux), which the release's tests use to
# verify the macOS binaries of the release with its own `rcodesign verify`. Built once with `cargo install` (pinned,
# `--locked`, without the notarization features, which pull in an AWS SDK) into
# PULUMI_PLATFORM_CACHE (default ~/.cache/pulumi-platform)/rcodesign/v<version>; prints that bin directory last.
# Cold: 6.3 minutes of CPU (about 300 crates downloaded and compiled), measured at 21 minutes of wall time on a
# shared two-core machine at load 12; warm: nothing. The release itself never needs it: it changes no binary.
set -euo pipefail

version=0.29.0
cache=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/rcodesign/v$version
say() { echo "rcodesign: $*" >&2; }

if [ ! -x "$cache/bin/rcodesign" ]; then
  command -v cargo >/dev/null 2>&1 || { say "cargo (Rust) is needed to build rcodesign"; exit 1; }
  mkdir -p "$cache"
  exec 9>"$cache/.lock"
  command -v flock >/dev/null 2>&1 && flock 9
  if [ ! -x "$cache/bin/rcodesign" ]; then
    say "building apple-codesign $version with cargo install into $cache (once)"
    cargo install apple-codesign --version "$version" --locked --no-default-features --root "$cache" >&2
  fi
fi
"$cache/bin/rcodesign" --version >/dev/null
echo "$cache/bin"
