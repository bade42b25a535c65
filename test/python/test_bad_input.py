"""Bad input from Python: wrong types, shapes, keywords, foreign values,
invalid quantizer combinations. Every case is a Python exception carrying the
rule (QSError with the MLIR diagnostic where the compiler decides); none
crashes the interpreter — the last test reruns them all in a subprocess and
checks that it exits normally."""

import subprocess
import sys

import numpy as np
import pytest

import quant_storage as qs


def spec(shape, q=None, dtype="bf16"):
    return qs.TensorSpec(shape, dtype, q if q is not None else qs.MXFP8Quantizer())


BAD_SPECS = [
    ((-1, 32), qs.QSError, "dimension"),
    ((0, 32), qs.QSError, "positive"),
    ((), qs.QSError, "rank"),
    ((2**40, 2**40), qs.QSError, "elements"),
    ((3.5, 32), TypeError, "shape must be a sequence of integers"),
    ("ab", TypeError, "shape must be a sequence of integers"),
    (64, TypeError, "shape must be a sequence of integers"),
    ((2**70, 32), (TypeError, OverflowError, ValueError), None),
]


@pytest.mark.parametrize("shape,error,text", BAD_SPECS, ids=[repr(b[0])[:20] for b in BAD_SPECS])
def test_bad_shapes(shape, error, text):
    with pytest.raises(error) as err:
        spec(shape).inner_names()
    if text:
        assert text in str(err.value)


@pytest.mark.parametrize("shape", [(-32, 64), (32, -(2**63))])
def test_bad_plain_shapes(shape):
    # A plain tensor of a negative size printed as tensor<-32x64xbf16>,
    # which does not parse back; INT64_MIN made a dynamic size.
    with pytest.raises(qs.QSError, match=r"invalid tensor type: dimension \d must be >= 0, "
                                         f"got {min(shape)}"):
        qs.TensorSpec(shape, "bf16").inner_tensor_specs()
    g = qs.Graph()
    with pytest.raises(qs.QSError, match="must be >= 0"):
        g.function("f", [qs.TensorSpec(shape, "bf16")])
    # Zero sizes and rank 0 are valid plain tensors.
    assert qs.TensorSpec((0, 64), "bf16").inner_tensor_specs()["data"][0] == (0, 64)


def test_bad_quantizer_options():
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        qs.MXFP8Quantizer(foo=1)
    with pytest.raises(ValueError, match="fp8_dtype must be"):
        qs.MXFP8Quantizer(fp8_dtype="e5m3")
    with pytest.raises(qs.QSError, match="amax_epsilon"):
        qs.Float8BlockQuantizer(amax_epsilon=-1.0).to_attr(qs.default_context())
    with pytest.raises(qs.QSError, match="block_scaling_dim"):
        str(qs.Float8BlockQuantizer(block_scaling_dim=3))


