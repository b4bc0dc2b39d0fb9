#!/usr/bin/env bash
# Provides the Pulumi engine for the end-to-end tests and the examples, offline but for the Go module proxy:
#   - pulumi                         the CLI, built from github.com/pulumi/pulumi/pkg/v3 at the version of the
#                                    @pulumi/pulumi npm dependency;
#   - pulumi-language-nodejs,        OUR minimal language hosts, one Go module (scripts/engine/langhost, a command
#     pulumi-language-go,            per language under cmd/, shared code in internal/host), because upstream's
#     pulumi-language-python         hosts' Go modules are not served by the module proxy; they run programs and
#                                    generate each language's SDK (`pulumi package gen-sdk`, `npm run sdks`) and the
#                                    code `pulumi import` prints. Beside them: pulumi-language-nodejs-preload.js (a
#                                    Node.js 20 bug workaround) and pulumi-language-python-exec (upstream's Python
#                                    program runner, from the sdk/v3 module);
#   - pulumi-language-yaml           upstream's YAML host, built from github.com/pulumi/pulumi-yaml (which IS
#                                    served) through a wrapper module pinned to this engine's pkg/v3 and sdk/v3;
#   - pulumi-resource-pulumi-nodejs  the dynamic-provider launcher shipped inside @pulumi/pulumi.
# All go into one bin directory cached outside the repo, keyed by version; the engine finds the plugins beside
# `pulumi`. A compatible pulumi already on PATH (same major.minor, all three plugins beside it) is
# used as it is. Progress goes to stderr; the LAST line on stdout is the bin directory.
#
# Two engines are tested: the default, the newest (the locked @pulumi/pulumi is the newest on npm, and the Go module
# proxy serves pkg/v3 at the same version), and the oldest the packages declare (PULUMI_ENGINE_VERSION=<the floor
# of package.json's @pulumi/pulumi range>), each in its own cache directory; scripts/test.sh builds both.
#
# Environment: PULUMI_ENGINE_VERSION (default: the installed @pulumi/pulumi's version), PULUMI_PLATFORM_CACHE
# (default ~/.cache/pulumi-platform), PULUMI_PLATFORM_BUILD_ENGINE=1 to ignore a pulumi found on PATH.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "build-engine: $*" >&2; }

sdk=$here/node_modules/@pulumi/pulumi
version=${PULUMI_ENGINE_VERSION:-$(node -p "require('$sdk/package.json').version" 2>/dev/null || true)}
[ -n "$version" ] || { say "cannot tell the @pulumi/pulumi version: run 'npm ci' first"; exit 1; }
launcher=$sdk/pulumi-resource-pulumi-nodejs
[ -f "$launcher" ] || { say "missing $launcher: run 'npm ci' first"; exit 1; }

cache=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/engine/v$version
bin=$cache/bin
mkdir -p "$bin"

# 1. A compatible engine on PATH wins (but not our own cache dir, which may be on PATH via pulumi-env.sh: that
#    one goes through the freshness checks below).
if [ "${PULUMI_PLATFORM_BUILD_ENGINE:-}" != 1 ] && found=$(command -v pulumi 2>/dev/null); then
  found_dir=$(cd "$(dirname "$found")" && pwd)
  if [ "$found_dir" != "$bin" ] && [ -x "$found_dir/pulumi-language-nodejs" ] &&
     [ -x "$found_dir/pulumi-language-go" ] && [ -x "$found_dir/pulumi-language-python" ] &&
     [ -x "$found_dir/pulumi-language-yaml" ] && [ -x "$found_dir/pulumi-resource-pulumi-nodejs" ]; then
    found_version=$(PULUMI_SKIP_UPDATE_CHECK=true "$found" version 2>/dev/null || true)
    case "${found_version#v}" in
      "${version%.*}".*) say "using pulumi $found_version found on PATH in $found_dir"; echo "$found_dir"; exit 0 ;;
    esac
    say "ignoring pulumi on PATH ($found, version '${found_version}'): not ${version%.*}.x"
  fi
fi

# One build at a time per cache dir (test runs may start in parallel); uncontended, this costs nothing.
exec 9>"$cache/.lock"
command -v flock >/dev/null 2>&1 && flock 9

need_go() {
  # A fresh shell (CI) may lack Go's usual install dir on PATH.
  command -v go >/dev/null 2>&1 || { [ -x /usr/local/go/bin/go ] && PATH=$PATH:/usr/local/go/bin; }
  command -v go >/dev/null 2>&1 && return 0
  say "Go is not installed, and $1 must be built: install Go >= 1.25 (https://go.dev/dl), or put"
  say "pulumi v$version on PATH with pulumi-language-nodejs and pulumi-resource-pulumi-nodejs beside it"
  exit 1
}
# The sum database is not reachable from our machines; the module proxy is.
export GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0
ldflags_version="-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version"

