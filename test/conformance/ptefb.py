"""A small FlatBuffers reader and writer for .pte files, standard library only.

Written from the format spec (shared spec, sections 2 and 3), independent of
ptec's program.fbs, its generated code and its writer: the slot numbers below
are the spec's. The reader bounds-checks every access and raises FbError on a
malformed buffer (the checks mirror what the FlatBuffers verifier requires:
in-bounds tables, vtables, vectors and strings, aligned scalars, terminated
strings). The writer lays a buffer out front to back (children after their
parents, vtables before their tables), which FlatBuffers allows.
"""
import struct


class FbError(Exception):
    """The buffer is not a well-formed flatbuffer."""


# Field kinds: ("scalar", fmt, default), ("string",), ("table", T),
# ("vec", fmt), ("vec_table", T), ("union_type", union), ("union", union).
# A union uses two slots: its type tag, then the offset.
S = lambda fmt, default=0: ("scalar", fmt, default)
STR = ("string",)
TAB = lambda t: ("table", t)
VEC = lambda fmt: ("vec", fmt)
VTAB = lambda t: ("vec_table", t)

SCHEMA = {
    "Program": {0: ("version", S("I")), 1: ("execution_plan", VTAB("ExecutionPlan")),
                2: ("constant_buffer", VTAB("Buffer")),
                3: ("backend_delegate_data", VTAB("BackendDelegateInlineData")),
                4: ("segments", VTAB("DataSegment")),
                5: ("constant_segment", TAB("SubsegmentOffsets")),
                6: ("mutable_data_segments", VTAB("SubsegmentOffsets")),
                7: ("named_data", VTAB("NamedData"))},
    "ExecutionPlan": {0: ("name", STR), 1: ("container_meta_type", TAB("ContainerMetadata")),
                      2: ("values", VTAB("EValue")), 3: ("inputs", VEC("i")),
                      4: ("outputs", VEC("i")), 5: ("chains", VTAB("Chain")),
                      6: ("operators", VTAB("Operator")),
                      7: ("delegates", VTAB("BackendDelegate")),
                      8: ("non_const_buffer_sizes", VEC("q")),
                      9: ("non_const_buffer_device", VTAB("NonConstBufferDevice"))},
    "NonConstBufferDevice": {0: ("buffer_idx", S("i")), 1: ("device_type", S("b")),
                             2: ("device_index", S("b"))},
    "ContainerMetadata": {0: ("encoded_inp_str", STR), 1: ("encoded_out_str", STR)},
    "Null": {},
    "AllocationDetails": {0: ("memory_id", S("I")), 1: ("memory_offset_low", S("I")),
                          2: ("memory_offset_high", S("I"))},
    "ExtraTensorInfo": {0: ("mutable_data_segments_idx", S("Q")),
                        1: ("fully_qualified_name", STR), 2: ("location", S("b")),
                        3: ("device_type", S("b")), 4: ("device_index", S("b"))},
    "Tensor": {0: ("scalar_type", S("b")), 1: ("storage_offset", S("i")),
               2: ("sizes", VEC("i")), 3: ("dim_order", VEC("B")),
               4: ("requires_grad", S("?", False)), 5: ("data_buffer_idx", S("I")),
               6: ("allocation_info", TAB("AllocationDetails")), 7: ("layout", S("b")),
               8: ("shape_dynamism", S("b")),
               9: ("extra_tensor_info", TAB("ExtraTensorInfo"))},
    "Int": {0: ("int_val", S("q"))},
    "Bool": {0: ("bool_val", S("?", False))},
    "Double": {0: ("double_val", S("d", 0.0))},
    "String": {0: ("string_val", STR)},
    "IntList": {0: ("items", VEC("q"))},
    "DoubleList": {0: ("items", VEC("d"))},
    "BoolList": {0: ("items", VEC("?"))},
    "TensorList": {0: ("items", VEC("i"))},
    "OptionalTensorList": {0: ("items", VEC("i"))},
    "EValue": {0: ("val_type", ("union_type", "KernelTypes")),
               1: ("val", ("union", "KernelTypes"))},
    "Operator": {0: ("name", STR), 1: ("overload", STR)},
    "KernelCall": {0: ("op_index", S("i")), 1: ("args", VEC("i"))},
    "DelegateCall": {0: ("delegate_index", S("i")), 1: ("args", VEC("i"))},
    "MoveCall": {0: ("move_from", S("i")), 1: ("move_to", S("i"))},
    "JumpFalseCall": {0: ("cond_value_index", S("i")), 1: ("destination_instruction", S("i"))},
    "FreeCall": {0: ("value_index", S("i"))},
    "Instruction": {0: ("instr_args_type", ("union_type", "InstructionArguments")),
                    1: ("instr_args", ("union", "InstructionArguments"))},
    "Frame": {0: ("filename", STR), 1: ("lineno", S("i")), 2: ("name", STR),
              3: ("context", STR)},
    "FrameList": {0: ("items", VTAB("Frame"))},
    "Chain": {0: ("inputs", VEC("i")), 1: ("outputs", VEC("i")),
              2: ("instructions", VTAB("Instruction")), 3: ("stacktrace", VTAB("FrameList"))},
    "BackendDelegateDataReference": {0: ("location", S("b")), 1: ("index", S("I"))},
    "CompileSpec": {0: ("key", STR), 1: ("value", VEC("B"))},
    # Slot 3 is ptec's extension (spec section 9): planned delegate scratch.
    "BackendDelegate": {0: ("id", STR), 1: ("processed", TAB("BackendDelegateDataReference")),
                        2: ("compile_specs", VTAB("CompileSpec")),
                        3: ("scratch", VTAB("DelegateScratch"))},
    "DelegateScratch": {0: ("allocation", TAB("AllocationDetails")), 1: ("size", S("Q")),
                        2: ("alignment", S("I"))},
    "Buffer": {0: ("storage", VEC("B"))},
    "BackendDelegateInlineData": {0: ("data", VEC("B"))},
    "DataSegment": {0: ("offset", S("Q")), 1: ("size", S("Q"))},
    "SubsegmentOffsets": {0: ("segment_index", S("I")), 1: ("offsets", VEC("Q"))},
    "NamedData": {0: ("key", STR), 1: ("segment_index", S("I"))},
}

