"""Writes a .npy file without numpy: write_npy.py PATH DTYPE[:SHAPE] V...
(DTYPE <f4, <i4 or <u2; SHAPE e.g. 64x128, default 1-D of the values' count;
the values repeat cyclically to fill SHAPE)."""
import math
import struct
import sys

path, spec, *values = sys.argv[1:]
dtype, _, shape_text = spec.partition(":")
shape = tuple(int(d) for d in shape_text.split("x")) if shape_text else (len(values),)
count = math.prod(shape)
values = [values[i % len(values)] for i in range(count)]
shape_repr = f"({shape[0]},)" if len(shape) == 1 else f"({', '.join(map(str, shape))})"
header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {shape_repr}, }}"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
code = {"<f4": "f", "<i4": "i", "<u2": "H"}[dtype]
data = struct.pack("<" + code * count, *[(float if code == "f" else int)(v) for v in values])
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
