#!/usr/bin/env bash
# The tour of docs/user-guide.md on the bundled example (a .pt2 written by
# torch.export), step by step: compile it to an ExecuTorch .pte with the
# report, the memory-plan picture and the partition graph; look at the IR
# (one phase printed, one saved and resumed from); show what is inside the
# program and its memory plan; run it with the reference runtime against
# PyTorch's outputs. It sets up and builds first.
#
# Usage: scripts/example.sh [--no-build] [--out DIR] [MODEL_DIR]
#   --no-build  use the tools already built in BUILD_DIR (default ./build)
#   --out DIR   where the files go (default BUILD_DIR/example)
#   MODEL_DIR   a folder with model.pt2, input_*.npy, expected_*.npy
#               (default test/models/mlp)
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
build=${BUILD_DIR:-$root/build}
build_first=1 out="" model=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build_first=0 ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) model=$1 ;;
  esac
  shift
done
if [ "$build_first" = 1 ]; then
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh"
fi
model=${model:-$root/test/models/mlp}
out=${out:-$build/example}
out=${out%/}
bin=$build/bin
mkdir -p "$out"
step() { printf '\n== %s\n' "$*"; }

step "1. compile: aot-compile $model/model.pt2 -> $out/model.pte (report, plan picture, partition graph)"
"$bin/aot-compile" "$model/model.pt2" -o "$out/model.pte" --report \
  --plan-svg "$out/plan.svg" --partition-dot "$out/graph.dot"

step "2. the IR: after import (first lines), saved after write-back, resumed from"
"$bin/aot-compile" "$model/model.pt2" --compile-to=import > "$out/import.mlir"
head -n 8 "$out/import.mlir"
"$bin/aot-compile" "$model/model.pt2" --compile-to=write-back -o "$out/model.mlir"
"$bin/aot-compile" "$out/model.mlir" -o "$out/resumed.pte"
if cmp -s "$out/model.pte" "$out/resumed.pte"; then
  echo "resumed from $out/model.mlir: the same .pte, byte for byte"
else
  echo "resumed from $out/model.mlir: $out/resumed.pte"
fi

step "3. inspect: pte-inspect (what is inside) and --plan (the memory plan against its bound)"
"$bin/pte-inspect" "$out/model.pte"
"$bin/pte-inspect" --plan "$out/model.pte"
echo "pictures: $out/plan.svg (memory plan), $out/graph.dot (partition; .svg beside it when Graphviz is installed)"

step "4. run: pte-run, compared with PyTorch's reference outputs"
inputs=() expected=()
for f in "$model"/input_*.npy; do [ -e "$f" ] && inputs+=(--input "$f"); done
for f in "$model"/expected_*.npy; do [ -e "$f" ] && expected+=(--expected "$f"); done
"$bin/pte-run" "$out/model.pte" ${inputs[@]+"${inputs[@]}"} ${expected[@]+"${expected[@]}"} --repeat 20
