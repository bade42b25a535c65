#!/usr/bin/env python3
"""Checks KernelEnv::encodeE2M1's arithmetic (lib/Conversion/QSToGPU/
KernelBuilder.cpp: the sm_90a kernels' E2M1 encode) against the numerics
reference's e2m1_rn_sat (test/numerics/qs_reference.py: ml_dtypes'
float4_e2m1fn with saturation, NaN -> 7) on f32 bit patterns: every one
of them with --all (2^32, a few minutes), else every pattern within 2^16
ulps of each rounding boundary, region edge (2, 4), 6 and zero, both signs,
the specials, and 2^22 random ones (test/Tools/e2m1-encode-check.test;
--all: 0 mismatches on 2026-12-04). The model is the kernel's: v =
max(min(q, 6), -6) (NaN-ignoring), a = |v|; s, o = (2, 0) below 2, (1, 2)
below 4, (0.5, 4) from 4; t = f32(a s + 2^23 + o) (a s is exact, so one
rounding as fma's); code = (bits(t) & 7) | (sign(v) << 3). Prints the
number checked; exits 1 with the first mismatches.

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
        v = np.fmax(np.fmin(q, F32(6.0)), F32(-6.0))
        a = np.abs(v)
        s = np.where(a >= 4, F32(0.5), np.where(a >= 2, F32(1.0), F32(2.0))).astype(F32)
        o = np.where(a >= 4, F32(2**23 + 4), np.where(a >= 2, F32(2**23 + 2), F32(2**23))).astype(F32)
        t = (a * s).astype(F32) + o
    magnitude = t.astype(F32).view(np.uint32) & 7
    sign = (v.view(np.uint32) >> 28) & 8
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
