#!/usr/bin/env bash
# rcodesign (the `apple-codesign` crate: Apple code signing in Rust, runs on linux), which the release's tests use to
# verify the macOS binaries of the release with its own `rcodesign verify`. Built once with `cargo install` (pinned,
# `--locked`, without the notarization features, which pull in an AWS SDK) into
# PULUMI_PLATFORM_CACHE (default ~/.cache/pulumi-platform)/rcodesign/v<version>; prints that bin directory last.
# Built unoptimized (opt-level 0, many codegen units, no LTO): 3.0 minutes of CPU cold (about 300 crates
# downloaded and compiled) against 6.3 optimized, and a verify of a 100 MB Node.js binary still takes 0.2 s, as
# the optimized build's does; warm: nothing. The release itself never needs it: it changes no binary.
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
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 CARGO_PROFILE_RELEASE_LTO=off \
      CARGO_PROFILE_RELEASE_DEBUG=0 \
      cargo install apple-codesign --version "$version" --locked --no-default-features --root "$cache" >&2
  fi
fi
"$cache/bin/rcodesign" --version >/dev/null
echo "$cache/bin"
