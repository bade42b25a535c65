"""Quantize with qs-run (the CPU reference lowering) and compare every byte of
every inner tensor with the independent numpy reference (qs_reference.py),
for every family x usage x {aligned, unaligned} x {bf16, f32} on random
inputs with zeros, denormals, huge values, +-inf and NaN."""

import os

import ml_dtypes
import numpy as np
import pytest

import harness as h
import qs_reference as ref

USAGES = {"row": dict(columnwise=False), "col": dict(rowwise=False), "both": {}}

CASES = [
    # (family, params, shapes)
    ("fp8_current", {}, [(64, 128), (3, 40, 72), (48, 70)]),
    ("fp8_current", dict(force_pow_2_scales=True, amax_epsilon=1e-3), [(48, 80)]),
    ("fp8_current", dict(fp8_dtype="f8E5M2"), [(32, 96)]),
    ("mxfp8", {}, [(64, 128), (2, 32, 96)]),
    ("mxfp8", dict(with_2d_quantization=True), [(64, 96)]),
    ("mxfp8", dict(optimize_for_gemm=True), [(160, 192)]),
    ("mxfp8", dict(fp8_dtype="f8E5M2", optimize_for_gemm=True), [(32, 64)]),
    ("fp8_block", dict(block_scaling_dim=1), [(256, 384), (300, 200), (2, 70, 130), (64, 192)]),
    ("fp8_block", dict(block_scaling_dim=2), [(256, 384), (300, 200), (64, 192), (130, 259)]),
    ("fp8_block", dict(block_scaling_dim=1, force_pow_2_scales=False, amax_epsilon=1e-2),
     [(130, 260)]),
    ("nvfp4", {}, [(64, 128), (2, 32, 64), (48, 80)]),
    ("nvfp4", dict(with_2d_quantization=True), [(64, 96), (48, 80), (2, 80, 144)]),
    ("nvfp4", dict(row_scaled_nvfp4=True), [(32, 48)]),
    ("nvfp4", dict(optimize_for_gemm=True), [(144, 160)]),
]


def quantize_module(shape, nominal, q, chip=None, func_attrs=""):
    t, qt = h.ttype(shape, nominal), h.qtype(shape, nominal, q)
    body = f"""func.func @quantize(%x: {t}) -> {qt} {func_attrs}{{
  %q = qs.quantize %x : {t} -> {qt}
  return %q : {qt}
}}"""
    if chip:
        body = f'module attributes {{qs.chip = "{chip}"}} {{\n{body}\n}}'
    return body


def check_quantize(rng, family, params, shape, nominal, chip=None, x=None, func_attrs=""):
    q = h.quantizer(family, **params)
    if x is None:
        x = h.random_input(rng, shape, nominal)
    with np.errstate(all="ignore"):
        expected, _ = ref.quantize(x, q, nominal, chip_tn_only=chip != "sm_100a")
    outs = h.run(quantize_module(shape, nominal, q, chip, func_attrs), "quantize",
                 [h.to_npy(x, nominal)], len(expected))
    for (name, want), got in zip(expected.items(), outs):
        region = ref.valid_region(name, shape, q)
        h.assert_bytes_equal(got[region], np.asarray(want)[region],
                             f"{family}{params} {shape} {nominal} {name}")
        # Our padding is zero: the whole buffer matches the zero-padded reference.
        h.assert_bytes_equal(got, want, f"{family}{params} {shape} {nominal} {name} (padding)")


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("nominal", ["bf16", "f32"])
@pytest.mark.parametrize("family,params,shapes", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_quantize(rng, family, params, shapes, nominal, usage):
    for shape in shapes:
        check_quantize(rng, family, {**params, **USAGES[usage]}, shape, nominal)


DIRECT_STORES = [("mxfp8", {}, [(64, 128), (2, 32, 96)], "bf16"),
                 ("fp8_block", dict(block_scaling_dim=1), [(300, 200)], "f32"),
                 ("fp8_block", dict(block_scaling_dim=1), [(2, 70, 130)], "bf16"),
                 ("fp8_current", {}, [(3, 40, 72)], "bf16"),
                 ("nvfp4", {}, [(48, 80), (64, 128)], "bf16"),
                 ("nvfp4", dict(with_rht=True), [(32, 48)], "bf16"),
                 # 2-D with both usages: the column-wise codes encoded
                 # again instead of transposed from the row-wise ones.
                 ("fp8_block", dict(block_scaling_dim=2), [(300, 200)], "bf16"),
                 ("nvfp4", dict(with_2d_quantization=True), [(48, 80)], "bf16")]


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("family,params,shapes,nominal", DIRECT_STORES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(DIRECT_STORES)])
def test_direct_stores(rng, family, params, shapes, nominal, usage):
    # qs.quantize_stores = "direct" (a thread stores its own blocks' codes,
    # no row lanes, no staged transposes) gives the same bytes as the
    # default coalesced stores: both equal the reference.
    for shape in shapes:
        check_quantize(rng, family, {**params, **USAGES[usage]}, shape, nominal,
                       func_attrs='attributes {qs.quantize_stores = "direct"} ')


