"""qs.gemm through qs-run against a float64 reference of the same operands
(te-formats.md §6): each operand in the representation its contraction
needs, block scales, per-tensor factors, bias and accumulate. FP32
accumulation order differs from the float64 reference, so results are
compared within the documented bound (gemm_cases.py, docs/Numerics.md)."""

import os
import subprocess

import numpy as np
import pytest

import gemm_cases as gm
import harness as h
import qs_reference as ref
from gemm_cases import FAMILIES, LAYOUTS, gemm_case, outside_bound


def check_gemm(rng, family, layout, out, kernel_chip=None, **kwargs):
    """kernel_chip: under QS_KERNELS=gpu-emulated, emulate that chip's
    kernels on the storage layouts of the module's qs.chip (qs-run --chip)."""
    extra = []
    if kernel_chip and h.KERNELS == "cuda":
        pytest.skip("QS_KERNELS=cuda compiles for the device's own chip")
    if kernel_chip and h.KERNELS == "gpu-emulated":
        extra = [f"--chip={kernel_chip}"]
    if h.KERNELS == "cuda":  # Hopper's tensor cores: not FP32 (gemm_cases.py)
        kwargs.setdefault("tensor_cores", True)
    if kwargs.get("fast_accumulate") and h.KERNELS == "cuda":
        # On a GPU the fast kernel sums all of K in the tensor core's
        # precision (about 14 bits on Hopper), not FP32: integer-valued
        # operands keep every partial sum exact there, so the FP32 bound
        # still holds (the emulation sums in FP32 and takes random ones).
        kwargs.setdefault("integers", True)
    case = gemm_case(rng, family, layout, out, **kwargs)
    (got,) = h.run(case.module, "gemm", case.inputs, 1, extra)
    bad, message = outside_bound(case, got)
    assert not bad, message


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_gemm_layouts(rng, family, layout):
    check_gemm(rng, family, layout, "f32")


@pytest.mark.parametrize("out", ["bf16", "f16"])
@pytest.mark.parametrize("family", ["fp8_current", "mxfp8", "fp8_block"])
def test_gemm_output_types(rng, family, out):
    check_gemm(rng, family, LAYOUTS[0], out)


@pytest.mark.parametrize("family", ["fp8_current", "fp8_block", "nvfp4"])
def test_gemm_bias_accumulate(rng, family):
    check_gemm(rng, family, LAYOUTS[0], "f32", bias=True, accumulate=True)
    check_gemm(rng, family, LAYOUTS[1], "bf16", bias=True)


def test_gemm_partial_blocks(rng):
    # Block FP8 with K not a multiple of 128 (partial last block; a multiple
    # of 16, as TMA needs for the GPU kernels).
    check_gemm(rng, "fp8_block", LAYOUTS[0], "f32", m=70, n=50, k=208)
    check_gemm(rng, "fp8_block", LAYOUTS[2], "f32", m=208, n=50, k=70)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_many_tiles(rng, layout):
    # Per-tensor FP8 over several 128x128 output tiles with partial edges,
    # contractions of 2-9 k-tiles (fprop: 9, more than the 6 stages of the
    # shared-memory ring), none a multiple of 128, bias and accumulate.
    check_gemm(rng, "fp8_current", layout, "bf16", m=304, n=208, k=1040, bias=True,
               accumulate=True)


