"""The graph builder: a Linear fwd+bwd built in Python is the bundled
example's IR, every builder works, rule violations raise QSError with the
dialect's diagnostic, modules print, parse back, verify and clone."""

import os
import sys

import pytest

import quant_storage as qs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

E4M3, E5M2 = qs.DType.kFloat8E4M3, qs.DType.kFloat8E5M2
LINEAR = {
    "fp8_current": (qs.Float8CurrentScalingQuantizer(E4M3), qs.Float8CurrentScalingQuantizer(E4M3),
                    qs.Float8CurrentScalingQuantizer(E5M2)),
    "fp8_delayed": (qs.Float8Quantizer(None, None, E4M3), qs.Float8Quantizer(None, None, E4M3),
                    qs.Float8Quantizer(None, None, E5M2)),
    "mxfp8": (qs.MXFP8Quantizer(E4M3), qs.MXFP8Quantizer(E4M3), qs.MXFP8Quantizer(E4M3)),
    "fp8_block": (qs.Float8BlockQuantizer(E4M3, block_scaling_dim=1),
                  qs.Float8BlockQuantizer(E4M3, block_scaling_dim=2),
                  qs.Float8BlockQuantizer(E4M3, block_scaling_dim=1)),
    "nvfp4": (qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True),
              qs.NVFP4Quantizer(with_2d_quantization=True),
              qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)),
    "nvfp4_4over6": (qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=256),
                     qs.NVFP4Quantizer(with_2d_quantization=True, nvfp4_use_4over6=True,
                                       nvfp4_4over6_err_mode="MSE"),
                     qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=256)),
}


def build_linear(family):
    """TE's Linear (in 512, out 1024, 256 tokens) as examples/linear_*.mlir."""
    qx, qw, qdy = LINEAR[family]
    delayed = family == "fp8_delayed"
    s = qs.TensorSpec((1,), "f32")
    g = qs.Graph()
    state = [s] * 4 if delayed else []
    f = g.function("linear_fwd", [qs.TensorSpec((256, 512), "bf16"),
                                  qs.TensorSpec((1024, 512), "bf16")] + state)
    x, w = f.args[:2]
    if delayed:
        sx, ax, sw, aw = f.args[2:]
        xq, ax2 = f.quantize(x, qx, scale=sx, amax=ax)
        wq, aw2 = f.quantize(w, qw, scale=sw, amax=aw)
    else:
        xq, wq = f.quantize(x, qx), f.quantize(w, qw)
    # Y = X W^T; TE's fprop accumulates fast (per-tensor FP8: the bundled
    # examples say so; the block-scaled kernels ignore it, TE has none).
    y = f.gemm(wq, xq, layout="TN", fast_accumulate=family in ("fp8_current", "fp8_delayed"))
    f.returns(y, xq, wq, *([ax2, aw2] if delayed else []))

    b = g.function("linear_bwd", [qs.TensorSpec((256, 1024), "bf16"),
                                  qs.TensorSpec((256, 512), "bf16", qx),
                                  qs.TensorSpec((1024, 512), "bf16", qw)]
                   + ([s, s] if delayed else []))
    dy, xq, wq = b.args[:3]
    if delayed:
        dyq, ady2 = b.quantize(dy, qdy, scale=b.args[3], amax=b.args[4])
    else:
        dyq = b.quantize(dy, qdy)
    dx = b.gemm(wq, dyq, layout="NN")                     # dX = dY W
    dw = b.gemm(xq, dyq, layout="NT", out_dtype="f32")    # dW = dY^T X
    b.returns(dx, dw, *([ady2] if delayed else []))
    return g


@pytest.mark.parametrize("family", list(LINEAR))
def test_linear_matches_the_bundled_example(family):
    with open(os.path.join(ROOT, "examples", f"linear_{family}.mlir")) as f:
        example = qs.Module.parse(f.read())
    built = build_linear(family)
    built.module.verify()
    assert str(built) == str(example)


