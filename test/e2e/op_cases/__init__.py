"""Case lists of run_op_cases.py, one module per op family; `Case` is one check."""
import dataclasses
from typing import Any, Callable, Optional, Sequence


@dataclasses.dataclass
class Case:
    """One module and its inputs.

    make: builds the module (called once; random init under a fixed seed).
    inputs: builds the example inputs (a tuple).
    refused: a regex the compile error must match; the compile must fail.
    rtol/atol: tolerances when the defaults cannot hold; `why` says why.
    backends: the backends this case runs on (default: every one asked for).
    dynamic_shapes: passed to torch.export.export.
    calls: how many times the compiled method is called in one loaded program
      (state carries over); with more than one, the outputs of every call and the
      buffers after every call (pte-run, by name) are compared with eager's.
    """
    name: str
    make: Callable[[], Any]
    inputs: Callable[[], tuple]
    refused: Optional[str] = None
    rtol: Optional[float] = None
    atol: Optional[float] = None
    why: str = ""
    backends: Optional[Sequence[str]] = None
    dynamic_shapes: Any = None
    oracle: bool = True  # also run on upstream's runtime when --oracle is given
    calls: int = 1