@pytest.mark.parametrize("usage", list(USAGES))
def test_nvfp4_rht(rng, usage):
    # RHT needs bf16 input; it changes the column-wise representation only.
    for shape in [(64, 128), (32, 48)]:
        check_quantize(rng, "nvfp4", dict(with_rht=True, **USAGES[usage]), shape, "bf16")


@pytest.mark.parametrize("usage", list(USAGES))
def test_nvfp4_rht_unsigned(rng, usage):
    # with_random_sign_mask=False: the transform is H16 / 4 (all signs +1).
    for shape in [(64, 128), (2, 48, 32)]:
        check_quantize(rng, "nvfp4", dict(with_rht=True, with_random_sign_mask=False,
                                          **USAGES[usage]), shape, "bf16")
    check_quantize(rng, "nvfp4", dict(with_rht=True, with_2d_quantization=True,
                                      with_random_sign_mask=False, **USAGES[usage]),
                   (80, 48), "bf16")


# A 16-row chunk whose transform rounds differently in the butterfly order
# (Numerics.md) and in a running sum from 0: one output is 0.25 (1 + 2^-8 +
# 2^-24 + 2^-30), just above a bf16 tie, which the butterflies keep
# (0.251953125) and the running sum loses to the tie (0.25).
RHT_ORDER_CHUNK = {1: 1.0, 8: 2.0 ** -24, 12: -(2.0 ** -8), 14: -(2.0 ** -30)}


@pytest.mark.parametrize("usage", ["col", "both"])
def test_nvfp4_rht_butterfly_order(rng, usage):
    # Small random values elsewhere (|RHT| < 0.05), the chunk in column 5:
    # its output is the post-RHT global amax, so amax_columnwise and the
    # chunk's scale tell the two orders apart.
    x = (np.clip(rng.standard_normal((48, 32)), -3, 3) * 2.0 ** -8).astype(np.float32)
    x[16:32, 5] = 0.0
    for r, v in RHT_ORDER_CHUNK.items():
        x[16 + r, 5] = v
    x = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    butterfly = np.abs(ref.rht_columnwise(x)).max()
    sequential = np.abs(ref.rht_columnwise_sequential(x)).max()
    assert (butterfly, sequential) == (np.float32(0.251953125), np.float32(0.25))
    check_quantize(rng, "nvfp4", dict(with_rht=True, **USAGES[usage]), (48, 32), "bf16",
                   x=x)


