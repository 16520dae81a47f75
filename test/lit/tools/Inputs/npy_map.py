#!/usr/bin/env python3
"""Copies a float .npy (<f4 or <f8, version 1.0) with every element mapped:
  npy_map.py IN OUT EXPR
EXPR is a Python expression of the element `v` and its row-major index `i`
("v * 1e-12", "v + 3e-6", "v + 1 if i == 3 else v", "0"). No numpy needed."""
import ast
import struct
import sys

data = open(sys.argv[1], "rb").read()
assert data[:6] == b"\x93NUMPY" and data[6] == 1, "not an .npy of version 1.0"
hlen = struct.unpack_from("<H", data, 8)[0]
header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
code = {"<f4": "f", "<f8": "d"}[header["descr"]]
body = data[10 + hlen:]
n = len(body) // struct.calcsize(code)
values = struct.unpack("<%d%s" % (n, code), body)
mapped = [float(eval(sys.argv[3], {}, {"v": v, "i": i})) for i, v in enumerate(values)]
open(sys.argv[2], "wb").write(data[:10 + hlen] + struct.pack("<%d%s" % (n, code), *mapped))
