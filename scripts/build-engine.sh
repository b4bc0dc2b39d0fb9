#!/usr/bin/env bash
# Builds the Pulumi engine (the `pulumi` CLI) from its Go modules, offline but for the Go
# module proxy, at the version of the @pulumi/pulumi npm dependency, and caches it outside
# the repo keyed by version. Prints the bin directory on its last line.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
version=${PULUMI_ENGINE_VERSION:-$(node -p "require('$here/node_modules/@pulumi/pulumi/package.json').version" 2>/dev/null || true)}
[ -n "$version" ] || { echo "build-engine: cannot tell the @pulumi/pulumi version: run 'npm ci' first" >&2; exit 1; }
cache=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/engine/v$version
bin=$cache/bin
say() { echo "build-engine: $*" >&2; }

if [ -x "$bin/pulumi" ]; then
  say "using cached engine v$version in $bin"
  echo "$bin"; exit 0
fi
command -v go >/dev/null 2>&1 || { say "Go is not installed; install Go >= 1.25 (https://go.dev/dl) or put a pulumi v$version on PATH"; exit 1; }

work=$cache/src
mkdir -p "$work" "$bin"
cat > "$work/go.mod" <<MOD
module pulumi-platform/engine

go 1.25

require github.com/pulumi/pulumi/pkg/v3 v$version
require github.com/pulumi/pulumi/sdk/v3 v$version

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
cat > "$work/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
GO
export GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0
cd "$work"
say "resolving modules for pulumi v$version (first run downloads ~330 modules)"
go mod tidy >&2
say "compiling pulumi v$version (several minutes on a cold cache)"
go build -trimpath -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
  -o "$bin/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
mv "$bin/pulumi.tmp" "$bin/pulumi"
say "built $bin/pulumi"
echo "$bin"
