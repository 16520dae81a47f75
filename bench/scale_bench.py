#!/usr/bin/env python3
"""scale_bench: a whole aot-compile of weight-heavy synthetic models against
plain I/O of the same bytes, side by side in one run (the goals: compile time
and peak memory close to reading and writing the same bytes).

  scale_bench.py --bin-dir BUILD/bin [--sizes-mib 47,1024] [--nodes 1000,100000]
                 [--repeats R] [--work DIR] [--keep] [--verify]

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

Graph series (--nodes 1000,10000,100000; the goal: near-linear time per node): for
each N a .pt2 of exactly N nodes in blocks of 16 (a linear layer, view /
permute / mul / clone / view, a residual add, layer norm, relu, cat + view +
sum, the update of one mutable buffer per block, each node with a stack trace
and module path; N/16 weight matrices of 16x16), so that every pass of the
default pipeline has work. aot-compile --time-passes runs R times per size,
sizes interleaved; printed per size: seconds (wall and CPU), CPU microseconds
per node, the per-node ratio to the first size (goal: at most 1.2x at 100k
against 1k), peak RSS; then per step (reading, import, each pass, emission,
writing) its seconds per size and its per-node ratio.
No torch needed: the archives are written with the standard library.
"""
import argparse
import json
import os
import re
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
    payloads = []
    for k, spec in enumerate(specs[:-1]):
        nm = spec["parameter"]["arg"]["name"]
        count = n * n if nm[0] == "w" else n

        def fill(f, left=count * 4, k=k):
            # Small, varied values (no two tensors alike, so nothing dedups).
            chunk = struct.pack("<1024f", *[((i * 7 + k) % 97) / 970.0 for i in range(1024)])
            while left:
                f.write(chunk[:min(left, len(chunk))])
                left -= min(left, len(chunk))
        payloads.append((spec["parameter"]["parameter_name"], meta([n, n] if nm[0] == "w" else [n]),
                         True, count * 4, fill))
    write_archive(path, graph, specs, [{"user_output": {"arg": t(cur)}}], payloads)
    return per, layers



def write_archive(path, graph, specs, output_specs, payloads):
    """The PT2 layout of torch.export.save (torch 2.9), every record STORED.
    payloads: (fully qualified name, tensor meta, is_param, bytes, fill(f))."""
    model = {"graph_module": {"graph": graph,
                              "signature": {"input_specs": specs, "output_specs": output_specs},
                              "module_call_graph": [{"fqn": "", "signature": None}],
                              "metadata": {}, "treespec_namedtuple_fields": {}},
             "opset_version": {"aten": 10}, "range_constraints": {},
             "schema_version": {"major": 8, "minor": 12}, "verifiers": ["ATEN"],
             "torch_version": "2.9.0"}
    config = {}
    root = "model/"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for k, (fqn, tmeta, is_param, size, fill) in enumerate(payloads):
            config[fqn] = {"path_name": "weight_%d" % k, "is_param": is_param,
                           "use_pickle": False, "tensor_meta": tmeta}
            # Data 64-byte aligned as torch's writer does it (a padding extra
            # field): the compiler then maps weights in place instead of copying.
            name = root + "data/weights/weight_%d" % k
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            start = z.fp.tell() + 30 + len(name.encode()) + 4 + 20  # + zip64 extra
            pad = (-start) % 64
            zi.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
            with z.open(zi, "w", force_zip64=True) as f:
                fill(f)
        z.writestr(root + "archive_format", "pt2")
        z.writestr(root + "archive_version", "0")
        z.writestr(root + "byteorder", "little")
        z.writestr(root + "models/model.json", json.dumps(model))
        z.writestr(root + "data/weights/model_weights_config.json",
                   json.dumps({"config": config}))
        z.writestr(root + "data/constants/model_constants_config.json",
                   json.dumps({"config": {}}))

# ---------------------------------------------------------------- graph series

D, B = 16, 8  # hidden width and batch of the graph-heavy model (small tensors)


