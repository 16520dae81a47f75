#!/usr/bin/env python3
"""scale_bench: a whole aot-compile of weight-heavy synthetic models against
plain I/O of the same bytes, side by side in one run (issue 15's goals).

  scale_bench.py --bin-dir BUILD/bin [--sizes-mib 47,1024] [--repeats R]
                 [--work DIR] [--keep]

For each size S (MiB of float32 weights): a .pt2 with a chain of linear
layers y = relu(x @ W_k + b_k) (W_k square, as many as S needs, the largest
64 MiB), STORED as torch writes. Measured, median of R (each run in its own
process, so peak RSS is its own; files just written, so all reads come from
the page cache):
  plain I/O   read the .pt2 and write a file of the .pte's size (cp-like)
  compile     aot-compile model.pt2 -o model.pte
  compile+ext aot-compile ... --external-weights (weights to a .ptd)
Printed per size: seconds, the ratio to plain I/O (goal: at most 2x), peak RSS,
and RSS over the largest tensor (goal: the largest tensor + a constant).
No torch needed: the archive is written with the standard library.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zipfile


def meta(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s
    return {"dtype": 7, "sizes": [{"as_int": s} for s in sizes], "requires_grad": False,
            "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": s} for s in strides],
            "storage_offset": {"as_int": 0}, "layout": 7}


def t(name):
    return {"as_tensor": {"name": name}}


def node(target, ins, out):
    return {"target": target, "outputs": [t(out)], "metadata": {},
            "inputs": [{"name": k, "arg": v, "kind": 1} for k, v in ins]}


def write_model(path, mib):
    """Layers of width n (W: n x n float32, at most 64 MiB each) totalling ~mib MiB."""
    n = 4096 if mib >= 64 else max(64, int((mib * (1 << 20) / 4) ** 0.5) // 8 * 8)
    per = n * n * 4
    layers = max(1, round(mib * (1 << 20) / per))
    tv, nodes, specs, inputs = {"x": meta([1, n])}, [], [], []
    cur = "x"
    for k in range(layers):
        w, b = "w%d" % k, "b%d" % k
        tv[w], tv[b] = meta([n, n]), meta([n])
        for nm in (w, b):
            specs.append({"parameter": {"arg": {"name": nm}, "parameter_name": "l%d.%s" % (k, nm[0])}})
            inputs.append(t(nm))
        mm, add, act = "mm%d" % k, "add%d" % k, "relu%d" % k
        tv[mm] = tv[add] = tv[act] = meta([1, n])
        nodes += [node("torch.ops.aten.mm.default", [("self", t(cur)), ("mat2", t(w))], mm),
                  node("torch.ops.aten.add.Tensor", [("self", t(mm)), ("other", t(b))], add),
                  node("torch.ops.aten.relu.default", [("self", t(add))], act)]
        cur = act
    specs.append({"user_input": {"arg": t("x")}})
    inputs.append(t("x"))
    graph = {"inputs": inputs, "outputs": [t(cur)], "nodes": nodes, "tensor_values": tv,
             "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
             "custom_obj_values": {}, "sym_float_values": {}}
    model = {"graph_module": {"graph": graph,
                              "signature": {"input_specs": specs,
                                            "output_specs": [{"user_output": {"arg": t(cur)}}]},
                              "module_call_graph": [{"fqn": "", "signature": None}],
                              "metadata": {}, "treespec_namedtuple_fields": {}},
             "opset_version": {"aten": 10}, "range_constraints": {},
             "schema_version": {"major": 8, "minor": 12}, "verifiers": ["ATEN"],
             "torch_version": "2.9.0"}
    config, k = {}, 0
    root = "model/"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for spec in specs[:-1]:
            nm = spec["parameter"]["arg"]["name"]
            shape = [n, n] if nm[0] == "w" else [n]
            count = n * n if nm[0] == "w" else n
            config[spec["parameter"]["parameter_name"]] = {
                "path_name": "weight_%d" % k, "is_param": True, "use_pickle": False,
                "tensor_meta": meta(shape)}
            # Small, varied values (no two tensors alike, so nothing dedups).
            chunk = struct.pack("<1024f", *[((i * 7 + k) % 97) / 970.0 for i in range(1024)])
            with z.open(root + "data/weights/weight_%d" % k, "w", force_zip64=True) as f:
                left = count * 4
                while left:
                    f.write(chunk[:min(left, len(chunk))])
                    left -= min(left, len(chunk))
            k += 1
        z.writestr(root + "archive_format", "pt2")
        z.writestr(root + "archive_version", "0")
        z.writestr(root + "byteorder", "little")
        z.writestr(root + "models/model.json", json.dumps(model))
        z.writestr(root + "data/weights/model_weights_config.json",
                   json.dumps({"config": config}))
        z.writestr(root + "data/constants/model_constants_config.json",
                   json.dumps({"config": {}}))
    return per, layers


def run(cmd):
    """(seconds, peak RSS bytes) of one child process."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.perf_counter() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err))
    return secs, usage.ru_maxrss * 1024


