#!/usr/bin/env python3
"""Independent checker of the .pte format rules (standard library only).

Reads a .pte with its own flatbuffer reader (ptefb.py, written from the spec,
not from ptec's schema or writer) and reports every rule violation. The rule
ids, their severities and where each is reported are the same as those of
`pte-inspect --check` (docs/tools/pte-inspect.md lists them); the conformance
suite runs both on every file and requires the same findings.

    pte_check.py [--schemas dialects/exir/schema/aten] FILE...

Exit status: 0 no errors (warnings are listed but allowed), 1 errors found,
2 usage or I/O error.
"""
import argparse
import re
import struct
import sys

import ptefb
import schema_table
from ptefb import FbError
from schema_table import split_top

MIN_FILE = 64
ELEMENT_SIZE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 12: 1, 13: 1, 14: 4,
                15: 2, 16: 1, 17: 1, 22: 2, 23: 1, 24: 1, 25: 1, 26: 1, 27: 2, 28: 4, 29: 8}
KT_NULL, KT_INT, KT_BOOL, KT_TENSOR = 1, 2, 3, 5
KT_INTLIST, KT_TENSORLIST, KT_OPTTENSORLIST = 7, 10, 11
BOOL_DTYPE = 11


# ---------------------------------------------------------------------------
# Operator schemas: argument count, written arguments and returns' alias sets
# ---------------------------------------------------------------------------

def _alias(type_text):
    """(alias set, written) of a type such as Tensor(a!) or Tensor(a!)[]."""
    m = re.search(r"\(([a-z*]+)(!?)", type_text)
    return (m.group(1), m.group(2) == "!") if m else (None, False)


class OpSchema:
    def __init__(self, args, returns):
        self.args = args        # [(alias set, written, type text)]
        self.returns = returns  # [(alias set, is list)]


def load_schemas(path):
    """name.overload -> OpSchema from an ATen schema table (one per line): the
    folder of its parts or a single file (schema_table.py)."""
    table = {}
    for line in schema_table.table_lines(path):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("@"):
            continue
        m = re.match(r"([\w:]+(?:\.\w+)?)\((.*)\)\s*->\s*(.*)$", line)
        if not m:
            continue
        name = m.group(1) if "::" in m.group(1) else "aten::" + m.group(1)
        args = []
        for a in split_top(m.group(2)):
            if a == "*":
                continue
            type_text = a.rsplit(" ", 1)[0] if " " in a else a
            s, w = _alias(type_text)
            args.append((s, w, type_text))
        ret = m.group(3).strip()
        if ret.startswith("(") and ret.endswith(")"):
            ret = ret[1:-1]
        returns = []
        for r in split_top(ret):
            type_text = r.split(" ")[0]
            s, _ = _alias(type_text)
            returns.append((s, type_text.endswith("]")))
        table[name] = OpSchema(args, returns)
    return table


# ---------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------

class Report:
    def __init__(self):
        self.items, self.seen = [], set()

    def add(self, severity, rule, where, message):
        if (rule, where) in self.seen:
            return
        self.seen.add((rule, where))
        self.items.append((severity, rule, where, message))

    def error(self, rule, where, message):
        self.add("error", rule, where, message)

    def warning(self, rule, where, message):
        self.add("warning", rule, where, message)


def check_bytes(data, schemas=None):
    """Every violation in `data` as (severity, rule, where, message)."""
    r = Report()
    size = len(data)
    if size < MIN_FILE:
        r.error("file.size", "file", "file is %d bytes; the loader reads the first %d" %
                (size, MIN_FILE))
        return r.items
    program_size, header = size, None
    if data[8:12] == b"eh00":
        length, psize, base = struct.unpack_from("<IQQ", data, 12)
        if length < 24:
            r.error("header.length", "header", "extended header length %d is below 24" % length)
            return r.items
        dsize = struct.unpack_from("<Q", data, 32)[0] if length >= 32 else 0
        header = (length, psize, base, dsize)
        if length < 32:
            r.warning("header.legacy-length", "header",
                      "24-byte header of ExecuTorch < 1.0 (no segment_data_size)")
        if dsize > 0 or base == 0:
            expected = psize if base == 0 else base + dsize
            if expected > size or expected >= 1 << 64:
                r.error("header.file-size", "header",
                        "the header says the file has at least %d bytes, it has %d" %
                        (expected, size))
        if psize < 8 or psize > size:
            r.error("header.program-size", "header",
                    "program_size %d is outside [8, %d]" % (psize, size))
            return r.items
        if base != 0 and base < psize:
            r.error("header.segment-base", "header",
                    "segment_base_offset %d lies inside the program (%d bytes)" % (base, psize))
        program_size = psize
    if data[4:8] != b"ET12":
        r.error("file.identifier", "file", "identifier %r is not ET12" % bytes(data[4:8]))
        return r.items
    root = struct.unpack_from("<I", data, 0)[0]
    if root < 8 or root > program_size - 4:
        r.error("flatbuffer.root", "root", "root offset %d outside [8, %d]" %
                (root, program_size - 4))
        return r.items
    try:
        prog = ptefb.root(data, program_size)
        ptefb.verify(prog)
    except (FbError, struct.error) as e:
        r.error("flatbuffer.verify", "root", "malformed flatbuffer: %s" % e)
        return r.items
    _check_program(r, data, prog, header, schemas)
    return r.items


