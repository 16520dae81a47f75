#!/usr/bin/env bash
# The main job on the bundled example: set up, build, compile the example MLP
# (.pt2 written by torch.export) to an ExecuTorch .pte, show what is inside,
# run it with the reference runtime and compare with PyTorch's outputs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
model=${1:-$root/test/models/mlp}
out=${OUT:-$build/example.pte}
echo "== aot-compile $model/model.pt2 -> $out"
"$build/bin/aot-compile" "$model/model.pt2" -o "$out"
echo "== pte-inspect"
"$build/bin/pte-inspect" "$out"
echo "== pte-run (compared with PyTorch's reference outputs)"
inputs=(); expected=()
for f in "$model"/input_*.npy; do [ -e "$f" ] && inputs+=(--input "$f"); done
for f in "$model"/expected_*.npy; do [ -e "$f" ] && expected+=(--expected "$f"); done
"$build/bin/pte-run" "$out" "${inputs[@]}" "${expected[@]}" --repeat 20
