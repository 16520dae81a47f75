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


# A float32 program may differ from float32 eager by more than a fixed tolerance and
# still be right: deep random networks reach 1e9 and sum in another order in every
# kernel library. The arbiter is float64 eager: the program is wrong only when it is
# more than NOISE_FACTOR times further from float64 than float32 eager is.
NOISE_FACTOR = 10.0


def arbitrate(got_files, want, ref, atol):
    """(ok, detail): whether every floating output is within NOISE_FACTOR x float32
    eager's own distance to the float64 reference `ref` (or atol), and the distances."""
    import numpy as np
    import torch
    worst = None
    for i, (f, w, r) in enumerate(zip(got_files, want, ref)):
        if not w.is_floating_point():
            continue
        g = torch.from_numpy(np.array(np.load(f), order="C")).double()
        if g.shape != r.shape:
            return False, f"output {i}: shape {list(g.shape)} vs {list(r.shape)}"
        w64 = w.double()
        # Where float32 or float64 eager is NaN or infinite there is no distance to
        # weigh: the program must give what float32 eager gave (NaN for NaN).
        fin = torch.isfinite(r) & torch.isfinite(w64)
        odd = ~fin
        if odd.any():
            gw, ww = g[odd], w64[odd]
            agree = (torch.isnan(gw) & torch.isnan(ww)) | (gw == ww)
            if not bool(agree.all()):
                k = int((~agree).nonzero()[0][0])
                return False, (f"output {i}: {float(gw[k])} where float32 eager gives "
                               f"{float(ww[k])}")
        e_got = float((g - r)[fin].abs().max()) if fin.any() else 0.0
        e_eager = float((w64 - r)[fin].abs().max()) if fin.any() else 0.0
        ok = e_got <= max(NOISE_FACTOR * e_eager, atol or 0.0)
        detail = (f"output {i}: max |got - float64 eager| {e_got:.3g}, "
                  f"max |float32 eager - float64 eager| {e_eager:.3g}")
        if not ok:
            return False, detail
        worst = detail if worst is None else worst
    return True, worst or ""
