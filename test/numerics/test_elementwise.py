"""Element-wise ops between qs ops (activations, bias and residual adds,
casts) run by qs-run, as loops on the CPU (reference), as the emulated
kernels of qs-elementwise-to-gpu (gpu-emulated) or on a GPU (cuda).

Exact arithmetic (adds, multiplies, max, casts, selects) is checked bit for
bit against numpy (ml_dtypes rounds bf16 and f16 results as one IEEE
operation in f32 and a rounding to the narrow type, which equals the
direct rounding: f32 has more than twice the narrow types' precision plus
two bits). Transcendental functions (qs-approximate-math's polynomials)
are checked against float64 numpy within a few ulp, and bit for bit
between two paths: the reference and the emulated kernels, or the GPU's
kernels (QS_KERNELS=cuda) and the reference."""

import math
import os

import ml_dtypes
import numpy as np
import pytest

import elementwise_cases as ew
import harness as h

F32 = np.float32
BF16 = ml_dtypes.bfloat16
np_in = ew.np_in


def run(module, inputs, outputs, extra=()):
    return h.run(module, "f", inputs, outputs, extra)


def both_paths(module, inputs, outputs):
    """The outputs of this run's path (QS_KERNELS) and of another: the
    emulated kernels where this run is the reference, else the reference
    (the CPU loops), whose bits the kernels must reproduce."""
    first = run(module, inputs, outputs)
    kernels = h.KERNELS
    h.KERNELS = "gpu-emulated" if kernels == "reference" else "reference"
    try:
        second = run(module, inputs, outputs)
    finally:
        h.KERNELS = kernels
    return first, second


def t(shape, element):
    return h.ttype(shape, element)


def ulp_error(got, want):
    """|got - want| in units of f32's ulp at want."""
    want = np.asarray(want, np.float64)
    spacing = np.spacing(np.abs(want).astype(F32)).astype(np.float64)
    return np.abs(np.asarray(got, np.float64) - want) / spacing


# Innermost lengths: a multiple of 8 (16-byte accesses), 4, 2 and 1 (odd),
# and point counts that do or do not fill the last block.
@pytest.mark.parametrize("shape", [(64, 256), (37, 100), (5, 18), (3, 7), (1, 2048)])
@pytest.mark.parametrize("element", ["bf16", "f16", "f32"])
def test_bias_relu(rng, shape, element):
    x = h.random_input(rng, shape, element)
    b = h.random_input(rng, (shape[1],), element, specials=False)
    (got,) = run(ew.bias_relu(shape, element), [h.to_npy(x, element), h.to_npy(b, element)], 1)
    h.assert_floats_equal(h.from_npy(got, element), ew.bias_relu_values(x, b, element),
                          f"{element} {shape}")


def test_relu_nan_propagates(rng):
    """arith.maximumf propagates NaN (IEEE maximum), on every path."""
    x = np.array([[np.nan, -1.0, 2.0, -np.inf, np.inf, -0.0, 0.0, 3.0]], F32)
    b = np.zeros(8, F32)
    (got,) = run(ew.bias_relu((1, 8), "f32"), [x, b], 1)
    assert np.isnan(got[0, 0])
    assert got[0, 1:].tolist() == [0.0, 2.0, 0.0, np.inf, 0.0, 0.0, 3.0]


