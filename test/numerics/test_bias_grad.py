"""qs.bias_grad (the bias gradient of TE's Linear backward) with qs-run
against the numpy reference's sums in the op's order (chunks of 32 rows,
then the chunks), bit for bit after rounding to the result type."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref


def bias_grad_module(shape, nominal, out):
    t = h.ttype(shape, nominal)
    r = h.ttype((shape[-1],), out)
    return f"""func.func @bias_grad(%dy: {t}) -> {r} {{
  %db = qs.bias_grad %dy : {t} -> {r}
  return %db : {r}
}}"""


def check(x, nominal, out, what):
    (got,) = h.run(bias_grad_module(x.shape, nominal, out), "bias_grad",
                   [h.to_npy(x, nominal)], 1)
    with np.errstate(over="ignore"):  # sums past the result type's range
        want = h.to_npy(ref.bias_grad(x), out)
    h.assert_bytes_equal(got, want, what)


CASES = [
    ((64, 128), "bf16", "bf16"),
    ((37, 20), "bf16", "f32"),        # a short last chunk, 4-column groups
    ((2, 37, 20), "f16", "f16"),      # 3-D: M = 74
    ((33, 7), "f32", "bf16"),         # odd N: one column per thread
    ((300, 48), "bf16", "f16"),       # 10 chunks
    ((1, 16), "f32", "f32"),          # one row
    ((4, 64, 24), "f32", "f32"),      # M = 256: whole chunks only
    ((4200, 24), "bf16", "f32"),      # 132 chunks: two groups of 64 summed in a loop, then 4
]


@pytest.mark.parametrize("shape,nominal,out", CASES)
@pytest.mark.parametrize("specials", [False, True])
def test_bias_grad(rng, shape, nominal, out, specials):
    """Random values (with zeros, denormals, huge values, +-inf and NaN
    when `specials`): sums that overflow, cancel, and hit NaN."""
    x = h.random_input(rng, shape, nominal, specials=specials)
    check(x, nominal, out, f"bias_grad {shape} {nominal} -> {out}")


def test_bias_grad_order():
    """The chunks are summed apart: 2^24 in row 0 and 1.0 in rows 1-31 sum to
    2^24 in FP32 one row at a time (each 1.0 is lost), but rows 32-63 of
    1.0 make a chunk sum of 32 that survives. A single running sum would
    give 2^24 for column 0; the op's order gives 2^24 + 32."""
    x = np.zeros((64, 8), np.float32)
    x[0, 0] = 2.0 ** 24
    x[1:, 0] = 1.0
    x[:, 1] = -0.0                      # an all -0.0 column sums to +0.0
    x[0, 2], x[40, 2] = np.inf, -np.inf  # NaN
    want = ref.bias_grad(x)
    assert want[0] == np.float32(2.0 ** 24 + 32)
    assert want[1].view(np.uint32) == 0
    assert want[2].view(np.uint32) == 0x7FC00000
    check(x, "f32", "f32", "bias_grad order")
    check(x, "f32", "bf16", "bias_grad order (bf16)")


FUSED = [
    ("fp8_current", {}, (96, 160), "bf16"),
    ("fp8_delayed", dict(columnwise=False), (64, 128), "bf16"),
    ("mxfp8", {}, (2, 48, 96), "bf16"),
    ("mxfp8", dict(with_2d_quantization=True), (64, 64), "bf16"),
    ("fp8_block", dict(block_scaling_dim=1), (300, 200), "bf16"),   # 128-row tiles
    ("fp8_block", {}, (256, 128), "f32"),                           # 2-D, f32 input
    ("fp8_current", dict(rowwise=False), (100, 64), "f32"),         # 32-row f32 tiles
    ("nvfp4", {}, (64, 128), "bf16"),
    ("nvfp4", dict(with_rht=True), (96, 64), "bf16"),
    ("nvfp4", dict(with_2d_quantization=True), (48, 64), "bf16"),
    ("nvfp4", dict(row_scaled_nvfp4=True), (48, 64), "f16"),
]


