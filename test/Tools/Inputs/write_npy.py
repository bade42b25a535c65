"""Writes a 1-D .npy file without numpy: write_npy.py PATH DTYPE V...
(DTYPE <f4 or <i4)."""
import struct
import sys

path, dtype, *values = sys.argv[1:]
header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({len(values)},), }}"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
fmt = "<" + ("f" if dtype == "<f4" else "i") * len(values)
data = struct.pack(fmt, *[(float if dtype == "<f4" else int)(v) for v in values])
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
