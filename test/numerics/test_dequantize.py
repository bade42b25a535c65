"""Dequantize inner tensors produced by the numpy reference with qs-run and
compare bit for bit with the reference's dequantization (row-wise
representation if present, else column-wise), for every family."""

import ml_dtypes
import numpy as np
import pytest

import harness as h
import qs_reference as ref

def run_dequantize(qt, t, buffers):
    """qs-run of a function dequantizing `qt` (its inner tensors
    `buffers`) to the tensor type `t`."""
    module = f"""func.func @dequantize(%q: {qt}) -> {t} {{
  %x = qs.dequantize %q : {qt} -> {t}
  return %x : {t}
}}"""
    (got,) = h.run(module, "dequantize", h.npy_inputs(buffers), 1)
    return got


CASES = [
    ("fp8_current", {}, (64, 128)),
    ("fp8_current", dict(rowwise=False), (3, 40, 72)),   # from the transpose
    ("fp8_delayed", dict(fp8_dtype="f8E5M2"), (32, 64)),
    ("mxfp8", {}, (64, 128)),
    ("mxfp8", dict(rowwise=False), (2, 32, 96)),
    ("mxfp8", dict(rowwise=False, optimize_for_gemm=True), (160, 192)),
    ("mxfp8", dict(with_2d_quantization=True, optimize_for_gemm=True), (128, 64)),
    ("fp8_block", dict(block_scaling_dim=1), (300, 200)),
    ("fp8_block", dict(block_scaling_dim=1, rowwise=False), (2, 70, 130)),
    ("fp8_block", dict(block_scaling_dim=2, rowwise=False), (256, 384)),
    ("nvfp4", {}, (64, 128)),
    ("nvfp4", dict(columnwise=False, optimize_for_gemm=True), (144, 160)),
    ("nvfp4", dict(row_scaled_nvfp4=True), (32, 48)),
    ("nvfp4", dict(with_2d_quantization=True), (2, 32, 64)),
    ("nvfp4", dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256), (64, 128)),
    ("nvfp4", dict(nvfp4_use_4over6=True, nvfp4_4over6_err_mode="MSE", row_scaled_nvfp4=True),
     (32, 48)),
]


@pytest.mark.parametrize("out", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("family,params,shape", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_dequantize(rng, family, params, shape, out):
    nominal = "bf16"
    q = h.quantizer(family, **params)
    x = h.random_input(rng, shape, nominal)
    with np.errstate(all="ignore"):
        buffers, _ = ref.quantize(x, q, nominal, scale=np.float32(3.0), amax_state=np.float32(0))
        want = ref.dequantize(buffers, shape, q)
    qt, t = h.qtype(shape, nominal, q), h.ttype(shape, out)
    got = run_dequantize(qt, t, buffers)
    if out == "bf16":
        want = want.astype(ml_dtypes.bfloat16).astype(np.float32)
    elif out == "f16":
        with np.errstate(all="ignore"):
            want = want.astype(np.float16).astype(np.float32)
    h.assert_floats_equal(h.from_npy(got, out), want, f"dequantize {family}{params} -> {out}")


@pytest.mark.parametrize("out", ["f32", "bf16"])
def test_dequantize_every_e8m0_code(out):
    """Every E8M0 scale code 0..255 as an MXFP8 block scale, exhaustively:
    2^(e - 127), 0 the FP32 subnormal 2^-127, 255 NaN (emitE8M0ToF32,
    which the GPU kernels and the CPU lowering share); each block's codes
    1.0, -1.5, 0 and 448."""
    shape = (32, 256)
    q = h.quantizer("mxfp8", columnwise=False)
    x = h.random_input(np.random.default_rng(0), shape, "bf16")
    with np.errstate(all="ignore"):
        buffers, _ = ref.quantize(x, q, "bf16")
    e4m3 = np.array([1.0, -1.5, 0.0, 448.0], ml_dtypes.float8_e4m3fn)
    buffers["rowwise_data"] = np.resize(e4m3.view(np.uint8), shape)
    codes = np.arange(256, dtype=np.uint8).reshape(32, 8)
    buffers["rowwise_scale_inv"] = buffers["rowwise_scale_inv"].copy()
    buffers["rowwise_scale_inv"][:32, :8] = codes
    # Code 255 is NaN; ldexp's 2^128 for it (an overflow) is not used.
    with np.errstate(over="ignore"):
        scale = np.where(codes == 255, np.float32(np.nan),
                         np.ldexp(np.float32(1), codes.astype(np.int32) - 127).astype(np.float32))
    values = np.resize(e4m3.astype(np.float32), shape)
    with np.errstate(all="ignore"):
        want = values * np.repeat(scale, 32, axis=1)
        if out == "bf16":
            want = want.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert want.view(np.uint32)[0, 0] == 0x00400000  # 1.0 x 2^-127
    qt, t = h.qtype(shape, "bf16", q), h.ttype(shape, out)
    got = run_dequantize(qt, t, buffers)
    h.assert_floats_equal(h.from_npy(got, out), want, f"dequantize every E8M0 code -> {out}")


SWEEPS = [("nvfp4", {}, 3e5), ("nvfp4", {}, 1e-36), ("fp8_current", {}, 300.0),
          ("fp8_current", {}, 1e-40), ("fp8_current", dict(fp8_dtype="f8E5M2"), 3.0)]


@pytest.mark.parametrize("out", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("family,params,factor", SWEEPS,
                         ids=[f"{s[0]}-{i}" for i, s in enumerate(SWEEPS)])
def test_dequantize_every_code_byte(family, params, factor, out):
    """Every code byte 0..255 (h.code_sweep) at every position of the
    16-code chunks: NVFP4 with block scales NaN, zero, subnormal and 448
    and a global amax that overflows f16 (3e5) or makes f32 subnormals
    (1e-36); FP8 with NaN codes, E5M2 infinities, a scale that overflows
    f16 and one that is an f32 subnormal. The outputs' NaN, infinity,
    overflow and subnormal roundings are those of the reference."""
    shape = (32, 512)
    q, buffers = h.code_sweep(family, shape, factor, **params)
    with np.errstate(all="ignore"):
        want = ref.dequantize(buffers, shape, q)
        if out == "bf16":
            want = want.astype(ml_dtypes.bfloat16).astype(np.float32)
        elif out == "f16":
            want = want.astype(np.float16).astype(np.float32)
    assert np.isnan(want).any() and (want == 0).any()
    qt, t = h.qtype(shape, "bf16", q), h.ttype(shape, out)
    got = run_dequantize(qt, t, buffers)
    h.assert_floats_equal(h.from_npy(got, out), want,
                          f"dequantize every code byte {family}{params} x {factor} -> {out}")
