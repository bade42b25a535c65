#!/usr/bin/env python3
"""Finds rows for test_quantize.py::test_nvfp4_4over6_e2m1_ties.

A row is [G, 0 x 15 | a, t, y, 0 x 13] (row-scaled NVFP4 4over6): G the
row's global amax, a the second block's amax, t a value with f32(t * enc)
exactly on E2M1 rounding boundary k for one candidate's encode multiplier
enc, y a free value. For each (E, error mode) and boundary k the search
draws G, a and a candidate at random and scans y for a row whose 4over6
choice (test/numerics/qs_reference.py) flips when tie k rounds to the odd
code instead of the even one. Prints float.hex tuples to paste.

  .venv/bin/python scripts/e2m1-tie-search.py [seed]
"""
import itertools
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "test" / "numerics"))
import qs_reference as ref  # noqa: E402

F32 = np.float32
BOUNDS = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]
CORRECT = ref.e2m1_rn_sat


def tie_flipped(k):
    def round_(v):
        v = np.asarray(v, dtype=F32)
        codes = CORRECT(v)
        mag = np.where((codes & 7) == k, k + 1, k)
        return np.where(np.abs(v) == F32(BOUNDS[k]), (codes & 8) | mag, codes).astype(np.uint8)
    return round_


def picks(z, e4m3_max, mse, rounding):
    ref.e2m1_rn_sat = rounding
    try:
        with np.errstate(all="ignore"):
            *_, pick4 = ref.quantize_nvfp4_4over6_rows(z, True, False, e4m3_max, mse,
                                                       return_pick=True)
    finally:
        ref.e2m1_rn_sat = CORRECT
    return pick4[:, 1]


def multipliers(g, a, e4m3_max):
    """enc of map-to-6 and map-to-4 for a block of amax a under global amax g."""
    s_enc = ref.global_encode_scale(g, e4m3_max)
    base = F32(F32(F32(a) / F32(6)) * s_enc)
    s_dec = F32(F32(1) / s_enc)
    out = []
    for v in (base, F32(base * F32(1.5))):
        sf = ref.cast_rn_sat(np.minimum(np.array([v]), F32(448)), ref.E4M3, F32(448))
        sf = ref.decode(sf, ref.E4M3).astype(F32)[0]
        out.append(F32(min(F32(F32(1) / F32(sf * s_dec)), ref.FLT_MAX)))
    return out


def main():
    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
    for e4m3_max, mse in itertools.product([448, 256], [False, True]):
        found = {}
        for _ in range(3000):
            k = int(rng.integers(7))
            if k in found:
                continue
            g = F32(rng.uniform(50, 3000))
            a = F32(rng.uniform(1, float(g) * 0.9))
            enc = multipliers(g, a, e4m3_max)[int(rng.integers(2))]
            t0 = F32(BOUNDS[k] / enc)
            hits = [t for t in (t0, np.nextafter(t0, F32(0)), np.nextafter(t0, F32(1e30)))
                    if F32(t * enc) == F32(BOUNDS[k]) and t < a]
            if not hits:
                continue
            ys = np.linspace(0, float(a), 20001, dtype=F32)
            z = np.zeros((len(ys), 32), dtype=F32)
            z[:, 0], z[:, 16], z[:, 17], z[:, 18] = g, a, hits[0], ys
            flips = np.nonzero(picks(z, e4m3_max, mse, CORRECT)
                               != picks(z, e4m3_max, mse, tie_flipped(k)))[0]
            if len(flips):
                found[k] = tuple(float(v).hex() for v in (g, a, hits[0], ys[flips[0]]))
            if len(found) == 7:
                break
        print(f"E={e4m3_max} {'MSE' if mse else 'MAE'}:")
        for k in sorted(found):
            print(f"    {k}: {found[k]},")


if __name__ == "__main__":
    main()
