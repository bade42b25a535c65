#!/usr/bin/env python3
"""Checks KernelEnv::encodeE2M1's arithmetic (lib/Conversion/QSToGPU/
KernelBuilder.cpp: the sm_90a kernels' E2M1 encode) against the numerics
reference's e2m1_rn_sat (test/numerics/qs_reference.py: ml_dtypes'
float4_e2m1fn with saturation, NaN -> 7) on f32 bit patterns: every one
of them with --all (2^32, a few minutes), else every pattern within 2^16
ulps of each rounding boundary, region edge (2, 4), 6 and zero, both signs,
the specials, and 2^22 random ones (test/Tools/e2m1-encode-check.test;
--all: 0 mismatches on 2026-12-04, and for the integer (s, o) below on
2026-12-05). The model is the kernel's: a = min(|q|, 6), m = min(q, 6)
(NaN-ignoring); E = bits(max(a, 1)) & 0x7F800000 (the exponent field:
127, 128 or 129 below 2, below 4, from 4); s = f32 bits 0x7F800000 - E
(2, 1, 0.5), o = f32 bits 0x4B000000 - 254 + (E >> 22) (2^23 + 0, 2, 4);
t = f32(a s + o) (a s is exact, so one rounding as fma's); code =
(bits(t) & 7) | (sign(m) << 3). Prints the number checked; exits 1 with
the first mismatches.

  .venv/bin/python scripts/e2m1-encode-check.py [--all]
"""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "test" / "numerics"))
import qs_reference as ref  # noqa: E402

F32 = np.float32


def model(bits):
    q = bits.view(F32)
    with np.errstate(invalid="ignore", over="ignore"):
        # The kernels encode products (x times the block's multiplier),
        # never a signaling NaN: quiet them as the multiplication does.
        q = q * F32(1.0)
        a = np.fmin(np.abs(q), F32(6.0))
        m = np.fmin(q, F32(6.0))
        e = np.fmax(a, F32(1.0)).view(np.uint32) & np.uint32(0x7F800000)
        s = (np.uint32(0x7F800000) - e).view(F32)
        o = (np.uint32(0x4B000000 - 254) + (e >> np.uint32(22))).view(F32)
        t = (a * s).astype(F32) + o
    magnitude = t.astype(F32).view(np.uint32) & 7
    sign = (m.view(np.uint32) >> 28) & 8
    return (magnitude | sign).astype(np.uint8)


def check(bits):
    bits = np.asarray(bits, dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        got, want = model(bits), ref.e2m1_rn_sat(bits.view(F32))
    bad = np.nonzero(got != want)[0]
    if bad.size:
        for i in bad[:10]:
            print(f"mismatch: {bits[i]:#010x} ({bits.view(F32)[i]!r}): "
                  f"got {got[i]:#x}, want {want[i]:#x}")
        sys.exit(1)
    return bits.size


def main():
    total = 0
    if "--all" in sys.argv[1:]:
        chunk = 1 << 26
        for start in range(0, 1 << 32, chunk):
            total += check(np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32))
    else:
        points = [0.0, 2.0, 4.0, 6.0, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 1.0, 0.5, 3.0]
        span = np.arange(-(1 << 16), 1 << 16, dtype=np.int64)
        for p in points:
            for sign in (0, 1 << 31):
                centre = int(np.array(p, dtype=F32).view(np.uint32))
                near = np.clip(centre + span, 0, 0x7FFFFFFF).astype(np.uint32)
                total += check(near | np.uint32(sign))
        specials = np.array([0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                             0xFFFFFFFF, 0x00000001, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF],
                            dtype=np.uint32)
        total += check(specials)
        rng = np.random.default_rng(0)
        total += check(rng.integers(0, 1 << 32, 1 << 22, dtype=np.uint64).astype(np.uint32))
    print(f"e2m1-encode-check: {total} f32 patterns, 0 mismatches")


if __name__ == "__main__":
    main()
