#!/usr/bin/env bash
# Compile every fixture .pt2 of the zoo with several option sets and print one sha256
# per output, so a refactoring can show the written .pte files are byte-identical:
#   scripts/zoo_fingerprint.sh > before.txt; <change>; scripts/zoo_fingerprint.sh > after.txt
#   diff before.txt after.txt
# Usage: scripts/zoo_fingerprint.sh [BUILD_DIR]   (default ./build)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
compile="$build/bin/aot-compile"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
options=("" "--backend xnnpack" "--backend demo" "--planner greedy --write-back end --no-reinplace")
cd "$root/test/models"
for pt2 in */*.pt2; do
  for i in "${!options[@]}"; do
    out="$tmp/out.pte"
    # shellcheck disable=SC2086
    if "$compile" "$pt2" ${options[$i]} -o "$out" >/dev/null 2>"$tmp/err"; then
      echo "$(sha256sum <"$out" | cut -c1-16) $pt2 [${options[$i]}]"
    else
      echo "refused $pt2 [${options[$i]}]: $(head -c 120 "$tmp/err" | tr '\n' ' ')"
    fi
    rm -f "$out"
  done
done