def plain_io(src, size, dst):
    """Read src fully and write `size` bytes to dst, in a child (its own RSS)."""
    code = ("import sys\nsrc, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]\n"
            "buf = bytearray(1 << 22)\nwith open(src, 'rb', buffering=0) as f:\n"
            "    while f.readinto(buf): pass\n"
            "with open(dst, 'wb') as f:\n"
            "    while n > 0:\n        k = min(n, len(buf)); f.write(memoryview(buf)[:k]); n -= k\n")
    return run([sys.executable, "-c", code, src, str(size), dst])


def verify(bin_dir, pte, ext_pte, ptd):
    """Checks a compiled model end to end; returns a summary or raises SystemExit.

    The independent Python checker (test/conformance/pte_check.py) reads the
    whole .pte (mapped); every constant's bytes, found through its 64-bit
    offset, must be the pattern write_model wrote for that tensor (weight k
    repeats chunk k); pte-inspect --check and pte-run must accept both builds.
    """
    import mmap
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "test", "conformance"))
    import pte_check
    import ptefb
    with open(pte, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        problems = [i for i in pte_check.check_bytes(data) if i[0] == "error"]
        if problems:
            raise SystemExit("pte_check on %s: %s" % (pte, problems[:5]))
        psize, base = struct.unpack_from("<QQ", data, 16)
        prog = ptefb.root(data, psize)
        cs = prog.get("constant_segment")
        seg = prog.get("segments")[cs.get("segment_index")]
        offsets = cs.get("offsets")
        start = base + seg.get("offset")
        ends = sorted(set(offsets)) + [seg.get("size")]
        checked, top = 0, 0
        for off in sorted(set(offsets)):
            size = ends[ends.index(off) + 1] - off  # with padding: whole chunks only
            if size < 4096:
                continue  # the reserved empty constant
            at = start + off
            first = struct.unpack_from("<f", data, at)[0]
            k = round(first * 970)
            chunk = struct.pack("<1024f", *[((i * 7 + k) % 97) / 970.0 for i in range(1024)])
            n = 0
            while n + len(chunk) <= size:
                if data[at + n:at + n + len(chunk)] != chunk:
                    raise SystemExit("%s: constant at offset %d differs from weight_%d at +%d"
                                     % (pte, at, k, n))
                n += len(chunk)
            checked += 1
            top = max(top, at + n)
    runs = [[os.path.join(bin_dir, "pte-inspect"), "--check", pte],
            [os.path.join(bin_dir, "pte-run"), pte],
            [os.path.join(bin_dir, "pte-inspect"), "--check", ext_pte, "--data", ptd],
            [os.path.join(bin_dir, "pte-run"), ext_pte, "--data", ptd]]
    for cmd in runs:
        run(cmd)
    return ("%d constants checked byte for byte, the last ending at byte %d (%.2f GiB); "
            "pte-inspect --check and pte-run accept both builds"
            % (checked, top, top / 2**30))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--sizes-mib", default="47,256")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verify", action="store_true",
                    help="check the outputs (constant bytes via the .pte's offsets, "
                         "pte-inspect --check, pte-run) after the timed runs")
    a = ap.parse_args()
    aot = os.path.join(a.bin_dir, "aot-compile")
    work = a.work or tempfile.mkdtemp(prefix="scale_bench.")
    os.makedirs(work, exist_ok=True)
    print("| weights MiB | layers | plain I/O s | compile s | ratio | peak RSS MiB | RSS / largest tensor | with --external-weights s | RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for mib in [int(s) for s in a.sizes_mib.split(",")]:
            pt2 = os.path.join(work, "m%d.pt2" % mib)
            pte, ptd = pt2[:-4] + ".pte", pt2[:-4] + "_ext.ptd"
            largest, layers = write_model(pt2, mib)
            io, comp, ext = [], [], []
            for _ in range(a.repeats):
                comp.append(run([aot, pt2, "-o", pte]))
                io.append(plain_io(pt2, os.path.getsize(pte), pte + ".copy"))
                ext.append(run([aot, pt2, "-o", pt2[:-4] + "_ext.pte",
                                "--external-weights=" + ptd]))
            med = lambda xs, i: statistics.median(x[i] for x in xs)
            print("| %d | %d | %.3f | %.3f | %.2fx | %.0f | %.2fx | %.3f | %.0f |" % (
                mib, layers, med(io, 0), med(comp, 0), med(comp, 0) / med(io, 0),
                med(comp, 1) / 2**20, med(comp, 1) / largest, med(ext, 0), med(ext, 1) / 2**20))
            sys.stdout.flush()
            if a.verify:
                print("verify %d MiB: %s" % (mib, verify(a.bin_dir, pte, pt2[:-4] + "_ext.pte",
                                                         ptd)))
                sys.stdout.flush()
            for f in (pt2, pte, pte + ".copy", ptd, pt2[:-4] + "_ext.pte"):
                if not a.keep and os.path.exists(f):
                    os.remove(f)
    finally:
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