def check_padded_edges(rng, family, m, n, k, chip=None, tile_n=None):
    """fprop with NaN (0xFF) in every padding scale, which must not be read:
    x's scales compact, w's GEMM-swizzled."""
    block = 32 if family == "mxfp8" else 16
    tn_only = chip != "sm_100a"
    qx, x = gm.quantized(rng, family, dict(columnwise=False), (m, k), tn_only)
    qw, w = gm.quantized(rng, family, dict(columnwise=False, optimize_for_gemm=True), (n, k),
                         tn_only)
    for bufs, rows in ((x, m), (w, n)):
        s = bufs["rowwise_scale_inv"]
        g = ref.unswizzle(s) if s is w["rowwise_scale_inv"] else s
        padding = np.ones(g.shape, bool)
        padding[:rows, : k // block] = False
        g = g.copy()
        g[padding] = 0xFF
        bufs["rowwise_scale_inv"] = ref.swizzle(g).reshape(s.shape) if s is w["rowwise_scale_inv"] else g
    op_x = ref.gemm_operand(x, (m, k), qx, contracts_last=True)
    op_w = ref.gemm_operand(w, (n, k), qw, contracts_last=True)
    want = op_x @ op_w.T
    tol = 2.0 ** -22 * k * (np.abs(op_x) @ np.abs(op_w).T) + gm.ULP["bf16"] * np.abs(want) + gm.TINY["bf16"]
    xt, wt = h.qtype((m, k), "bf16", qx), h.qtype((n, k), "bf16", qw)
    rt = h.ttype((m, n), "bf16")
    module = f"""func.func @gemm(%a: {xt}, %b: {wt}) -> {rt} {{
  %d = qs.gemm %a, %b transpose_b : {xt}, {wt} -> {rt}
  return %d : {rt}
}}"""
    attrs = ([f'qs.chip = "{chip}"'] if chip else []) + (
        [f"qs.gemm_tile_n = {tile_n} : i64"] if tile_n else [])
    if attrs:
        module = f"module attributes {{{', '.join(attrs)}}} {{\n{module}\n}}"
    (got,) = h.run(module, "gemm", h.npy_inputs(x) + h.npy_inputs(w), 1)
    err = np.abs(h.from_npy(got, "bf16").astype(np.float64) - want)
    assert (err <= tol).all(), f"{int((~(err <= tol)).sum())} elements outside the bound"


@pytest.mark.parametrize("layout", LAYOUTS[:2], ids=[l[0] for l in LAYOUTS[:2]])
@pytest.mark.parametrize("promotion", [None, "in_tile"])
def test_gemm_mxfp8_scale_ranges(rng, layout, promotion):
    """MXFP8 with E8M0 codes far from 127 (zero blocks: code 0; rows at
    2^-80 and 2^40): the sm_90a promotion forms each scale product from the
    codes' exponent fields where all of a thread's codes lie in [64, 191]
    (GemmCode::promotePacked), else decodes them; both the overlapped and
    the in-tile promotion (None: the promoting kernel's default,
    qs.gemm_mx_scaling = "promote": overlapped for K-major operands)."""
    mx_scaling = None if promotion else "promote"
    check_gemm(rng, "mxfp8", layout, "f32", m=160, n=96, k=256, extreme=True,
               promotion=promotion, mx_scaling=mx_scaling)
    check_gemm(rng, "mxfp8", layout, "bf16", m=64, n=160, k=384, extreme=True,
               promotion=promotion, bias=True, mx_scaling=mx_scaling)


def test_gemm_mxfp8_edges(rng):
    # MXFP8 (64-wide tiles, per-32 promotion): partial tiles in M and N, K of
    # 8 full k-tiles and one 32-wide block (the rest of that k-tile is past
    # K).
    check_padded_edges(rng, "mxfp8", 320, 224, 1056)


@pytest.mark.parametrize("options", [
    {},
    {"bias": True, "accumulate": True},
    {"persistent": 3},
    {"split_k": 3},
    {"split_k": "stream", "persistent": 5},
    {"cluster": 2},
    {"epilogue": "tma"},
], ids=["default", "bias-accumulate", "persistent", "split3", "stream", "cluster", "tma"])
def test_gemm_mxfp8_converted(rng, options):
    """sm_90a MXFP8 with qs.gemm_mx_scaling = "convert" (fprop, K-major
    operands): codes times E8M0 scales converted to bf16 in shared memory,
    half a k-tile at a time, summed by bf16 wgmma in 128x128 tiles; several
    tiles with partial edges, K of 9 k-tiles ending inside the last one
    (one 32-block of it), with each kernel option that applies."""
    check_gemm(rng, "mxfp8", LAYOUTS[0], "bf16", m=320, n=224, k=1056,
               mx_scaling="convert", **options)


# Kernel options of the MXFP8 bf16 GEMMs' tests, and their ids.
MX_BF16_OPTIONS = [{}, {"bias": True, "accumulate": True}, {"persistent": 3}, {"split_k": 3},
                   {"split_k": "stream", "persistent": 5}, {"epilogue": "tma"}]
MX_BF16_IDS = ["default", "bias-accumulate", "persistent", "split3", "stream", "tma"]


@pytest.mark.parametrize("options", MX_BF16_OPTIONS, ids=MX_BF16_IDS)
@pytest.mark.parametrize("layout", LAYOUTS[1:], ids=[l[0] for l in LAYOUTS[1:]])
def test_gemm_mxfp8_converted_mn_major(rng, layout, options):
    """sm_90a MXFP8 converted to bf16 with MN-major operands (dgrad: w's
    column-wise data, wgrad: both): each thread reads four tile rows' codes
    at eight k (4-byte loads), transposes them into 16-bit pairs along K and
    converts them with the four rows' scales into the K-major bf16 tile
    (GemmCode::convertMx); partial tiles, K of 3 k-tiles ending inside the
    last (dgrad: 32 of it, wgrad: 64)."""
    check_gemm(rng, "mxfp8", layout, "bf16", m=320, n=288, k=224,
               mx_scaling="convert", **options)


@pytest.mark.parametrize("options", MX_BF16_OPTIONS + [{"tile_n": 256}],
                         ids=MX_BF16_IDS + ["tile256"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_mxfp8_dequantized(rng, layout, options):
    """sm_90a MXFP8 with qs.gemm_mx_scaling = "dequantize": a pre-pass
    kernel per operand writes codes times E8M0 scales as K-major bf16
    (MN-major data transposed), then the per-tensor kernel's skeleton runs
    bf16 wgmma on 64-element k-tiles read by TMA; partial tiles, K of 9
    k-tiles ending inside the last (32 of it; dgrad and wgrad: 6 ending
    inside the last, K = 352)."""
    check_gemm(rng, "mxfp8", layout, "bf16", m=352, n=352, k=544,
               mx_scaling="dequantize", **options)


@pytest.mark.parametrize("mx_scaling", ["convert", "promote", "dequantize"])
def test_gemm_mxfp8_e5m2(rng, monkeypatch, mx_scaling):
    """MXFP8 with E5M2 codes (TE's HYBRID gradients): E5M2 x E5M2 and E5M2
    x E4M3 with K-major operands, converted to bf16 (cvt.rn.f16x2.e5m2x2)
    and promoted (wgmma .e5m2.e4m3)."""
    monkeypatch.setitem(gm.FAMILIES, "mxfp8",
                        (dict(), dict(optimize_for_gemm=True), dict(fp8_dtype="f8E5M2")))
    check_gemm(rng, "mxfp8", ("e5m2_TN", "dy", "dy", False, True), "f32", m=160, n=288,
               mx_scaling=mx_scaling)
    check_gemm(rng, "mxfp8", ("e5m2xe4m3_TN", "dy", "w", False, True), "bf16", m=96, n=256,
               k=256, bias=True, mx_scaling=mx_scaling)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_mxfp8_converted_scale_ranges(rng, layout):
    # E8M0 codes far from 127 (zero blocks: code 0; rows at 2^-80 and
    # 2^40), every value times its scale exact in bf16; K-major and MN-major
    # operands (each of an MN-major thread's four rows its own scale).
    check_gemm(rng, "mxfp8", layout, "f32", m=160, n=96, k=256, extreme=True,
               mx_scaling="convert")
    check_gemm(rng, "mxfp8", layout, "bf16", m=64, n=160, k=384, extreme=True,
               mx_scaling="convert", bias=True)
    # The dequantizing pre-pass computes the same values (convertMxWord).
    check_gemm(rng, "mxfp8", layout, "f32", m=160, n=96, k=256, extreme=True,
               mx_scaling="dequantize")


@pytest.mark.parametrize("options", [
    {},
    {"bias": True, "accumulate": True},
    {"persistent": 3, "split_k": "stream"},
    {"epilogue": "tma", "tile_n": 256},
], ids=["default", "bias-accumulate", "stream", "tma256"])
@pytest.mark.parametrize("family", ["nvfp4", "nvfp4_4over6"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_nvfp4_dequantized(rng, layout, family, options):
    """sm_90a NVFP4 with qs.gemm_mx_scaling = "dequantize": a pre-pass
    kernel per operand writes its E2M1 codes times E4M3 scales as K-major
    f16 (exact) and its amax / 6E (4over6: E = 256 for x and dY) as the
    GEMM's per-tensor scale_inv; f16 wgmma on 64-element k-tiles; partial
    tiles, K ending inside the last k-tile (16 of it: one 16-block)."""
    check_gemm(rng, family, layout, "bf16", m=352, n=288, k=592,
               mx_scaling="dequantize", **options)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_nvfp4_many_tiles(rng, layout):
    # NVFP4 (RHT activations/gradients, 16x16 weights): several 128x128
    # tiles with partial edges, K ending inside a k-tile (fprop: 8 k-tiles
    # plus two 16-blocks), bias and accumulate.
    k = 1056 if layout[0] == "fprop_TN" else 416
    check_gemm(rng, "nvfp4", layout, "bf16", m=320, n=224, k=k, bias=True, accumulate=True)


@pytest.mark.parametrize("family", ["fp8_current", "nvfp4"])
def test_gemm_3d_activation(rng, family):
    # A 3-D activation keeps its leading dimensions; the kernels see the
    # flattened [M, K] view.
    shape, n = (2, 48, 256), 96
    q = h.quantizer(family, columnwise=False)
    x = h.random_input(rng, shape, "bf16", specials=False, exponents=(-3, 2))
    w = h.random_input(rng, (n, shape[-1]), "bf16", specials=False, exponents=(-3, 2))
    with np.errstate(all="ignore"):
        qx, _ = ref.quantize(x, q, "bf16")
        qw, _ = ref.quantize(w, q, "bf16")
    op_x = ref.gemm_operand(qx, shape, q, contracts_last=True)
    op_w = ref.gemm_operand(qw, (n, shape[-1]), q, contracts_last=True)
    want = op_x @ op_w.T
    tol = 2.0 ** -22 * shape[-1] * (np.abs(op_x) @ np.abs(op_w).T) + 2.0 ** -23 * np.abs(want)
    xt, wt = h.qtype(shape, "bf16", q), h.qtype((n, shape[-1]), "bf16", q)
    rt = h.ttype(shape[:-1] + (n,), "f32")
    module = f"""func.func @gemm(%a: {xt}, %b: {wt}) -> {rt} {{
  %d = qs.gemm %a, %b transpose_b : {xt}, {wt} -> {rt}
  return %d : {rt}
}}"""
    (got,) = h.run(module, "gemm", h.npy_inputs(qx) + h.npy_inputs(qw), 1)
    assert got.shape == shape[:-1] + (n,)
    err = np.abs(got.reshape(want.shape).astype(np.float64) - want)
    assert (err <= tol + 1e-44).all(), f"{int((err > tol).sum())} elements outside the bound"


def _hopper_model(op_a, op_b, family):
    """A model of Hopper's FP8 tensor cores (an independent restatement of
    gemm_cases.tensor_core_slack's assumption): each MMA k-step aligns its
    addends (the running sum, 32 products) to the largest one's exponent
    and truncates each to 13 bits below it, sums them exactly, keeps the
    sum in 13 mantissa bits (truncated); the running sum is promoted into
    FP32 every 128-wide k-tile (per-tensor split, FP8 block) or 32-block
    (MXFP8)."""
    k, chunk = op_a.shape[1], {"mxfp8": 32}.get(family, 128)
    total = np.zeros((op_a.shape[0], op_b.shape[0]), np.float32)
    for c0 in range(0, k, chunk):
        acc = np.zeros(total.shape)
        for j in range(c0, min(c0 + chunk, k), 32):
            terms = np.concatenate([acc[..., None], op_a[:, None, j:j + 32] * op_b[None, :, j:j + 32]],
                                   axis=-1)
            _, e = np.frexp(np.abs(terms).max(axis=-1, keepdims=True))  # max in [2^(e-1), 2^e)
            unit = np.ldexp(1.0, e - 14)
            acc = (np.trunc(terms / unit) * unit).sum(axis=-1).astype(np.float32)
            acc = (acc.view(np.uint32) & np.uint32(0xFFFFFC00)).view(np.float32).astype(np.float64)
        total = total + acc.astype(np.float32)
    return total.astype(np.float64)


@pytest.mark.parametrize("family,layout", [("fp8_current", LAYOUTS[1]), ("fp8_block", LAYOUTS[0]),
                                           ("mxfp8", LAYOUTS[0])], ids=lambda v: v if isinstance(v, str) else v[0])
def test_gemm_tensor_core_bound(rng, family, layout, monkeypatch):
    # The bound the device checks use (gemm_cases.tensor_core_slack): a
    # result of the Hopper model above is within it (not always within the
    # FP32 bound: the reason it exists), and one that read a wrong k-tile
    # is outside it almost everywhere. Numpy only, no kernel.
    ops = {}
    slack = gm.tensor_core_slack
    monkeypatch.setattr(gm, "tensor_core_slack",
                        lambda a, b, *args: ops.setdefault("ab", (a, b)) and slack(a, b, *args))
    case = gemm_case(rng, family, layout, "f32", m=192, n=416, k=416, tensor_cores=True)
    a, b = ops["ab"]
    err = np.abs(_hopper_model(a, b, family) - case.want)
    assert (err <= case.tol).all(), f"{int((err > case.tol).sum())} elements outside the bound"
    a2, b2 = a.copy(), b.copy()
    a2[:, 256:384], b2[:, 256:384] = a[:, 128:256], b[:, 128:256]
    wrong = np.abs(a2 @ b2.T - case.want) > case.tol
    assert wrong.mean() > 0.8, f"a wrong k-tile is outside the bound in {wrong.mean():.0%} only"


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
@pytest.mark.parametrize("fast", [False, True], ids=["split", "fast"])
def test_gemm_per_tensor_accumulation(rng, layout, fast):
    # sm_90a per-tensor FP8 without fast_accumulate (the default): each
    # 128-wide k-tile summed on its own and added to FP32 totals (9 k-tiles,
    # the last partial; several tiles, bias); with it, summed in the tensor
    # core. Both within the FP32 bound here (the emulation sums in FP32;
    # on a GPU only the split kernel is FP32, see the device check's
    # integer-valued fast_accumulate cases); and integer-valued operands,
    # whose partial sums are exact either way.
    check_gemm(rng, "fp8_current", layout, "bf16", m=208, n=272, k=1040, bias=True,
               fast_accumulate=fast)
    check_gemm(rng, "fp8_delayed", layout, "f32", m=144, n=144, k=400, fast_accumulate=fast,
               integers=True)
    check_gemm(rng, "fp8_current", layout, "f32", m=64, n=96, k=400, fast_accumulate=fast,
               integers=True)


def test_gemm_wide_tiles(rng):
    # The 128x256 tile kernel (fast_accumulate; 4 stages; 6 k-tiles wrap the
    # ring), E5M2 x E4M3.
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=130, n=656, k=300, tile_n=256,
               fast_accumulate=True)
    check_gemm(rng, "fp8_current", LAYOUTS[0], "f16", m=64, n=96, k=144, tile_n=256,
               fast_accumulate=True)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_wide_tiles_split(rng, layout):
    # 128x256 tiles without fast_accumulate: each k-tile's wgmmas cover one
    # 128-column chunk (m64n128k32, B's descriptor 128 rows further for the
    # second) and are promoted into that chunk's registers of the 128 FP32
    # totals in turn. N = 656: a last tile whose second chunk is 16 columns
    # wide; N = 96: a second chunk wholly past N (zeros, not stored); 9
    # k-tiles wrap the 4-stage ring, the last partial; bias, accumulate;
    # integer-valued operands (exact partial sums).
    check_gemm(rng, "fp8_delayed", layout, "f32", m=144, n=656, k=1040, tile_n=256,
               bias=True, accumulate=True)
    check_gemm(rng, "fp8_current", layout, "bf16", m=64, n=96, k=144, tile_n=256)
    check_gemm(rng, "fp8_current", layout, "f32", m=144, n=400, k=400, tile_n=256,
               integers=True)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_tiles_192(rng, layout):
    # 128x192 tiles (qs.gemm_tile_n = 192): per-tensor FP8 promoted in two
    # 96-column chunks (m64n96k32, B's descriptor 96 rows further for the
    # second) or summed whole with fast_accumulate; N = 464: a last tile
    # whose second chunk is past N and first one partial, 9 k-tiles through
    # the 4-stage ring, bias, accumulate.
    check_gemm(rng, "fp8_delayed", layout, "f32", m=144, n=464, k=1040, tile_n=192,
               bias=True, accumulate=True)
    check_gemm(rng, "fp8_current", layout, "bf16", m=144, n=400, k=304, tile_n=192,
               fast_accumulate=True)
    if layout is not LAYOUTS[2]:
        # FP8 block with 128x128-block B (fprop, dgrad): a 96-column chunk
        # may straddle two B blocks (tile 0's second chunk [96, 192), tile
        # 1's first [192, 288)), each 8-column group taking its own block's
        # scale; the last tile's chunk reaches past N (the last block's
        # scale). Alone, persistent (3 blocks over 12 tiles) and in
        # multicast pairs.
        check_gemm(rng, "fp8_block", layout, "f32", m=144, n=464, k=656, tile_n=192,
                   bias=True)
        check_gemm(rng, "fp8_block", layout, "bf16", m=320, n=464, k=384, tile_n=192,
                   persistent=3, cluster=2 if layout is LAYOUTS[0] else None)


def test_gemm_tiles_192_multicast(rng):
    # Per-tensor 128x192 tiles in multicast pairs (each block loads 96 of
    # B's rows), persistent (3 -> 2 blocks over 3 pair rows x 3 tile
    # columns), split and fast; and the transposing copy of an MN-major B
    # (Blackwell layouts, 12 column blocks per tile).
    check_gemm(rng, "fp8_delayed", LAYOUTS[0], "f32", m=320, n=464, k=272, tile_n=192,
               cluster=2, persistent=3, bias=True)
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=320, n=400, k=144, tile_n=192,
               cluster=2, fast_accumulate=True)
    check_gemm(rng, "fp8_current", LAYOUTS[1], "bf16", m=130, n=400, k=384, tile_n=192,
               chip="sm_100a", kernel_chip="sm_90a")


@pytest.mark.parametrize("family", ["mxfp8", "fp8_current"])
def test_gemm_is_close_to_the_unquantized_product(rng, family):
    # Sanity of the whole chain: a quantized E4M3 fprop is within FP8 noise
    # of X W^T.
    m, n, k = 64, 64, 256
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    qx, qw = h.quantizer(family), h.quantizer(family)
    xt, wt = h.qtype((m, k), "f32", qx), h.qtype((n, k), "f32", qw)
    rt = h.ttype((m, n), "f32")
    module = f"""func.func @fprop(%x: {h.ttype((m, k), 'f32')}, %w: {h.ttype((n, k), 'f32')}) -> {rt} {{
  %qx = qs.quantize %x : {h.ttype((m, k), 'f32')} -> {xt}
  %qw = qs.quantize %w : {h.ttype((n, k), 'f32')} -> {wt}
  %y = qs.gemm %qx, %qw transpose_b : {xt}, {wt} -> {rt}
  return %y : {rt}
}}"""
    (y,) = h.run(module, "fprop", [x, w], 1)
    exact = x.astype(np.float64) @ w.astype(np.float64).T
    rel = np.linalg.norm(y - exact) / np.linalg.norm(exact)
    assert rel < 0.06, f"relative error {rel:.3g} of a {family} E4M3 GEMM"


@pytest.mark.parametrize("mx_scaling", ["convert", "promote"])
def test_gemm_mn_major_edges(rng, mx_scaling):
    # sm_90a MN-major operands, converted to K-major bf16 tiles (the
    # default) or copied transposed into shared memory for FP8 wgmma
    # ("promote"): MXFP8 wgrad with both operands column-wise (compact
    # scales), 5 blocks of 32 and partial tiles; MXFP8 dgrad with
    # GEMM-swizzled column-wise scales, 9 k-tiles through the ring (4
    # stages converted, 7 promoted), a partial last tile in N, bias.
    check_gemm(rng, "mxfp8", LAYOUTS[2], "f32", m=160, n=224, k=160, mx_scaling=mx_scaling)
    check_gemm(rng, "mxfp8", LAYOUTS[1], "bf16", m=224, n=1056, k=352, bias=True,
               mx_scaling=mx_scaling)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_mxfp8_wide_tiles(rng, layout):
    # MXFP8 in 128x128 tiles (qs.gemm_tile_n = 128; 64 by default): each
    # round's two 32-blocks of K are summed per 64-column chunk (m64n64k32,
    # B's descriptor 64 rows further on for the second chunk) and promoted
    # into that chunk's registers in turn, 2 rounds x 2 chunks per k-tile.
    # A second tile in N whose second chunk is 32 columns wide, a partial
    # last k-tile; dgrad / wgrad read MN-major data through the transposing
    # copy; w's scales GEMM-swizzled. (Promoted per 32-block: by default
    # the kernels convert to bf16.)
    check_gemm(rng, "mxfp8", layout, "f32", m=160, n=224, k=352, tile_n=128, bias=True,
               mx_scaling="promote")
    # Persistent (3 blocks over 6 tiles) and, for K-major operands,
    # multicast pairs (B's halves are the two chunks).
    check_gemm(rng, "mxfp8", layout, "bf16", m=320, n=384, k=256, tile_n=128,
               persistent=3, cluster=2 if layout is LAYOUTS[0] else None,
               mx_scaling="promote")


def test_gemm_sm90_kernels_on_blackwell_layouts(rng):
    # Per-tensor FP8 stored for sm_100a (no transpose buffers) run by the
    # sm_90a kernels (convert-qs-to-gpu chip=sm_90a; qs-run --chip): the
    # operands contracted over their first dimension are MN-major and
    # copied transposed. wgrad: both operands, 128-wide tiles; dgrad: B in
    # 256-wide tiles (16 column blocks per tile), a partial k-tile.
    check_gemm(rng, "fp8_current", LAYOUTS[2], "bf16", m=208, n=336, k=144, chip="sm_100a",
               kernel_chip="sm_90a")
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=130, n=400, k=384, tile_n=256,
               bias=True, chip="sm_100a", kernel_chip="sm_90a", fast_accumulate=True)
    # The same transposed B tile in two promoted 128-column chunks.
    check_gemm(rng, "fp8_current", LAYOUTS[1], "bf16", m=130, n=400, k=384, tile_n=256,
               chip="sm_100a", kernel_chip="sm_90a")


def test_gemm_multicast_pairs(rng):
    # qs.gemm_cluster = 2: blocks 2c and 2c + 1 compute vertically adjacent
    # tiles sharing B (each loads half of it by TMA multicast on the GPU):
    # an odd tile-row count (the last pair's second block is past M),
    # 128- and 256-wide tiles, several tile columns, 9 k-tiles, dgrad/wgrad
    # (the transpose buffers keep operands K-major on sm_90a layouts).
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=300, n=400, k=1040, bias=True,
               cluster=2)
    check_gemm(rng, "fp8_delayed", LAYOUTS[0], "f32", m=512, n=656, k=256, tile_n=256,
               cluster=2, fast_accumulate=True)
    check_gemm(rng, "fp8_current", LAYOUTS[1], "bf16", m=384, n=272, k=144, cluster=2)
    check_gemm(rng, "fp8_current", LAYOUTS[2], "f16", m=208, n=256, k=400, cluster=2)
    # Persistent pairs: qs.gemm_persistent = 5 runs 4 blocks (an even grid),
    # 2 pairs walking 12 tile pairs (5 tile rows: 3 pair rows, the last
    # half past M; 4 tile columns), 6 tiles per block; and 3 -> 2 blocks
    # over 256-wide tiles.
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=640, n=400, k=400, bias=True,
               cluster=2, persistent=5)
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=512, n=512, k=144, tile_n=256,
               cluster=2, persistent=3, fast_accumulate=True)
    # 256-wide tiles promoted in 128-column chunks: B's halves (128 rows
    # each) are the chunks, alone and persistent.
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=300, n=656, k=400, bias=True,
               tile_n=256, cluster=2)
    check_gemm(rng, "fp8_delayed", LAYOUTS[2], "f32", m=512, n=512, k=272, tile_n=256,
               cluster=2, persistent=3)


