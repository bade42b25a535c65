"""Element-wise ops from Python (Function.activation, dactivation, add,
sub, mul, cast): TE's formulas in f32, run on the CPU against numpy, and
compiled for the GPU as kernels between the qs ops."""

import ml_dtypes
import numpy as np
import pytest

import quant_storage as qs

BF16 = ml_dtypes.bfloat16
F32 = np.float32


def graph(kind, shapes, dtype="bf16", out=None, name=None):
    g = qs.Graph()
    f = g.function("f", [qs.TensorSpec(s, dtype) for s in shapes])
    if kind in qs.Function.ACTIVATIONS:
        y = f.activation(kind, *f.args, dtype=out)
    elif kind.startswith("d") and kind[1:] in qs.Function.ACTIVATIONS:
        y = f.dactivation(kind[1:], *f.args, dtype=out)
    elif kind == "cast":
        y = f.cast(f.args[0], out)
    else:
        y = getattr(f, kind)(*f.args, dtype=out)
    f.returns(y)
    return g


def te(kind, *v):
    """TE's math.h formula in float64 (the exact value of each expression)."""
    def sigmoid(x):
        return 1 / (1 + np.exp(-x))
    x = v[-1]
    acts = {
        "gelu": lambda: x * (0.5 + 0.5 * np.tanh(x * (0.79788456 + 0.03567741 * x * x))),
        "dgelu": lambda: 0.5 * x * ((1 - np.tanh(0.79788456 * x * (1 + 0.044715 * x * x)) ** 2)
                                    * (0.79788456 + 0.1070322243 * x * x))
        + 0.5 * (1 + np.tanh(0.79788456 * x * (1 + 0.044715 * x * x))),
        "qgelu": lambda: x * sigmoid(1.702 * x),
        "dqgelu": lambda: 1.702 * x * sigmoid(1.702 * x) * (1 - sigmoid(1.702 * x))
        + sigmoid(1.702 * x),
        "silu": lambda: x * sigmoid(x),
        "dsilu": lambda: x * sigmoid(x) * (1 - sigmoid(x)) + sigmoid(x),
    }
    y = acts[kind]()
    return y * v[0] if kind.startswith("d") else y


@pytest.mark.parametrize("kind", ["gelu", "qgelu", "silu", "dgelu", "dqgelu", "dsilu"])
def test_smooth_activations(kind):
    """Within one bf16 rounding (2^-8 relative) plus a few f32 ulp of the
    largest term of TE's formula, of the float64 value."""
    rng = np.random.default_rng(11)
    shape = (32, 64)
    x = (rng.standard_normal(shape) * 3).astype(BF16)
    args = [x] if not kind.startswith("d") else [rng.standard_normal(shape).astype(BF16), x]
    (y,) = qs.run_cpu(graph(kind, [shape] * len(args)), "f", *args)
    assert y.dtype == BF16
    want = te(kind, *[a.astype(np.float64) for a in args])
    got = y.astype(np.float64)
    scale = np.abs(x.astype(np.float64)) * (np.abs(args[0].astype(np.float64)) if len(args) == 2 else 1)
    assert np.all(np.abs(got - want) <= 2.0 ** -8 * np.abs(want) + 2.0 ** -19 * (scale + 1)), kind


@pytest.mark.parametrize("kind", ["relu", "srelu", "drelu", "dsrelu"])
def test_piecewise_activations_exact(kind):
    """relu (fmaxf: NaN -> 0), srelu, drelu, dsrelu bit for bit."""
    rng = np.random.default_rng(12)
    shape = (8, 48)
    x = (rng.standard_normal(shape) * 4).astype(F32)
    x[0, :4] = [np.nan, -0.0, 0.0, np.inf]
    dy = rng.standard_normal(shape).astype(F32)
    args = [x] if not kind.startswith("d") else [dy, x]
    (y,) = qs.run_cpu(graph(kind, [shape] * len(args), "f32"), "f", *args)
    with np.errstate(all="ignore"):
        want = {"relu": lambda: np.fmax(x, F32(0)),
                "srelu": lambda: np.where(x > 0, x * x, F32(0)),
                "drelu": lambda: np.where(x > 0, F32(1), F32(0)) * dy,
                "dsrelu": lambda: np.fmax(F32(2) * x, F32(0)) * dy}[kind]().astype(F32)
    np.testing.assert_array_equal(y.view(np.uint32)[~np.isnan(want)],
                                  want.view(np.uint32)[~np.isnan(want)])
    assert np.isnan(y[np.isnan(want)]).all()


def test_add_bias_mul_cast():
    """add with a bias (1-D, broadcast over the rows), sub, mul in f32 and
    rounded to bf16, cast f32 -> bf16: bit for bit."""
    rng = np.random.default_rng(13)
    a = (rng.standard_normal((16, 40)) * 8).astype(BF16)
    b = rng.standard_normal(40).astype(BF16)
    (s,) = qs.run_cpu(graph("add", [(16, 40), (40,)]), "f", a, b)
    want = (a.astype(F32) + b.astype(F32)[None, :]).astype(BF16)
    np.testing.assert_array_equal(s.view(np.uint16), want.view(np.uint16))
    c = rng.standard_normal((16, 40)).astype(BF16)
    for kind, op in (("sub", np.subtract), ("mul", np.multiply)):
        (r,) = qs.run_cpu(graph(kind, [(16, 40), (16, 40)], out="f32"), "f", a, c)
        np.testing.assert_array_equal(r, op(a.astype(F32), c.astype(F32)))
    x = rng.standard_normal((16, 40)).astype(F32)
    (r,) = qs.run_cpu(graph("cast", [(16, 40)], "f32", out="bf16"), "f", x)
    np.testing.assert_array_equal(r.view(np.uint16), x.astype(BF16).view(np.uint16))


def test_bad_input():
    g = qs.Graph()
    f = g.function("f", [qs.TensorSpec((4, 8), "bf16"), qs.TensorSpec((8, 4), "bf16")])
    with pytest.raises(ValueError, match="activation must be one of"):
        f.activation("tanh", f.args[0])
    with pytest.raises(qs.QSError, match="operand #1 has shape"):
        f.add(f.args[0], f.args[1])
    q = f.quantize(f.args[0], qs.Float8CurrentScalingQuantizer())
    with pytest.raises(TypeError, match="high-precision"):
        f.activation("gelu", q)


def test_mlp_compiles_for_the_gpu():
    """fc1 -> GELU -> fc2 built in Python: every op a kernel for sm_90a,
    the GELU one of them."""
    g = qs.Graph()
    f = g.function("mlp", [qs.TensorSpec((128, 256), "bf16"), qs.TensorSpec((512, 256), "bf16"),
                           qs.TensorSpec((256, 512), "bf16")])
    x, w1, w2 = f.args
    q = qs.Float8CurrentScalingQuantizer()
    h = f.gemm(f.quantize(w1, q), f.quantize(x, q), layout="TN")
    a = f.activation("gelu", h)
    y = f.gemm(f.quantize(w2, q), f.quantize(a, q), layout="TN")
    f.returns(y)
    compiled = qs.compile(g, chip="sm_90a")
    assert "qs_elementwise" in compiled.kernels
    assert len([k for k in compiled.kernels if k.startswith("qs_gemm")]) == 2
