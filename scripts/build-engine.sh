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
#   - pulumi-language-yaml,          upstream's YAML and Java hosts, built from github.com/pulumi/pulumi-yaml and
#     pulumi-language-java           github.com/pulumi/pulumi-java/pkg (which ARE served) through wrapper modules
#                                    pinned to a pkg/v3 and sdk/v3 they compile against (patched, scripts/engine/);
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
     [ -x "$found_dir/pulumi-language-yaml" ] && [ -x "$found_dir/pulumi-language-java" ] &&
     [ -x "$found_dir/pulumi-resource-pulumi-nodejs" ]; then
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

# 3b. Upstream's YAML and Java hosts (github.com/pulumi/pulumi-yaml and github.com/pulumi/pulumi-java/pkg ARE served,
#     at exact versions), each built through a wrapper module that pins its pkg/v3 and sdk/v3, as the CLI is built
#     above. Each was written against an older pkg/v3 than the oldest engine (pulumi-yaml v1.37.0 against v3.247.0,
#     which is not served; pulumi-java v1.17.0 against v3.205.0), and pkg/v3 moves under them: pcl.BindProgram takes
#     its schema loader as an argument again, the plugin host constructors take more arguments, a parameterization's
#     base is BasePlugin, logging.V is no longer a bool. scripts/engine/<dir>/<repo>-v<host>-pkg-v<pkg>.patch adapts
#     those calls to pkg/v3 <pkg>, applied to a copy of the module that the wrapper then `replace`s it with. pkg/v3
#     keeps moving (by v3.276.0 the plugin context had moved from pkg to sdk), so a host is built against the newest
#     <pkg> that has a patch and is not newer than this engine (else this engine's, unpatched), once per pair in
#     <cache>/<dir>/, and copied beside every engine it serves: the engine talks to it over the plugin protocol only.
#     Most of what they link is already in Go's build cache from the CLI and our hosts: a few minutes after them.
#     The Java host runs programs with Maven (`mvn` on PATH; it downloads what a program's pom.xml names into ~/.m2).
upstream_host() { # <name> <module> <version> <patch dir> <version variable>
  local name=$1 module=$2 host_version=$3 patch_dir=$4 version_var=$5
  local repo=${module#github.com/pulumi/} pkg=$version newest="" patch candidate
  repo=${repo%%/*}
  for patch in "$patch_dir/$repo-v$host_version-pkg-v"*.patch; do
    [ -f "$patch" ] || continue
    candidate=${patch##*-pkg-v}
    candidate=${candidate%.patch}
    # Not newer than this engine, and newer than the best so far (sort -V orders versions).
    [ "$(printf '%s\n' "$candidate" "$version" | sort -V | tail -n 1)" = "$version" ] || continue
    [ -z "$newest" ] || [ "$(printf '%s\n' "$candidate" "$newest" | sort -V | tail -n 1)" = "$candidate" ] || continue
    newest=$candidate
  done
  [ -z "$newest" ] || pkg=$newest
  local host_patch=$patch_dir/$repo-v$host_version-pkg-v$pkg.patch patch_sum=none
  [ -f "$host_patch" ] && patch_sum=$(sha256sum < "$host_patch" | cut -c1-16)
  local stamp="${patch_dir##*/} v$host_version, pulumi v$pkg, patch $patch_sum"
  if [ "$(cat "$bin/.$name.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$bin/$name" ]; then return 0; fi
  local out=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/${patch_dir##*/}/v$host_version-pkg-v$pkg
  mkdir -p "$out"
  exec 8>"$out/.lock"
  command -v flock >/dev/null 2>&1 && flock 8
  if [ "$(cat "$out/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$out/$name" ]; then
    need_go "$name"
    local work=$out/src dir
    rm -rf "$work"
    mkdir -p "$work"
    cat > "$work/go.mod" <<MOD
module pulumi-platform/engine/$name

go 1.25

require $module v$host_version
require github.com/pulumi/pulumi/pkg/v3 v$pkg
require github.com/pulumi/pulumi/sdk/v3 v$pkg

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
    cat > "$work/tools.go" <<GO
//go:build tools

package tools

import _ "$module/cmd/$name"
GO
    say "resolving modules for $name v$host_version on pkg/v3 v$pkg"
    if [ -f "$host_patch" ]; then
      dir=$(cd "$work" && go mod download -json "$module@v$host_version" |
        sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
      [ -d "$dir" ] || { say "could not download $module@v$host_version"; exit 1; }
      cp -r "$dir" "$work/$repo"
      chmod -R u+w "$work/$repo"
      (cd "$work/$repo" && git apply --verbose "$host_patch" >&2)
      echo "replace $module => ./$repo" >> "$work/go.mod"
    fi
    (cd "$work" && go mod tidy >&2)
    say "compiling $name v$host_version (a few minutes after the CLI)"
    (cd "$work" && go build -trimpath -ldflags "-s -w -X $version_var=v$host_version" \
      -o "$out/$name.tmp" "$module/cmd/$name")
    mv "$out/$name.tmp" "$out/$name"
    echo "$stamp" > "$out/.stamp"
  fi
  cp "$out/$name" "$bin/$name.tmp"
  mv "$bin/$name.tmp" "$bin/$name"
  echo "$stamp" > "$bin/.$name.stamp"
  say "installed $name v$host_version (pkg/v3 v$pkg) in $bin"
}
upstream_host pulumi-language-yaml github.com/pulumi/pulumi-yaml "${PULUMI_YAML_VERSION:-1.37.0}" \
  "$here/scripts/engine/yaml" github.com/pulumi/pulumi-yaml/pkg/version.Version
# pulumi-java v1.17.0 is the newest the Go module proxy serves (v1.17.1 and later answer 403); the generated Java SDK
# depends on com.pulumi:pulumi at the same version (PULUMI_JAVA_VERSION in provider/schema.ts).
upstream_host pulumi-language-java github.com/pulumi/pulumi-java/pkg "${PULUMI_JAVA_VERSION:-1.17.0}" \
  "$here/scripts/engine/java" github.com/pulumi/pulumi-java/pkg/version.Version

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
