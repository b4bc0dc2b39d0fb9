#!/usr/bin/env bash
# Provides the Python side of the engine (our Python language host runs programs with it): a virtual environment
# with the real `pulumi` package from the Python package index at the engine's version (or the newest before it) and the build tools (build,
# setuptools, wheel: what scripts/release.js builds the SDK's wheel and sdist with), cached outside the repo beside
# the engine, and, with --sdk, the generated Python SDK (native-sdks/python) built as a wheel and installed in it. Nothing is installed outside that environment. Progress goes to stderr; the
# LAST line on stdout is the virtual environment's directory (use it as Pulumi.yaml's runtime.options.virtualenv).
#
#   bash scripts/python-env.sh           # the environment with pulumi<=<engine version>, the newest such
#   bash scripts/python-env.sh --sdk     # ... and the current native-sdks/python installed in it; the wheel is
#                                        # left in <cache>/python/v<version>/dist (rebuilt when the SDK changes)
#
# Environment: PULUMI_ENGINE_VERSION and PULUMI_PLATFORM_CACHE as for build-engine.sh; PYTHON (default python3).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "python-env: $*" >&2; }

version=${PULUMI_ENGINE_VERSION:-$(node -p "require('$here/node_modules/@pulumi/pulumi/package.json').version" \
  2>/dev/null || true)}
[ -n "$version" ] || { say "cannot tell the @pulumi/pulumi version: run 'npm ci' first"; exit 1; }
python=${PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || { say "$python is not installed: install Python 3.9 or later"; exit 1; }

cache=${PULUMI_PLATFORM_CACHE:-$HOME/.cache/pulumi-platform}/python/v$version
venv=$cache/venv
mkdir -p "$cache"
# One writer at a time (test runs may start in parallel); uncontended, this costs nothing.
exec 9>"$cache/.lock"
command -v flock >/dev/null 2>&1 && flock 9

# 1. The environment, the SDK runtime and the build tools, once per version and Python (a changed Python or tool
#    list makes a new one).
# PyPI lags npm by a few releases (3.272.0 when npm had 3.276.0): the newest release up to the engine's version.
tools=("pulumi<=$version" "build==1.6.1" "wheel==0.48.0" "setuptools>=65")
want="${tools[*]} on $("$python" -c 'import sys; print(sys.version.split()[0])')"
if [ "$(cat "$venv/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$venv"
  say "creating $venv with $want (downloads ~20 packages the first time)"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${tools[@]}" >&2
  echo "$want" > "$venv/.stamp"
fi

# 2. The generated SDK, built as a wheel and installed whenever native-sdks/python changes.
if [ "${1:-}" = --sdk ]; then
  sdk=$here/native-sdks/python
  [ -f "$sdk/pyproject.toml" ] || [ -f "$sdk/setup.py" ] || { say "no Python SDK in $sdk: run 'npm run sdks'"; exit 1; }
  stamp=$(cd "$sdk" && find . -type f -not -path '*/__pycache__/*' -not -path './build/*' \
    -not -path '*.egg-info/*' | sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$venv/.sdk-stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$cache/dist" "$cache/sdk-build"
    # Built from a copy: setuptools writes build/ and *.egg-info into the source tree, which is generated code.
    cp -r "$sdk" "$cache/sdk-build"
    say "building the Python SDK's wheel from $sdk"
    "$venv/bin/python" -m build --no-isolation --wheel --outdir "$cache/dist" "$cache/sdk-build" > /dev/null
    rm -rf "$cache/sdk-build"
    # Forced, since its version does not change from one generation to the next; then once more for its
    # dependencies (parver, semver) from the index, with pulumi kept as pinned above.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall \
      "$cache"/dist/*.whl >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$cache"/dist/*.whl "pulumi<=$version" >&2
    echo "$stamp" > "$venv/.sdk-stamp"
    say "installed $(cd "$cache/dist" && ls -- *.whl) in $venv"
  fi
fi

echo "$venv"