@pytest.mark.parametrize("out", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("shape", [(32, 16), (48, 130), (7, 5)])
def test_scaled_transpose_cast(rng, out, shape):
    """y = round(x^T * s): a transposed operand (element by element), a
    broadcast scalar tensor, bf16 -> f32 -> out."""
    x = h.random_input(rng, shape, "bf16")
    s = np.array([rng.uniform(0.25, 4.0)], F32)
    (got,) = run(ew.cast_transpose(shape, out), [h.to_npy(x, "bf16"), s], 1)
    h.assert_floats_equal(h.from_npy(got, out), ew.cast_transpose_values(x, s[0], out),
                          f"{out} {shape}")


INDEX_FILL = """
func.func @f(%a: tensor<{N}xi32>) -> (tensor<{N}xi32>, tensor<{N}xi32>) {{
  %e = tensor.empty() : tensor<{N}xi32>
  %seven = arith.constant 7 : i32
  %f = linalg.fill ins(%seven : i32) outs(%e : tensor<{N}xi32>) -> tensor<{N}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}}
      ins(%a : tensor<{N}xi32>) outs(%f : tensor<{N}xi32>) {{
  ^bb0(%v: i32, %o: i32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %p = arith.muli %v, %ii : i32
    %s = arith.addi %o, %p : i32
    linalg.yield %s : i32
  }} -> tensor<{N}xi32>
  return %f, %r : tensor<{N}xi32>, tensor<{N}xi32>
}}
"""


@pytest.mark.parametrize("n", [1, 24, 1000, 4099])
def test_fill_index_accumulate(rng, n):
    """linalg.fill (a constant cloned into the kernel), linalg.index, an
    init the payload reads; integer arithmetic wraps."""
    a = rng.integers(-2**31, 2**31, size=n, dtype=np.int64).astype(np.int32)
    fill, got = run(INDEX_FILL.format(N=n), [a], 2)
    assert (fill == 7).all()
    with np.errstate(over="ignore"):
        want = (np.int32(7) + a * np.arange(n, dtype=np.int32)).astype(np.int32)
    np.testing.assert_array_equal(got, want)


TENSOR_ARITH = """
func.func @f(%x: {T}, %y: {T}) -> {T} {{
  %s = arith.addf %x, %y : {T}
  %p = arith.mulf %s, %x : {T}
  %d = arith.divf %p, %y : {T}
  return %d : {T}
}}
"""


@pytest.mark.parametrize("element", ["bf16", "f32"])
def test_arith_on_tensors(rng, element):
    """arith ops on tensors (convert-elementwise-to-linalg, fused into one
    generic): each op rounded as written."""
    shape = (24, 40)
    x = h.random_input(rng, shape, element, specials=False)
    y = h.random_input(rng, shape, element, specials=False)
    (got,) = run(TENSOR_ARITH.format(T=t(shape, element)),
                 [h.to_npy(x, element), h.to_npy(y, element)], 1)
    nx, ny = np_in(x, element), np_in(y, element)
    with np.errstate(all="ignore"):
        want = (((nx + ny) * nx) / ny).astype(F32)
    h.assert_floats_equal(h.from_npy(got, element), want, element)


MATH = """
func.func @f(%x: {T}) -> {T} {{
  %r = linalg.map {{ math.{OP} }} ins(%x : {T}) outs(%x : {T})
  return %r : {T}
}}
"""


# The bounds: qs-approximate-math's measured maxima (200,000 arguments
# each) rounded up; sin is not approximated (libm on the CPU, libdevice on
# the GPU).
@pytest.mark.parametrize("op,lo,hi,ulps", [("tanh", -12, 12, 5), ("exp", -80, 80, 1),
                                           ("log", 1e-30, 1e30, 1), ("erf", -5, 5, 5),
                                           ("expm1", -10, 10, 3), ("log1p", -0.9, 10, 3),
                                           ("log2", 1e-30, 1e30, 2), ("sin", -100, 100, 2)])
def test_math_functions(rng, op, lo, hi, ulps):
    """Transcendental math ops: within a few ulp of float64, and the same
    bits on two paths (sin, not approximated: on the CPU both)."""
    n = 4096
    if lo > 0:
        x = np.exp(rng.uniform(np.log(lo), np.log(hi), n)).astype(F32)
    else:
        x = rng.uniform(lo, hi, n).astype(F32)
    module = MATH.format(T=t((n,), "f32"), OP=op)
    first, second = both_paths(module, [x], 1)
    if op != "sin" or h.KERNELS != "cuda":
        # sin is libdevice's on the GPU and libm's on the CPU: only the ulp
        # bound below applies between them.
        h.assert_floats_equal(first[0], second[0], f"{op}: the two paths")
    fn = {"erf": np.vectorize(math.erf)}.get(op) or getattr(np, op)
    want = fn(x.astype(np.float64))
    err = ulp_error(first[0], want)
    # Where the f32 result is finite and normal (exp near its overflow).
    finite = np.isfinite(want.astype(F32)) & (np.abs(want) > 1e-30)
    assert np.max(err[finite]) <= ulps, f"{op}: {np.max(err[finite]):.2f} ulp at x = {x[finite][np.argmax(err[finite])]!r}"


@pytest.mark.parametrize("element", ["bf16", "f32"])
def test_te_gelu(rng, element):
    """TE's gelu formula (math.h; the device bundle's check), in f32,
    rounded to the element type; the same bits on two paths. Against
    float64: f32's few ulp of tanh, times |x| where 0.5 + 0.5 tanh cancels
    (x < 0), plus the final rounding (bf16: half an ulp, 2^-8 relative)."""
    shape = (64, 200)
    x = h.random_input(rng, shape, element, specials=False, exponents=(-4, 3))
    first, second = both_paths(ew.te_gelu(shape, element), [h.to_npy(x, element)], 1)
    h.assert_bytes_equal(first[0], second[0], "TE GELU on both paths")
    got = h.from_npy(first[0], element).astype(np.float64)
    want = ew.te_gelu_values(x)
    rel = 2.0 ** -8 if element != "f32" else 8 * 2.0 ** -24
    v = np.abs(x.astype(np.float64))
    bad = np.abs(got - want) > rel * np.abs(want) + 16 * 2.0 ** -24 * v
    assert not bad.any(), f"{element}: {bad.sum()} values off, first x = {x[bad][0]!r}"


ROW_SUM_MAX = """
func.func @f(%x: {X}, %s0: {R}, %m0: {R}) -> ({R}, {R}) {{
  %s, %m = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                            affine_map<(d0, d1) -> (d0)>,
                                            affine_map<(d0, d1) -> (d0)>],
                           iterator_types = ["parallel", "reduction"]}}
      ins(%x : {X}) outs(%s0, %m0 : {R}, {R}) {{
  ^bb0(%v: bf16, %acc: f32, %mx: f32):
    %f = arith.extf %v : bf16 to f32
    %a = arith.addf %acc, %f : f32
    %b = math.absf %f : f32
    %c = arith.maxnumf %mx, %b : f32
    linalg.yield %a, %c : f32, f32
  }} -> ({R}, {R})
  return %s, %m : {R}, {R}
}}
"""


@pytest.mark.parametrize("shape", [(37, 100), (3, 4099), (300, 1), (5, 0)])
def test_row_sum_and_amax(rng, shape):
    """A reduction with two results (f32 sums of bf16 rows, from given
    inits, and max |x| ignoring NaN): the reduction loop in order, so the
    sums equal numpy's sequential accumulation bit for bit; a row of no
    elements keeps its inits."""
    x = h.random_input(rng, shape, "bf16", specials=False) if shape[1] else \
        np.zeros(shape, F32)
    s0 = rng.standard_normal(shape[0]).astype(F32)
    m0 = np.abs(rng.standard_normal(shape[0])).astype(F32)
    module = ROW_SUM_MAX.format(X=t(shape, "bf16"), R=t((shape[0],), "f32"))
    got_s, got_m = run(module, [h.to_npy(x, "bf16"), s0, m0], 2)
    with np.errstate(all="ignore"):
        want_s = np.add.accumulate(np.concatenate([s0[:, None], x.astype(F32)], axis=1),
                                   axis=1, dtype=F32)[:, -1]
        want_m = np.fmax.reduce(np.concatenate([m0[:, None], np.abs(x.astype(F32))], axis=1),
                                axis=1)
    h.assert_floats_equal(got_s, want_s, f"row sums {shape}")
    h.assert_floats_equal(got_m, want_m, f"row amaxes {shape}")


def test_column_max_and_full_reduction(rng):
    """Reductions over the leading loop (one thread per column) and over
    everything (one thread): examples/amax_reduction.mlir's amax spelt as a
    linalg.reduce equals qs.amax's and numpy's max |x|."""
    with open(os.path.join(h.ROOT, "examples", "amax_reduction.mlir")) as f:
        example = f.read()
    x = h.random_input(rng, (32, 512), "bf16")
    (linalg_amax,) = h.run(example, "local_amax_linalg", [h.to_npy(x, "bf16")], 1)
    (qs_amax,) = h.run(example, "local_amax", [h.to_npy(x, "bf16")], 1)
    want = np.fmax.reduce(np.abs(x).reshape(-1))
    assert linalg_amax.shape == () and linalg_amax == want == qs_amax[0]
    module = """
func.func @f(%x: tensor<64x96xf32>) -> tensor<96xf32> {
  %m = arith.constant dense<0xFF800000> : tensor<96xf32>
  %c = linalg.reduce { arith.maximumf } ins(%x : tensor<64x96xf32>) outs(%m : tensor<96xf32>) dimensions = [0]
  return %c : tensor<96xf32>
}
"""
    y = rng.standard_normal((64, 96)).astype(F32)
    y[5, 7] = np.nan
    (got,) = run(module, [y], 1)
    want = y.max(axis=0)
    h.assert_floats_equal(got, want, "column maxima (NaN propagates)")


def test_rank0_and_empty():
    """A rank-0 tensor (one point) and a tensor with no elements (no
    launch)."""
    module = """
func.func @f(%a: tensor<f32>, %b: tensor<0x4xf32>) -> (tensor<f32>, tensor<0x4xf32>) {
  %s = arith.mulf %a, %a : tensor<f32>
  %t = arith.addf %b, %b : tensor<0x4xf32>
  return %s, %t : tensor<f32>, tensor<0x4xf32>
}
"""
    s, e = run(module, [np.array(3.0, F32), np.zeros((0, 4), F32)], 2)
    assert s.shape == () and s == 9.0
    assert e.shape == (0, 4)


def gelu(v):
    return 0.5 * v * (1 + np.tanh(0.79788456 * v * (1 + 0.044715 * v * v)))


def dgelu(v):
    t = np.tanh(0.79788456 * v * (1 + 0.044715 * v * v))
    return 0.5 * v * ((1 - t * t) * (0.79788456 + 0.1070322243 * v * v)) + 0.5 * (1 + t)


def rel_error(got, want):
    return float(np.linalg.norm(np.asarray(got, np.float64) - want) / np.linalg.norm(want))


def test_mlp_example(rng):
    """examples/mlp_fp8_current.mlir (fc1, GELU, fc2 with FP8 current
    scaling, and the backward with dGELU): forward and backward against
    float64 numpy on the same bf16 inputs, within FP8's error (E4M3 and
    E5M2 keep 4 and 3 significant bits of each operand, and the backward
    rounds twice to E5M2: measured 3.7% for H, 5.4% for Y, 7-9% for the
    gradients, on both CPU paths)."""
    with open(os.path.join(h.ROOT, "examples", "mlp_fp8_current.mlir")) as f:
        module = f.read()
    bf = lambda a: np.asarray(a, F32).astype(BF16).astype(np.float64)  # noqa: E731
    x = bf(rng.standard_normal((256, 512)))
    w1 = bf(rng.standard_normal((1024, 512)) / np.sqrt(512))
    w2 = bf(rng.standard_normal((512, 1024)) / np.sqrt(1024))
    dy = bf(rng.standard_normal((256, 512)))
    outs = h.run(module, "mlp_fwd", [h.to_npy(a, "bf16") for a in (x, w1, w2)], 14)
    y, hid = h.from_npy(outs[0], "bf16"), h.from_npy(outs[7], "bf16")
    grads = h.run(module, "mlp_bwd", [h.to_npy(dy, "bf16")] + outs[1:], 3)
    dx = h.from_npy(grads[0], "bf16")
    hw = x @ w1.T
    a = gelu(hw)
    dh = (dy @ w2) * dgelu(hw)
    errors = {"H": rel_error(hid, hw), "Y": rel_error(y, a @ w2.T),
              "dX": rel_error(dx, dh @ w1), "dW1": rel_error(grads[1], dh.T @ x),
              "dW2": rel_error(grads[2], dy.T @ a)}
    assert all(e < 0.15 for e in errors.values()), errors
