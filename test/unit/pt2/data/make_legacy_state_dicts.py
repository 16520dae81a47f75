"""Writes the genuine torch.save zips used by the legacy-container tests.

Run once with Debian's python3-torch (1.13), i.e. /usr/bin/python3, from this
folder; the outputs are committed so the tests never need torch:

  legacy_state_dict.pt       torch.save(OrderedDict(w=arange(6.).reshape(2,3)))
                             into a buffer (root folder "archive/").
  legacy_rich_state_dict.pt  written to a file path (root folder is the file
                             stem): a Parameter, a transposed view, a view with
                             a storage offset, two names tied to one storage,
                             an int64 tensor and a bool tensor.
"""
import io
from collections import OrderedDict

import torch

buf = io.BytesIO()
torch.save(OrderedDict(w=torch.arange(6.).reshape(2, 3)), buf)
with open("legacy_state_dict.pt", "wb") as f:
    f.write(buf.getvalue())

base = torch.arange(12.).reshape(3, 4)
rich = OrderedDict()
rich["p"] = torch.nn.Parameter(torch.tensor([1.5, -2.0, 3.25]))
rich["t"] = base.t()                 # sizes (4, 3), strides (1, 4)
rich["row"] = base[1]                # offset 4, sizes (4,)
rich["tied_a"] = base
rich["tied_b"] = base                # same storage as tied_a
rich["ids"] = torch.tensor([7, -1, 1 << 40], dtype=torch.int64)
rich["mask"] = torch.tensor([True, False, True])
torch.save(rich, "legacy_rich_state_dict.pt")
