// Two separate lowered modules with identical blobs, each called twice.
module attributes {exir.phase = "outline", exir.version = "1.1"} {
  exir.lowered_module @demo_0 {backend = "BackendWithCompilerDemo", blob = "1version:0#op:demo::aten.sin.default, numel:4, dtype:torch.float32<debug_handle>-1#", compile_specs = [#exir.compile_spec<"max_value", "\02">], function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>, share_handle_across_calls}
  exir.lowered_module @demo_1 {backend = "BackendWithCompilerDemo", blob = "1version:0#op:demo::aten.sin.default, numel:4, dtype:torch.float32<debug_handle>-1#", compile_specs = [#exir.compile_spec<"max_value", "\02">], function_type = (tensor<2x2xf32>) -> tensor<2x2xf32>, share_handle_across_calls}
  func.func @forward(%arg0: tensor<2x2xf32> {exir.input = #exir.input<user_input, "x">}) -> (tensor<2x2xf32> {exir.output = #exir.output<user_output>}) {
    %0 = exir.delegate_call @demo_0(%arg0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = exir.delegate_call @demo_1(%0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %2 = exir.delegate_call @demo_0(%1) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = exir.delegate_call @demo_1(%2) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    return %3 : tensor<2x2xf32>
  }
}