@pytest.mark.parametrize("family,layout", [
    ("fp8_block", LAYOUTS[0]), ("fp8_block", LAYOUTS[2]), ("mxfp8", LAYOUTS[0]),
    ("nvfp4", LAYOUTS[0]), ("nvfp4", LAYOUTS[1]), ("nvfp4_row_scaled", LAYOUTS[0])],
    ids=lambda v: v if isinstance(v, str) else v[0])
@pytest.mark.parametrize("persistent", [None, 3])
def test_gemm_multicast_pairs_block_scaled(rng, family, layout, persistent):
    # qs.gemm_cluster = 2 in the block-scaled kernels (each consumer frees
    # every stage inside its k-loop, in both blocks of the pair): 3 tile
    # rows (the last pair's second block past M), several tile columns
    # (MXFP8: 64 wide, halves of 32 rows; FP8 block and NVFP4: 128, halves
    # of 64 packed rows), 3-4 k-tiles; alone and persistent (3 -> 2 blocks).
    check_gemm(rng, family, layout, "bf16", m=320, n=320, k=464 if family == "fp8_block" else 512,
               bias=True, cluster=2, persistent=persistent)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_pingpong(rng, layout):
    # qs.gemm_schedule = "pingpong" (needs fast_accumulate): persistent blocks whose two consumers
    # take alternate 128x128 tiles whole (two m64 halves each): 5 blocks over
    # 15 tiles (3 each: consumer 0 two, consumer 1 one), partial edge tiles,
    # 4 k-tiles per tile (the 6-stage ring wraps across tiles); the default
    # grid (132 blocks) over 6 tiles; and with multicast pairs (5 -> 4
    # blocks). The emulation computes each tile as the GPU's consumer does
    # (same k order per element).
    check_gemm(rng, "fp8_current", layout, "bf16", m=320, n=560, k=400, bias=True,
               schedule="pingpong", persistent=5, fast_accumulate=True)
    check_gemm(rng, "fp8_delayed", layout, "f32", m=256, n=384, k=144, schedule="pingpong",
               fast_accumulate=True)
    if layout == LAYOUTS[0]:
        check_gemm(rng, "fp8_current", layout, "bf16", m=320, n=560, k=400,
                   schedule="pingpong", persistent=5, cluster=2, fast_accumulate=True)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_tma_store(rng, layout):
    # qs.gemm_epilogue = "tma": each consumer's 64 rows staged 128 bytes of
    # columns at a time (64 bf16 / f16 or 32 f32: 1 to 8 store chunks per tile,
    # odd counts included) in two swizzled buffers, then stored as a box
    # clipped at D's edges (M = 144, N = 208 / 464: partial boxes in
    # rows and columns; MXFP8 / NVFP4: N = 96 / 224), with bias and
    # accumulate; every family and tile
    # width, persistent tiles (buffers reused across tiles), multicast
    # pairs and ping-pong consumers (each storing both halves of its tile).
    check_gemm(rng, "fp8_delayed", layout, "bf16", m=144, n=208, k=272, bias=True,
               accumulate=True, epilogue="tma")
    check_gemm(rng, "fp8_current", layout, "f32", m=144, n=464, k=144, tile_n=192,
               fast_accumulate=True, persistent=3, epilogue="tma")
    check_gemm(rng, "fp8_block", layout, "f16", m=144, n=208, k=256, bias=True,
               epilogue="tma")
    check_gemm(rng, "mxfp8", layout, "bf16", m=160, n=96, k=128, accumulate=True,
               persistent=2, epilogue="tma")
    check_gemm(rng, "nvfp4", layout, "f32", m=160, n=224, k=128, epilogue="tma")
    if layout is LAYOUTS[0]:
        check_gemm(rng, "fp8_current", layout, "bf16", m=320, n=560, k=144, tile_n=256,
                   fast_accumulate=True, cluster=2, epilogue="tma")
        check_gemm(rng, "fp8_current", layout, "bf16", m=320, n=560, k=144, bias=True,
                   schedule="pingpong", persistent=5, fast_accumulate=True,
                   epilogue="tma")


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_tma_store_sm100(rng, layout):
    # sm_100a qs.gemm_epilogue = "tma": each warp's 32 rows staged 128
    # bytes of columns at a time (64 bf16 / f16 or 32 f32: 2 to 8 store
    # chunks per tile; from 3 on, the warp's two buffers at the start of
    # the stage ring are reused) and stored as 32-row boxes clipped at D's
    # edges (partial boxes in rows and columns), with bias and accumulate;
    # every family, 128- and 256-wide tiles.
    check_gemm(rng, "mxfp8", layout, "bf16", m=160, n=224, k=128, bias=True,
               accumulate=True, chip="sm_100a", epilogue="tma")
    check_gemm(rng, "nvfp4", layout, "f32", m=160, n=224, k=256, chip="sm_100a",
               epilogue="tma")
    check_gemm(rng, "fp8_block", layout, "f16", m=144, n=208, k=256, bias=True,
               chip="sm_100a", epilogue="tma")
    check_gemm(rng, "fp8_current", layout, "bf16", m=144, n=464, k=144, tile_n=256,
               accumulate=True, chip="sm_100a", epilogue="tma")