def _check_program(r, data, prog, header, schemas):
    segs = prog.get("segments") or []
    nseg = len(segs)
    seg_sizes = [s.get("size") for s in segs]
    base = header[2] if header else 0
    end = 0
    for i, s in enumerate(segs):
        off, n = s.get("offset"), s.get("size")
        if n == 0:
            continue
        end = max(end, off + n)
        if header is None or base == 0:
            r.error("segment.no-header", "segments[%d]" % i,
                    "%d bytes of segment data but no segment_base_offset" % n)
        elif base + off + n > len(data):
            r.error("segment.bounds", "segments[%d]" % i,
                    "[%d, +%d) runs past the end of the file" % (off, n))
    if header is not None:
        if header[0] >= 32 and header[3] != end:
            r.error("header.data-size", "header",
                    "segment_data_size %d, but the last segment ends at %d" % (header[3], end))
        if end == 0:
            r.warning("header.without-segments", "header",
                      "an extended header in a file without segment data")

    cs, cb = prog.get("constant_segment"), prog.get("constant_buffer") or []
    offsets = cs.get("offsets") if cs is not None else None
    const_size = 0
    if offsets and len(offsets) > 1:
        if cb:
            r.error("constant.both", "constant_segment",
                    "constant_segment and the deprecated constant_buffer are both used")
        if cs.get("segment_index") >= nseg:
            r.error("constant.segment-index", "constant_segment",
                    "segment_index %d out of range (%d segments)" % (cs.get("segment_index"),
                                                                       nseg))
        else:
            const_size = seg_sizes[cs.get("segment_index")]
            for i, o in enumerate(offsets):
                if o > const_size:
                    r.error("constant.offsets", "constant_segment.offsets[%d]" % i,
                            "offset %d past the segment (%d bytes)" % (o, const_size))
                elif o % 16:
                    r.warning("constant.alignment", "constant_segment.offsets[%d]" % i,
                              "offset %d is not 16-byte aligned" % o)
    if not offsets:
        r.warning("constant.segment-missing", "constant_segment",
                  "no constant_segment offsets: loaders fall back to the deprecated path")
    if cb:
        r.warning("constant.inline-deprecated", "constant_buffer",
                  "the deprecated inline constant_buffer is used")
    inline_path = not offsets

    ms = prog.get("mutable_data_segments") or []
    mut = None  # (offsets, segment size)
    if ms:
        m0 = ms[0]
        if m0.get("offsets") is None:
            r.error("required.field", "mutable_data_segments[0].offsets", "missing")
        elif m0.get("segment_index") >= nseg:
            r.error("mutable.segment-index", "mutable_data_segments[0]",
                    "segment_index %d out of range" % m0.get("segment_index"))
        else:
            mut = (m0.get("offsets"), seg_sizes[m0.get("segment_index")])
        if len(ms) > 1:
            r.warning("mutable.count", "mutable_data_segments",
                      "%d entries; loaders use only the first" % len(ms))
    for i, nd in enumerate(prog.get("named_data") or []):
        if nd.get("key") is None:
            r.error("required.field", "named_data[%d].key" % i, "missing")
        if nd.get("segment_index") >= nseg:
            r.error("named-data.segment-index", "named_data[%d]" % i, "segment out of range")

    plans = prog.get("execution_plan")
    if plans is None:
        r.error("required.field", "execution_plan", "missing")
        return
    names = [p.get("name") for p in plans]
    for m, n in enumerate(names):
        if n is not None and n in names[:m]:
            r.error("plan.name-duplicate", "execution_plan[%d]" % m, "duplicate name %r" % n)
    present = [n for n in names if n is not None]
    if present != sorted(present):
        r.warning("plan.methods-sorted", "execution_plan", "methods are not sorted by name")
    bdd = prog.get("backend_delegate_data") or []
    referenced = set()
    ctx = (cb, offsets, const_size, inline_path, mut, nseg, len(bdd), schemas)
    for m, plan in enumerate(plans):
        _check_plan(r, "execution_plan[%d]" % m, plan, ctx, referenced)
    for i in range(len(bdd)):
        if i not in referenced:
            r.warning("delegate.inline-unreferenced", "backend_delegate_data[%d]" % i,
                      "no delegate references this inline blob")


