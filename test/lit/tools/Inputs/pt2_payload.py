#!/usr/bin/env python3
"""Copies a .pt2 archive with one entry cut to its first N bytes, written as
a consistent zip entry (sizes and CRC agree with the bytes):
  pt2_payload.py IN.pt2 OUT.pt2 ENTRY N"""
import sys
import zipfile

src, dst, entry, keep = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
    for info in zin.infolist():
        data = zin.read(info)
        if info.filename == entry:
            data = data[:keep]
        zout.writestr(info, data, compress_type=info.compress_type)