def rht_amax_inputs(rng):
    """Inputs whose column-wise global amax (max |RHT(x^T)| over 16-row
    chunks) comes from the last butterfly's pair (p + q, p - q) in each way
    it can: finite sums (no specials), +inf and -inf paired (p + q NaN, p - q
    infinite), a NaN chunk beside finite ones (ignored), sums that
    overflow."""
    base = h.random_input(rng, (48, 32), "bf16", specials=False)
    paired = base.copy()
    paired[16, 3], paired[24, 3] = np.inf, -np.inf  # rows r and r + 8 of a chunk
    nan = base.copy()
    nan[20, 7] = np.nan
    huge = base.copy()
    huge[0:16, 9] = np.float32(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    return {"finite": base, "paired_inf": paired, "nan_chunk": nan, "overflow": huge}


@pytest.mark.parametrize("usage", ["col", "both"])
@pytest.mark.parametrize("case", ["finite", "paired_inf", "nan_chunk", "overflow"])
def test_nvfp4_rht_amax_pairs(rng, usage, case):
    # The amax kernel takes each chunk's last butterfly as f32(|p| + |q|),
    # the larger magnitude of p + q and p - q: equal to the reference's max
    # over the 16 sums for finite, infinite, NaN and overflowing sums.
    x = rht_amax_inputs(rng)[case]
    check_quantize(rng, "nvfp4", dict(with_rht=True, **USAGES[usage]), x.shape, "bf16", x=x)


FOUR_OVER_SIX = {"mae448": dict(nvfp4_use_4over6=True),
                 "mse256": dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256,
                                nvfp4_4over6_err_mode="MSE")}


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("mode", list(FOUR_OVER_SIX))
def test_nvfp4_4over6(rng, usage, mode):
    # 1x16 blocks (N-D, f32), 16x16 tiles (whole and partial 64x64 GPU
    # tiles), row-scaled global amaxes, GEMM-swizzled scales.
    params = dict(FOUR_OVER_SIX[mode], **USAGES[usage])
    for shape in [(64, 128), (2, 48, 32)]:
        check_quantize(rng, "nvfp4", params, shape, "bf16")
    check_quantize(rng, "nvfp4", params, (32, 48), "f32")
    for shape in [(64, 128), (80, 48)]:
        check_quantize(rng, "nvfp4", dict(params, with_2d_quantization=True), shape, "bf16")
    check_quantize(rng, "nvfp4", dict(params, row_scaled_nvfp4=True), (32, 48), "bf16")
    check_quantize(rng, "nvfp4", dict(params, optimize_for_gemm=True), (144, 160), "bf16")
    # Values without outliers: many blocks and tiles near the decision,
    # where a wrong error sum (order, missing rows) shows.
    x = h.from_npy(h.to_npy(tile_scaled_uniform(rng, 256, 256), "bf16"), "bf16")
    for two_d in (False, True):
        check_quantize(rng, "nvfp4", dict(params, with_2d_quantization=two_d), x.shape,
                       "bf16", x=x)


@pytest.mark.parametrize("mode", list(FOUR_OVER_SIX))
@pytest.mark.parametrize("exponents", [(-100, -90), (-80, -62), (50, 67), (90, 100)])
def test_nvfp4_4over6_far_scales(rng, mode, exponents):
    # The kernels divide by 6 and 6E without div.rn while the dividends lie
    # in [2^-64, 2^64] (ConstantDivision.h) and fall back to it outside:
    # tiles scaled by 2^e, e drawn per 16x16 tile from `exponents`, put the
    # block amaxes and the decoded-value products f32(sf G) all outside
    # (-100..-90, 90..100) or on both sides of the bounds (-80..-62: about
    # 18% of the block amaxes and 65% of the products inside; 50..67: 75%
    # and 10-20%), with no specials to flatten them.
    x = tile_scaled_uniform(rng, 64, 128)
    exps = rng.integers(exponents[0], exponents[1], size=(4, 8))
    x *= np.exp2(np.repeat(np.repeat(exps, 16, 0), 16, 1)).astype(np.float32)
    x = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    for two_d in (False, True):
        check_quantize(rng, "nvfp4", dict(FOUR_OVER_SIX[mode], with_2d_quantization=two_d,
                                          **USAGES["both"]), x.shape, "bf16", x=x)