def _tensor_nbytes(t):
    n = 1
    for s in t.get("sizes"):
        n *= s
    return n * ELEMENT_SIZE[t.get("scalar_type")]


def _check_tensor(r, where, v, t, arenas, ctx):
    cb, offsets, const_size, inline_path, mut = ctx[:5]
    sizes, order = t.get("sizes"), t.get("dim_order")
    if sizes is None or order is None:
        r.error("required.field", where + (".sizes" if sizes is None else ".dim_order"),
                "missing")
        return
    st = t.get("scalar_type")
    if st not in ELEMENT_SIZE:
        r.error("tensor.scalar-type", where, "scalar_type %d is not valid" % st)
    if t.get("storage_offset") != 0:
        r.error("tensor.storage-offset", where, "storage_offset must be 0")
    if t.get("layout") != 0:
        r.error("tensor.layout", where, "layout must be 0 (strided)")
    if t.get("shape_dynamism") not in (0, 1):
        r.error("tensor.dynamism", where, "shape_dynamism %d (DYNAMIC_UNBOUND or unknown)" %
                t.get("shape_dynamism"))
    bad_shape = (len(sizes) > 16 or len(order) != len(sizes) or any(s < 0 for s in sizes) or
                 sorted(order) != list(range(len(sizes))))
    if bad_shape:
        r.error("tensor.shape", where, "sizes %s with dim_order %s" % (sizes, order))
    if st not in ELEMENT_SIZE or bad_shape:
        return
    nbytes = _tensor_nbytes(t)
    if nbytes >= 1 << 63:
        r.error("tensor.shape", where, "byte size overflows")
        return
    extra = t.get("extra_tensor_info")
    if extra is not None and extra.get("device_type") != 0:
        r.warning("tensor.device", where, "device_type %d (not CPU)" % extra.get("device_type"))
    external = extra is not None and extra.get("location") == 1
    if external and extra.get("fully_qualified_name") is None:
        r.error("required.field", where + ".extra_tensor_info.fully_qualified_name", "missing")
    ai, idx = t.get("allocation_info"), t.get("data_buffer_idx")
    if ai is not None:
        mid = ai.get("memory_id")
        off = ai.get("memory_offset_high") << 32 | ai.get("memory_offset_low")
        if mid == 0 or mid >= len(arenas):
            r.error("tensor.allocation", where, "memory_id %d out of range" % mid)
        elif off + nbytes > arenas[mid]:
            r.error("tensor.allocation", where, "[%d, +%d) runs past arena %d (%d bytes)" %
                    (off, nbytes, mid, arenas[mid]))
        elif off % 16:
            r.warning("tensor.alignment", where, "planned offset %d is not 16-aligned" % off)
        if idx > 0 and not external:
            if mut is None or idx >= len(mut[0]) or mut[0][idx] + nbytes > mut[1]:
                r.error("mutable.bounds", where, "initial data %d not in the mutable segment" %
                        idx)
    elif idx > 0 and not external:
        if inline_path:
            if idx >= len(cb) or len(cb[idx].get("storage") or []) < nbytes:
                r.error("constant.bounds", where, "constant_buffer[%d] lacks %d bytes" %
                        (idx, nbytes))
        elif idx >= len(offsets) or offsets[idx] + nbytes > const_size:
            r.error("constant.bounds", where, "constant %d: %d bytes not in the segment" %
                    (idx, nbytes))


