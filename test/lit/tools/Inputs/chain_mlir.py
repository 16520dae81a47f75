#!/usr/bin/env python3
"""Writes saved IR (after the write-back phase) of one method that applies
aten::sin N times to its input, and also returns the input:
  chain_mlir.py N OUT.mlir
A graph of any size for the pictures and the report, without a .pt2."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
t = "tensor<2x2xf32>"
lines = ['module attributes {exir.passes = ["exir-functionalize", "exir-legalize-to-core", '
         '"exir-fold-constants", "exir-reinplace-state", "exir-place-write-back{at-end=false}"], '
         'exir.phase = "write-back", exir.version = "1.2"} {',
         f'  func.func @forward(%arg0: {t} {{exir.input = #exir.input<user_input, "x">}}, '
         f'%arg1: {t} {{exir.input = #exir.input<user_input, "unused">}}) -> '
         f'({t} {{exir.output = #exir.output<user_output>}}) {{']
prev = "%arg0"
for i in range(n):
    lines.append(f'    %{i} = exir.aten "aten::sin"({prev}) {{operand_segments = array<i32: 1>}} '
                 f': ({t}) -> {t}')
    prev = f"%{i}"
lines += [f"    return {prev} : {t}", "  }", "}"]
open(out, "w").write("\n".join(lines) + "\n")