def test_bad_builder_arguments():
    g1, g2 = qs.Graph(), qs.Graph()
    f1 = g1.function("a", [qs.TensorSpec((32, 64), "bf16")])
    f2 = g2.function("b", [qs.TensorSpec((32, 64), "bf16")])
    with pytest.raises(qs.QSError, match="operand #0 is not a value of @b; values cannot cross"):
        f2.quantize(f1.args[0], qs.MXFP8Quantizer())
    q = f1.quantize(f1.args[0], qs.MXFP8Quantizer())
    with pytest.raises(TypeError, match="needs a Quantizer"):
        f1.quantize(f1.args[0], "mxfp8")
    with pytest.raises(TypeError, match="takes a high-precision tensor"):
        f1.quantize(q, qs.MXFP8Quantizer())
    # The quantize kernel option: the dialect's rule at once, the rejected
    # quantize not added (one qs.quantize in the text: q's).
    with pytest.raises(qs.QSError, match="'qs.quantize_stores' must be the string \"coalesced\" or \"direct\""):
        f1.quantize(f1.args[0], qs.MXFP8Quantizer(), stores="staged")
    with pytest.raises(TypeError, match="quantize option stores must be a str, got 1"):
        f1.quantize(f1.args[0], qs.MXFP8Quantizer(), stores=1)
    assert str(g1).count("qs.quantize") == 1
    with pytest.raises(TypeError, match="update_usage\\(\\) takes a quantized tensor"):
        f1.update_usage(f1.args[0], columnwise=True)
    with pytest.raises(qs.QSError, match="'qs.dequantize' takes a !qs.tensor"):
        f1.dequantize(f1.args[0])
    with pytest.raises(qs.QSError, match="'qs.gemm' operands must be !qs.tensor values"):
        f1.gemm(f1.args[0], q, transpose_b=True)
    with pytest.raises(TypeError, match="gemm operand a must be a Value"):
        f1.gemm("x", q)
    with pytest.raises(ValueError, match="expected a bf16, f16 or f32 dtype, got 'i8'"):
        f1.gemm(q, q, transpose_b=True, out_dtype="i8")
    # GEMM kernel options: the dialect's rules at once; the rejected GEMM is
    # not added (the function's text has no qs.gemm afterwards).
    with pytest.raises(qs.QSError, match="'qs.gemm_cluster' must be the i64 1 or 2"):
        f1.gemm(q, q, transpose_b=True, cluster=4)
    with pytest.raises(qs.QSError, match="'qs.gemm_persistent' must be an i64 of at least 1"):
        f1.gemm(q, q, transpose_b=True, tile_n=128, persistent=0)
    with pytest.raises(TypeError, match="gemm option tile_n must be an int, got True"):
        f1.gemm(q, q, transpose_b=True, tile_n=True)
    with pytest.raises(TypeError, match="gemm option persistent must be an int, got '132'"):
        f1.gemm(q, q, transpose_b=True, persistent="132")
    with pytest.raises(qs.QSError, match="'qs.gemm_schedule' must be the string \"cooperative\" or \"pingpong\""):
        f1.gemm(q, q, transpose_b=True, schedule="stream-k")
    with pytest.raises(TypeError, match="gemm option schedule must be a str, got 2"):
        f1.gemm(q, q, transpose_b=True, schedule=2)
    with pytest.raises(qs.QSError, match="'qs.gemm_epilogue' must be the string \"direct\" or \"tma\""):
        f1.gemm(q, q, transpose_b=True, epilogue="stmatrix")
    with pytest.raises(TypeError, match="gemm option epilogue must be a str, got 1"):
        f1.gemm(q, q, transpose_b=True, epilogue=1)
    with pytest.raises(TypeError, match="gemm option split_k must be an int, \"auto\" or \"stream\", got 2.0"):
        f1.gemm(q, q, transpose_b=True, split_k=2.0)
    with pytest.raises(ValueError, match="gemm option split_k must be an int, \"auto\" or \"stream\", got 'max'"):
        f1.gemm(q, q, transpose_b=True, split_k="max")
    with pytest.raises(qs.QSError, match="'qs.gemm_split_k_reduce' must be the string \"kernel\" or \"fused\""):
        f1.gemm(q, q, transpose_b=True, split_k=2, split_k_reduce="atomic")
    with pytest.raises(TypeError, match="gemm option split_k_reduce must be a str, got True"):
        f1.gemm(q, q, transpose_b=True, split_k=2, split_k_reduce=True)
    with pytest.raises(qs.QSError, match="'qs.gemm_scale_loads' must be the string \"ahead\" or \"in_tile\""):
        f1.gemm(q, q, transpose_b=True, scale_loads="early")
    with pytest.raises(TypeError, match="gemm option scale_loads must be a str, got 1"):
        f1.gemm(q, q, transpose_b=True, scale_loads=1)
    with pytest.raises(qs.QSError, match="'qs.gemm_promotion' must be the string \"overlapped\" or \"in_tile\""):
        f1.gemm(q, q, transpose_b=True, promotion="late")
    with pytest.raises(TypeError, match="gemm option promotion must be a str, got 1"):
        f1.gemm(q, q, transpose_b=True, promotion=1)
    with pytest.raises(qs.QSError, match="'qs.gemm_mx_scaling' must be one of the strings \"promote\", \"convert\" or \"dequantize\""):
        f1.gemm(q, q, transpose_b=True, mx_scaling="bf16")
    with pytest.raises(TypeError, match="gemm option mx_scaling must be a str, got False"):
        f1.gemm(q, q, transpose_b=True, mx_scaling=False)
    assert "qs.gemm" not in str(g1)
    with pytest.raises(qs.QSError, match="qs.assemble"):
        f1.assemble([f1.args[0]], spec((32, 64)))
    with pytest.raises(TypeError, match="a returned value must be a Value"):
        f1.returns(3)
    with pytest.raises(TypeError, match=r"empty\(\)'s spec must be a TensorSpec, got \(32, 64\)"):
        f1.empty((32, 64))
    with pytest.raises(TypeError, match=r"assemble\(\)'s spec must be a TensorSpec, got 'mxfp8'"):
        f1.assemble([f1.args[0]], "mxfp8")
    # Functions: a name (the symbol cannot be empty: it would print as
    # @<<INVALID EMPTY SYMBOL>> and not parse back) and TensorSpec inputs.
    with pytest.raises(qs.QSError) as e:
        g1.function("", [])
    assert "a function needs a name (a non-empty symbol)" in str(e.value)
    with pytest.raises(TypeError, match="a function's name must be a str, got 3"):
        g1.function(3, [])
    with pytest.raises(TypeError, match="an input must be a TensorSpec, got 3"):
        g1.function("c", [3])
    with pytest.raises(TypeError, match="inputs must be a sequence of TensorSpecs"):
        g1.function("c", qs.TensorSpec((32, 64), "bf16"))
    assert "@c" not in str(g1) and "func.func @\"\"" not in str(g1)
    with pytest.raises(qs.QSError, match="operand #0 is not a value of @a"):
        f1.returns(f2.args[0])
    f1.returns(q)
    with pytest.raises(qs.QSError, match="@a is already finished"):
        f1.returns(q)