def test_builders():
    g = qs.Graph(chip="sm_100a")
    spec = qs.TensorSpec((128, 128), "bf16", qs.Float8BlockQuantizer(columnwise=False))
    f = g.function("ops", [qs.TensorSpec((128, 128), "bf16"), spec])
    x, q = f.args
    e = f.empty(spec)
    inner = f.disassemble(q)
    assert [v.shape for v in inner] == [(128, 128), (1, 4)]
    again = f.assemble(inner, spec)
    both = f.update_usage(again, columnwise=True)
    assert both.quantizer == qs.Float8BlockQuantizer()
    d = f.dequantize(both, "bf16")
    assert d.shape == (128, 128) and d.dtype == "bf16"
    qx = f.quantize(x, qs.Float8BlockQuantizer(block_scaling_dim=1))
    bias = f.dequantize(e, "f32")
    y = f.gemm(qx, both, transpose_b=True, out_dtype="f32", accumulate=bias)
    f.returns(y, e)
    g.module.verify()
    text = str(g)
    assert 'qs.chip = "sm_100a"' in text
    for op in ("qs.empty", "qs.disassemble", "qs.assemble", "qs.update_usage",
               "qs.dequantize", "qs.quantize", "qs.gemm", "accumulate("):
        assert op in text
    assert str(qs.Module.parse(text)) == text
    assert str(g.module.clone()) == text


def test_violations_raise_with_diagnostics():
    g = qs.Graph()
    f = g.function("bad", [qs.TensorSpec((128, 256), "bf16")])
    (x,) = f.args
    q = f.quantize(x, qs.MXFP8Quantizer(columnwise=False))
    with pytest.raises(qs.QSError, match="operand a is contracted over its first dimension and "
                                         "needs its columnwise usage") as err:
        f.gemm(q, q, transpose_b=False, transpose_a=True)
    # The diagnostic points at the Python line that built the op.
    line = sys._getframe().f_lineno - 2
    assert f'loc("{__file__}":{line}:1): error:' in str(err.value)
    with pytest.raises(qs.QSError, match="cannot create the columnwise representation of a "
                                         "MXFP8Quantizer tensor"):
        f.update_usage(q, columnwise=True)
    with pytest.raises(qs.QSError, match="MXFP8 needs the last dimension K"):
        g.function("bad2", [qs.TensorSpec((64, 40), "bf16", qs.MXFP8Quantizer())])
    with pytest.raises(qs.QSError, match="already exists"):
        g.function("bad", [])
    with pytest.raises(ValueError, match="layout must be one of"):
        f.gemm(q, q, layout="XX")
    with pytest.raises(qs.QSError, match="cannot parse the module"):
        qs.Module.parse("func.func @f(")


def test_delayed_scaling_needs_its_state():
    g = qs.Graph()
    f = g.function("f", [qs.TensorSpec((4, 8), "bf16")])
    with pytest.raises(qs.QSError, match=r"with delayed scaling \(#qs.fp8_delayed\) needs scale"):
        f.quantize(f.args[0], qs.Float8Quantizer())


def test_current_scaling_given_amax():
    # TE's amax reduction: the caller's all-reduced amax scales the cast.
    g = qs.Graph()
    s1 = g.context.ranked_tensor_type([1], "f32")
    f = g.function("f", [qs.TensorSpec((32, 32), "bf16"), s1])
    x, amax = f.args
    q = f.quantize(x, qs.Float8CurrentScalingQuantizer(), amax=amax)
    assert q.is_quantized and q.quantizer == qs.Float8CurrentScalingQuantizer()
    f.returns(q)
    g.module.verify()
    assert "qs.quantize %arg0 amax(%arg1 : tensor<1xf32>)" in str(g)
    f.quantize(x, qs.NVFP4Quantizer(with_2d_quantization=True), amax=amax)  # one global amax
    with pytest.raises(qs.QSError, match=r"takes a global amax\(...\) alone only where "
                       r"tensor-wide amaxes scale the whole tensor \(TE's amax reduction\)"):
        f.quantize(x, qs.MXFP8Quantizer(), amax=amax)
    with pytest.raises(qs.QSError, match=r"with_post_rht_amax = true> has 2 global amaxes, "
                       r"max\|x\| \(row-wise\) and max\|RHT\(x\^T\)\| \(column-wise\), "
                       r"a tensor<2xf32>; got 'tensor<1xf32>'"):
        f.quantize(x, qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True), amax=amax)
    with pytest.raises(ValueError, match=r"all-reduce Function.amax\(x, quantizer\) across the "
                       "group yourself and pass the result: Function.quantize"):
        qs.Float8CurrentScalingQuantizer(with_amax_reduction=True)