def block_nodes(k, cur, tv, specs, inputs, outs, state):
    """One block of 16 nodes: a linear layer, view/permute/mul/clone/view,
    a residual add, layer norm, relu, cat + view + sum, a buffer update."""
    w, b, buf = "p_w%d" % k, "p_b%d" % k, "b_s%d" % k
    tv[w], tv[b], tv[buf] = meta([D, D]), meta([D]), meta([B, D])
    specs.append({"parameter": {"arg": {"name": w}, "parameter_name": "blocks.%d.w" % k}})
    specs.append({"parameter": {"arg": {"name": b}, "parameter_name": "blocks.%d.b" % k}})
    state.append({"buffer": {"arg": {"name": buf}, "buffer_name": "blocks.%d.s" % k,
                             "persistent": True}})
    inputs += [t(w), t(b)]
    n = lambda s: "%s_%d" % (s, k)
    f = lambda v: {"as_float": v}
    ints = lambda v: {"as_ints": v}
    shapes = {n("wt"): [D, D], n("mm"): [B, D], n("v"): [B, 4, D // 4],
              n("p"): [4, B, D // 4], n("m"): [4, B, D // 4], n("p2"): [B, 4, D // 4],
              n("c"): [B, 4, D // 4], n("r"): [B, D], n("h"): [B, D], n("ln"): [B, D],
              n("mean"): [B, 1], n("rstd"): [B, 1], n("a"): [B, D], n("cat"): [B, 2 * D],
              n("s"): [B, 2, D], n("sum"): [B, D], n("st"): [B, D], n("o"): [B, D]}
    for name, shape in shapes.items():
        tv[name] = meta(shape)
    nodes = [
        node("torch.ops.aten.permute.default", [("self", t(w)), ("dims", ints([1, 0]))], n("wt")),
        node("torch.ops.aten.addmm.default",
             [("self", t(b)), ("mat1", t(cur)), ("mat2", t(n("wt")))], n("mm")),
        node("torch.ops.aten.view.default", [("self", t(n("mm"))), ("size", ints([B, 4, D // 4]))],
             n("v")),
        node("torch.ops.aten.permute.default", [("self", t(n("v"))), ("dims", ints([1, 0, 2]))],
             n("p")),
        node("torch.ops.aten.mul.Tensor", [("self", t(n("p"))), ("other", f(0.5))], n("m")),
        node("torch.ops.aten.permute.default", [("self", t(n("m"))), ("dims", ints([1, 0, 2]))],
             n("p2")),
        node("torch.ops.aten.clone.default",
             [("self", t(n("p2"))), ("memory_format", {"as_memory_format": 1})], n("c")),
        node("torch.ops.aten.view.default", [("self", t(n("c"))), ("size", ints([B, D]))], n("r")),
        node("torch.ops.aten.add.Tensor", [("self", t(cur)), ("other", t(n("r")))], n("h")),
        {"target": "torch.ops.aten.native_layer_norm.default",
         "inputs": [{"name": "input", "arg": t(n("h")), "kind": 1},
                    {"name": "normalized_shape", "arg": ints([D]), "kind": 1},
                    {"name": "weight", "arg": t("p_ln_w"), "kind": 1},
                    {"name": "bias", "arg": t("p_ln_b"), "kind": 1},
                    {"name": "eps", "arg": f(1e-05), "kind": 1}],
         "outputs": [t(n("ln")), t(n("mean")), t(n("rstd"))], "metadata": {}},
        node("torch.ops.aten.relu.default", [("self", t(n("ln")))], n("a")),
        node("torch.ops.aten.cat.default",
             [("tensors", {"as_tensors": [{"name": n("a")}, {"name": n("h")}]}), ("dim", {"as_int": 1})],
             n("cat")),
        node("torch.ops.aten.view.default", [("self", t(n("cat"))), ("size", ints([B, 2, D]))],
             n("s")),
        node("torch.ops.aten.sum.dim_IntList", [("self", t(n("s"))), ("dim", ints([1]))], n("sum")),
        node("torch.ops.aten.add.Tensor", [("self", t(buf)), ("other", t(n("sum")))], n("st")),
        node("torch.ops.aten.mul.Tensor", [("self", t(n("sum"))), ("other", t(n("st")))], n("o")),
    ]
    outs.append({"buffer_mutation": {"arg": {"name": n("st")}, "buffer_name": "blocks.%d.s" % k}})
    for i, nd in enumerate(nodes):
        nd["metadata"] = {
            "stack_trace": "  File \"synthetic.py\", line %d, in forward\n    x = self.blocks[%d](x)\n"
                           % (20 + i, k),
            "nn_module_stack": "L__self___blocks_%d,blocks.%d,synthetic.Block" % (k, k)}
        nd["is_hop_single_tensor_return"] = None
    return nodes, n("o")


BLOCK_NODES = 16


def write_graph_model(path, count):
    """A .pt2 with exactly `count` nodes: blocks of BLOCK_NODES, then relus."""
    tv = {"x": meta([B, D]), "p_ln_w": meta([D]), "p_ln_b": meta([D])}
    specs = [{"parameter": {"arg": {"name": "p_ln_w"}, "parameter_name": "ln.weight"}},
             {"parameter": {"arg": {"name": "p_ln_b"}, "parameter_name": "ln.bias"}}]
    inputs, nodes, outs, state = [t("p_ln_w"), t("p_ln_b")], [], [], []
    cur = "x"
    for k in range(count // BLOCK_NODES):
        more, cur = block_nodes(k, cur, tv, specs, inputs, outs, state)
        nodes += more
    for k in range(count - len(nodes)):
        nm = "tail_%d" % k
        tv[nm] = meta([B, D])
        nodes.append(node("torch.ops.aten.relu.default", [("self", t(cur))], nm))
        nodes[-1]["metadata"] = {"stack_trace": "  File \"synthetic.py\", line 90, in forward\n"
                                                "    x = x.relu()\n"}
        cur = nm
    inputs += [t(s["buffer"]["arg"]["name"]) for s in state] + [t("x")]
    specs += state + [{"user_input": {"arg": t("x")}}]
    outs.append({"user_output": {"arg": t(cur)}})
    graph = {"inputs": inputs, "outputs": [t(o["buffer_mutation"]["arg"]["name"]) for o in outs[:-1]]
             + [t(cur)],
             "nodes": nodes, "tensor_values": tv,
             "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": False,
             "custom_obj_values": {}, "sym_float_values": {}}
    payloads = []
    for k, s in enumerate(specs[:-1]):
        kind = "parameter" if "parameter" in s else "buffer"
        m = tv[s[kind]["arg"]["name"]]
        count = 1
        for d in m["sizes"]:
            count *= d["as_int"]
        data = struct.pack("<%df" % count, *[((i * 7 + k) % 97) / 970.0 for i in range(count)])
        payloads.append((s[kind]["%s_name" % kind], m, kind == "parameter", count * 4,
                         lambda f, data=data: f.write(data)))
    write_archive(path, graph, specs, outs, payloads)
    return len(nodes)


def run_child(cmd):
    """(wall seconds, CPU seconds, peak RSS bytes, stderr) of one child process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf)
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.perf_counter() - start
        errf.seek(0)
        err = errf.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(cmd), err))
    return secs, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, err


def run(cmd):
    """(seconds, peak RSS bytes) of one child process."""
    secs, _, rss, _ = run_child(cmd)
    return secs, rss


STEP = re.compile(r"^\s+([0-9.]+) \(\s*[0-9.]+%\)\s+(.+?)\s*$")


def steps_of(report):
    """{step: seconds} from aot-compile --time-passes (MLIR's timing list)."""
    out = {}
    for line in report.splitlines():
        m = STEP.match(line)
        if m and m.group(2) != "root":
            out[m.group(2)] = out.get(m.group(2), 0.0) + float(m.group(1))
    return out


def graph_series(aot, work, counts, repeats, keep):
    """The graph-size tables (see the module docstring)."""
    paths = {}
    for n in counts:
        paths[n] = os.path.join(work, "g%d.pt2" % n)
        # In a child: the JSON of 100k nodes would stay in this process, and
        # a forked compiler's peak RSS would count it.
        subprocess.run([sys.executable, os.path.abspath(__file__), "--write-graph",
                        paths[n], str(n)], check=True)
    runs = {n: [] for n in counts}
    for _ in range(repeats):
        for n in counts:
            runs[n].append(run_child([aot, paths[n], "-o", paths[n][:-4] + ".pte",
                                      "--time-passes", "--no-progress"]))
    med = lambda n, i: statistics.median(r[i] for r in runs[n])
    base = counts[0]
    per = lambda n: med(n, 1) / n
    steps = {n: [steps_of(r[3]) for r in runs[n]] for n in counts}
    step_med = lambda n, k: statistics.median(s.get(k, 0.0) for s in steps[n])
    # The steps' total leaves out the process start (loading the dialects and
    # the operator registry, about 0.1 s), which flatters small graphs.
    total = lambda n: step_med(n, "Total") / n
    print("| nodes | .pt2 MiB | wall s | CPU s | CPU us / node | per-node ratio vs %d "
          "| steps s | per-node ratio, steps | peak RSS MiB |" % base)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in counts:
        print("| %d | %.1f | %.3f | %.3f | %.2f | %.2fx | %.3f | %.2fx | %.0f |" % (
            n, os.path.getsize(paths[n]) / 2**20, med(n, 0), med(n, 1), per(n) * 1e6,
            per(n) / per(base), step_med(n, "Total"), total(n) / total(base),
            med(n, 2) / 2**20))
    print()
    names = []
    for n in counts:
        for s in steps[n]:
            names += [k for k in s if k not in names and k != "Total"]
    last = counts[-1]
    names.sort(key=lambda k: -step_med(last, k))
    # Steps of a few milliseconds are noisy at the smallest size: the ratio
    # to the next-to-last size says more about growth there.
    bases = [base] + ([counts[-2]] if len(counts) > 2 else [])
    print("| step (wall s, median) | " + " | ".join("%d" % n for n in counts) + " | " +
          " | ".join("per-node ratio %d vs %d" % (last, b) for b in bases) + " |")
    print("|---|" + "---:|" * (len(counts) + len(bases)))
    ratio = lambda k, b: ("%.2fx" % ((step_med(last, k) / last) / (step_med(b, k) / b))
                          if step_med(b, k) > 0 else "-")
    for k in names:
        print("| %s | " % k + " | ".join("%.3f" % step_med(n, k) for n in counts) +
              " | " + " | ".join(ratio(k, b) for b in bases) + " |")
    sys.stdout.flush()
    if not keep:
        for n in counts:
            for f in (paths[n], paths[n][:-4] + ".pte"):
                if os.path.exists(f):
                    os.remove(f)


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
    if len(sys.argv) == 4 and sys.argv[1] == "--write-graph":  # graph_series' child
        write_graph_model(sys.argv[2], int(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--sizes-mib", default="47,256",
                    help="weight-heavy series, MiB of weights per model ('none': skip)")
    ap.add_argument("--nodes", default="1000,10000,100000",
                    help="graph series, nodes per model; the first is the ratios' "
                         "base ('none': skip)")
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
    sizes = [] if a.sizes_mib == "none" else [int(s) for s in a.sizes_mib.split(",")]
    counts = [] if a.nodes == "none" else [int(s) for s in a.nodes.split(",")]
    if sizes:
        print("| weights MiB | layers | plain I/O s | compile s | ratio | peak RSS MiB | RSS / largest tensor | with --external-weights s | RSS MiB |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    try:
        for mib in sizes:
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
        if counts:
            if sizes:
                print()
            graph_series(aot, work, counts, a.repeats, a.keep)
    finally:
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