@pytest.mark.parametrize("family,params,shape,nominal", FUSED)
def test_bias_grad_with_quantize(rng, family, params, shape, nominal):
    """dY quantized and its bias gradient taken in one function (TE's
    bgrad_quantize; on the GPU the quantize's first cast kernel writes the
    chunk sums from its tiles): the quantize's buffers and the sums both as
    the reference says."""
    q = h.quantizer(family, **params)
    t, qt = h.ttype(shape, nominal), h.qtype(shape, nominal, q)
    r = h.ttype((shape[-1],), nominal)
    delayed = family == "fp8_delayed"
    extra = ", %s: tensor<1xf32>, %a: tensor<1xf32>" if delayed else ""
    quantize = (f"%q, %m = qs.quantize %dy scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) "
                f": {t} -> {qt}, tensor<1xf32>" if delayed else
                f"%q = qs.quantize %dy : {t} -> {qt}")
    returned = ("%q, %m, %db", f"{qt}, tensor<1xf32>, {r}") if delayed else ("%q, %db", f"{qt}, {r}")
    module = f"""func.func @bwd(%dy: {t}{extra}) -> ({returned[1]}) {{
  {quantize}
  %db = qs.bias_grad %dy : {t} -> {r}
  return {returned[0]} : {returned[1]}
}}"""
    x = h.random_input(rng, shape, nominal)
    scale, state = np.float32(2.0), np.float32(0.5)
    with np.errstate(all="ignore"):
        bufs, updated = ref.quantize(x, q, nominal, **(dict(scale=scale, amax_state=state)
                                                       if delayed else {}))
    inputs = [h.to_npy(x, nominal)] + ([np.array([scale]), np.array([state])] if delayed else [])
    outs = h.run(module, "bwd", inputs, len(bufs) + (2 if delayed else 1))
    for (name, want), got in zip(bufs.items(), outs):
        h.assert_bytes_equal(got, want, f"{family} {name}")
    with np.errstate(over="ignore"):
        want = h.to_npy(ref.bias_grad(x), nominal)
    h.assert_bytes_equal(outs[-1], want, f"{family} bias_grad")


def test_linear_bias_example(rng):
    """examples/linear_bias.mlir (TE's Linear with bias=True, MXFP8) at a
    smaller size, run as a user does (the backward on the forward's own X
    and W): Y = X W^T + b and dX, dW within the GEMM bound, X and W
    byte for byte, db the reference's sums bit for bit (on the GPU kernels
    the quantize of dY writes them)."""
    import gemm_cases as gm
    import linear_cases as lc

    m, n, k = lc.SMALL_SHAPE
    module, q = lc.example("bias", lc.SMALL_SHAPE)
    module = module.replace("tensor<1024xbf16>", f"tensor<{n}xbf16>")
    x, w, dy = (gm.gemm_input(rng, s) for s in ((m, k), (n, k), (m, n)))
    b = h.random_input(rng, (n,), "bf16", specials=False)
    with np.errstate(all="ignore"):
        xb, _ = ref.quantize(x, q["x"], "bf16")
        wb, _ = ref.quantize(w, q["w"], "bf16")
        dyb, _ = ref.quantize(dy, q["dy"], "bf16")

    def gemm(name, layout, out, lhs, rhs, extra=()):
        return ("gemm", name, gm.reference_spec("mxfp8", gm.LAYOUTS[layout], out, lhs, rhs,
                                                bool(extra), False, False, False),
                h.npy_inputs(lhs[1]) + h.npy_inputs(rhs[1]) + list(extra))

    fwd = lc.Step(module, "linear_fwd", [h.to_npy(x, "bf16"), h.to_npy(w, "bf16"),
                                         h.to_npy(b, "bf16")],
                  [gemm("Y", 0, "bf16", (q["x"], xb, (m, k)), (q["w"], wb, (n, k)),
                        [h.to_npy(b, "bf16")])]
                  + [("bytes", f"X {name}", np.ascontiguousarray(v)) for name, v in xb.items()]
                  + [("bytes", f"W {name}", np.ascontiguousarray(v)) for name, v in wb.items()])
    bwd = lc.Step(module, "linear_bwd", [h.to_npy(dy, "bf16")] + h.npy_inputs(xb)
                  + h.npy_inputs(wb),
                  [gemm("dX", 1, "bf16", (q["dy"], dyb, (m, n)), (q["w"], wb, (n, k))),
                   gemm("dW", 2, "f32", (q["dy"], dyb, (m, n)), (q["x"], xb, (m, k))),
                   ("bytes", "db", h.to_npy(ref.bias_grad(dy), "bf16"))],
                  saved=len(xb) + len(wb))
    outs, back = lc.run_layer(fwd, bwd)
    for result, got in zip(fwd.results, outs):
        lc.check_result(result, got, "linear_bias fwd")
    for result, got in zip(bwd.results, back):
        lc.check_result(result, got, "linear_bias bwd")