UNIONS = {
    "KernelTypes": {1: "Null", 2: "Int", 3: "Bool", 4: "Double", 5: "Tensor", 6: "String",
                    7: "IntList", 8: "DoubleList", 9: "BoolList", 10: "TensorList",
                    11: "OptionalTensorList"},
    "InstructionArguments": {1: "KernelCall", 2: "DelegateCall", 3: "MoveCall",
                             4: "JumpFalseCall", 5: "FreeCall"},
}

_SLOTS = {t: {name: slot for slot, (name, _) in fields.items()} for t, fields in SCHEMA.items()}


class Table:
    """A table at `pos` of `buf` (bytes), read as type `type_name`."""

    def __init__(self, buf, pos, type_name, limit):
        # What FlatBuffers requires of a table start: an aligned, in-bounds
        # vtable offset and a vtable of even size inside the buffer. (The
        # object size is not checked; each field is, where it is read.)
        self.buf, self.pos, self.type, self.limit = buf, pos, type_name, limit
        if pos % 4 or pos < 0 or pos + 4 > limit:
            raise FbError("%s table at %d is out of bounds or misaligned" % (type_name, pos))
        vt = pos - struct.unpack_from("<i", buf, pos)[0]
        if vt < 0 or vt % 2 or vt + 2 > limit:
            raise FbError("%s vtable at %d is out of bounds" % (type_name, vt))
        self.vt_len = struct.unpack_from("<H", buf, vt)[0]
        if self.vt_len % 2 or vt + self.vt_len > limit:
            raise FbError("%s vtable at %d has a bad size" % (type_name, vt))
        self.vt = vt

    def _off(self, slot):
        at = 4 + 2 * slot
        if at >= self.vt_len:
            return 0
        off = struct.unpack_from("<H", self.buf, self.vt + at)[0]
        return off

    def has(self, name):
        return self._off(_SLOTS[self.type][name]) != 0

    def _target(self, off):
        p = self.pos + off
        if p % 4 or p + 4 > self.limit:
            raise FbError("%s: offset field at %d out of bounds" % (self.type, p))
        o = struct.unpack_from("<I", self.buf, p)[0]
        if o == 0 or o >= 1 << 31 or p + o + 1 > self.limit:
            raise FbError("%s: offset at %d points outside the buffer" % (self.type, p))
        return p + o

    def get(self, name):
        """The field's value; None for an absent offset field, the default for
        an absent scalar. Vectors come back as lists, strings as str."""
        slot = _SLOTS[self.type][name]
        kind = SCHEMA[self.type][slot][1]
        off = self._off(slot)
        if kind[0] in ("scalar", "union_type"):
            fmt, default = (kind[1], kind[2]) if kind[0] == "scalar" else ("B", 0)
            if not off:
                return default
            size = struct.calcsize(fmt)
            p = self.pos + off
            if p % size or p + size > self.limit:
                raise FbError("%s.%s is misaligned or out of bounds" % (self.type, name))
            return struct.unpack_from("<" + fmt, self.buf, p)[0]
        if not off:
            return None
        t = self._target(off)
        if kind[0] == "string":
            return read_string(self.buf, t, self.limit)
        if kind[0] == "table":
            return Table(self.buf, t, kind[1], self.limit)
        if kind[0] == "vec":
            return read_vector(self.buf, t, kind[1], self.limit)
        if kind[0] == "vec_table":
            n = _vec_len(self.buf, t, 4, self.limit)
            out = []
            for i in range(n):
                e = t + 4 + 4 * i
                out.append(Table(self.buf, e + struct.unpack_from("<I", self.buf, e)[0],
                                 kind[1], self.limit))
            return out
        if kind[0] == "union":
            tag = self.get(SCHEMA[self.type][slot - 1][0])
            type_name = UNIONS[kind[1]].get(tag)
            return Table(self.buf, t, type_name, self.limit) if type_name else None
        raise AssertionError(kind)

    def vector_offset(self, name):
        """File offset of a vector's first element (None when absent)."""
        off = self._off(_SLOTS[self.type][name])
        return None if not off else self._target(off) + 4


