#!/usr/bin/env bash
# Configure and build ptec into ./build (Release, Ninja, ccache when present).
# Usage: scripts/build.sh [extra cmake args...]   BUILD_DIR overrides ./build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
P=$(llvm-config-19 --prefix)
# Let ccache share objects between checkouts in different folders (CI clones).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR="$P/lib/cmake/mlir" -DLLVM_EXTERNAL_LIT="$P/build/utils/lit/lit.py" "$@"
cmake --build "$build" -j "$(nproc)"
