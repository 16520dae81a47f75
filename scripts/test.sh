#!/usr/bin/env bash
# Set up, build, and run every test (lit, unit, end-to-end, sanitizer suites).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
# Modern PyTorch/ExecuTorch (outside the repo, made once; tests that need it
# show as skipped when it cannot be made).
"$root/scripts/venv.sh" > /dev/null || echo "test.sh: no PyTorch venv; tests that need it are skipped" >&2
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# Nested sanitizer builds (ctest asan_ubsan_suite, context_cache_*) use ccache too.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
ctest --output-on-failure -j "$(nproc)"