def tile_scaled_uniform(rng, m, k):
    """Uniform values in [-s, s], s random per 16x16 tile: both 4over6
    candidates win often, for 1x16 blocks and for 16x16 tiles."""
    scale = np.repeat(np.repeat(rng.uniform(0.1, 10.0, (m // 16, k // 16)), 16, 0), 16, 1)
    return (rng.uniform(-1.0, 1.0, (m, k)) * scale).astype(np.float32)


@pytest.mark.parametrize("mode", list(FOUR_OVER_SIX))
@pytest.mark.parametrize("tiles", [False, True])
def test_nvfp4_4over6_reference_picks_both(rng, mode, tiles):
    # The comparison above only means something if random inputs make the
    # reference keep map-to-4 for some blocks and map-to-6 for others.
    q = FOUR_OVER_SIX[mode]
    z = tile_scaled_uniform(rng, 256, 256)
    *_, pick4 = ref.quantize_nvfp4_4over6_rows(z, False, tiles, q.get("nvfp4_e4m3_max", 448),
                                               q.get("nvfp4_4over6_err_mode") == "MSE",
                                               return_pick=True)
    assert pick4.any() and not pick4.all(), pick4.mean()


def test_nvfp4_e2m1_boundaries(rng):
    # E2M1 codes at, and 1-3 ulps either side of, each rounding boundary
    # (0.25, 0.75, ..., 5: ties to the even code; te-formats.md e2m1_rn_sat)
    # and signed zeros, subnormals and 6. G = 2688 (S_enc = 1) and a block
    # amax of 24 make sf = 4 and enc = 0.25 exactly, so q = x * enc is
    # exactly the chosen value. Each 1x16 block: 24, then 15 test values.
    probes = [0.0, -0.0, 2.0**-149, -(2.0**-149), 2.0**-126, 5.9999995, 6.0]
    for b in E2M1_BOUNDARIES:
        for sign in (1.0, -1.0):
            v = np.float32(sign * b)
            probes.append(v)
            for direction in (np.inf, -np.inf):
                w = v
                for _ in range(3):
                    w = np.nextafter(w, np.float32(direction), dtype=np.float32)
                    probes.append(w)
    q = np.array(probes, dtype=np.float32)
    x = (rng.uniform(-24.0, 24.0, (16, 128))).astype(np.float32)
    x[:, ::16] = 24.0
    x[0, 0] = 2688.0
    slots = [(r, c) for r in range(16) for c in range(128) if c % 16 and (r > 0 or c >= 16)]
    for (r, c), v in zip(slots, q):
        x[r, c] = v * np.float32(4.0)
    assert len(q) <= len(slots)
    assert np.array_equal((x[[r for r, _ in slots[:len(q)]], [c for _, c in slots[:len(q)]]]
                           * np.float32(0.25)).view(np.uint32), q.view(np.uint32))
    check_quantize(rng, "nvfp4", dict(USAGES["row"]), x.shape, "f32", x=x)


# Rows (G, block amax a, t, y) whose 4over6 choice turns on how one E2M1
# tie rounds: f32(t * enc) is exactly boundary k of the E2M1 grid (0.25,
# 0.75, 1.25, 1.75, 2.5, 3.5, 5; RNE takes the even code), for map-to-6 or
# map-to-4. Found by scripts/e2m1-tie-search.py (random G, a, y, the reference); the
# test itself re-checks that rounding tie k the other way flips each row's
# choice. The GPU kernels find each element's E2M1 magnitude from these
# boundaries (E2M1Boundaries.h: FourOverSix.cpp errorOf, FloatEmulation.cpp), so a `>=` for a
# `>` shows here.
E2M1_TIE_ROWS = {
    "mae448": {
        0: ("0x1.bc0ec4p+10", "0x1.78fbe4p+9", "0x1.7c9ef4p+5", "0x1.1d7d6cp+8"),
        1: ("0x1.aad5acp+10", "0x1.335b64p+9", "0x1.30e1c2p+6", "0x1.30e5ecp+5"),
        2: ("0x1.78257ep+10", "0x1.bd7ea6p+9", "0x1.0cad10p+8", "0x1.4272f6p+8"),
        3: ("0x1.e48396p+10", "0x1.18aef4p+10", "0x1.e48394p+8", "0x0p+0"),
        4: ("0x1.52c874p+10", "0x1.dc15a2p+8", "0x1.935026p+7", "0x1.2e810cp+7"),
        5: ("0x1.bc325cp+9", "0x1.037334p+9", "0x1.bc325ap+8", "0x0p+0"),
        6: ("0x1.826318p+7", "0x1.1813f0p+6", "0x1.cbfc10p+5", "0x1.58fffcp+5"),
    },
    "mse256": {
        0: ("0x1.e6aaf4p+10", "0x1.5f2c76p+10", "0x1.e6aaf4p+5", "0x0p+0"),
        2: ("0x1.0e64d6p+11", "0x1.92c4e6p+10", "0x1.51fe0ep+8", "0x0p+0"),
        3: ("0x1.ac37b4p+9", "0x1.ab2d98p+8", "0x1.f39652p+6", "0x0p+0"),
        4: ("0x1.c30e6ap+5", "0x1.393138p+2", "0x1.026af0p+1", "0x1.76e422p+0"),
        5: ("0x1.ac7dfap+9", "0x1.5749aep+9", "0x1.962cbep+8", "0x1.505a78p+8"),
    },
}
E2M1_BOUNDARIES = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]


def e2m1_tie_flipped(k):
    """e2m1_rn_sat with a tie on boundary k rounded to the odd neighbour."""
    def round_(v):
        v = np.asarray(v, dtype=np.float32)
        codes = ref.cast_rn_sat(v, ref.E2M1, np.float32(6.0))
        tie = np.abs(v) == np.float32(E2M1_BOUNDARIES[k])
        mag = np.where((codes & 7) == k, k + 1, k)
        return np.where(tie, (codes & 8) | mag, codes).astype(np.uint8)
    return round_


@pytest.mark.parametrize("mode", list(FOUR_OVER_SIX))
def test_nvfp4_4over6_e2m1_ties(rng, mode, monkeypatch):
    # Row-scaled (each row its own G): [G, 0 x 15 | a, t, y, 0 x 13]; zero
    # rows after them (NVFP4 needs 16 rows).
    q = FOUR_OVER_SIX[mode]
    e4m3_max, mse = q.get("nvfp4_e4m3_max", 448), q.get("nvfp4_4over6_err_mode") == "MSE"
    cases = E2M1_TIE_ROWS[mode]
    x = np.zeros((16, 32), dtype=np.float32)
    for i, (g, a, t, y) in enumerate(cases.values()):
        x[i, [0, 16, 17, 18]] = [float.fromhex(v) for v in (g, a, t, y)]
    def picks():
        with np.errstate(all="ignore"):  # the zero rows
            *_, pick4 = ref.quantize_nvfp4_4over6_rows(x, True, False, e4m3_max, mse,
                                                       return_pick=True)
        return pick4[:, 1]
    want = picks()
    for i, k in enumerate(cases):
        with monkeypatch.context() as m:
            m.setattr(ref, "e2m1_rn_sat", e2m1_tie_flipped(k))
            assert picks()[i] != want[i], f"row {i} does not depend on tie {k}"
    check_quantize(rng, "nvfp4", dict(q, row_scaled_nvfp4=True, **USAGES["row"]), x.shape,
                   "f32", x=x)


@pytest.mark.parametrize("usage", list(USAGES))
def test_nvfp4_rht_2d(rng, usage):
    # RHT with 16x16 tiles: the column-wise tiles' scales come from the
    # transformed values (a tile of RHT(x^T) transforms one tile of x).
    # Shapes: whole 64x64 GPU tiles, partial tiles, several of each.
    for shape in [(64, 128), (80, 48), (2, 48, 96)]:
        check_quantize(rng, "nvfp4", dict(with_rht=True, with_2d_quantization=True,
                                          **USAGES[usage]), shape, "bf16")


@pytest.mark.parametrize("usage", list(USAGES))
def test_fp8_non_tn_chip(rng, usage):
    # sm_100a keeps one data buffer for both usages (no transpose).
    check_quantize(rng, "fp8_current", USAGES[usage], (64, 96), "bf16", chip="sm_100a")


def test_fp16_input(rng):
    for family in ["fp8_current", "mxfp8", "fp8_block", "nvfp4"]:
        check_quantize(rng, family, {}, (64, 128), "f16")


@pytest.mark.parametrize("usage", list(USAGES))
def test_fp8_delayed(rng, usage):
    shape, nominal = (64, 128), "bf16"
    q = h.quantizer("fp8_delayed", **USAGES[usage])
    x = h.random_input(rng, shape, nominal)
    scale = np.float32(rng.uniform(0.5, 64.0))
    state = np.float32(rng.uniform(0.0, 10.0))
    with np.errstate(all="ignore"):
        expected, updated = ref.quantize(x, q, nominal, scale=scale, amax_state=state)
    t, qt, s = h.ttype(shape, nominal), h.qtype(shape, nominal, q), "tensor<1xf32>"
    module = f"""func.func @quantize(%x: {t}, %s: {s}, %a: {s}) -> ({qt}, {s}) {{
  %q, %amax = qs.quantize %x scale(%s : {s}) amax(%a : {s}) : {t} -> {qt}, {s}
  return %q, %amax : {qt}, {s}
}}"""
    outs = h.run(module, "quantize",
                 [h.to_npy(x, nominal), np.array([scale], np.float32), np.array([state], np.float32)],
                 len(expected) + 1)
    for (name, want), got in zip(expected.items(), outs):
        h.assert_bytes_equal(got, want, f"fp8_delayed {name}")
    h.assert_bytes_equal(outs[-1], updated, "fp8_delayed updated amax")


def amax_type(q):
    """The tensor of global amaxes: two for NVFP4 with RHT (qs.amax)."""
    return f"tensor<{2 if q.get('with_rht') else 1}xf32>"


def given_amax_module(shape, nominal, q):
    t, qt, s = h.ttype(shape, nominal), h.qtype(shape, nominal, q), amax_type(q)
    return f"""func.func @quantize(%x: {t}, %g: {s}) -> {qt} {{
  %q = qs.quantize %x amax(%g : {s}) : {t} -> {qt}
  return %q : {qt}
}}"""


def amax_module(shape, nominal, q):
    t, qt, s = h.ttype(shape, nominal), h.qtype(shape, nominal, q), amax_type(q)
    return f"""func.func @amax(%x: {t}) -> {s} {{
  %a = qs.amax %x as {qt} : {t} -> {s}
  return %a : {s}
}}"""


def check_given_amax(rng, q, shape, amaxes, nominal="bf16"):
    """qs.quantize with given global amaxes against the reference with them:
    the input's own (ref.global_amaxes), then each of `amaxes` (finite ones
    as multiples of them, inf and NaN as they are; a tuple scales each
    amax by its own factor)."""
    x = h.random_input(rng, shape, nominal, specials=False)
    own = ref.global_amaxes(x, q)
    for a in [1.0] + amaxes:
        a = np.broadcast_to(np.asarray(a, np.float32), own.shape)
        g = np.where(np.isfinite(a), own * a, a).astype(np.float32)
        with np.errstate(all="ignore"):
            expected, _ = ref.quantize(x, q, nominal, global_amax=g if g.size > 1 else g[0])
        outs = h.run(given_amax_module(shape, nominal, q), "quantize",
                     [h.to_npy(x, nominal), g], len(expected))
        for (name, want), got in zip(expected.items(), outs):
            h.assert_bytes_equal(got, want, f"{q['family']} amax {g} {name}")


RHT = dict(with_rht=True, with_post_rht_amax=True)


@pytest.mark.parametrize("family,params,shape,nominal", [
    ("fp8_current", {}, (48, 80), "bf16"),
    ("fp8_current", dict(columnwise=False), (3, 5, 7), "f32"),
    ("nvfp4", {}, (48, 96), "bf16"),
    ("nvfp4", RHT, (64, 128), "bf16"),
    ("nvfp4", dict(RHT, rowwise=False, with_random_sign_mask=False), (2, 16, 48), "bf16"),
    ("nvfp4", dict(RHT, with_2d_quantization=True, columnwise=False), (48, 96), "bf16"),
])
def test_global_amax(rng, family, params, shape, nominal):
    """qs.amax against the reference's global amaxes (max|x|, and with RHT
    max|RHT(x^T)| whatever the usages), on inputs with and without zeros,
    denormals, huge values, +-inf and NaN (ignored, as by the quantize),
    and on all-zero input."""
    q = h.quantizer(family, **params)
    for specials in (False, True, None):
        x = (np.zeros(shape, np.float32) if specials is None
             else h.random_input(rng, shape, nominal, specials=specials))
        with np.errstate(all="ignore"):
            want = ref.global_amaxes(x, q)
        got = h.run(amax_module(shape, nominal, q), "amax", [h.to_npy(x, nominal)], 1)[0]
        h.assert_bytes_equal(got, want, f"{family}{params} specials={specials}")


@pytest.mark.parametrize("usage", list(USAGES))
@pytest.mark.parametrize("params", [{}, dict(fp8_dtype="f8E5M2", force_pow_2_scales=True,
                                             amax_epsilon=1e-3)])
def test_fp8_current_given_amax(rng, usage, params):
    """Current scaling with a given global amax (TE's amax reduction):
    against the reference with that amax, for amaxes above, below and at
    the input's own, zero, +inf and NaN (compute_scale_from_amax's cases)."""
    q = h.quantizer("fp8_current", **params, **USAGES[usage])
    check_given_amax(rng, q, (48, 80), [4.5, 1 / 3, 0, np.inf, np.nan, 1e-30])


def amax_reduction_example():
    with open(os.path.join(h.ROOT, "examples", "amax_reduction.mlir")) as f:
        return f.read()


def test_fp8_current_amax_reduction(rng):
    """TE's amax reduction across ranks, as examples/amax_reduction.mlir
    spells it: x (with zeros, denormals, huge values, +-inf and NaN) split
    by rows into three parts (sequence parallelism), each part's amax by the
    example's @local_amax (qs.amax; the same as its linalg.reduce spelling,
    @local_amax_linalg), their maximum as the all-reduce's result, each
    part quantized by @quantize_part with it: every part's codes are those
    rows of x quantized whole, and every scale_inv is x's."""
    example = amax_reduction_example()
    part_shape, nominal, parts = (32, 512), "bf16", 3
    q = h.quantizer("fp8_current")
    for trial in range(3):
        x = h.random_input(rng, (parts * 32, 512), nominal, specials=trial > 0)
        with np.errstate(all="ignore"):
            names = list(ref.quantize(x, q, nominal)[0])  # data, transpose, scale_inv
        whole = h.run(quantize_module(x.shape, nominal, q), "quantize",
                      [h.to_npy(x, nominal)], len(names))
        chunks = np.split(x, parts)
        local = [h.run(example, "local_amax", [h.to_npy(c, nominal)], 1)[0] for c in chunks]
        for c, a in zip(chunks, local):
            by_hand = h.run(example, "local_amax_linalg", [h.to_npy(c, nominal)], 1)[0]
            h.assert_bytes_equal(a.reshape(()), by_hand.reshape(()), f"trial {trial} amax")
        g = np.fmax.reduce([np.float32(a.reshape(())) for a in local])
        for i, chunk in enumerate(chunks):
            outs = h.run(example, "quantize_part",
                         [h.to_npy(chunk, nominal), np.array([g], np.float32)], len(names))
            rows = slice(i * part_shape[0], (i + 1) * part_shape[0])
            for name, got, want in zip(names, outs, whole):
                if name == "data":
                    want = want[rows]
                elif name == "transpose":
                    want = want[:, rows]
                h.assert_bytes_equal(got, want, f"trial {trial} part {i} {name}")


@pytest.mark.parametrize("params", [{}, dict(columnwise=False, optimize_for_gemm=True),
                                    dict(with_2d_quantization=True),
                                    dict(nvfp4_use_4over6=True, rowwise=False)])
def test_nvfp4_given_amax(rng, params):
    """NVFP4 (no row scales) with a given global amax: against the
    reference with that amax (S_enc and both stored amaxes from it), for
    amaxes above, below and at the input's own, and zero."""
    check_given_amax(rng, h.quantizer("nvfp4", **params), (48, 96), [3.5, 1 / 5, 0])


@pytest.mark.parametrize("params", [RHT, dict(RHT, rowwise=False), dict(RHT, columnwise=False)])
def test_nvfp4_rht_given_amax(rng, params):
    """NVFP4 with RHT given its two global amaxes (max|x| for the row-wise,
    max|RHT(x^T)| for the column-wise representation): against the
    reference with them, each scaled alone and both together, and zero."""
    check_given_amax(rng, h.quantizer("nvfp4", **params), (48, 96),
                     [3.5, (1.0, 1 / 5), (2.5, 1.0), 0])


@pytest.mark.parametrize("params", [{}, dict(with_2d_quantization=True), RHT])
def test_nvfp4_amax_reduction(rng, params):
    """NVFP4's amax reduction: x split by rows into three parts of 32 rows
    (whole 1x16, 16x1 and 16x16 blocks, and the RHT's 16-row chunks), each
    part's global amaxes by qs.amax, their maximum as the all-reduce's
    result (the whole tensor's), each part quantized with it: the parts'
    codes, block scales and amaxes are the whole tensor's, in both usages
    (the column-wise codes and scales of a part are the whole's columns of
    its rows)."""
    q, k, part = h.quantizer("nvfp4", **params), 128, (32, 128)
    check_nvfp4_amax_reduction(
        rng, q, k,
        lambda c: h.run(amax_module(part, "bf16", q), "amax", [h.to_npy(c, "bf16")], 1)[0],
        lambda c, g, n: h.run(given_amax_module(part, "bf16", q), "quantize",
                              [h.to_npy(c, "bf16"), g], n),
        f"nvfp4{params}")


def test_nvfp4_rht_amax_reduction_example(rng):
    """examples/amax_reduction.mlir's NVFP4 with RHT: three parts of 32
    rows, each part's two amaxes by @local_amax_nvfp4, reduced elementwise,
    each part quantized by @quantize_part_nvfp4: the whole tensor's codes,
    scales and amaxes."""
    example = amax_reduction_example()
    check_nvfp4_amax_reduction(
        rng, h.quantizer("nvfp4", with_rht=True), 512,
        lambda c: h.run(example, "local_amax_nvfp4", [h.to_npy(c, "bf16")], 1)[0],
        lambda c, g, n: h.run(example, "quantize_part_nvfp4", [h.to_npy(c, "bf16"), g], n),
        "example")


def check_nvfp4_amax_reduction(rng, q, k, local_amax, quantize_part, what):
    """x (96 x k, bf16) split by rows into three parts of 32 rows:
    `local_amax(part)` gives a part's global amaxes, their elementwise
    maximum must be the whole's (ref.global_amaxes), and
    `quantize_part(part, amaxes, number of results)` with it must give the
    whole tensor's buffers (check_nvfp4_part)."""
    m, part, nominal = 96, 32, "bf16"
    x = h.random_input(rng, (m, k), nominal)
    with np.errstate(all="ignore"):
        names = list(ref.quantize(x, q, nominal)[0])
    whole = dict(zip(names, h.run(quantize_module((m, k), nominal, q), "quantize",
                                  [h.to_npy(x, nominal)], len(names))))
    chunks = np.split(x, m // part)
    g = np.fmax.reduce([local_amax(c) for c in chunks]).astype(np.float32)
    with np.errstate(all="ignore"):
        h.assert_bytes_equal(g, ref.global_amaxes(x, q), f"{what} reduced amaxes")
    for i, chunk in enumerate(chunks):
        got = dict(zip(names, quantize_part(chunk, g, len(names))))
        check_nvfp4_part(got, whole, i, part, k, what)


def check_nvfp4_part(got, whole, i, part, k, what):
    """Part i (rows i * part ...) of an NVFP4 tensor quantized with the
    whole's amaxes: its buffers are the whole's rows (row-wise) and columns
    (column-wise, stored transposed) of its rows, amaxes the whole's."""
    r0 = i * part
    pairs = {
        "rowwise_data": (got["rowwise_data"], whole["rowwise_data"][r0:r0 + part]),
        "rowwise_scale_inv": (got["rowwise_scale_inv"][:part, :k // 16],
                              whole["rowwise_scale_inv"][r0:r0 + part, :k // 16]),
        "columnwise_data": (got["columnwise_data"],
                            whole["columnwise_data"][:, r0 // 2:(r0 + part) // 2]),
        "columnwise_scale_inv": (got["columnwise_scale_inv"][:k, :part // 16],
                                 whole["columnwise_scale_inv"][:k, r0 // 16:(r0 + part) // 16]),
        "amax_rowwise": (got["amax_rowwise"], whole["amax_rowwise"]),
        "amax_columnwise": (got["amax_columnwise"], whole["amax_columnwise"]),
    }
    for name, (have, want) in pairs.items():
        h.assert_bytes_equal(np.ascontiguousarray(have), np.ascontiguousarray(want),
                             f"{what} part {i} {name}")


# Shapes that fill the kernels' tiles and ones that do not (bounds-guarded
# loads: on x86 hosts with AVX512-BF16, LLVM carried a guarded bf16 load
# through vcvtneps2bf16, which flushed it to zero; Numerics.md).
TINY_SHAPES = {"fp8_current": [(64, 128), (1, 1), (3, 5)], "mxfp8": [(64, 128), (32, 96)],
               "fp8_block": [(64, 128), (70, 130)], "nvfp4": [(64, 128), (48, 80)]}


@pytest.mark.parametrize("family", ["fp8_current", "mxfp8", "fp8_block", "nvfp4"])
@pytest.mark.parametrize("nominal", ["bf16", "f32"])
def test_tiny_tensor(family, nominal):
    for shape in TINY_SHAPES[family]:
        check_tiny_tensor(family, nominal, shape)


def check_tiny_tensor(family, nominal, shape):
    # A tensor of denormals only: fp8_max / amax overflows to inf (per-tensor
    # and block scales take their value_for_inf; NVFP4's S_enc saturates).
    tiny = {"bf16": 9.2e-41, "f32": 1.4e-45}[nominal]
    x = (np.arange(np.prod(shape)).reshape(shape) % 7 - 3).astype(np.float32) * np.float32(tiny)
    x = x.astype(h.NUMPY_IN[nominal][0]).astype(np.float32)
    q = h.quantizer(family)
    with np.errstate(all="ignore"):
        expected, _ = ref.quantize(x, q, nominal)
    outs = h.run(quantize_module(shape, nominal, q), "quantize", [h.to_npy(x, nominal)],
                 len(expected))
    for (name, want), got in zip(expected.items(), outs):
        h.assert_bytes_equal(got, want, f"{family} tiny {nominal} {shape} {name}")