@pytest.mark.parametrize("chip", [None, "sm_100a"])
def test_gemm_epilogue_vector_widths(rng, chip):
    # The epilogue stores groups of adjacent columns with one vector store
    # when N is a multiple of the group (sm_90a: 2, sm_100a: 16 bytes):
    # N = 45 (odd: element stores), 50 (pairs only), 200 (sm_100a: 8 bf16
    # or 4 f32 per store), with partial tiles, bias and accumulate.
    for n, out in ((45, "bf16"), (50, "f32"), (200, "bf16"), (200, "f32")):
        check_gemm(rng, "fp8_current", LAYOUTS[0], out, m=70, n=n, k=128, bias=True,
                   accumulate=True, chip=chip)


@pytest.mark.parametrize("family,layout,tile_n", [
    ("fp8_current", LAYOUTS[0], 256), ("fp8_delayed", LAYOUTS[2], 128),
    ("fp8_delayed", LAYOUTS[1], "256-split"),
    ("fp8_block", LAYOUTS[1], None), ("mxfp8", LAYOUTS[0], None), ("mxfp8", LAYOUTS[1], None),
    ("nvfp4", LAYOUTS[0], None)], ids=lambda v: v[0] if isinstance(v, tuple) else str(v))
def test_gemm_persistent(rng, family, layout, tile_n):
    # qs.gemm_persistent = 3: 3 blocks loop over 6-12 output tiles (partial
    # edge tiles included), the stage ring continuing across a block's tiles
    # (3 k-tiles per tile: the ring wraps inside and across tiles); the
    # sm_90a kernels in every family (MXFP8 dgrad: converted to bf16, its
    # MN-major tiles transposed by the conversion).
    # "256-split": 256-wide tiles without fast_accumulate.
    fast = tile_n == 256
    tile_n = 256 if tile_n == "256-split" else tile_n
    shape = dict(m=320, n=400, k=384) if tile_n == 256 else dict(m=320, n=224, k=352)
    check_gemm(rng, family, layout, "bf16", tile_n=tile_n, persistent=3, bias=True,
               fast_accumulate=fast, **shape)


