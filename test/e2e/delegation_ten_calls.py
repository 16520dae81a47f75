#!/usr/bin/env python3
"""ten_calls through the demo backend, shared vs unshared delegate handles.

step(x) = sin(mm(a, x) + b) is called 10 times. With --backend demo the body
is lowered once: every call site calls the same lowered modules. Checks:
call sites and delegate entries (pte-inspect), init() calls observed by the
runtime (pte-run), outputs identical between the shared and the unshared
program, and equal bit for bit to a plain-Python re-computation of the demo
backend's arithmetic (float32 mm and add; sin as x - x^3/6, the cube in
float, the rest in double). Not compared with PyTorch's sin: the demo's sin
is a Taylor approximation. Standard library only.
"""
import argparse
import re
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAILED ({r.returncode}): {' '.join(map(str, cmd))}\n{r.stdout}{r.stderr}")
    return r.stdout


def read_npy_f32(path):
    data = Path(path).read_bytes()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode()
    assert "'<f4'" in header, header
    body = data[10 + header_len:]
    return list(struct.unpack(f"<{len(body) // 4}f", body))


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def demo_step(a, x, b):
    z = [f32(f32(a[0] * x[0]) + f32(a[1] * x[2])), f32(f32(a[0] * x[1]) + f32(a[1] * x[3])),
         f32(f32(a[2] * x[0]) + f32(a[3] * x[2])), f32(f32(a[2] * x[1]) + f32(a[3] * x[3]))]
    z = [f32(bi + zi) for bi, zi in zip(b, z)]
    return [f32(v - f32(f32(v * v) * v) / 6.0) for v in z]


def weights(pt2):
    with zipfile.ZipFile(pt2) as z:
        def tensor(name):
            blob = z.read(next(n for n in z.namelist() if n.endswith("/data/weights/" + name)))
            return list(struct.unpack("<4f", blob[:16]))
        return tensor("weight_0"), tensor("weight_1")  # step.a, step.b


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--model", required=True, help="the ten_calls zoo directory")
    ap.add_argument("--demo-ops", help="also check the demo_ops zoo directory")
    args = ap.parse_args()
    if args.demo_ops:
        check_demo_ops(Path(args.bin), Path(args.demo_ops))
    bin_dir, model = Path(args.bin), Path(args.model)
    x0 = model / "input_0.npy"
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    variants = {  # name: (aot-compile args, delegate entries, shared-by-10 entries)
        "shared": (["--backend", "demo"], 2, 2),
        "unshared": (["--backend", "demo", "--no-share-delegates"], 20, 0),
        "sin": (["--backend", "demo:ops=sin"], 1, 1),
        "sin-unshared": (["--backend", "demo:ops=sin", "--no-share-delegates"], 10, 0),
    }
    outputs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (flags, entries, shared10) in variants.items():
            pte = Path(tmp) / f"{name}.pte"
            run([bin_dir / "aot-compile", model / "model.pt2", *flags, "-o", pte])
            inspect = run([bin_dir / "pte-inspect", pte])
            calls = int(re.search(r"instructions: \d+ \((\d+) DelegateCall", inspect).group(1))
            check(inspect.count("shared by 10 calls") == shared10,
                  f"{name}: {shared10} delegate entries shared by 10 calls")
            out_dir = Path(tmp) / name
            out_dir.mkdir()
            log = run([bin_dir / "pte-run", pte, "--input", x0, "--output-dir", out_dir])
            m = re.search(r"delegates: (\d+) entries, init calls: BackendWithCompilerDemo=(\d+)", log)
            check(m is not None and int(m.group(1)) == entries and int(m.group(2)) == entries,
                  f"{name}: {calls} call sites, {entries} delegate entries, {entries} init() calls"
                  + (f" (saw {m.group(1)} entries, {m.group(2)} inits)" if m else ""))
            outputs[name] = (out_dir / "output_0.npy").read_bytes()

    check(outputs["shared"] == outputs["unshared"], "shared and unshared outputs are identical")
    check(outputs["sin"] == outputs["sin-unshared"], "sin-only shared and unshared outputs are identical")

    a, b = weights(model / "model.pt2")
    x = read_npy_f32(x0)
    for _ in range(10):
        x = demo_step(a, x, b)
    got = read_npy_f32_bytes(outputs["shared"])
    check(got == x, f"demo arithmetic re-computed in Python matches bit for bit: {got}")
    got_sin = read_npy_f32_bytes(outputs["sin"])
    check(all(abs(g - e) <= 1e-6 * max(1.0, abs(e)) for g, e in zip(got_sin, x)),
          "sin-only (portable mm + add) matches the re-computation")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


def check_demo_ops(bin_dir, model):
    """sin(a) and mm(a, x) + b: two separate regions, two lowered modules (even
    though each is called once), outputs equal to the demo arithmetic."""
    with tempfile.TemporaryDirectory() as tmp:
        pte = Path(tmp) / "demo_ops.pte"
        run([bin_dir / "aot-compile", model / "model.pt2", "--backend", "demo", "-o", pte])
        inputs = [model / f"input_{i}.npy" for i in range(3)]
        log = run([bin_dir / "pte-run", pte, *sum((["--input", i] for i in inputs), []),
                   "--output-dir", tmp])
        ok = "delegates: 2 entries, init calls: BackendWithCompilerDemo=2" in log
        a, x, b = (read_npy_f32(i) for i in inputs)
        sin_out = read_npy_f32(Path(tmp) / "output_0.npy")
        mm_out = read_npy_f32(Path(tmp) / "output_1.npy")
        want_sin = [f32(v - f32(f32(v * v) * v) / 6.0) for v in a]
        mm = [f32(f32(a[0] * x[0]) + f32(a[1] * x[2])), f32(f32(a[0] * x[1]) + f32(a[1] * x[3])),
              f32(f32(a[2] * x[0]) + f32(a[3] * x[2])), f32(f32(a[2] * x[1]) + f32(a[3] * x[3]))]
        want_mm = [f32(bi + mi) for bi, mi in zip(b, mm)]
        torch_mm = read_npy_f32(model / "expected_1.npy")
        ok &= sin_out == want_sin and mm_out == want_mm
        ok &= all(abs(g - e) <= 1e-5 for g, e in zip(mm_out, torch_mm))
        print(("ok   " if ok else "FAIL ") + "demo_ops: 2 lowered modules, demo sin and a@x + b")
        if not ok:
            sys.exit(f"demo_ops: {log}\nsin {sin_out} want {want_sin}\nmm {mm_out} want {want_mm}")


def read_npy_f32_bytes(data):
    with tempfile.NamedTemporaryFile(suffix=".npy") as f:
        f.write(data)
        f.flush()
        return read_npy_f32(f.name)


if __name__ == "__main__":
    main()