def _vec_len(buf, pos, elem, limit):
    if pos % 4 or pos + 4 > limit:
        raise FbError("vector at %d is out of bounds or misaligned" % pos)
    n = struct.unpack_from("<I", buf, pos)[0]
    if n >= ((1 << 31) - 1) // elem or pos + 4 + n * elem > limit:
        raise FbError("vector at %d of %d elements runs past the buffer" % (pos, n))
    return n


def read_vector(buf, pos, fmt, limit):
    size = struct.calcsize(fmt)
    n = _vec_len(buf, pos, size, limit)
    return list(struct.unpack_from("<%d%s" % (n, fmt), buf, pos + 4))


def read_string(buf, pos, limit):
    n = _vec_len(buf, pos, 1, limit)
    if pos + 4 + n >= limit or buf[pos + 4 + n] != 0:
        raise FbError("string at %d is not terminated" % pos)
    return bytes(buf[pos + 4:pos + 4 + n]).decode("utf-8", "replace")


def verify(table, depth=0):
    """Reads every field of `table` and below; raises FbError when malformed."""
    if depth > 64:
        raise FbError("tables nested too deeply")
    for slot, (name, kind) in SCHEMA[table.type].items():
        v = table.get(name)
        if kind[0] in ("table", "union") and v is not None:
            verify(v, depth + 1)
        elif kind[0] == "vec_table" and v is not None:
            for t in v:
                verify(t, depth + 1)


def root(buf, program_size):
    """The Program table of a buffer whose first `program_size` bytes hold it."""
    pos = struct.unpack_from("<I", buf, 0)[0]
    return Table(buf, pos, "Program", program_size)


# ---------------------------------------------------------------------------
# Writer
# ---------------------------------------------------------------------------

class T:
    """A table to write: T("Tensor", sizes=V("i", [2]), ...). Fields are
    named as in SCHEMA; a union field takes U(type_name, table)."""

    def __init__(self, type_name, **fields):
        self.type, self.fields = type_name, fields


class V:
    """A scalar vector; `align` forces the data's alignment (force_align)."""

    def __init__(self, fmt, items, align=None):
        self.fmt, self.items, self.align = fmt, list(items), align


class U:
    """A union value: the member table (its type name selects the tag)."""

    def __init__(self, table):
        self.table = table