# sm_100a (tcgen05 MMA, qs.chip = "sm_100a"): under QS_KERNELS=gpu-emulated
# these run the emulation of the tcgen05 kernel (tensor memory,
# tcgen05.cp/mma/ld decoded from the kernel's descriptors).
SM100_FAMILIES = ["fp8_current", "fp8_delayed", "fp8_block", "mxfp8", "nvfp4", "nvfp4_row_scaled",
                  "nvfp4_4over6"]


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
@pytest.mark.parametrize("family", SM100_FAMILIES)
def test_gemm_sm100_layouts(rng, family, layout):
    check_gemm(rng, family, layout, "f32", chip="sm_100a")


def test_gemm_sm100_mxfp8_edges(rng):
    # Partial 128x128 tiles in M and N; K = 33 blocks of 32: 9 k-tiles
    # (more than the 5 stages and 4 scale-factor slots), the last with one
    # real block and three padding words.
    check_padded_edges(rng, "mxfp8", 224, 160, 1056, chip="sm_100a")


def test_gemm_sm100_nvfp4_edges(rng):
    # K = 18 blocks of 16: the second 256-wide k-tile has two real blocks,
    # and its last three scale-factor chunks lie past the scale buffer.
    check_padded_edges(rng, "nvfp4", 144, 208, 288, chip="sm_100a")


def test_gemm_sm100_fp8_block_partial_blocks(rng):
    # FP8 block as MXFP8: K = 464 ends inside the fourth 128-block (its
    # 32-blocks 12-14 are real, 15 is padding), M and N partial tiles.
    check_gemm(rng, "fp8_block", LAYOUTS[0], "f32", m=70, n=50, k=464, chip="sm_100a")
    check_gemm(rng, "fp8_block", LAYOUTS[2], "f32", m=208, n=50, k=70, chip="sm_100a")


def test_gemm_sm100_per_tensor(rng):
    # kind::f8f6f4 without scale factors: E5M2 x E5M2 (the instruction
    # descriptor's type fields), several tiles with partial edges, 9 k-tiles
    # through the 6-stage ring, alpha = sA sB, bias and accumulate.
    check_gemm(rng, "fp8_delayed", ("e5m2_TN", "dy", "dy", False, True), "f32", m=64, n=96,
               chip="sm_100a")
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=200, n=136, k=1040, bias=True,
               accumulate=True, chip="sm_100a")
    # 128x256 tiles (tcgen05 N = 256, 256 accumulator columns, 4 stages):
    # a partial second tile in N, 6 k-tiles wrap the ring.
    check_gemm(rng, "fp8_delayed", LAYOUTS[0], "f32", m=130, n=384, k=752, tile_n=256,
               chip="sm_100a")


def test_gemm_sm100_mn_major_edges(rng):
    # MN-major operands (tcgen05 major bits; data in the tensor's own
    # layout): MXFP8 wgrad with both operands column-wise (compact scales,
    # read byte by byte), a contraction of 5 blocks of 32 and partial tiles;
    # per-tensor dgrad with 3 k-tiles (the last partial) and bias.
    check_gemm(rng, "mxfp8", LAYOUTS[2], "f32", m=160, n=224, k=160, chip="sm_100a")
    check_gemm(rng, "fp8_current", LAYOUTS[1], "bf16", m=200, n=336, k=144, bias=True,
               chip="sm_100a")
    # 128x256 tiles: an MN-major B tile is 256 bytes per K-row, loaded as
    # two 128-byte swizzle atoms (the descriptor's leading byte offset);
    # dgrad with a partial second tile in N, wgrad with both operands
    # MN-major and a partial k-tile.
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=130, n=400, k=384, tile_n=256,
               chip="sm_100a")
    check_gemm(rng, "fp8_current", LAYOUTS[2], "bf16", m=144, n=272, k=208, tile_n=256,
               bias=True, chip="sm_100a")


def test_gemm_sm100_block_scaled_tile256(rng):
    # Block-scaled 128x256 tiles (qs.gemm_tile_n = 256): N = 256 MMAs whose
    # B scale factors are two chunks per k-step (B rows 0-127, 128-255) in
    # adjacent tensor-memory columns; 4 stages in a 224 KiB ring. MXFP8
    # with NaN padding scales, a partial second tile in N whose second row
    # group starts past N, 9 k-tiles through the ring; NVFP4 with a partial
    # k-tile; MXFP8 wgrad (MN-major operands, B's two 128-byte atoms,
    # compact column-wise scales); FP8 block dgrad as MXFP8; row-scaled
    # NVFP4 with bias through the TMA-store epilogue.
    check_padded_edges(rng, "mxfp8", 160, 352, 1056, chip="sm_100a", tile_n=256)
    check_padded_edges(rng, "nvfp4", 144, 336, 288, chip="sm_100a", tile_n=256)
    check_gemm(rng, "mxfp8", LAYOUTS[2], "bf16", m=160, n=288, k=160, tile_n=256,
               chip="sm_100a")
    check_gemm(rng, "fp8_block", LAYOUTS[1], "f32", m=130, n=304, k=464, tile_n=256,
               chip="sm_100a")
    check_gemm(rng, "nvfp4_row_scaled", LAYOUTS[0], "bf16", m=64, n=272, k=256, tile_n=256,
               bias=True, chip="sm_100a", epilogue="tma")


