#!/usr/bin/env python3
"""External weights (aot-compile --external-weights, pte-run --data).

For each model: compile with weights in the program and with weights in a
.ptd; the .ptd program must give the same outputs (compared with PyTorch's),
over several calls for stateful ones, and refuse to run without its data,
naming the missing key. The .ptd is read with an independent reader
(stdlib only, built on test/conformance/ptefb.py) against the FlatTensor
layout of docs/external-weights.md: FT01 identifier, FH01 header at byte 8
(length 40, flatbuffer_offset = the padded header, flatbuffer_size, segment
base, segment data size), segments inside the data, every named tensor's
bytes exactly its layout's size. Mutable buffers stay in the program.

  external_weights.py --bin DIR --zoo DIR
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "conformance"))
import ptefb  # noqa: E402

ptefb.SCHEMA.update({
    "FlatTensor": {0: ("version", ptefb.S("I")), 1: ("segments", ptefb.VTAB("FtSegment")),
                   2: ("named_data", ptefb.VTAB("FtNamedData"))},
    "FtSegment": {0: ("offset", ptefb.S("Q")), 1: ("size", ptefb.S("Q"))},
    "FtNamedData": {0: ("key", ptefb.STR), 1: ("segment_index", ptefb.S("I")),
                    2: ("tensor_layout", ptefb.TAB("FtLayout"))},
    "FtLayout": {0: ("scalar_type", ptefb.S("b")), 1: ("sizes", ptefb.VEC("i")),
                 2: ("dim_order", ptefb.VEC("B"))},
})
ptefb._SLOTS.update({t: {n: s for s, (n, _) in f.items()}
                     for t, f in ptefb.SCHEMA.items() if t.startswith(("Flat", "Ft"))})
# A valid .ptd with no entries, built by hand: root offset 52, "FT01", the
# header (length 40, flatbuffer at 48, 32 flatbuffer bytes, segments at 80,
# none), a vtable of no fields at 48 and the FlatTensor table at 52 pointing
# back to it, zero padding to 80.
EMPTY_PTD = (struct.pack("<I4s4sIQQQQ", 52, b"FT01", b"FH01", 40, 48, 32, 80, 0)
             + struct.pack("<HHi", 4, 4, 4) + b"\0" * 24)
ELEM = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2}

# model dir, inputs, method run, calls. mutable_buffer has state and no
# weights: nothing goes to the .ptd, and its state is right over 3 calls.
MODELS = [("mlp", ["model.pt2"], "forward", 1),
          ("small_cnn", ["model.pt2"], "forward", 1),
          ("mutable_buffer", ["model.pt2"], "forward", 3),
          ("two_methods", ["prefill.pt2:prefill", "decode.pt2:decode"], "decode", 1)]


def read_ptd(path):
    """{key: (bytes, layout)} of a .ptd; raises ValueError naming the rule."""
    buf = open(path, "rb").read()
    if len(buf) < 48 or buf[4:8] != b"FT01":
        raise ValueError("identifier %r is not FT01" % buf[4:8])
    magic, length, fb_off, fb_size, base, data_size = struct.unpack_from("<4sIQQQQ", buf, 8)
    if magic != b"FH01" or length != 40:
        raise ValueError("header magic/length %r %d" % (magic, length))
    if fb_off != 48 or base % 16 or base + data_size != len(buf) or fb_size + fb_off > base:
        raise ValueError("header offsets: fb at %d (%d bytes), data at %d (%d bytes), file %d"
                         % (fb_off, fb_size, base, data_size, len(buf)))
    root = ptefb.Table(buf, struct.unpack_from("<I", buf, 0)[0], "FlatTensor", base)
    ptefb.verify(root)
    segs = root.get("segments") or []
    out = {}
    for nd in root.get("named_data") or []:
        s = segs[nd.get("segment_index")]
        off, size = s.get("offset"), s.get("size")
        if off % 16 or off + size > data_size:
            raise ValueError("segment of %s at %d+%d" % (nd.get("key"), off, size))
        layout = nd.get("tensor_layout")
        if layout is not None:
            n = ELEM[layout.get("scalar_type")]
            for d in layout.get("sizes"):
                n *= d
            if n != size:
                raise ValueError("%s: %d bytes, its layout needs %d" % (nd.get("key"), size, n))
        out[nd.get("key")] = buf[base + off:base + off + size]
    return out


def relaid_ptd(path, out_path):
    """A copy of the .ptd whose first entry with two different leading sizes
    has them swapped in its tensor_layout (same bytes, another shape); None
    when no entry has such a layout."""
    buf = bytearray(open(path, "rb").read())
    base = struct.unpack_from("<Q", buf, 8 + 24)[0]
    root = ptefb.Table(bytes(buf), struct.unpack_from("<I", buf, 0)[0], "FlatTensor", base)
    for nd in root.get("named_data") or []:
        layout = nd.get("tensor_layout")
        sizes = layout.get("sizes") if layout is not None else []
        if len(sizes) >= 2 and sizes[0] != sizes[1]:
            at = layout.vector_offset("sizes")
            struct.pack_into("<2i", buf, at, sizes[1], sizes[0])
            open(out_path, "wb").write(bytes(buf))
            return out_path
    return None


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def check(bin_dir, zoo, name, inputs, method, calls, tmp):
    fails = []
    d = os.path.abspath(os.path.join(zoo, name))
    srcs = [os.path.join(d, s) for s in inputs]
    plain, ext, ptd = (os.path.join(tmp, name + s) for s in (".pte", "_ext.pte", "_ext.ptd"))
    for cmd in ([os.path.join(bin_dir, "aot-compile")] + srcs + ["-o", plain],
                [os.path.join(bin_dir, "aot-compile")] + srcs +
                ["-o", ext, "--external-weights", "--emit-state-names"]):
        rc, out = run(cmd)
        if rc:
            return ["compile failed: " + out]
    # With --report the written program is read back for the report; the
    # files must not change. (Streamed vs in-memory serialization is compared
    # byte for byte in pte_writer_tests, StreamingWriteTest.cpp.)
    mem_pte, mem_ptd = (os.path.join(tmp, name + s) for s in ("_mem.pte", "_mem.ptd"))
    rc, out = run([os.path.join(bin_dir, "aot-compile")] + srcs +
                  ["-o", mem_pte, "--external-weights=" + mem_ptd, "--emit-state-names",
                   "--report=json", "--report-file", os.path.join(tmp, name + "_report.json")])
    if rc:
        return ["compile with --report failed: " + out]
    for a, b in ((ext, mem_pte), (ptd, mem_ptd)):
        with open(a, "rb") as fa, open(b, "rb") as fb:
            if fa.read() != fb.read():
                fails.append("%s differs from %s (written with --report)" % (a, b))
    try:
        entries = read_ptd(ptd)
    except (ValueError, ptefb.FbError) as e:
        return ["%s is malformed: %s" % (ptd, e)]
    if bool(entries) != (name != "mutable_buffer"):
        fails.append("the .ptd has %d entries" % len(entries))
    weights = sum(len(v) for v in entries.values())
    if os.path.getsize(ext) + weights > os.path.getsize(plain) + 4096 or \
            os.path.getsize(ext) >= os.path.getsize(plain) - weights + 4096:
        fails.append(".pte sizes: %d in-program, %d external + %d weight bytes"
                     % (os.path.getsize(plain), os.path.getsize(ext), weights))
    prefix = "" if method == "forward" else method + "_"
    args = ["--method", method, "--calls", str(calls), "--rtol", "1e-4", "--atol", "1e-5"]
    call = lambda k, f: os.path.join(d, ("call%d_" % k if k else "") + prefix + f)
    if calls > 1:
        args += ["--input", os.path.join(d, "{call}_input_0.npy")]
        # zoo naming: call 0 has no prefix, call k>0 has call<k>_
        links = os.path.join(tmp, name + "_calls")
        os.makedirs(links, exist_ok=True)
        for k in range(calls):
            for f in ("input_0.npy", "expected_0.npy"):
                os.symlink(call(k, f), os.path.join(links, "%d_%s" % (k, f)))
        args = args[:-2] + ["--input", os.path.join(links, "{call}_input_0.npy"),
                            "--expected", os.path.join(links, "{call}_expected_0.npy")]
    else:
        args += ["--input", call(0, "input_0.npy"), "--expected", call(0, "expected_0.npy")]
    rc, out = run([os.path.join(bin_dir, "pte-run"), ext, "--data", ptd] + args)
    if rc:
        fails.append("pte-run with --data failed:\n" + out)
    rc, out = run([os.path.join(bin_dir, "pte-run"), ext] + args)
    if entries and (rc != 1 or "external data '" not in out or "--data" not in out):
        fails.append("without --data: expected a load error naming the key (exit 1), got "
                     "exit %d:\n%s" % (rc, out))
    rc, out = run([os.path.join(bin_dir, "pte-inspect"), "--check", ext, "--data", ptd])
    found = re.search(r"(\d+) external tensors found, 0 missing", out)
    # (two methods may each refer to one entry)
    if rc or not found or int(found.group(1)) < len(entries):
        fails.append("pte-inspect --check --data: " + out)
    if entries:  # another model's .ptd lacks these names: refused, naming them
        other = os.path.join(tmp, "other.ptd")
        with open(other, "wb") as f:
            f.write(EMPTY_PTD)
        rc, out = run([os.path.join(bin_dir, "pte-inspect"), "--check", ext, "--data", other])
        if rc != 1 or "[external.missing]" not in out:
            fails.append("pte-inspect --check with the wrong .ptd: exit %d\n%s" % (rc, out))
    # A .ptd whose layout for a weight is another shape of the same bytes
    # (a .ptd of another version of the model): refused by the loader and by
    # --check, naming the layouts, instead of running with permuted values.
    relaid = relaid_ptd(ptd, os.path.join(tmp, name + "_relaid.ptd")) if entries else None
    if relaid:
        rc, out = run([os.path.join(bin_dir, "pte-run"), ext, "--data", relaid] + args)
        if rc != 1 or "the .ptd's tensor_layout is" not in out:
            fails.append("pte-run with a relaid .ptd: exit %d\n%s" % (rc, out))
        rc, out = run([os.path.join(bin_dir, "pte-inspect"), "--check", ext, "--data", relaid])
        if rc != 1 or "[external.layout]" not in out:
            fails.append("pte-inspect --check with a relaid .ptd: exit %d\n%s" % (rc, out))
    print("%s: %d external tensors, %d bytes; .pte %d -> %d bytes: %s"
          % (name, len(entries), weights, os.path.getsize(plain), os.path.getsize(ext),
             "FAILED" if fails else "ok"))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--zoo", required=True)
    a = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, inputs, method, calls in MODELS:
            for f in check(a.bin, a.zoo, name, inputs, method, calls, tmp):
                print("FAIL: %s: %s" % (name, f))
                failures += 1
    print("external weights: %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