@pytest.mark.parametrize("family,params", [("fp8_current", {}), ("mxfp8", {}),
                                           ("nvfp4", {})])
def test_bias_grad_of_gemm_product(rng, family, params):
    """The bias gradient of a GEMM's product next to its quantize: with the
    product returned too (the quantize and the sums from its buffer), and
    without (on the GPU kernels the quantize may then read the product the
    GEMM wrote, taking its amax from the epilogue): both give the
    reference's sums of the returned product, and the same codes."""
    m, n, k = 96, 160, 128
    operand = h.quantizer("fp8_current", columnwise=False)
    qx, qw = h.qtype((m, k), "bf16", operand), h.qtype((n, k), "bf16", operand)
    q = h.quantizer(family, **params)
    qd, d, db = h.qtype((m, n), "bf16", q), h.ttype((m, n), "bf16"), h.ttype((n,), "f32")

    def module(keep):
        results = ([d] if keep else []) + [qd, db]
        returned = (["%d"] if keep else []) + ["%q", "%db"]
        return f"""func.func @f(%x: {h.ttype((m, k), "bf16")}, %w: {h.ttype((n, k), "bf16")}) -> ({", ".join(results)}) {{
  %qx = qs.quantize %x : {h.ttype((m, k), "bf16")} -> {qx}
  %qw = qs.quantize %w : {h.ttype((n, k), "bf16")} -> {qw}
  %d = qs.gemm %qx, %qw transpose_b : {qx}, {qw} -> {d}
  %q = qs.quantize %d : {d} -> {qd}
  %db = qs.bias_grad %d : {d} -> {db}
  return {", ".join(returned)} : {", ".join(results)}
}}"""

    x = h.random_input(rng, (m, k), "bf16", specials=False)
    w = h.random_input(rng, (n, k), "bf16", specials=False)
    inputs = [h.to_npy(x, "bf16"), h.to_npy(w, "bf16")]
    with np.errstate(all="ignore"):
        names = list(ref.quantize(np.zeros((m, n), np.float32), q, "bf16")[0])
    kept = h.run(module(True), "f", inputs, len(names) + 2)
    product = h.from_npy(kept[0], "bf16")
    with np.errstate(all="ignore"):
        bufs, _ = ref.quantize(product, q, "bf16")
    for (name, want), got in zip(bufs.items(), kept[1:]):
        h.assert_bytes_equal(got, want, f"{family} {name} (product kept)")
    h.assert_bytes_equal(kept[-1], ref.bias_grad(product), f"{family} bias_grad (product kept)")
    alone = h.run(module(False), "f", inputs, len(names) + 1)
    for name, got, want in zip(names + ["bias_grad"], alone, kept[1:]):
        h.assert_bytes_equal(got, want, f"{family} {name} (product not kept)")