def test_gemm_sm100_persistent(rng):
    # Persistent sm_100a kernels (qs.gemm_persistent): each block's units
    # alternate between two tensor-memory accumulator buffers (unit u sums
    # into buffer u % 2 while warps 4-7 store unit u - 1), so a buffer or
    # phase mixed up shows as another tile's sums. 12 tiles over 3 blocks
    # (4 units each: both buffers twice) with bias; 128x256 tiles (both
    # buffers: all 512 columns) over 2 blocks; MXFP8 and NVFP4 (scale-factor
    # slots after the two buffers); MXFP8 split-K units; the TMA store.
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=320, n=400, k=384, persistent=3,
               bias=True, chip="sm_100a")
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=320, n=656, k=272, tile_n=256,
               persistent=2, chip="sm_100a")
    check_gemm(rng, "mxfp8", LAYOUTS[0], "f32", m=320, n=224, k=352, persistent=4,
               chip="sm_100a")
    check_gemm(rng, "nvfp4", LAYOUTS[0], "bf16", m=144, n=400, k=288, persistent=3,
               accumulate=True, chip="sm_100a")
    check_gemm(rng, "mxfp8", LAYOUTS[2], "bf16", m=160, n=224, k=256, persistent=3,
               split_k=2, chip="sm_100a")
    # The TMA-store epilogue in staging buffers after the ring (each
    # epilogue warp's two, reused across its units).
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=320, n=400, k=128, persistent=3,
               bias=True, chip="sm_100a", epilogue="tma")
    check_gemm(rng, "mxfp8", LAYOUTS[1], "f32", m=320, n=224, k=160, persistent=4,
               chip="sm_100a", epilogue="tma")
    # Block-scaled 128x256 tiles: one accumulator buffer (two would leave
    # no tensor memory for the scale factors), so every unit uses it; with
    # the TMA store (a 3-stage ring beside the staging).
    check_gemm(rng, "mxfp8", LAYOUTS[0], "bf16", m=320, n=672, k=352, tile_n=256,
               persistent=2, bias=True, chip="sm_100a")
    check_gemm(rng, "nvfp4", LAYOUTS[0], "f32", m=144, n=528, k=544, tile_n=256,
               persistent=3, chip="sm_100a", epilogue="tma")
    # The fused split-K reduction: the epilogue warps' named barrier around
    # each unit's arrival (per-tensor 2 splits x 12 tiles over 5 blocks;
    # MXFP8 wgrad with the TMA store).
    check_gemm(rng, "fp8_current", LAYOUTS[0], "bf16", m=320, n=400, k=512, persistent=5,
               bias=True, accumulate=True, split_k=2, split_k_reduce="fused",
               chip="sm_100a")
    check_gemm(rng, "mxfp8", LAYOUTS[2], "f16", m=160, n=224, k=512, persistent=3,
               split_k=2, split_k_reduce="fused", chip="sm_100a", epilogue="tma")


@pytest.mark.parametrize("family", ["mxfp8", "nvfp4"])
def test_gemm_sm100_epilogue(rng, family):
    # bf16/f16 output (NVFP4: bf16 only, as TE), bias and accumulate
    # through the tensor-memory epilogue.
    check_gemm(rng, family, LAYOUTS[0], "bf16", bias=True, accumulate=True, chip="sm_100a")
    check_gemm(rng, family, LAYOUTS[0] if family == "mxfp8" else LAYOUTS[1],
               "f16" if family == "mxfp8" else "bf16", bias=True, chip="sm_100a")


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_gemm_split_k(rng, family, layout):
    # qs.gemm_split_k: each tile's k-tiles in S equal ranges, one block each,
    # FP32 partial planes summed in order by the reduction kernel, which adds
    # bias and C and converts. M, N, K = 288, 320, 352: 3 k-tiles in every
    # layout's contraction (the last partial: block scales past K), split 3
    # (one k-tile per unit); 256, 224, 256 split 2; 96, 160, 512 split 4
    # (fprop); partial tiles in M and N, every family and layout.
    check_gemm(rng, family, layout, "bf16", m=288, n=320, k=352, bias=True,
               accumulate=True, split_k=3)
    check_gemm(rng, family, layout, "f32", m=256, n=224, k=256, split_k=2)
    if layout is LAYOUTS[0]:
        check_gemm(rng, family, layout, "bf16", m=96, n=160, k=512, bias=True, split_k=4)


def test_gemm_split_k_schedules(rng):
    # Split-K with the other sm_90a kernel options: persistent blocks walk
    # units as they walk tiles (5 blocks over 2 splits x 12 tiles), multicast
    # pairs (a pair shares split and tile column), ping-pong consumers,
    # fast accumulation in 128x256 and 128x192 tiles, 256-wide promoted
    # tiles; MXFP8 128x128, FP8 block in multicast pairs.
    L0, L1, L2 = LAYOUTS
    check_gemm(rng, "fp8_current", L0, "bf16", m=320, n=560, k=512, bias=True,
               persistent=5, split_k=2)
    check_gemm(rng, "fp8_delayed", L1, "bf16", m=320, n=256, k=512, cluster=2,
               split_k=2)
    check_gemm(rng, "fp8_current", L0, "bf16", m=320, n=560, k=512, cluster=2,
               persistent=5, accumulate=True, split_k=4)
    check_gemm(rng, "fp8_current", L0, "bf16", m=320, n=560, k=512, schedule="pingpong",
               persistent=5, fast_accumulate=True, split_k=2)
    check_gemm(rng, "fp8_current", L2, "f32", m=144, n=400, k=512, tile_n=256,
               fast_accumulate=True, split_k=2)
    check_gemm(rng, "fp8_current", L0, "bf16", m=144, n=400, k=384, tile_n=192,
               fast_accumulate=True, split_k=3)
    check_gemm(rng, "fp8_delayed", L0, "bf16", m=144, n=400, k=512, tile_n=256,
               bias=True, split_k=2)
    check_gemm(rng, "mxfp8", L0, "bf16", m=160, n=224, k=512, tile_n=128,
               persistent=3, split_k=2)
    check_gemm(rng, "fp8_block", L0, "bf16", m=160, n=224, k=512, cluster=2,
               split_k=4)
    # N = 45, 50: the reduction by single elements (N not a multiple of 4),
    # with bias and C.
    check_gemm(rng, "fp8_current", L0, "bf16", m=70, n=45, k=256, bias=True,
               accumulate=True, split_k=2)
    check_gemm(rng, "fp8_current", L0, "f32", m=70, n=50, k=256, bias=True,
               accumulate=True, split_k=2, chip="sm_100a")


