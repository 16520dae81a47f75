#!/usr/bin/env python3
"""Copies a file with little-endian fields changed, or bytes appended:
  patch_bytes.py IN OUT OFFSET:WIDTH=VALUE ... [+N]
VALUE may be an expression of the field's current value `v`
("24:8=v+2", "16:8=2**64-1"); +N appends N zero bytes."""
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
for spec in sys.argv[3:]:
    if spec.startswith("+"):
        data += b"\0" * int(spec[1:])
        continue
    where, value = spec.split("=", 1)
    offset, width = (int(x) for x in where.split(":"))
    fmt = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}[width]
    v = struct.unpack_from(fmt, data, offset)[0]
    struct.pack_into(fmt, data, offset, eval(value, {}, {"v": v}))
open(sys.argv[2], "wb").write(bytes(data))