class Builder:
    def __init__(self, reserve=0):
        # Root offset, identifier, then `reserve` bytes (the header block).
        self.buf = bytearray(8 + reserve)

    def _pad(self, align, extra=0):
        while (len(self.buf) + extra) % align:
            self.buf.append(0)

    def finish(self, program, ident=b"ET12"):
        pos = self._table(program)
        struct.pack_into("<I", self.buf, 0, pos)
        self.buf[4:8] = ident
        self._pad(16)
        return self.buf

    def _table(self, t):
        fields = []  # (slot, fmt or None for an offset, value)
        slots = _SLOTS[t.type]
        for name, value in t.fields.items():
            if value is None:
                continue
            slot = slots[name]
            kind = SCHEMA[t.type][slot][1]
            if isinstance(value, U):
                union = kind[1]
                tag = {v: k for k, v in UNIONS[union].items()}[value.table.type]
                fields.append((slot - 1, "B", tag))
                fields.append((slot, None, value.table))
            elif kind[0] == "scalar":
                fields.append((slot, kind[1], value))
            elif kind[0] == "union_type":
                fields.append((slot, "B", value))  # a raw tag (tests of bad tags)
            else:
                fields.append((slot, None, value))
        # Object layout: soffset at 0, then fields largest first, aligned.
        layout, end = {}, 4
        for slot, fmt, value in sorted(fields, key=lambda f: -(struct.calcsize(f[1]) if f[1] else 4)):
            size = struct.calcsize(fmt) if fmt else 4
            while end % size:
                end += 1
            layout[slot] = end
            end += size
        nslots = max([f[0] for f in fields], default=-1) + 1
        vtable = struct.pack("<HH", 4 + 2 * nslots, end) + b"".join(
            struct.pack("<H", layout.get(s, 0)) for s in range(nslots))
        self._pad(2)
        vt_pos = len(self.buf)
        self.buf += vtable
        self._pad(8)
        pos = len(self.buf)
        self.buf += bytes(end)
        struct.pack_into("<i", self.buf, pos, pos - vt_pos)
        children = []
        for slot, fmt, value in fields:
            if fmt:
                struct.pack_into("<" + fmt, self.buf, pos + layout[slot], value)
            else:
                children.append((pos + layout[slot], value))
        for at, value in children:
            struct.pack_into("<I", self.buf, at, self._child(value) - at)
        return pos

    def _child(self, value):
        if isinstance(value, T):
            return self._table(value)
        if isinstance(value, str):
            b = value.encode()
            self._pad(4)
            pos = len(self.buf)
            self.buf += struct.pack("<I", len(b)) + b + b"\0"
            return pos
        if isinstance(value, V):
            size = struct.calcsize(value.fmt)
            self._pad(4)
            self._pad(max(size, value.align or 1, 4), 4)
            pos = len(self.buf)
            self.buf += struct.pack("<I", len(value.items))
            self.buf += struct.pack("<%d%s" % (len(value.items), value.fmt), *value.items)
            return pos
        if isinstance(value, list):  # a vector of tables
            self._pad(4)
            pos = len(self.buf)
            self.buf += struct.pack("<I", len(value)) + bytes(4 * len(value))
            for i, t in enumerate(value):
                at = pos + 4 + 4 * i
                struct.pack_into("<I", self.buf, at, self._table(t) - at)
            return pos
        raise TypeError("cannot write %r" % (value,))


def align_up(n, a):
    return (n + a - 1) // a * a


def layout_segments(blobs, alignment=128):
    """Offsets of `blobs` laid out back to back at `alignment`, and the data."""
    offsets, data = [], bytearray()
    for b in blobs:
        while len(data) % alignment:
            data.append(0)
        offsets.append(len(data))
        data += b
    return offsets, bytes(data)


def pte_file(program, segment_data=b"", header_length=None, ident=b"ET12"):
    """A whole .pte: `program` (a T("Program")) and the already laid out
    segment data. `header_length` None writes a header exactly when there is
    segment data; 24 or 32 forces one (24: no segment_data_size, as ExecuTorch
    < 1.0 wrote). The header block is 32 bytes either way."""
    if header_length is None and segment_data:
        header_length = 32
    b = Builder(reserve=32 if header_length else 0)
    buf = b.finish(program, ident)
    if not header_length:
        return bytes(buf)
    program_size = len(buf)
    base = align_up(program_size, 128) if segment_data else 0
    header = b"eh00" + struct.pack("<IQQ", header_length, program_size, base)
    header += struct.pack("<Q", len(segment_data)) if header_length >= 32 else bytes(8)
    buf[8:40] = header
    out = bytes(buf)
    if segment_data:
        out += bytes(base - program_size) + segment_data
    return out