def lowered(module, options=""):
    """`module` through qs-opt --qs-storage-pipeline --convert-qs-to-gpu
    (with `options`, e.g. "multiprocessors=4")."""
    qs_opt = os.path.join(os.path.dirname(h.QS_RUN), "qs-opt")
    convert = "--convert-qs-to-gpu" + (f"={options}" if options else "")
    proc = subprocess.run([qs_opt, "-", "--qs-storage-pipeline", convert],
                          input=module, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_gemm_split_k_auto(rng):
    # qs.gemm_split_k = "auto": the plan's cost model picks the split. One
    # output tile of 32 k-tiles (80 x 96 x 4096): 16 units of 2 k-tiles
    # each (a [16, 80, 96] workspace and the reduction kernel), with bias and
    # C; sm_100a NVFP4 with 32 k-tiles of 256 (K = 8192) likewise. A GEMM
    # of 4 k-tiles over 6 tiles does not split (the second launch costs
    # more than it saves).
    L0 = LAYOUTS[0]
    for family, chip, k in (("fp8_current", None, 4096), ("nvfp4", "sm_100a", 8192)):
        case = gemm_case(rng, family, L0, "bf16", m=80, n=96, k=k, split_k="auto",
                         chip=chip)
        ir = lowered(case.module)
        assert f"memref<{16 * 80 * 96}xf32>" in ir and "split_k_reduce" in ir, ir[-3000:]
        check_gemm(rng, family, L0, "bf16", m=80, n=96, k=k, bias=True,
                   accumulate=True, split_k="auto", chip=chip)
    case = gemm_case(rng, "fp8_current", L0, "bf16", m=200, n=300, k=512, split_k="auto")
    assert "split_k_reduce" not in lowered(case.module)
    check_gemm(rng, "fp8_current", L0, "bf16", m=200, n=300, k=512, split_k="auto")


def test_gemm_split_k_default(rng):
    # Without qs.gemm_split_k, an sm_90a GEMM whose tiles leave
    # multiprocessors idle splits where the cost model gains more than 10%
    # (GPU.md, "Split-K by default"): one tile of 32 k-tiles in 16 splits,
    # FP8 block 128 x 256 x 4096 likewise, with bias and C; within the bound.
    # With split_k=1 one block per tile.
    L0 = LAYOUTS[0]
    for family, m, n in (("fp8_current", 80, 96), ("fp8_block", 128, 256)):
        case = gemm_case(rng, family, L0, "bf16", m=m, n=n, k=4096)
        ir = lowered(case.module)
        assert "split_k_reduce" in ir, ir[-3000:]
        check_gemm(rng, family, L0, "bf16", m=m, n=n, k=4096, bias=True, accumulate=True)
    case = gemm_case(rng, "fp8_current", L0, "bf16", m=80, n=96, k=4096, split_k=1)
    assert "split_k_reduce" not in lowered(case.module)


def test_gemm_split_k_auto_stream(rng):
    # "auto" with the fused reduction picks stream-K where it beats every
    # fused split: 5 tiles of 48 k-tiles for a GPU of 4 multiprocessors
    # (qs-run --multiprocessors=4; GemmSplitK.StreamKAgainstFusedSplit):
    # 4 persistent blocks of 60 k-tiles, the counters, a workspace of 2
    # planes of the 5 tiles, no reduction kernel. Within the bound. (The
    # reference lowering has no kernels, and on a GPU qs-run plans for the
    # device's multiprocessors: the numerics are checked whatever runs.)
    case = gemm_case(rng, "fp8_current", LAYOUTS[0], "bf16", m=128, n=640, k=6144, bias=True,
                     accumulate=True, split_k="auto", split_k_reduce="fused")
    ir = lowered(case.module, "multiprocessors=4")
    assert "@qs_gemm_split_k_counters" in ir and "qs_gemm_split_k_reduce" not in ir, ir[-3000:]
    assert f"memref<{2 * 5 * 128 * 128}xf32>" in ir and "qs_launch_grid = 4 : i64" in ir
    extra = ("--multiprocessors=4",) if h.KERNELS == "gpu-emulated" else ()
    (got,) = h.run(case.module, "gemm", case.inputs, 1, extra)
    bad, message = outside_bound(case, got)
    assert not bad, message


def test_gemm_default_epilogue(rng):
    # Without qs.gemm_epilogue, a per-tensor sm_90a GEMM with a block per
    # tile whose tiles fill the GPU gets 128x256 tiles (promoted in two
    # chunks without fast_accumulate) and the TMA-store epilogue
    # (defaultsToTmaStore; H200 measurements in docs/performance.md): here
    # 3 x 3 tiles for a GPU of 4 multiprocessors (qs-run
    # --multiprocessors=4), partial boxes in rows and columns, with bias;
    # FP8 block 1x128 x 128x128 likewise in 3 x 5 tiles of 128x128.
    # "direct" keeps the direct epilogue. Within the bound.
    extra = ("--multiprocessors=4",) if h.KERNELS == "gpu-emulated" else ()
    for family, fast, grid in (("fp8_current", False, 9), ("fp8_current", True, 9),
                               ("fp8_block", False, 15)):
        case = gemm_case(rng, family, LAYOUTS[0], "bf16", m=320, n=560, k=400,
                         bias=True, fast_accumulate=fast)
        ir = lowered(case.module, "multiprocessors=4")
        assert "cp.async.bulk.tensor.2d.global.shared::cta" in ir, ir[-3000:]
        assert f"qs_launch_grid = {grid} : i64" in ir, ir[-3000:]
        (got,) = h.run(case.module, "gemm", case.inputs, 1, extra)
        bad, message = outside_bound(case, got)
        assert not bad, message
    case = gemm_case(rng, "fp8_current", LAYOUTS[0], "bf16", m=320, n=560, k=400,
                     epilogue="direct")
    assert "cp.async.bulk.tensor.2d.global.shared::cta" not in lowered(case.module,
                                                                       "multiprocessors=4")


FUSED_SPLIT_K = [
    # (family, layout index, out, kwargs): every kernel body and schedule
    # the fused reduction's arrival is emitted in.
    ("fp8_current", 0, "bf16", dict(m=288, n=320, k=352, bias=True, accumulate=True,
                                     split_k=3)),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=512, bias=True, persistent=5,
                                     split_k=2)),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=512, cluster=2, persistent=5,
                                     accumulate=True, split_k=4)),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=512, schedule="pingpong",
                                     persistent=5, fast_accumulate=True, bias=True,
                                     split_k=2)),
    ("fp8_block", 1, "f32", dict(m=288, n=320, k=352, split_k=3)),
    ("mxfp8", 2, "bf16", dict(m=256, n=224, k=256, bias=True, split_k=2)),
    ("nvfp4", 0, "bf16", dict(m=96, n=160, k=512, bias=True, split_k=4)),
    ("fp8_current", 0, "bf16", dict(m=70, n=45, k=256, bias=True, accumulate=True,
                                     split_k=2)),
    ("mxfp8", 0, "bf16", dict(m=160, n=224, k=512, bias=True, accumulate=True,
                              split_k=2, chip="sm_100a")),
    ("nvfp4", 0, "bf16", dict(m=160, n=224, k=1024, bias=True, split_k=2,
                              chip="sm_100a")),
    ("fp8_current", 0, "f32", dict(m=70, n=50, k=256, bias=True, accumulate=True,
                                   split_k=2, chip="sm_100a")),
    # One tile in 16 units (the device bundle's contention check, gemm70).
    ("fp8_current", 0, "bf16", dict(m=32, n=64, k=2048, bias=True, split_k=16)),
]


def device_kwargs(kwargs):
    """On a GPU (QS_KERNELS=cuda) the tensor cores' precision, and integer
    operands where fast_accumulate sums in it (check_gemm's reasons)."""
    if h.KERNELS != "cuda":
        return kwargs
    return {**kwargs, "tensor_cores": True,
            "integers": kwargs.get("fast_accumulate", False)}


def check_variant_bytes(case, old, new):
    """Runs `case` (within the bound of the reference) and its module with
    `old` replaced by `new`: the same bytes. Returns the variant's text."""
    (got,) = h.run(case.module, "gemm", case.inputs, 1)
    bad, message = outside_bound(case, got)
    assert not bad, message
    variant = case.module.replace(old, new)
    assert variant != case.module
    (want,) = h.run(variant, "gemm", case.inputs, 1)
    assert got.tobytes() == want.tobytes()
    return variant


@pytest.mark.parametrize("family,layout,out,kwargs", FUSED_SPLIT_K,
                         ids=[f"{f}-{l}-{kw.get('chip', 'sm_90a')}-sk{kw['split_k']}"
                              for f, l, _, kw in FUSED_SPLIT_K])
def test_gemm_split_k_fused(rng, family, layout, out, kwargs):
    # qs.gemm_split_k_reduce = "fused": each tile's last unit sums the
    # planes in the GEMM kernel. Its sums are the reduction kernel's, in
    # the same order: the same bytes as "kernel" on the same inputs, and
    # within the bound of the reference. The lowered IR has no reduction
    # kernel, and one counter per output tile.
    case = gemm_case(rng, family, LAYOUTS[layout], out, split_k_reduce="fused",
                     **device_kwargs(kwargs))
    ir = lowered(case.module)
    assert "qs_gemm_split_k_reduce" not in ir and "@qs_gemm_split_k_counters" in ir, ir[-3000:]
    separate = check_variant_bytes(case, 'qs.gemm_split_k_reduce = "fused"',
                                   'qs.gemm_split_k_reduce = "kernel"')
    assert "split_k_reduce_launch" in lowered(separate)


STREAM_K = [
    # (family, layout index, out, kwargs): persistent grids small enough to
    # emulate. 15 tiles of 4 k-tiles over 4 blocks: 7 stream-K tiles (7
    # k-tiles per block), 2 data-parallel rounds; over 7 blocks: 8 and 1;
    # K with a partial last k-tile; fewer tiles than blocks; N = 45.
    ("fp8_current", 0, "f32", dict(m=320, n=560, k=512, bias=True, accumulate=True,
                                   persistent=4)),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=1536, fast_accumulate=True,
                                    tile_n=256, bias=True, persistent=4)),
    ("fp8_current", 1, "bf16", dict(m=320, n=576, k=352, tile_n=192, persistent=7)),
    ("fp8_block", 0, "bf16", dict(m=288, n=320, k=640, bias=True, persistent=7)),
    ("fp8_block", 2, "f32", dict(m=256, n=384, k=384, persistent=5)),
    ("mxfp8", 1, "bf16", dict(m=256, n=224, k=512, bias=True, accumulate=True,
                              persistent=5)),
    ("nvfp4", 0, "f32", dict(m=96, n=160, k=1024, bias=True, persistent=3)),
    ("fp8_current", 0, "bf16", dict(m=70, n=45, k=1024, bias=True, accumulate=True,
                                    persistent=6)),
    # sm_100a (persistent tcgen05 blocks: segments alternate between the two
    # accumulator buffers, the epilogue warps store planes and the last
    # contributor's sum): the same grids, 128x256 per-tensor tiles (both
    # buffers fill tensor memory), FP8 block (as MXFP8), NVFP4 with 256-wide
    # k-tiles (2 tiles of 4 over 3 blocks: every tile shared).
    ("fp8_current", 0, "f32", dict(m=320, n=560, k=512, bias=True, accumulate=True,
                                   persistent=4, chip="sm_100a")),
    ("fp8_delayed", 1, "bf16", dict(m=320, n=560, k=1536, tile_n=256, bias=True,
                                    persistent=4, chip="sm_100a")),
    ("fp8_block", 0, "bf16", dict(m=288, n=320, k=640, bias=True, persistent=7,
                                  chip="sm_100a")),
    ("mxfp8", 1, "bf16", dict(m=256, n=224, k=512, bias=True, accumulate=True,
                              persistent=5, chip="sm_100a")),
    ("mxfp8", 2, "f32", dict(m=256, n=384, k=384, persistent=5, chip="sm_100a")),
    ("nvfp4", 0, "f32", dict(m=96, n=160, k=1024, bias=True, persistent=3,
                             chip="sm_100a")),
    ("mxfp8", 0, "bf16", dict(m=320, n=672, k=512, tile_n=256, bias=True, persistent=4,
                              chip="sm_100a")),
]


