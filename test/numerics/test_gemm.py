"""qs.gemm through qs-run against a float64 reference of the same operands
(te-formats.md §6): each operand in the representation its contraction
needs, block scales, per-tensor factors, bias and accumulate. FP32
accumulation order differs from the float64 reference, so results are
compared within the documented bound (docs/Numerics.md):

    |D - R| <= 2^-22 * K * (|A| |B|^T)[m, n] + ulp_out * |R| + tiny_out

with ulp_out = 2^-8 (bf16), 2^-11 (f16), 2^-23 (f32)."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref

ULP = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f32": 2.0 ** -23}
TINY = {"bf16": 1e-38, "f16": 6e-8, "f32": 1e-44}

# Per family: quantizers of the three Linear tensors (x, w, dy).
FAMILIES = {
    "fp8_current": (dict(), dict(), dict(fp8_dtype="f8E5M2")),
    "fp8_delayed": (dict(), dict(), dict(fp8_dtype="f8E5M2")),
    "mxfp8": (dict(), dict(optimize_for_gemm=True), dict()),
    "fp8_block": (dict(block_scaling_dim=1), dict(block_scaling_dim=2), dict(block_scaling_dim=1)),
    "nvfp4": (dict(with_rht=True), dict(with_2d_quantization=True), dict(with_rht=True)),
    "nvfp4_row_scaled": (dict(row_scaled_nvfp4=True), dict(row_scaled_nvfp4=True),
                         dict(row_scaled_nvfp4=True)),
}

# (name, lhs tensor, rhs tensor, transpose_a, transpose_b): TE's TN, NN, NT.
LAYOUTS = [("fprop_TN", "x", "w", False, True),
           ("dgrad_NN", "dy", "w", False, False),
           ("wgrad_NT", "dy", "x", True, False)]


def gemm_input(rng, shape):
    """Normal values scaled per row and per column, so the row-wise and
    column-wise representations of one tensor really differ."""
    rows = np.exp2(rng.integers(-3, 3, size=(shape[0], 1)))
    cols = np.exp2(rng.integers(-3, 3, size=(1, shape[1])))
    x = (rng.standard_normal(shape) * rows * cols).astype(np.float32)
    return h.to_npy(x, "bf16").view(h.NUMPY_IN["bf16"][0]).astype(np.float32)


def quantized(rng, family, params, shape):
    fam = "nvfp4" if family.startswith("nvfp4") else family
    q = h.quantizer(fam, **params)
    x = gemm_input(rng, shape)
    with np.errstate(all="ignore"):
        amax = float(ref.amax(x))
        bufs, _ = ref.quantize(x, q, "bf16", scale=np.float32(448.0 / max(amax, 1e-30)),
                               amax_state=np.float32(0))
    return q, bufs


# GEMM kernels of convert-qs-to-gpu (sm_90a wgmma + TMA): per-tensor FP8 only.
GPU_GEMM_FAMILIES = ("fp8_current", "fp8_delayed")


def require_gemm_kernel(family):
    """Under QS_KERNELS=gpu-emulated or cuda, skips (with the reason) a family
    whose GEMM has no GPU kernel: the emulation would only rerun the
    reference lowering, and qs-nvptx-pipeline rejects it."""
    if h.KERNELS != "reference" and family not in GPU_GEMM_FAMILIES:
        pytest.skip(f"QS_KERNELS={h.KERNELS}: no GPU GEMM kernel for {family} yet")


def check_gemm(rng, family, layout, out, m=64, n=96, k=128, bias=False, accumulate=False,
               tile_n=None):
    require_gemm_kernel(family)
    name, lhs, rhs, ta, tb = layout
    shapes = {"x": (m, k), "w": (n, k), "dy": (m, n)}
    params = dict(zip(("x", "w", "dy"), FAMILIES[family]))
    qa, a = quantized(rng, family, params[lhs], shapes[lhs])
    qb, b = quantized(rng, family, params[rhs], shapes[rhs])
    op_a = ref.gemm_operand(a, shapes[lhs], qa, contracts_last=not ta)
    op_b = ref.gemm_operand(b, shapes[rhs], qb, contracts_last=tb)
    rows, cols = op_a.shape[0], op_b.shape[0]
    want = op_a @ op_b.T
    bound = 2.0 ** -22 * op_a.shape[1] * (np.abs(op_a) @ np.abs(op_b).T)
    inputs = h.npy_inputs(a) + h.npy_inputs(b)
    at, bt = h.qtype(shapes[lhs], "bf16", qa), h.qtype(shapes[rhs], "bf16", qb)
    rt = h.ttype((rows, cols), out)
    args = [f"%a: {at}", f"%b: {bt}"]
    extra = ""
    if bias:
        bias_v = h.random_input(rng, (cols,), "bf16", specials=False, exponents=(-3, 2))
        inputs.append(h.to_npy(bias_v, "bf16"))
        args.append(f"%bias: {h.ttype((cols,), 'bf16')}")
        extra += f" bias(%bias : {h.ttype((cols,), 'bf16')})"
        want = want + bias_v.astype(np.float64)[None, :]
    if accumulate:
        acc = h.random_input(rng, (rows, cols), out, specials=False, exponents=(-3, 2))
        inputs.append(h.to_npy(acc, out))
        args.append(f"%acc: {rt}")
        extra += f" accumulate(%acc : {rt})"
        want = want + acc.astype(np.float64)
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    module = f"""func.func @gemm({', '.join(args)}) -> {rt} {{
  %d = qs.gemm %a, %b{flags}{extra} : {at}, {bt} -> {rt}
  return %d : {rt}
}}"""
    if tile_n:
        module = f"module attributes {{qs.gemm_tile_n = {tile_n} : i64}} {{\n{module}\n}}"
    (got,) = h.run(module, "gemm", inputs, 1)
    got = h.from_npy(got, out).astype(np.float64)
    tol = bound + ULP[out] * np.abs(want) + TINY[out]
    err = np.abs(got - want)
    bad = err > tol
    assert not bad.any(), (f"{family} {name} -> {out}: {bad.sum()} of {bad.size} outside the "
                           f"bound; worst rel err {np.max(err / (np.abs(want) + 1e-30)):.3g}")
    return err, want


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
    # Block FP8 with K not a multiple of 128 (partial last block).
    check_gemm(rng, "fp8_block", LAYOUTS[0], "f32", m=70, n=50, k=200)
    check_gemm(rng, "fp8_block", LAYOUTS[2], "f32", m=200, n=50, k=70)


@pytest.mark.parametrize("layout", LAYOUTS, ids=[l[0] for l in LAYOUTS])
def test_gemm_many_tiles(rng, layout):
    # Per-tensor FP8 over several 128x128 output tiles with partial edges,
    # contractions of 2-9 k-tiles (fprop: 9, more than the 6 stages of the
    # shared-memory ring), none a multiple of 128, bias and accumulate.
    check_gemm(rng, "fp8_current", layout, "bf16", m=304, n=208, k=1040, bias=True,
               accumulate=True)


def test_gemm_wide_tiles(rng):
    # The 128x256 tile kernel (4 stages; 6 k-tiles wrap the ring), E5M2 x E4M3.
    check_gemm(rng, "fp8_delayed", LAYOUTS[1], "f32", m=130, n=656, k=300, tile_n=256)
    check_gemm(rng, "fp8_current", LAYOUTS[0], "f16", m=64, n=96, k=144, tile_n=256)


def test_gemm_is_close_to_the_unquantized_product(rng):
    # Sanity of the whole chain: an MXFP8 fprop is within FP8 noise of X W^T.
    m, n, k = 64, 64, 256
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    qx, qw = h.quantizer("mxfp8"), h.quantizer("mxfp8")
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
    assert rel < 0.06, f"relative error {rel:.3g} of an MXFP8 E4M3 GEMM"
