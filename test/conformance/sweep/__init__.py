"""Shared pieces of the conformance sweeps (OpInfo, the backend suite, the model sweep).

Every sweep judges one exported program the same way: torch.export in eval mode
under no_grad, saved with torch.export.save; then

- ptec: aot-compile (portable, and --backend xnnpack), run by pte-run (and, for
  the model sweep, by upstream's runtime too);
- upstream: ExecuTorch's Python flow (to_edge_transform_and_lower, portable or with
  XnnpackPartitioner, then to_executorch), run by upstream's C++ runtime
  (the prebuilt executorch-runner);

and classifies each flow's result: matched / wrong (a value differs from eager
and nothing refused it: the worst outcome) / refused (the first error line) /
crashed (a signal, or a time-out).
"""