# 2. The CLI: built once per version (several minutes cold), through a throwaway wrapper module, because
#    upstream's go.mod carries local `replace`s that make `go install module@version` refuse it.
if [ ! -x "$bin/pulumi" ]; then
  need_go "the pulumi CLI"
  work=$cache/src
  mkdir -p "$work"
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
  say "resolving modules for pulumi v$version (first run downloads ~330 modules)"
  if ! (cd "$work" && go mod tidy >&2); then
    # npm may publish a release before the module proxy serves its Go module.
    say "could not resolve github.com/pulumi/pulumi/pkg/v3 v$version (above): if the Go module proxy does not serve it"
    say "yet, set PULUMI_ENGINE_VERSION to the newest it does (go list -m -versions github.com/pulumi/pulumi/pkg/v3)"
    exit 1
  fi
  say "compiling pulumi v$version (several minutes on a cold cache)"
  (cd "$work" && go build -trimpath -ldflags "-s -w $ldflags_version" -o "$bin/pulumi.tmp" \
    github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
  mv "$bin/pulumi.tmp" "$bin/pulumi"
  say "built $bin/pulumi"
fi

# 3. Our language hosts: one module, each command rebuilt whenever its sources or the version change (stamp = hash
#    of the version and of every non-test .go file of the command and of internal/, go.mod and go.sum, so a new
#    source file counts too; the runner copied from sdk/v3 is pinned by go.sum). They link upstream's code
#    generators (pkg/v3/codegen), which add ~20 packages to what the CLI build above has already compiled into Go's
#    build cache: about a minute for all three after the CLI, seconds for a source change.
hosts=$here/scripts/engine/langhost
build_langhost() { # <command name>
  local name=$1 stamp sdk_dir
  stamp=$( { echo "$version"; cd "$hosts" && for f in go.mod go.sum $(find internal "cmd/$name" -type f | sort |
    grep -v '_test\.go$'); do echo "== $f"; cat "$f"; done; } | sha256sum | cut -d' ' -f1)
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/.$name.stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  need_go "$name"
  say "compiling $name (our minimal host, scripts/engine/langhost/cmd/$name)"
  (cd "$hosts" && go build -trimpath -ldflags "-s -w -X main.version=v$version" -o "$bin/$name.tmp" "./cmd/$name")
  mv "$bin/$name.tmp" "$bin/$name"
  case $name in
    pulumi-language-nodejs) cp "$hosts/cmd/$name/preload.js" "$bin/$name-preload.js" ;;
    pulumi-language-python)
      sdk_dir=$(cd "$hosts" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)
      cp "$sdk_dir/python/cmd/pulumi-language-python-exec" "$bin/$name-exec.tmp"
      chmod 755 "$bin/$name-exec.tmp"
      mv "$bin/$name-exec.tmp" "$bin/$name-exec" ;;
  esac
  echo "$stamp" > "$bin/.$name.stamp"
  say "built $bin/$name"
}
for name in pulumi-language-nodejs pulumi-language-go pulumi-language-python; do build_langhost "$name"; done