def _check_plan(r, P, plan, ctx, referenced):
    for f in ("name", "values", "inputs", "outputs", "non_const_buffer_sizes", "delegates",
              "chains"):
        if not plan.has(f):
            r.error("required.field", "%s.%s" % (P, f), "missing")
    values = plan.get("values") or []
    n = len(values)
    arenas = plan.get("non_const_buffer_sizes")
    if arenas is not None:
        if not arenas or any(a < 0 for a in arenas):
            r.error("plan.buffer-sizes", P + ".non_const_buffer_sizes", "empty or negative")
        elif arenas[0] != 0:
            r.warning("plan.buffer-sizes", P + ".non_const_buffer_sizes",
                      "entry 0 is reserved and should be 0")
    arenas = arenas or []
    # A value's kind; 0 when its tag is NONE, unknown or has no table.
    tags = [ev.get("val_type") if ev.get("val") is not None else 0 for ev in values]
    for v, ev in enumerate(values):
        V = "%s.values[%d]" % (P, v)
        tag, val = ev.get("val_type"), ev.get("val")
        if val is None:
            r.error("value.tag", V, "tag %d without a known value table" % tag)
            continue
        if tag == KT_TENSOR:
            _check_tensor(r, V, v, val, arenas, ctx)
        elif tag in (KT_INTLIST, KT_TENSORLIST, KT_OPTTENSORLIST, 8, 9):
            items = val.get("items")
            if items is None:
                r.error("required.field", V + ".items", "missing")
            elif tag == KT_INTLIST:
                if any(i < 0 or i >= n or tags[i] != KT_INT for i in items):
                    r.error("value.list-index", V, "IntList items must index Int values")
            elif tag in (KT_TENSORLIST, KT_OPTTENSORLIST):
                ok = (KT_TENSOR,) if tag == KT_TENSORLIST else (KT_TENSOR, KT_NULL)
                for i in items:
                    if tag == KT_OPTTENSORLIST and i == -1:
                        continue
                    if i < 0 or i >= v or tags[i] not in ok:
                        r.error("value.list-index", V, "item %d is not an earlier tensor" % i)
        elif tag == 6 and val.get("string_val") is None:
            r.error("required.field", V + ".string_val", "missing")
    for kind in ("inputs", "outputs"):
        for i, idx in enumerate(plan.get(kind) or []):
            if idx < 0 or idx >= n:
                r.error("plan.io-index", "%s.%s[%d]" % (P, kind, i), "value %d out of range" % idx)

    ops = plan.get("operators") or []
    full = []
    for k, op in enumerate(ops):
        name = op.get("name")
        if name is None:
            r.error("required.field", "%s.operators[%d].name" % (P, k), "missing")
            full.append(None)
            continue
        f = name + ("." + op.get("overload") if op.get("overload") else "")
        if len(f) >= 100:
            r.error("operator.name", "%s.operators[%d]" % (P, k), "name is 100 characters or more")
        if f in full:
            r.warning("operator.duplicate", "%s.operators[%d]" % (P, k), "%s listed twice" % f)
        full.append(f)

    dels = plan.get("delegates") or []
    nseg, ninline = ctx[5], ctx[6]
    for d, bd in enumerate(dels):
        D = "%s.delegates[%d]" % (P, d)
        if bd.get("id") is None:
            r.error("required.field", D + ".id", "missing")
        ref = bd.get("processed")
        if ref is None:
            r.error("required.field", D + ".processed", "missing")
        else:
            loc, idx = ref.get("location"), ref.get("index")
            if loc == 0 and idx < ninline:
                referenced.add(idx)
            if loc not in (0, 1) or idx >= (ninline if loc == 0 else nseg):
                r.error("delegate.processed", D, "location %d index %d out of range" % (loc, idx))
        for j, spec in enumerate(bd.get("compile_specs") or []):
            for f in ("key", "value"):
                if spec.get(f) is None:
                    r.error("required.field", "%s.compile_specs[%d].%s" % (D, j, f), "missing")

    chains = plan.get("chains")
    if chains is not None and len(chains) == 0:
        r.error("plan.chains", P + ".chains", "no chain")
    elif chains is not None and len(chains) > 1:
        r.warning("plan.chains", P + ".chains", "%d chains; writers emit one" % len(chains))
    uses = [0] * len(dels)
    for c, chain in enumerate(chains or []):
        instrs = chain.get("instructions")
        if instrs is None:
            r.error("required.field", "%s.chains[%d].instructions" % (P, c), "missing")
            continue
        for i, ins in enumerate(instrs):
            I = "%s.chains[%d].instructions[%d]" % (P, c, i)
            _check_instruction(r, I, ins, values, tags, full, len(instrs), len(dels), uses,
                               ctx[7])
    for d, bd in enumerate(dels):
        if uses[d] > 1 and bd.get("scratch"):
            r.error("delegate.scratch-shared", "%s.delegates[%d]" % (P, d),
                    "a delegate with scratch is used by %d calls" % uses[d])