def test_amax_reduction_with_function_amax():
    # Function.amax: the global amaxes the quantize computes (qs.amax), two
    # for NVFP4 with RHT; the all-reduced result goes back into quantize.
    g = qs.Graph()
    s2 = g.context.ranked_tensor_type([2], "f32")
    f = g.function("f", [qs.TensorSpec((32, 64), "bf16"), s2])
    x, reduced = f.args
    rht = qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)
    local = f.amax(x, rht)
    assert local.shape == (2,) and local.dtype == "f32"
    current = f.amax(x, qs.Float8CurrentScalingQuantizer())
    assert current.shape == (1,)
    q = f.quantize(x, rht, amax=reduced)
    f.returns(local, current, q)
    g.module.verify()
    text = str(g)
    assert "qs.amax %arg0 as !qs.tensor<32x64xbf16, #qs.nvfp4<with_rht = true, " \
           "with_post_rht_amax = true>> : tensor<32x64xbf16> -> tensor<2xf32>" in text
    assert "qs.quantize %arg0 amax(%arg1 : tensor<2xf32>)" in text
    with pytest.raises(qs.QSError, match=r"'qs.amax' op returns the global amaxes only where "
                       r"tensor-wide amaxes scale the whole tensor .* #qs.mxfp8 computes none"):
        f.amax(x, qs.MXFP8Quantizer())
    with pytest.raises(qs.QSError, match="#qs.nvfp4<row_scaled_nvfp4 = true> computes none"):
        f.amax(x, qs.NVFP4Quantizer(row_scaled_nvfp4=True))
    with pytest.raises(TypeError, match="amax\\(\\) takes a high-precision tensor"):
        f.amax(q, rht)
    with pytest.raises(TypeError, match="amax\\(\\) needs a Quantizer"):
        f.amax(x, "nvfp4")


def test_gemm_output_quantizer():
    # TE's general_gemm(..., quantization_params=quantizer): a quantized
    # result; delayed scaling also takes (scale, amax) and returns the
    # updated amax.
    g = qs.Graph()
    s1 = g.context.ranked_tensor_type([1], "f32")
    fp8 = qs.Float8CurrentScalingQuantizer(E4M3)
    f = g.function("fprop", [qs.TensorSpec((128, 256), "bf16", fp8),
                             qs.TensorSpec((512, 256), "bf16", fp8), s1, s1])
    x, w, scale, amax = f.args
    h, amax2 = f.gemm(w, x, layout="TN", quantizer=qs.Float8Quantizer(columnwise=False),
                      scale=scale, amax=amax)
    assert h.is_quantized and h.shape == (128, 512) and h.dtype == "bf16"
    assert h.quantizer == qs.Float8Quantizer(columnwise=False)
    assert amax2.shape == (1,)
    m = f.gemm(w, x, layout="TN", quantizer=qs.MXFP8Quantizer(), out_dtype="f16")
    assert m.is_quantized and m.dtype == "f16"
    f.returns(h, amax2, m)
    g.module.verify()
    text = str(g)
    assert "scale(%arg2 : tensor<1xf32>) amax(%arg3 : tensor<1xf32>)" in text
    assert "-> !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>" in text
    assert str(qs.Module.parse(text)) == text
    with pytest.raises(qs.QSError, match="with a delayed-scaling result .* needs scale"):
        f.gemm(w, x, layout="TN", quantizer=qs.Float8Quantizer())
    with pytest.raises(qs.QSError, match="cannot accumulate into a quantized result"):
        f.gemm(w, x, layout="TN", quantizer=qs.MXFP8Quantizer(),
               accumulate=f.gemm(w, x, layout="TN"))
    with pytest.raises(TypeError, match="quantizer must be a Quantizer"):
        f.gemm(w, x, layout="TN", quantizer="fp8")