# 3b. The YAML host: upstream's (github.com/pulumi/pulumi-yaml IS served), built through a wrapper module that pins
#     its pkg/v3 and sdk/v3, as the CLI is built above. v1.37.0, the newest served, was written against pkg/v3
#     v3.247.0 (not served), whose pcl.BindProgram took its schema loader as an option, and whose plugin host
#     constructors took fewer arguments: scripts/engine/yaml/pulumi-yaml-v<yaml>-pkg-v<pkg>.patch adapts the three
#     calls (in GenerateProgram and the YAML-to-PCL converter) to pkg/v3 <pkg>, applied to a copy of the module that
#     the wrapper then `replace`s it with. pkg/v3 keeps moving (by v3.276.0 the plugin context had moved from pkg to
#     sdk and BindProgram takes the loader as an argument again), so the host is built against the newest <pkg> that
#     has a patch and is not newer than this engine (else this engine's, unpatched), once per pair in
#     <cache>/yaml/, and copied beside every engine it serves: the engine talks to it over the plugin protocol only.
#     Most of what it links is already in Go's build cache from the CLI: minutes after it.
yaml_version=${PULUMI_YAML_VERSION:-1.37.0}
yaml_pkg=$version
newest_patched=""
for patch in "$here"/scripts/engine/yaml/pulumi-yaml-v"$yaml_version"-pkg-v*.patch; do
  [ -f "$patch" ] || continue
  candidate=${patch##*-pkg-v}
  candidate=${candidate%.patch}
  # Not newer than this engine, and newer than the best so far (sort -V orders versions).
  [ "$(printf '%s\n' "$candidate" "$version" | sort -V | tail -n 1)" = "$version" ] || continue
  [ -z "$newest_patched" ] ||
    [ "$(printf '%s\n' "$candidate" "$newest_patched" | sort -V | tail -n 1)" = "$candidate" ] || continue
  newest_patched=$candidate
done
[ -z "$newest_patched" ] || yaml_pkg=$newest_patched
yaml_patch=$here/scripts/engine/yaml/pulumi-yaml-v$yaml_version-pkg-v$yaml_pkg.patch
yaml_patch_sum=none
[ -f "$yaml_patch" ] && yaml_patch_sum=$(sha256sum < "$yaml_patch" | cut -c1-16)
yaml_stamp="yaml v$yaml_version, pulumi v$yaml_pkg, patch $yaml_patch_sum"
if [ "$(cat "$bin/.pulumi-language-yaml.stamp" 2>/dev/null)" != "$yaml_stamp" ] ||
   [ ! -x "$bin/pulumi-language-yaml" ]; then
  yaml_out=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/yaml/v$yaml_version-pkg-v$yaml_pkg
  mkdir -p "$yaml_out"
  exec 8>"$yaml_out/.lock"
  command -v flock >/dev/null 2>&1 && flock 8
  if [ "$(cat "$yaml_out/.stamp" 2>/dev/null)" != "$yaml_stamp" ] || [ ! -x "$yaml_out/pulumi-language-yaml" ]; then
    need_go "pulumi-language-yaml"
    work=$yaml_out/src
    rm -rf "$work"
    mkdir -p "$work"
    cat > "$work/go.mod" <<MOD
module pulumi-platform/engine/yaml

go 1.25

require github.com/pulumi/pulumi-yaml v$yaml_version
require github.com/pulumi/pulumi/pkg/v3 v$yaml_pkg
require github.com/pulumi/pulumi/sdk/v3 v$yaml_pkg

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
    cat > "$work/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
GO
    say "resolving modules for pulumi-language-yaml v$yaml_version on pkg/v3 v$yaml_pkg"
    if [ -f "$yaml_patch" ]; then
      yaml_dir=$(cd "$work" && go mod download -json "github.com/pulumi/pulumi-yaml@v$yaml_version" |
        sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
      [ -d "$yaml_dir" ] || { say "could not download github.com/pulumi/pulumi-yaml@v$yaml_version"; exit 1; }
      cp -r "$yaml_dir" "$work/pulumi-yaml"
      chmod -R u+w "$work/pulumi-yaml"
      (cd "$work/pulumi-yaml" && git apply --verbose "$yaml_patch" >&2)
      echo "replace github.com/pulumi/pulumi-yaml => ./pulumi-yaml" >> "$work/go.mod"
    fi
    (cd "$work" && go mod tidy >&2)
    say "compiling pulumi-language-yaml v$yaml_version (a few minutes after the CLI)"
    (cd "$work" && go build -trimpath \
      -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$yaml_version" \
      -o "$yaml_out/pulumi-language-yaml.tmp" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml)
    mv "$yaml_out/pulumi-language-yaml.tmp" "$yaml_out/pulumi-language-yaml"
    echo "$yaml_stamp" > "$yaml_out/.stamp"
  fi
  cp "$yaml_out/pulumi-language-yaml" "$bin/pulumi-language-yaml.tmp"
  mv "$bin/pulumi-language-yaml.tmp" "$bin/pulumi-language-yaml"
  echo "$yaml_stamp" > "$bin/.pulumi-language-yaml.stamp"
  say "installed pulumi-language-yaml v$yaml_version (pkg/v3 v$yaml_pkg) in $bin"
fi

# 4. The dynamic-provider launcher: a copy, refreshed when the npm package changes. It resolves
#    @pulumi/pulumi/cmd/dynamic-provider from its working directory (the program's), so a copy works anywhere.
if ! cmp -s "$launcher" "$bin/pulumi-resource-pulumi-nodejs"; then
  cp "$launcher" "$bin/pulumi-resource-pulumi-nodejs.tmp"
  chmod +x "$bin/pulumi-resource-pulumi-nodejs.tmp"
  mv "$bin/pulumi-resource-pulumi-nodejs.tmp" "$bin/pulumi-resource-pulumi-nodejs"
  say "installed the dynamic-provider launcher in $bin"
fi

say "engine v$version ready in $bin"
echo "$bin"
