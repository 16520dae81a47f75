#!/usr/bin/env bash
# Set up, build, and run every test (lit, unit, end-to-end, sanitizer suites).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
cd "${BUILD_DIR:-$root/build}"
# Nested sanitizer builds (ctest asan_ubsan_suite, context_cache_*) use ccache too.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
ctest --output-on-failure -j "$(nproc)"