@pytest.mark.parametrize("family,layout,out,kwargs", STREAM_K,
                         ids=[f"{f}-{l}-p{kw['persistent']}-{kw.get('chip', 'sm_90a')}"
                              for f, l, _, kw in STREAM_K])
def test_gemm_stream_k(rng, family, layout, out, kwargs):
    # qs.gemm_split_k = "stream": the persistent blocks share the last
    # tiles' k-tiles; segments sharing a tile store FP32 planes and the
    # tile's last block sums them in k order. Within the bound of the
    # reference (dropping a plane from the sum fails every case); the IR
    # has the compact workspace (planes x stream-K tiles x 128 x tileN) and
    # the counters, no reduction kernel.
    case = gemm_case(rng, family, LAYOUTS[layout], out, split_k="stream",
                     **device_kwargs(kwargs))
    ir = lowered(case.module)
    assert "qs_gemm_split_k_reduce" not in ir and "@qs_gemm_split_k_counters" in ir, ir[-3000:]
    (got,) = h.run(case.module, "gemm", case.inputs, 1)
    bad, message = outside_bound(case, got)
    assert not bad, message


TMA_STORE_SPLIT = [
    # (family, layout index, out, kwargs): fused split-K on sm_90a
    # (cooperative and ping-pong) and sm_100a, and stream-K, each with the
    # TMA-store epilogue.
    ("fp8_current", 0, "bf16", dict(m=144, n=208, k=1024, bias=True, accumulate=True,
                                    split_k=4, split_k_reduce="fused")),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=512, bias=True, split_k=2,
                                    split_k_reduce="fused", fast_accumulate=True,
                                    schedule="pingpong", persistent=5)),
    ("mxfp8", 2, "f16", dict(m=160, n=224, k=512, bias=True, split_k=2,
                             split_k_reduce="fused", chip="sm_100a")),
    ("fp8_current", 0, "f32", dict(m=320, n=560, k=512, bias=True, accumulate=True,
                                   split_k="stream", persistent=4)),
    ("nvfp4", 0, "bf16", dict(m=320, n=560, k=512, split_k="stream", persistent=7)),
    ("fp8_current", 0, "bf16", dict(m=320, n=560, k=512, bias=True, accumulate=True,
                                    split_k="stream", persistent=4, chip="sm_100a")),
    ("mxfp8", 1, "f32", dict(m=256, n=224, k=512, split_k="stream", persistent=5,
                             chip="sm_100a")),
]


@pytest.mark.parametrize("family,layout,out,kwargs", TMA_STORE_SPLIT,
                         ids=[f"{f}-{l}-{kw.get('chip', 'sm_90a')}-{kw['split_k']}"
                              for f, l, _, kw in TMA_STORE_SPLIT])
def test_gemm_tma_store_split(rng, family, layout, out, kwargs):
    # qs.gemm_epilogue = "tma" with fused split-K or stream-K: the planes
    # go to the workspace with the direct stores, D (whole tiles and each
    # shared tile's last unit's sums) through the TMA staging. The same
    # bytes as with the direct epilogue, within the bound of the reference.
    case = gemm_case(rng, family, LAYOUTS[layout], out, epilogue="tma",
                     **device_kwargs(kwargs))
    assert "@qs_gemm_split_k_counters" in lowered(case.module)
    check_variant_bytes(case, 'qs.gemm_epilogue = "tma"', 'qs.gemm_epilogue = "direct"')


def test_gemm_stream_k_divided_grid(rng):
    # A grid that divides the tiles (12 tiles over 4 blocks) has no
    # stream-K tiles: the kernel is the plain persistent one, byte for byte
    # the same results, and no counters or workspace.
    kwargs = dict(m=384, n=512, k=512, bias=True, persistent=4)
    case = gemm_case(rng, "fp8_current", LAYOUTS[0], "bf16", split_k="stream", **kwargs)
    assert "@qs_gemm_split_k_counters" not in lowered(case.module)
    (got,) = h.run(case.module, "gemm", case.inputs, 1)
    plain = case.module.replace(', qs.gemm_split_k = "stream"', "")
    assert plain != case.module
    (want,) = h.run(plain, "gemm", case.inputs, 1)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("kwargs", [
    dict(m=200, n=300, k=768, bias=True, split_k=3, split_k_reduce="fused"),
    dict(m=320, n=560, k=512, bias=True, split_k="stream", persistent=4)],
    ids=["split_k3_fused", "stream"])
def test_gemm_split_k_fused_twice(rng, kwargs):
    # The counters outlive a launch: the last unit of each tile zeroes its
    # counter, so a second launch of the same kernel (one GEMM function
    # called twice, on other operands) finds them at zero and each tile's
    # last unit sums the second launch's planes: both results are within
    # their own bounds (a counter not zeroed would never again reach S - 1:
    # no unit would finish the second launch's tiles). Stream-K's shared
    # tiles use the same counters.
    cases = [gemm_case(rng, "fp8_current", LAYOUTS[0], "bf16", **kwargs)
             for _ in range(2)]
    module = cases[0].module
    signature = next(l for l in module.splitlines() if l.startswith("func.func @gemm("))
    params = ["%" + p.lstrip("%") for p in
              signature[len("func.func @gemm("):signature.index(") ->")].split(", %")]
    result = signature[signature.index(") -> ") + 5:].rstrip(" {")
    names = [p.split(":")[0] for p in params]
    types = [p.split(": ", 1)[1] for p in params]
    second = [p.replace(":", "_2:", 1) for p in params]
    call = "call @once({}) : ({}) -> " + result
    wrapper = f"""func.func @gemm({', '.join(params + second)}) -> ({result}, {result}) {{
  %first = {call.format(', '.join(names), ', '.join(types))}
  %second = {call.format(', '.join(n + '_2' for n in names), ', '.join(types))}
  return %first, %second : {result}, {result}
}}
"""
    module = module.replace("func.func @gemm(", wrapper + "func.func private @once(", 1)
    got = h.run(module, "gemm", cases[0].inputs + cases[1].inputs, 2)
    for case, result_ in zip(cases, got):
        bad, message = outside_bound(case, result_)
        assert not bad, message


@pytest.mark.parametrize("family", SM100_FAMILIES)
def test_gemm_sm100_split_k(rng, family):
    # The tcgen05 kernel's k-loop over its unit's range (stages and the
    # first MMA's accumulate predicate count the unit's k-tiles; TMA and
    # scale factors the whole K's): K = 512 (NVFP4: two 256-wide k-tiles)
    # split 2, partial tiles, bias and accumulate; wgrad over M = 384,
    # split 3.
    check_gemm(rng, family, LAYOUTS[0], "bf16", m=160, n=224, k=512, bias=True,
               accumulate=True, split_k=2, chip="sm_100a")
    if not family.startswith("nvfp4"):
        check_gemm(rng, family, LAYOUTS[2], "f32", m=384, n=96, k=160, split_k=3,
                   chip="sm_100a")


@pytest.mark.parametrize("layout", [0, 1], ids=["fprop_TN", "dgrad_NN"])
def test_gemm_scale_loads(rng, layout):
    # FP8 block with 128x128-block B loads its scales a k-tile ahead by
    # default (qs.gemm_scale_loads = "ahead": each k-tile's carried scales,
    # k-tile 0's before the loop); "in_tile" loads them in the k-tile that
    # uses them. Same products, same order: the two agree bit for bit, and
    # both meet the bound (6 k-tiles, the last partial; 3 persistent blocks
    # over 6 tiles, so a block's carried scales restart with each tile).
    case = gemm_case(rng, "fp8_block", LAYOUTS[layout], "bf16", m=320, n=224, k=656,
                     bias=True, persistent=3, scale_loads="ahead")
    (ahead,) = h.run(case.module, "gemm", case.inputs, 1)
    bad, message = outside_bound(case, ahead)
    assert not bad, message
    module = case.module.replace('qs.gemm_scale_loads = "ahead"', 'qs.gemm_scale_loads = "in_tile"')
    assert module != case.module
    (in_tile,) = h.run(module, "gemm", case.inputs, 1)
    np.testing.assert_array_equal(ahead.view(np.uint16), in_tile.view(np.uint16))