def _check_instruction(r, I, ins, values, tags, ops, ninstr, ndel, uses, schemas):
    n = len(values)
    tag, a = ins.get("instr_args_type"), ins.get("instr_args")
    if a is None:
        r.error("instruction.tag", I, "tag %d without a known instruction table" % tag)
        return
    bad = lambda idx: idx < 0 or idx >= n
    if a.type in ("KernelCall", "DelegateCall"):
        args = a.get("args")
        if args is None:
            r.error("required.field", I + ".args", "missing")
            return
        if any(bad(x) for x in args):
            r.error("instruction.index", I, "an argument is out of range (%d values)" % n)
            return
        if a.type == "DelegateCall":
            d = a.get("delegate_index")
            if d < 0 or d >= ndel:
                r.error("instruction.index", I, "delegate_index %d out of range" % d)
            else:
                uses[d] += 1
            return
        k = a.get("op_index")
        if k < 0 or k >= len(ops):
            r.error("instruction.index", I, "op_index %d out of range" % k)
            return
        _check_kernel_args(r, I, ops[k], args, values, tags, schemas)
    elif a.type == "MoveCall":
        if bad(a.get("move_from")) or bad(a.get("move_to")):
            r.error("instruction.index", I, "MoveCall index out of range")
    elif a.type == "JumpFalseCall":
        cond = a.get("cond_value_index")
        if bad(cond):
            r.error("instruction.index", I, "condition %d out of range" % cond)
        else:
            cv = values[cond].get("val")
            is_bool = tags[cond] == KT_BOOL or (
                tags[cond] == KT_TENSOR and cv.get("scalar_type") == BOOL_DTYPE)
            if not is_bool:
                r.error("instruction.jump", I, "condition %d is not a Bool" % cond)
        dest = a.get("destination_instruction")
        if dest < 0 or dest > ninstr:
            r.error("instruction.jump", I, "destination %d out of range" % dest)
    elif a.type == "FreeCall":
        v = a.get("value_index")
        if bad(v):
            r.error("instruction.index", I, "value %d out of range" % v)
        elif tags[v] != KT_TENSOR:
            r.error("instruction.free", I, "value %d is not a tensor" % v)


def _check_kernel_args(r, I, full, args, values, tags, schemas):
    s = schemas.get(full) if schemas and full else None
    if s is None:
        return
    want = len(s.args) + 1
    if len(args) != want:
        r.error("kernel.arg-count", I, "%s has %d args, expected %d (%d schema arguments + 1)" %
                (full, len(args), want, len(s.args)))
        return
    # The return entry: written arguments again (spec section 4).
    written = {}
    last_written = None
    for j, (alias, w, _) in enumerate(s.args):
        if w:
            written[alias] = j
            last_written = j
    ret = args[-1]
    if not s.returns:
        if last_written is None:
            return
        want_idx = args[last_written]
        if ret != want_idx and not _same_list(values, ret, want_idx):
            r.error("kernel.return", I, "%s returns (): the last entry must be the out argument"
                    % full)
        return
    if any(alias is None or alias not in written for alias, _ in s.returns):
        return  # a functional return; nothing to compare with
    expect = [args[written[alias]] for alias, _ in s.returns]
    if len(s.returns) == 1 and not s.returns[0][1]:
        if ret != expect[0]:
            r.error("kernel.return", I, "%s: the last entry must be the out argument (value %d)"
                    % (full, expect[0]))
        return
    items = values[ret].get("val").get("items") if tags[ret] == KT_TENSORLIST else None
    if items is None or list(items) != expect:
        r.error("kernel.return", I, "%s: the last entry must be a TensorList of %s" %
                (full, expect))


def _same_list(values, a, b):
    la, lb = values[a].get("val"), values[b].get("val")
    if la is None or lb is None or la.type != "TensorList" or lb.type != "TensorList":
        return False
    return la.get("items") == lb.get("items")


def parse_suite_args(ap):
    """For the suites that run this checker next to ptec's tools: adds the required
    --schemas (the ATen schema table) to `ap`, parses the command line and loads the
    table. Returns (args, schemas)."""
    ap.add_argument("--schemas", required=True,
                    help="ATen schema table: its folder (dialects/exir/schema/aten) or one file")
    args = ap.parse_args()
    return args, load_schemas(args.schemas)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--schemas", help="ATen schema table (its folder, dialects/exir/schema/aten, "
                    "or one file) for the KernelCall argument rules")
    args = ap.parse_args()
    schemas = load_schemas(args.schemas) if args.schemas else None
    errors = 0
    for path in args.files:
        try:
            data = open(path, "rb").read()
        except OSError as e:
            print("%s: error: %s" % (path, e), file=sys.stderr)
            return 2
        items = check_bytes(data, schemas)
        for sev, rule, where, msg in items:
            print("%s: %s: [%s] %s: %s" % (path, sev, rule, where, msg))
        nerr = sum(1 for i in items if i[0] == "error")
        errors += nerr
        if not items:
            print("%s: ok" % path)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
