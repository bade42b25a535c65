#!/usr/bin/env python3
"""Checks KernelEnv::e2m1Parts' and encodeE2M1Bytes' arithmetic
(lib/Conversion/QSToGPU/KernelBuilder.cpp: the sm_90a kernels' E2M1
encode) against the numerics
reference's e2m1_rn_sat (test/numerics/qs_reference.py: ml_dtypes'
float4_e2m1fn with saturation, NaN -> 7) on f32 bit patterns: every one
of them with --all (2^32, a few minutes), else every pattern within 2^16
ulps of each rounding boundary, region edge (2, 4), 6 and zero, both signs,
the specials, and 2^22 random ones (test/Tools/e2m1-encode-check.test;
--all: 0 mismatches on 2026-12-04 and 2026-12-05 for earlier forms, and
on 2026-12-05 for this one). The model is the kernel's: a = min(|q|, 6)
(NaN-ignoring: NaN -> 6); three candidates, each an f32 sum rounded once
to an integer, t0 = fma(a, 2, 2^23), t1 = a + (2^23 + 2), t2 = fma(a,
0.5, 2^23 + 4) (rne(2a), rne(a) + 2, rne(a / 2) + 4: the grid's three
spacings); t = min(t0, t1, t2); code = (bits(t) & 7) | (sign(m) << 3),
m = min(q, 6) (NaN positive). The 8-code words of encodeE2M1Word (a
Horner sum of bits(t) + 8 sign over the nibbles, wrapping at 2^32, plus
0x05000000 for the exponent fields) are checked against the codes packed
nibble by nibble. Prints the number checked; exits 1 with the first
mismatches.

  .venv/bin/python scripts/e2m1-encode-check.py [--all]
"""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "test" / "numerics"))
import qs_reference as ref  # noqa: E402

F32 = np.float32


M = F32(2.0 ** 23)


def parts(bits):
    """bits(t) and bits(m) of KernelEnv::e2m1Parts, as uint32."""
    q = bits.view(F32)
    with np.errstate(invalid="ignore", over="ignore"):
        # The kernels encode products (x times the block's multiplier),
        # never a signaling NaN: quiet them as the multiplication does.
        q = q * F32(1.0)
        a = np.fmin(np.abs(q), F32(6.0))
        # a * 2 and a * 0.5 are exact (a <= 6; a subnormal a / 2 rounds
        # either way to t2 = 2^23 + 4), so each sum is one rounding, fma's.
        t0 = (a * F32(2.0)) + M
        t1 = a + F32(M + 2)
        t2 = (a * F32(0.5)) + F32(M + 4)
        t = np.fmin(np.fmin(t0, t1), t2)
        m = np.fmin(q, F32(6.0))
    return t.astype(F32).view(np.uint32), m.view(np.uint32)


def model(bits):
    t, m = parts(bits)
    return ((t & 7) | ((m >> 28) & 8)).astype(np.uint8)


def check_words(bits):
    """encodeE2M1Word's Horner sum against the codes packed nibble by
    nibble, on groups of 8 consecutive patterns."""
    bits = bits[: bits.size // 8 * 8]
    t, m = parts(bits)
    nibble = (t + 8 * (m >> 31)).astype(np.uint64).reshape(-1, 8)
    acc = np.zeros(nibble.shape[0], dtype=np.uint64)
    for i in range(7, -1, -1):
        acc = (acc * 16 + nibble[:, i]) & 0xFFFFFFFF
    got = (acc + 0x05000000) & 0xFFFFFFFF
    codes = model(bits).astype(np.uint64).reshape(-1, 8)
    want = np.zeros_like(got)
    for i in range(8):
        want |= codes[:, i] << np.uint64(4 * i)
    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = bad[0]
        print(f"word mismatch at group {i}: got {int(got[i]):#010x}, "
              f"want {int(want[i]):#010x}")
        sys.exit(1)


def check(bits):
    bits = np.asarray(bits, dtype=np.uint32)
    with np.errstate(invalid="ignore"):
        got, want = model(bits), ref.e2m1_rn_sat(bits.view(F32))
    check_words(bits)
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
