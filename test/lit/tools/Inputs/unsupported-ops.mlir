// Saved IR (as aot-compile --compile-to=outline writes it, with the
// locations the importer gives ops: the node's name around its Python line,
// tagged with the .pt2, the method and the debug handle) where three nodes
// of one Python line and one of another call operators ptec has no CPU
// kernel for (legalize-to-core-aten rewrites both away; this IR is past that
// phase). Used by diagnostics-grouped.test. If a kernel for
// aten::_conj_physical or aten::lift is ever added, pick another operator
// that has none.
module attributes {exir.phase = "outline", exir.version = "1.2"} {
  func.func @forward(%x: tensor<4xf32> {exir.input = #exir.input<user_input, "x">}) -> (tensor<4xf32> {exir.output = #exir.output<user_output>}) {
    %a = exir.aten "aten::_conj_physical"(%x) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32> loc("conj"(fused<["model.pt2", "forward", 1]>["model.py":12:0]))
    %b = exir.aten "aten::_conj_physical"(%a) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32> loc("conj_1"(fused<["model.pt2", "forward", 2]>["model.py":12:0]))
    %c = exir.aten "aten::_conj_physical"(%b) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32> loc("conj_2"(fused<["model.pt2", "forward", 3]>["model.py":12:0]))
    %d = exir.aten "aten::lift"(%c) {operand_segments = array<i32: 1>} : (tensor<4xf32>) -> tensor<4xf32> loc("lift"(fused<["model.pt2", "forward", 4]>["model.py":14:0]))
    return %d : tensor<4xf32>
  }
}