def test_bad_modules_and_runs():
    with pytest.raises(qs.QSError, match="cannot parse the module") as err:
        qs.Module.parse("func.func @x(")
    assert "error:" in str(err.value)
    g = qs.Graph()
    f = g.function("u", [qs.TensorSpec((32, 64), "bf16")])
    f.quantize(f.args[0], qs.MXFP8Quantizer())
    with pytest.raises(qs.QSError, match="the pipeline 'this is \\( not' failed"):
        qs.run_pipeline(g, "this is ( not")
    with pytest.raises(qs.QSError):
        qs.run_cpu(g, "nope", np.zeros((32, 64), np.uint16))
    # An unfinished function (no func.return) does not verify: an error, not a crash.
    with pytest.raises(qs.QSError):
        qs.run_cpu(g, "u", np.zeros((32, 64), np.uint16))
    with pytest.raises(TypeError, match="expected bfloat16 or uint16 elements"):
        f.returns()
        qs.run_cpu(g, "u", np.zeros((32, 64)))


def test_module_and_name_arguments():
    # MLIR text or None where a Graph/Module goes was an AttributeError
    # from deep inside; a function or pipeline that is not a str, nanobind's
    # signature dump.
    g = qs.Graph()
    f = g.function("q", [qs.TensorSpec((64, 128), "bf16")])
    f.returns(f.quantize(f.args[0], qs.MXFP8Quantizer()))
    x = np.zeros((64, 128), np.uint16)
    with pytest.raises(TypeError, match=r"expected a qs.Graph or qs.Module, got str \(parse MLIR "
                                        r"text with qs.Module.parse\)"):
        qs.compile(str(g))
    with pytest.raises(TypeError, match="expected a qs.Graph or qs.Module, got NoneType"):
        qs.run_cpu(None, "q", x)
    with pytest.raises(TypeError, match=r"the function \(its name\) must be a str, got None"):
        qs.run_cpu(g, None, x)
    with pytest.raises(TypeError, match="the pipeline must be a str, got None"):
        qs.run_pipeline(g, None)


def test_no_crash_in_a_fresh_interpreter():
    """The cases above, in a child interpreter: it must exit 0, not die."""
    code = (
        "import sys, pytest\n"
        f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {__file__!r}, '-k', 'not fresh']))\n")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=None, timeout=120)
    assert child.returncode == 0, child.stdout + child.stderr
