"""Eager outputs, inputs as .npy files, and the comparison every sweep uses."""
import hashlib
import os


def tensor_leaves(out):
    """The tensors of a (nested) output, in pytree order; other leaves are dropped."""
    import torch
    import torch.utils._pytree as pytree
    if hasattr(out, "to_tuple") and not isinstance(out, torch.Tensor):  # HF ModelOutput
        out = out.to_tuple()
    return [x for x in pytree.tree_leaves(out) if isinstance(x, torch.Tensor)]


def save_inputs(inputs, d, prefix="in"):
    """Writes each tensor as <prefix><i>.npy (contiguous, as a user would); returns the paths."""
    import numpy as np
    files = []
    for i, x in enumerate(inputs):
        f = os.path.join(d, f"{prefix}{i}.npy")
        np.save(f, x.detach().contiguous().numpy())
        files.append(f)
    return files


def digest(*parts):
    """A stable hash of strings and tensors (cache keys: the graph, inputs, weights)."""
    import torch
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, torch.Tensor):
            t = p.detach().contiguous().cpu()
            h.update(f"{t.dtype}{tuple(t.shape)}".encode())
            if t.dtype == torch.bfloat16:
                t = t.view(torch.int16)
            h.update(t.numpy().tobytes() if t.numel() else b"")
        else:
            h.update(str(p).encode())
    return h.hexdigest()[:24]


def compare(got_files, want, rtol=None, atol=None, shape_only=False):
    """None when every .npy matches its eager tensor under torch.testing.assert_close
    (its dtype defaults unless rtol/atol are given; NaN equals NaN; dtype and shape
    must agree), else what differs. shape_only: only dtype and shape (outputs of
    random ops, whose values eager itself does not repeat)."""
    import numpy as np
    import torch
    if len(got_files) < len(want):
        return f"{len(want)} outputs expected"
    for i, (f, w) in enumerate(zip(got_files, want)):
        if not os.path.exists(f):
            return f"output {i} was not written"
        # np.ascontiguousarray would make a 0-d array 1-d.
        g = torch.from_numpy(np.array(np.load(f), order="C"))
        w = w.detach().contiguous()
        if shape_only:
            if g.dtype != w.dtype or g.shape != w.shape:
                return (f"output {i}: {g.dtype}{list(g.shape)} where eager gives "
                        f"{w.dtype}{list(w.shape)}")
            continue
        kw = {}
        if rtol is not None or atol is not None:
            kw = {"rtol": rtol or 0.0, "atol": atol or 0.0}
        try:
            torch.testing.assert_close(g, w, equal_nan=True, **kw)
        except AssertionError as e:
            return f"output {i}: " + " ".join(str(e).split())[:300]
        except (TypeError, RuntimeError) as e:
            return f"output {i}: {type(e).__name__}: {e}"[:300]
    return None


def max_abs_diff(got_file, want):
    import numpy as np
    import torch
    try:
        g = torch.from_numpy(np.array(np.load(got_file), order="C")).double()
        return float((g - want.detach().double()).abs().max()) if g.numel() else 0.0
    except Exception:
        return None
