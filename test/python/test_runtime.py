"""Pipelines and CPU execution from Python; the numerics equal the numpy
reference of the numerics suite (test/numerics/qs_reference.py)."""

import ml_dtypes
import numpy as np
import pytest

import quant_storage as qs
import qs_reference as ref


def quantize_graph(shape, quantizer, dtype="bf16"):
    g = qs.Graph()
    f = g.function("quantize", [qs.TensorSpec(shape, dtype)])
    q = f.quantize(f.args[0], quantizer)
    f.returns(q, f.dequantize(q, "f32"))
    return g


CASES = [
    ("fp8_current", qs.Float8CurrentScalingQuantizer(), {}),
    ("mxfp8", qs.MXFP8Quantizer(optimize_for_gemm=True), dict(optimize_for_gemm=True)),
    ("fp8_block", qs.Float8BlockQuantizer(block_scaling_dim=1), dict(block_scaling_dim=1)),
    ("nvfp4", qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True), dict(with_rht=True)),
]


@pytest.mark.parametrize("family,quantizer,params", CASES, ids=[c[0] for c in CASES])
def test_run_cpu_matches_the_reference(family, quantizer, params):
    import harness as h
    rng = np.random.default_rng(7)
    shape = (64, 128)
    x = h.random_input(rng, shape, "bf16")
    results = qs.run_cpu(quantize_graph(shape, quantizer), "quantize", x.astype(ml_dtypes.bfloat16))
    q = h.quantizer(family, **params)
    with np.errstate(all="ignore"):
        expected, _ = ref.quantize(x, q, "bf16")
    inner, values = results
    assert list(inner) == list(expected)
    for name, want in expected.items():
        got = inner[name]
        h.assert_bytes_equal(got.view(np.uint8) if got.dtype.itemsize == 1 else got, want, name)
    with np.errstate(all="ignore"):          # the random input has Inf/NaN/extremes
        want = ref.dequantize(expected, shape, q)
    h.assert_floats_equal(values, want, "dequantize")


def test_run_cpu_amax_reduction():
    # TE's amax reduction from Python: Function.amax of each of two row
    # halves, their elementwise maximum (the all-reduce), each half
    # quantized with it: the whole tensor's amaxes and row-wise codes.
    import harness as h
    rng = np.random.default_rng(11)
    quantizer = qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)
    x = h.random_input(rng, (64, 128), "bf16")
    g = qs.Graph()
    part = qs.TensorSpec((32, 128), "bf16")
    local = g.function("local", [part])
    local.returns(local.amax(local.args[0], quantizer))
    f = g.function("part", [part, qs.TensorSpec((2,), "f32")])
    f.returns(f.quantize(f.args[0], quantizer, amax=f.args[1]))
    halves = [x[:32].astype(ml_dtypes.bfloat16), x[32:].astype(ml_dtypes.bfloat16)]
    amaxes = [qs.run_cpu(g, "local", half)[0] for half in halves]
    reduced = np.fmax(*amaxes).astype(np.float32)
    q = h.quantizer("nvfp4", with_rht=True)
    with np.errstate(all="ignore"):
        h.assert_bytes_equal(reduced, ref.global_amaxes(x, q), "reduced amaxes")
        whole, _ = ref.quantize(x, q, "bf16")
    for i, half in enumerate(halves):
        (inner,) = qs.run_cpu(g, "part", half, reduced)
        h.assert_bytes_equal(inner["rowwise_data"].view(np.uint8),
                             whole["rowwise_data"][32 * i:32 * (i + 1)], f"half {i} codes")
        for name in ("amax_rowwise", "amax_columnwise"):
            h.assert_bytes_equal(inner[name], whole[name], f"half {i} {name}")


def test_run_cpu_bias_grad():
    # A Linear backward with bias from Python: dY quantized for the GEMMs
    # and its bias gradient (Function.bias_grad, TE's bgrad_quantize), the
    # sums equal to the reference's order bit for bit, in dY's type and f32.
    import harness as h
    rng = np.random.default_rng(13)
    dy = h.random_input(rng, (2, 48, 96), "bf16", specials=False)
    g = qs.Graph()
    f = g.function("bwd", [qs.TensorSpec(dy.shape, "bf16")])
    qdy = f.quantize(f.args[0], qs.MXFP8Quantizer())
    db, db32 = f.bias_grad(f.args[0]), f.bias_grad(f.args[0], dtype="f32")
    assert db.shape == (96,) and db.dtype == "bf16" and db32.dtype == "f32"
    f.returns(qdy, db, db32)
    _, got, got32 = qs.run_cpu(g, "bwd", dy.astype(ml_dtypes.bfloat16))
    want = ref.bias_grad(dy)
    h.assert_bytes_equal(got32, want, "bias_grad f32")
    h.assert_bytes_equal(np.asarray(got).view(np.uint16),
                         want.astype(ml_dtypes.bfloat16).view(np.uint16), "bias_grad bf16")
    with pytest.raises(TypeError, match=r"bias_grad\(\) takes a high-precision tensor"):
        f.bias_grad(qdy)


def test_run_cpu_delayed_scaling_recipe():
    # TE's DelayedScaling from Python, two steps: quantize with the recipe's
    # scale and amax state, then the recipe step on the history with the
    # quantize's updated amax (Function.amax_and_scale_update, TE's
    # fused_amax_and_scale_update_after_reduction); the new scale feeds the
    # next step. History and scale as the reference's, bit for bit.
    import harness as h
    rng = np.random.default_rng(17)
    g = qs.Graph()
    length = 4
    f = g.function("step", [qs.TensorSpec((32, 64), "bf16"), qs.TensorSpec((length,), "f32"),
                            qs.TensorSpec((1,), "f32"), qs.TensorSpec((1,), "f32")])
    x, hist, scale, state = f.args
    q, amax = f.quantize(x, qs.Float8Quantizer(), scale=scale, amax=state)
    new_hist, new_scale = f.amax_and_scale_update(hist, scale, amax, fp8_dtype="e5m2", margin=1)
    assert new_hist.shape == (length,) and new_scale.shape == (1,)
    f.returns(q, new_hist, new_scale)
    history, s = np.zeros(length, np.float32), np.ones(1, np.float32)
    for step in range(2):
        xs = h.random_input(rng, (32, 64), "bf16", specials=False, exponents=(step, step + 4))
        _, got_h, got_s = qs.run_cpu(g, "step", xs.astype(ml_dtypes.bfloat16), history, s,
                                     history[:1].copy())
        history, s = ref.amax_and_scale_update(history, s, np.abs(xs).max(), "e5m2", 1)
        h.assert_bytes_equal(got_h, history, f"step {step} history")
        h.assert_bytes_equal(got_s, s, f"step {step} scale")
    assert s[0] != 1.0
    with pytest.raises(ValueError, match=r"fp8_dtype must be DType.kFloat8E4M3 or DType.kFloat8E5M2"):
        f.amax_and_scale_update(hist, scale, fp8_dtype="e2m1")
    with pytest.raises(qs.QSError, match=r"margin must be in \[-100, 100\]"):
        f.amax_and_scale_update(hist, scale, margin=101)
    with pytest.raises(qs.QSError, match=r'amax_compute_algo must be "max" or "most_recent"'):
        f.amax_and_scale_update(hist, scale, amax_compute_algo="mean")


def test_delayed_scaling_recipe_object():
    # TE's recipe.DelayedScaling: each role's FP8 format (get_fp8_te_dtype),
    # its quantizer, the state's shapes and first values, and update() as
    # the op with the recipe's settings, run on the CPU.
    import harness as h
    r = qs.DelayedScaling(margin=1, amax_history_len=8, amax_compute_algo="most_recent")
    assert r.fp8_format == qs.Format.HYBRID
    assert r.fp8_dtype(True) == qs.DType.kFloat8E4M3 and r.fp8_dtype(False) == qs.DType.kFloat8E5M2
    assert qs.DelayedScaling(fp8_format=qs.Format.E4M3).fp8_dtype(False) == qs.DType.kFloat8E4M3
    with pytest.raises(ValueError, match="pure E5M2 training is not supported"):
        qs.DelayedScaling(fp8_format=qs.Format.E5M2)
    assert str(r.quantizer(False, columnwise=False)) == \
        "#qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>"
    history, scale = r.initial_state()
    assert history.shape == (8,) and not history.any() and scale[0] == 1.0
    g = qs.Graph()
    f = g.function("step", [r.history_spec(), r.scale_spec(), qs.TensorSpec((1,), "f32")])
    f.returns(*r.update(f, *f.args, fprop_tensor=False))
    history[3], amax = 9.0, np.array([5.0], np.float32)
    got_h, got_s = qs.run_cpu(g, "step", history, scale, amax)
    want_h, want_s = ref.amax_and_scale_update(history, scale, amax, "e5m2", 1, "most_recent")
    h.assert_bytes_equal(got_h, want_h, "recipe history")
    h.assert_bytes_equal(got_s, want_s, "recipe scale")
    assert got_s[0] == np.float32(28672.0) / np.float32(5.0)
    with pytest.raises(ValueError, match=r"the history must have shape \(8,\)"):
        r.update(f, f.args[1], f.args[1])
    with pytest.raises(ValueError, match="a callable is not modelled"):
        qs.DelayedScaling(amax_compute_algo=max)
    with pytest.raises(ValueError, match="fp8_mha=True is not modelled"):
        qs.DelayedScaling(fp8_mha=True)
    with pytest.raises(ValueError, match="amax_history_len must be a positive int"):
        qs.DelayedScaling(amax_history_len=0)
    with pytest.raises(TypeError, match="fp8_format must be a Format"):
        qs.DelayedScaling(fp8_format="HYBRID")


def test_run_cpu_plain_argument_dtypes():
    # A bf16 argument takes bfloat16 or its bits as uint16, and nothing else
    # of two bytes: float16 values were read as bf16 bits (silently wrong).
    g = qs.Graph()
    f = g.function("dq", [qs.TensorSpec((32, 64), "bf16"), qs.TensorSpec((1,), "f32")])
    f.returns(f.quantize(f.args[0], qs.MXFP8Quantizer(columnwise=False)))
    x = np.linspace(-3, 3, 32 * 64, dtype=np.float32).reshape(32, 64).astype(ml_dtypes.bfloat16)
    one = np.ones(1, np.float32)
    (a,) = qs.run_cpu(g, "dq", x, one)
    (b,) = qs.run_cpu(g, "dq", x.view(np.uint16), one)
    for name in a:
        np.testing.assert_array_equal(a[name].view(np.uint8), b[name].view(np.uint8))
    with pytest.raises(TypeError, match=r"argument 0: expected bfloat16 or uint16 elements "
                                        r"\(bf16\), got float16"):
        qs.run_cpu(g, "dq", x.astype(np.float16), one)
    with pytest.raises(TypeError, match="got int16"):
        qs.run_cpu(g, "dq", x.view(np.int16), one)
    with pytest.raises(TypeError, match=r"argument 1: expected float32 elements \(f32\), "
                                        "got int32"):
        qs.run_cpu(g, "dq", x, np.ones(1, np.int32))


def test_run_cpu_quantized_arguments_and_dtypes():
    spec = qs.TensorSpec((32, 64), "bf16", qs.MXFP8Quantizer(columnwise=False))
    g = qs.Graph()
    f = g.function("dq", [spec])
    f.returns(f.dequantize(f.args[0], "bf16"))
    data = np.full((32, 64), 0x38, np.uint8)          # E4M3 1.0
    scale = np.full((128, 4), 127, np.uint8)          # 2^0
    (out,) = qs.run_cpu(g, "dq", {"rowwise_data": data, "rowwise_scale_inv": scale})
    assert out.dtype == ml_dtypes.bfloat16 and np.all(out.astype(np.float32) == 1.0)
    (out,) = qs.run_cpu(g, "dq", [data.view(ml_dtypes.float8_e4m3fn), scale])
    assert np.all(out.astype(np.float32) == 1.0)
    with pytest.raises(ValueError, match=r"expected shape \(128, 4\)"):
        qs.run_cpu(g, "dq", [data, scale[:64]])
    with pytest.raises(TypeError, match="takes 1 arguments, got 2"):
        qs.run_cpu(g, "dq", data, scale)
    with pytest.raises(TypeError, match="expected float8_e4m3fn or uint8 elements"):
        qs.run_cpu(g, "dq", [data.astype(np.float32), scale])
    # An array of another dtype of the same width is not read as bits:
    # E5M2 codes for E4M3 data, FP8 codes for the E8M0 scales, int8.
    with pytest.raises(TypeError, match=r"argument 0 \(rowwise_data of .*\): expected "
                                        "float8_e4m3fn or uint8 elements \\(f8E4M3FN\\), "
                                        "got float8_e5m2"):
        qs.run_cpu(g, "dq", [data.view(ml_dtypes.float8_e5m2), scale])
    with pytest.raises(TypeError, match="expected float8_e8m0fnu or uint8 elements"):
        qs.run_cpu(g, "dq", [data, scale.view(ml_dtypes.float8_e4m3fn)])
    with pytest.raises(TypeError, match="got int8"):
        qs.run_cpu(g, "dq", [data.view(np.int8), scale])
    with pytest.raises(KeyError, match="rowwise_scale_inv"):
        qs.run_cpu(g, "dq", {"rowwise_data": data})
    # A name the value does not have (a misspelling, another usage's
    # buffer), a sequence of another length or one array for the whole
    # value is an error, never ignored.
    with pytest.raises(KeyError, match="has no inner tensor 'rowwise_scale'; its inner "
                                       "tensors are rowwise_data, rowwise_scale_inv"):
        qs.run_cpu(g, "dq", {"rowwise_data": data, "rowwise_scale_inv": scale,
                             "rowwise_scale": scale})
    with pytest.raises(KeyError, match="has no inner tensor 'columnwise_data'"):
        qs.run_cpu(g, "dq", {"rowwise_data": data, "rowwise_scale_inv": scale,
                             "columnwise_data": data})
    with pytest.raises(ValueError, match="expected 2 inner tensors .*, got 3"):
        qs.run_cpu(g, "dq", [data, scale, scale])
    with pytest.raises(ValueError, match="expected 2 inner tensors .*, got 1"):
        qs.run_cpu(g, "dq", (data,))
    with pytest.raises(TypeError, match=r"argument 0 \(!qs.tensor<32x64xbf16, "
                                        r"#qs.mxfp8<columnwise = false>>\): expected its "
                                        r"inner tensors .* got ndarray"):
        qs.run_cpu(g, "dq", data)
    # The results of one run are the arguments of the next (an OrderedDict).
    q = qs.Graph()
    fq = q.function("q", [qs.TensorSpec((32, 64), "bf16")])
    fq.returns(fq.quantize(fq.args[0], qs.MXFP8Quantizer(columnwise=False)))
    (inner,) = qs.run_cpu(q, "q", np.ones((32, 64), ml_dtypes.bfloat16))
    (out,) = qs.run_cpu(g, "dq", inner)
    assert np.all(out.astype(np.float32) == 1.0)


def test_run_cpu_reports_missing_functions():
    g = quantize_graph((16, 32), qs.NVFP4Quantizer())
    with pytest.raises(qs.QSError, match="no function @missing"):
        qs.run_cpu(g, "missing")


def test_stochastic_rounding_takes_an_rng_state():
    # NVFP4 stochastic rounding: the rng state (seed, offset) is an int64
    # (2,) argument; the codes equal the numpy reference's (its Philox is
    # randomgen's), and quantizing without a state is an error.
    import harness as h
    shape = (32, 64)
    g = qs.Graph()
    f = g.function("quantize", [qs.TensorSpec(shape, "bf16"), qs.TensorSpec((2,), "int64")])
    f.returns(f.quantize(f.args[0], qs.NVFP4Quantizer(stochastic_rounding=True), rng=f.args[1]))
    x = h.random_input(np.random.default_rng(3), shape, "bf16", specials=False)
    state = np.array([2026, 12], np.int64)
    (inner,) = qs.run_cpu(g, "quantize", x.astype(ml_dtypes.bfloat16), state)
    with np.errstate(all="ignore"):
        expected, _ = ref.quantize(x, h.quantizer("nvfp4", stochastic_rounding=True), "bf16",
                                   rng=tuple(state))
    for name, want in expected.items():
        assert np.array_equal(np.asarray(inner[name]).view(np.uint8),
                              np.asarray(want).view(np.uint8)), name
    with pytest.raises(TypeError, match="expected int64 elements"):
        qs.run_cpu(g, "quantize", x.astype(ml_dtypes.bfloat16), state.astype(np.int32))
    bad = g.function("bad", [qs.TensorSpec(shape, "bf16")])
    with pytest.raises(qs.QSError, match=r"needs an rng\(...\) operand"):
        bad.quantize(bad.args[0], qs.NVFP4Quantizer(stochastic_rounding=True))
    other = g.function("other", [qs.TensorSpec(shape, "bf16"), qs.TensorSpec((2,), "int64")])
    with pytest.raises(qs.QSError, match=r"takes an rng\(...\) operand only"):
        other.quantize(other.args[0], qs.NVFP4Quantizer(), rng=other.args[1])
    with pytest.raises(ValueError, match="expected a bf16, f16 or f32 dtype"):
        qs.TensorSpec((2,), "int64", qs.NVFP4Quantizer())


@pytest.mark.parametrize("pipeline", qs.PIPELINES)
def test_named_pipelines(pipeline):
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    qs.run_pipeline(g, pipeline)
    text = str(g)
    assert "qs.quantize %" not in text
    if pipeline == "qs-cpu-pipeline":
        assert "llvm.func @quantize" in text


def test_pipeline_errors():
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    with pytest.raises(qs.QSError, match="'no-such-pass' does not refer to a registered pass"):
        qs.run_pipeline(g, "no-such-pass")
    with pytest.raises(qs.QSError, match="proto-level op; run qs-expand-storage"):
        qs.run_pipeline(g, "qs-flatten-storage")


@pytest.mark.parametrize("pipeline,cause", [
    ("qs-storage-pipeline{nope=1}", "no such option nope"),
    ("qs-cpu-pipeline{flatten=1}", "no such option flatten"),
    ("qs-nvptx-pipeline{chip=sm_90a sms=132}", "no such option sms"),
    ("qs-storage-pipeline{flatten=maybe}",
     "for the --flatten option: 'maybe' is invalid value for boolean argument! Try 0 or 1"),
    ("qs-nvptx-pipeline{multiprocessors=many}",
     "for the --multiprocessors option: 'many' value invalid for uint argument!"),
    ("func.func(canonicalize{max-iterations=abc})",
     "for the --max-iterations option: 'abc' value invalid for long argument!"),
    ("qs-cpu-pipeline{gpu-chip=sm_90a}",
     "qs-cpu-pipeline: gpu-chip applies to the emulated GPU kernels: add emulate-gpu-kernels"),
    ("qs-nvptx-pipeline{toolkit=/no/such/cuda}",
     "qs-nvptx-pipeline: toolkit '/no/such/cuda' holds no executable bin/ptxas"),
])
def test_pipeline_option_errors_say_why(pipeline, cause, capfd):
    # An option the pipeline does not have, or a value its type does not
    # parse, is the QSError's cause (LLVM's option parser writes the second
    # on stderr; the C API captures it), and nothing reaches stderr.
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    with pytest.raises(qs.QSError) as e:
        qs.run_pipeline(g, pipeline)
    message = str(e.value)
    assert f"invalid pass pipeline '{pipeline}': " in message
    assert cause in message and "failed to add" in message
    assert message.index(cause) < message.index("failed to add")
    assert capfd.readouterr().err == ""
    # A pipeline that parses still runs and writes nothing on stderr.
    qs.run_pipeline(g, "qs-storage-pipeline{flatten=false}")
    assert capfd.readouterr().err == ""


def test_compile_update_usage():
    # update_usage creating the FP8 transpose of a function argument (a
    # quantize in the graph would be retyped by qs-infer-usage instead)
    # compiles to its kernel; before 2026-12-04 it had none (QSError).
    g = qs.Graph()
    spec = qs.TensorSpec((256, 512), "bf16", qs.Float8CurrentScalingQuantizer(columnwise=False))
    f = g.function("f", [spec])
    f.returns(f.update_usage(f.args[0], columnwise=True))
    c = qs.compile(g)
    assert c.kernels == ["qs_update_usage"]
    # The transpose in 32-bit words: 4 x 4 byte permutes (UpdateUsageKernels.cpp).
    assert "prmt.b32" in c.ptx and "st.global.b32" in c.ptx
    data = np.arange(256 * 512, dtype=np.uint32).astype(np.uint8).reshape(256, 512)
    (inner,) = qs.run_cpu(g, "f", {"data": data, "scale_inv": np.ones(1, np.float32)})
    np.testing.assert_array_equal(inner["transpose"].view(np.uint8), data.T)


def test_compile_ptx():
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    c = qs.compile(g)
    assert c.chip == "sm_90a" and c.format == "isa"
    assert c.kernels == ["qs_quantize_init", "qs_quantize", "qs_dequantize"]
    assert ".target sm_90a" in c.ptx and "cvt.rn.satfinite.e4m3x2.f32" in c.ptx
    for kernel in c.kernels:
        assert f".entry {kernel}(" in c.ptx
    assert "gpu.binary @qs_kernels" in c.ir
    # The graph itself is not modified.
    assert "qs.quantize" in str(g)
    c100 = qs.compile(g, chip="sm_100a")
    assert ".target sm_100a" in c100.ptx
    # The default chip is the graph's.
    g100 = qs.Graph(chip="sm_100a")
    f = g100.function("q", [qs.TensorSpec((64, 128), "bf16")])
    f.returns(f.quantize(f.args[0], qs.Float8CurrentScalingQuantizer()))
    c = qs.compile(g100)
    assert c.chip == "sm_100a" and ".target sm_100a" in c.ptx
    with pytest.raises(qs.QSError, match='chip=sm_90a differs from qs.chip = "sm_100a"'):
        qs.compile(g100, chip="sm_90a")
    # A chip is a chip name: not options for the pipeline text it goes into.
    with pytest.raises(ValueError, match=r"chip must be of the form sm_<major><minor>\[a\|f\] "
                                         r"\(sm_90a, sm_100a\), got 'sm_90a format=llvm'"):
        qs.compile(g, chip="sm_90a format=llvm")
    with pytest.raises(ValueError, match="got 'hopper'"):
        qs.compile(g, chip="hopper")
    with pytest.raises(TypeError, match="chip must be a str such as 'sm_90a', got 90"):
        qs.compile(g, chip=90)
    with pytest.raises(qs.QSError, match="chip 'sm_80' is not supported"):
        qs.compile(g, chip="sm_80")


def test_compile_binary():
    import shutil, os
    if not (shutil.which("ptxas") or os.environ.get("CUDA_HOME")
            or os.access("/usr/local/cuda/bin/ptxas", os.X_OK)):
        pytest.skip("no ptxas (CUDA toolkit) on this machine: cubin/fatbin need it")
    g = quantize_graph((64, 128), qs.Float8CurrentScalingQuantizer())
    assert qs.compile(g, format="bin").binary[:4] == b"\x7fELF"
    assert qs.compile(g, format="fatbin").binary[:4] == b"\x50\xed\x55\xba"


def linear(quantizer, layout="TN", chip=None, k=128, **options):
    """Quantizes x and w [128, k] and returns TE's general_gemm(w, x, layout)."""
    g = qs.Graph(chip=chip)
    f = g.function("linear", [qs.TensorSpec((128, k), "bf16"),
                              qs.TensorSpec((128, k), "bf16")])
    qx = f.quantize(f.args[0], quantizer)
    qw = f.quantize(f.args[1], quantizer)
    f.returns(f.gemm(qw, qx, layout=layout, **options))
    return g


def linear_pair(x_quantizer, w_quantizer, k, **options):
    """Quantizes x [128, k] and w [256, k] each with its own quantizer and
    returns TE's general_gemm(w, x, "TN")."""
    g = qs.Graph()
    f = g.function("linear", [qs.TensorSpec((128, k), "bf16"),
                              qs.TensorSpec((256, k), "bf16")])
    qx, qw = f.quantize(f.args[0], x_quantizer), f.quantize(f.args[1], w_quantizer)
    f.returns(f.gemm(qw, qx, layout="TN", **options))
    return g


def test_gemm_accumulation():
    """Per-tensor FP8 on sm_90a: by default each k-tile is promoted into
    FP32 totals (fresh wgmma sums, wait_group 0, adds); fast_accumulate
    (TE's fprop) sums all of K in the tensor core and allows ping-pong;
    ping-pong without it is a diagnostic when compiling. The same results
    on the CPU either way."""
    q = qs.Float8CurrentScalingQuantizer()
    split = linear(q, k=512)
    assert "fast_accumulate" not in str(split)
    ptx = qs.compile(split).ptx
    assert "wgmma.wait_group.sync.aligned 0;" in ptx and "add.rn.f32" in ptx
    fast = linear(q, k=512, fast_accumulate=True)
    assert "transpose_b fast_accumulate" in str(fast)
    ptx = qs.compile(fast).ptx
    assert "wgmma.wait_group.sync.aligned 1;" in ptx and "add.rn.f32" not in ptx
    qs.compile(linear(q, k=512, fast_accumulate=True, schedule="pingpong"))
    with pytest.raises(qs.QSError, match=r"test_runtime.py.*\"pingpong\" .* with "
                                         r"fast_accumulate \(no registers are left"):
        qs.compile(linear(q, k=512, schedule="pingpong"))
    rng = np.random.default_rng(7)
    x, w = (rng.standard_normal((128, 512)).astype(ml_dtypes.bfloat16) for _ in range(2))
    (a,), (b,) = qs.run_cpu(split, "linear", x, w), qs.run_cpu(fast, "linear", x, w)
    np.testing.assert_array_equal(a.view(np.uint16), b.view(np.uint16))


def test_gemm_tile_widths():
    """tile_n picks the sm_90a tile width: 192 promotes two 96-column
    chunks (per-tensor FP8, and FP8 block with 128x128-block weights); a
    width the family has no kernel for is a diagnostic when compiling."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=512, tile_n=192)
    assert "qs.gemm_tile_n = 192" in str(g)
    ptx = qs.compile(g).ptx
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3") == 8
    x_block = qs.Float8BlockQuantizer(block_scaling_dim=1)
    w_block = qs.Float8BlockQuantizer(block_scaling_dim=2)
    g = qs.Graph()
    f = g.function("linear", [qs.TensorSpec((128, 512), "bf16"),
                              qs.TensorSpec((384, 512), "bf16")])
    qx, qw = f.quantize(f.args[0], x_block), f.quantize(f.args[1], w_block)
    f.returns(f.gemm(qw, qx, layout="TN", tile_n=192))
    assert "selp.f32" in qs.compile(g).ptx  # chunks straddling W's blocks
    with pytest.raises(qs.QSError, match=r"as 192 to FP8 block GEMMs whose B "
                                         r"has 128x128 blocks"):
        qs.compile(linear(x_block, k=512, tile_n=192))
    with pytest.raises(qs.QSError, match=r"qs.gemm_tile_n = 192 \(128x192 tiles"):
        qs.compile(linear(q, k=512, tile_n=192), chip="sm_100a")


def test_gemm_scale_loads():
    """scale_loads: the sm_90a FP8 block kernel with 128x128-block weights
    loads each k-tile's scales a k-tile ahead by default ("ahead": three
    loads before the k-loop and the next k-tile's three before the first
    stage wait), "in_tile" in the k-tile that uses them (none before the
    stage wait); "ahead" where the kernel cannot (1x128 weights) is a
    diagnostic when compiling. The same results on the CPU either way."""
    x_block = qs.Float8BlockQuantizer(block_scaling_dim=1)
    w_block = qs.Float8BlockQuantizer(block_scaling_dim=2)

    def block_linear(**options):
        return linear_pair(x_block, w_block, 512, **options)

    def loads_before_wait(g):
        kernel = qs.compile(g).ptx.split(".entry qs_gemm(")[1]
        return kernel.split("mbarrier.try_wait")[0].count("ld.global")

    assert 'qs.gemm_scale_loads' not in str(block_linear())
    assert loads_before_wait(block_linear()) == loads_before_wait(block_linear(scale_loads="ahead")) == 6
    in_tile = block_linear(scale_loads="in_tile")
    assert 'qs.gemm_scale_loads = "in_tile"' in str(in_tile)
    assert loads_before_wait(in_tile) == 0
    with pytest.raises(qs.QSError, match=r"qs.gemm_scale_loads = \"ahead\" \(each consumer thread"):
        qs.compile(linear(x_block, k=512, scale_loads="ahead"))
    rng = np.random.default_rng(11)
    x = rng.standard_normal((128, 512)).astype(ml_dtypes.bfloat16)
    w = rng.standard_normal((256, 512)).astype(ml_dtypes.bfloat16)
    (a,), (b,) = (qs.run_cpu(block_linear(**o), "linear", x, w)
                  for o in ({}, {"scale_loads": "in_tile"}))
    np.testing.assert_array_equal(a.view(np.uint16), b.view(np.uint16))


def test_gemm_promotion():
    """promotion: the sm_90a kernels that promote (per-tensor FP8 without
    fast_accumulate in 128-wide tiles, FP8 block with 128x128-block
    weights) promote a k-tile's partial sums while the next k-tile's
    wgmmas run by default ("overlapped": wait_group 1 before each
    promotion but a run's last); "in_tile" waits for every k-tile
    (wait_group 0 only); "overlapped" where the kernel cannot
    (fast_accumulate: nothing to promote) is a diagnostic when compiling.
    The same results on the CPU either way."""
    def linear2(x_quantizer, w_quantizer, **options):
        # One block per tile (by default a GEMM this small splits K, and a
        # unit of one k-tile overlaps nothing).
        return linear_pair(x_quantizer, w_quantizer, 1024, split_k=1, **options)

    def waits(g):
        kernel = qs.compile(g).ptx.split(".entry qs_gemm(")[1].split(".entry")[0]
        return (kernel.count("wgmma.wait_group.sync.aligned 1;"),
                kernel.count("wgmma.wait_group.sync.aligned 0;"))

    current = qs.Float8CurrentScalingQuantizer()
    x_block = qs.Float8BlockQuantizer(block_scaling_dim=1)
    w_block = qs.Float8BlockQuantizer(block_scaling_dim=2)
    cases = ((current, current, {"tile_n": 128}), (current, current, {"promotion": "overlapped"}),
             (x_block, w_block, {}))
    for qx, qw, options in cases:
        default = linear2(qx, qw, **options)
        overlapped, closing = waits(default)
        assert overlapped >= 1 and closing >= 1, options
        serial = linear2(qx, qw, **{**options, "promotion": "in_tile"})
        assert 'qs.gemm_promotion = "in_tile"' in str(serial)
        assert waits(serial)[0] == 0
    with pytest.raises(qs.QSError, match=r"qs.gemm_promotion = \"overlapped\" \(the wgmmas of a k-tile"):
        qs.compile(linear(current, k=512, fast_accumulate=True, promotion="overlapped"))
    rng = np.random.default_rng(12)
    x = rng.standard_normal((128, 1024)).astype(ml_dtypes.bfloat16)
    w = rng.standard_normal((256, 1024)).astype(ml_dtypes.bfloat16)
    for qx, qw, options in cases:
        (a,), (b,) = (qs.run_cpu(linear2(qx, qw, **{**options, **o}), "linear", x, w)
                      for o in ({}, {"promotion": "in_tile"}))
        np.testing.assert_array_equal(a.view(np.uint16), b.view(np.uint16))


def test_quantize_stores():
    """stores="direct": each thread of the MXFP8 row-wise kernel stores
    its own blocks' codes (no warp shuffles); the default ("coalesced")
    meets over shuffles. A value the dialect does not define is rejected
    at once."""
    q = qs.MXFP8Quantizer(columnwise=False)

    def quantize(**options):
        g = qs.Graph()
        f = g.function("q", [qs.TensorSpec((128, 256), "bf16")])
        f.returns(f.quantize(f.args[0], q, **options))
        return g

    assert "qs.quantize_stores" not in str(quantize())
    assert "shfl.sync.bfly" in qs.compile(quantize()).ptx
    direct = quantize(stores="direct")
    assert 'qs.quantize_stores = "direct"' in str(direct)
    assert "shfl.sync.bfly" not in qs.compile(direct).ptx
    assert "shfl.sync.bfly" in qs.compile(quantize(stores="coalesced")).ptx


def test_gemm_tma_store():
    """epilogue="tma": D leaves the kernel (sm_90a and sm_100a) through
    shared memory and TMA bulk tensor stores instead of per-thread global
    stores."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=512, epilogue="tma")
    assert 'qs.gemm_epilogue = "tma"' in str(g)
    for chip in ("sm_90a", "sm_100a"):
        ptx = qs.compile(linear(q, k=512, epilogue="tma"), chip=chip).ptx
        assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
        assert "st.global" not in ptx.split(".entry qs_gemm(")[1]


def test_gemm_persistent_sm100():
    """persistent=N on sm_100a: 256-thread blocks looping over their tiles
    with two tensor-memory accumulator buffers (512 columns for MXFP8),
    also with the TMA-store epilogue, with the fused split-K reduction
    (the epilogue warps' named barrier) and in block-scaled 128x256 tiles
    (one buffer)."""
    q = qs.MXFP8Quantizer()
    ptx = qs.compile(linear(q, k=512, persistent=148), chip="sm_100a").ptx
    assert ".maxntid 256, 1, 1" in ptx
    assert "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" in ptx
    assert "], 512;" in ptx
    ptx = qs.compile(linear(q, k=512, persistent=148, epilogue="tma"), chip="sm_100a").ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx
    ptx = qs.compile(linear(q, k=512, persistent=148, split_k=2, split_k_reduce="fused"),
                     chip="sm_100a").ptx
    assert "bar.sync 1, 128;" in ptx and "atom.acq_rel.gpu.add.u32" in ptx
    wide = qs.compile(linear(q, k=512, persistent=148, tile_n=256), chip="sm_100a")
    assert ".maxntid 256, 1, 1" in wide.ptx and "tcgen05.alloc" in wide.ptx
    assert "128x256 tiles" in wide.gemm_plans[0] and "persistent" in wide.gemm_plans[0]


def test_gemm_split_k():
    """split_k=S: the GEMM kernel stores FP32 planes and a second kernel
    (qs_gemm_split_k_reduce) sums them into D, on both chips; an S that
    does not divide the k-tiles (K = 512: 4) is a diagnostic when
    compiling."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=512, split_k=2)
    assert "qs.gemm_split_k = 2 : i64" in str(g)
    for chip in ("sm_90a", "sm_100a"):
        ptx = qs.compile(g, chip=chip).ptx
        assert ".entry qs_gemm(" in ptx and ".entry qs_gemm_split_k_reduce(" in ptx
    with pytest.raises(qs.QSError, match=r"qs.gemm_split_k = 3 must divide the GEMM's 4 "
                                         r"k-tiles"):
        qs.compile(linear(q, k=512, split_k=3))
    with pytest.raises(qs.QSError, match="'qs.gemm_split_k' must be an i64 of at least 1"):
        linear(q, k=512, split_k=0)


def test_gemm_split_k_fused():
    """split_k_reduce="fused": no second kernel; the GEMM kernel's module
    holds the tiles' counters and its last units sum the planes (both
    chips); the plan says so."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=512, split_k=2, split_k_reduce="fused")
    assert 'qs.gemm_split_k_reduce = "fused"' in str(g)
    for chip in ("sm_90a", "sm_100a"):
        compiled = qs.compile(g, chip=chip)
        assert "split_k_reduce" not in compiled.ptx
        assert "qs_gemm_split_k_counters" in compiled.ptx
        assert "atom.acq_rel.gpu.add.u32" in compiled.ptx
        assert compiled.gemm_plans[0].endswith("each tile's last unit sums its planes")


def test_gemm_stream_k():
    """split_k="stream": stream-K on the persistent sm_90a kernel. One
    128x128 tile of 4 k-tiles goes to 4 blocks (at most one per k-tile),
    one k-tile each; the last to finish sums the four planes (counters and
    the arrival as with the fused split-K, no second kernel). On sm_100a
    the persistent tcgen05 kernel, whose epilogue warps arrive on their
    own named barrier. The ping-pong schedule is a diagnostic when
    compiling."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=512, split_k="stream")
    assert 'qs.gemm_split_k = "stream"' in str(g)
    compiled = qs.compile(g)
    assert "split_k_reduce" not in compiled.ptx
    assert "atom.acq_rel.gpu.add.u32" in compiled.ptx
    assert compiled.gemm_plans[0].endswith(
        "persistent; 4 blocks of 384 threads, 196720 bytes of shared memory; stream-K: "
        "the last 1 tiles' 4 k-tiles shared by the blocks (1 each, up to 4 per tile), "
        "then 0 whole tiles each; each shared tile's last block sums its planes")
    blackwell = qs.compile(g, chip="sm_100a")
    assert "tcgen05.mma" in blackwell.ptx and "bar.sync 1, 128;" in blackwell.ptx
    assert blackwell.gemm_plans[0].endswith(
        "persistent; 4 blocks of 256 threads, 196768 bytes of shared memory; stream-K: "
        "the last 1 tiles' 4 k-tiles shared by the blocks (1 each, up to 4 per tile), "
        "then 0 whole tiles each; each shared tile's last block sums its planes")
    with pytest.raises(qs.QSError, match=r"exists for the sm_90a kernels with the "
                                         r"cooperative schedule"):
        qs.compile(linear(q, k=512, split_k="stream", schedule="pingpong",
                          fast_accumulate=True))


def test_gemm_split_k_auto():
    """split_k="auto": the kernels' cost model picks S. A one-tile GEMM
    with 32 k-tiles splits (both chips); one with 4 k-tiles does not (the
    reduction's launch would cost more than it saves)."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=4096, split_k="auto")
    assert 'qs.gemm_split_k = "auto"' in str(g)
    for chip in ("sm_90a", "sm_100a"):
        assert ".entry qs_gemm_split_k_reduce(" in qs.compile(g, chip=chip).ptx
    compiled = qs.compile(linear(q, k=512, split_k="auto"))
    assert ".entry qs_gemm(" in compiled.ptx and "split_k_reduce" not in compiled.ptx
    # Compiled.gemm_plans: what each GEMM got (report-gemm-plans).
    assert compiled.gemm_plans == [
        'sm_90a wgmma kernel, 128x128 tiles (1 x 1), 6-stage ring, 4 k-tiles of 128 '
        '(split-K "auto": none, model 4.9 us), FP32 promotion per 128 of K; 1 block of 384 '
        'threads, '
        '196704 bytes of shared memory']
    plans = qs.compile(g, chip="sm_100a").gemm_plans
    assert len(plans) == 1 and 'in 16 splits of 2 (split-K "auto", model ' in plans[0], plans


def test_gemm_split_k_default():
    """Without split_k, an sm_90a GEMM whose tiles leave multiprocessors
    idle splits K where the cost model gains more than 10% (one tile of 32
    k-tiles: 16 splits), not with 4 k-tiles, not on sm_100a (unmeasured),
    not with split_k=1 (test_gemm.py checks split results against the
    reference)."""
    q = qs.Float8CurrentScalingQuantizer()
    plans = qs.compile(linear(q, k=4096)).gemm_plans
    assert len(plans) == 1 and "32 k-tiles of 128 in 16 splits of 2 (split-K by default, model " in plans[0], plans
    assert "then qs_gemm_split_k_reduce" in plans[0]
    for g, chip in ((linear(q, k=512), None), (linear(q, k=4096), "sm_100a"),
                    (linear(q, k=4096, split_k=1), None)):
        plan = qs.compile(g, chip=chip).gemm_plans[0]
        assert "splits of" not in plan and "split-K" not in plan, plan


def test_compile_multiprocessors():
    """multiprocessors=: the GEMM plans fill the target GPU's
    multiprocessors (default 132 on sm_90a): ping-pong's persistent grid,
    split-K "auto"'s waves."""
    q = qs.Float8CurrentScalingQuantizer()
    g = linear(q, k=4096, fast_accumulate=True, schedule="pingpong")
    assert "1 block of 384 threads" in qs.compile(g).gemm_plans[0]
    g = linear(q, k=4096, split_k="auto")
    assert "in 16 splits of 2" in qs.compile(g).gemm_plans[0]
    assert "in 8 splits of 4" in qs.compile(g, multiprocessors=8).gemm_plans[0]
    with pytest.raises(ValueError, match="multiprocessors must be at least 1, got 0"):
        qs.compile(g, multiprocessors=0)
    with pytest.raises(TypeError, match="multiprocessors must be an int, got '114'"):
        qs.compile(g, multiprocessors="114")


def test_compile_errors():
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    with pytest.raises(qs.QSError, match="chip 'sm_80' is not supported; the kernels target sm_90a"):
        qs.compile(g, chip="sm_80")
    with pytest.raises(ValueError, match="format must be isa, bin or fatbin"):
        qs.compile(g, format="cubin")
    # What the GEMM kernels cannot run (K = 136: TMA rows are 16-byte
    # multiples) points at the Python line that built it.
    with pytest.raises(qs.QSError, match=r"test_runtime.py.*'qs.gemm_buffers' op GEMM kernels "
                                         r"need K \(here 136\) to be a multiple of 16"):
        qs.compile(linear(qs.Float8CurrentScalingQuantizer(), k=136))
    # MXFP8 fprop and dgrad on Hopper (which TE does not offer) compile:
    # the fprop's K-major operands converted to bf16 by both consumer
    # warpgroups (named barrier 1) for bf16 wgmma, or with mx_scaling =
    # "promote" FP8 wgmma promoted per 32-block; the dgrad's MN-major w is
    # converted too (4-byte loads regrouped along K by prmt) or, promoted,
    # copied transposed for FP8 wgmma by both consumers.
    compiled = qs.compile(linear(qs.MXFP8Quantizer()))
    assert "qs_gemm" in compiled.kernels
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in compiled.ptx
    assert "cvt.rn.bf16x2.f32" in compiled.ptx and "bar.sync 1, 256;" in compiled.ptx
    assert "e4m3.e4m3" not in compiled.ptx
    promoted = linear(qs.MXFP8Quantizer(), mx_scaling="promote")
    assert 'qs.gemm_mx_scaling = "promote"' in str(promoted)
    compiled = qs.compile(promoted)
    assert "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3" in compiled.ptx
    assert "bar.sync 1, 256;" not in compiled.ptx
    compiled = qs.compile(linear(qs.MXFP8Quantizer(), layout="NN"))
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in compiled.ptx
    assert "prmt.b32" in compiled.ptx and "e4m3.e4m3" not in compiled.ptx
    compiled = qs.compile(linear(qs.MXFP8Quantizer(), layout="NN", mx_scaling="promote"))
    assert "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3" in compiled.ptx
    assert "bar.sync 1, 256;" in compiled.ptx
    # mx_scaling = "dequantize": the pre-pass kernels (one per operand),
    # then bf16 wgmma on their outputs with no conversion in the GEMM.
    compiled = qs.compile(linear(qs.MXFP8Quantizer(), layout="NN", mx_scaling="dequantize"))
    assert {"qs_gemm", "qs_gemm_dequantize", "qs_gemm_dequantize_0"} <= set(compiled.kernels)
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in compiled.ptx
    assert "prmt.b32" not in compiled.ptx and "st.global.b16" in compiled.ptx


def test_compile_blackwell_gemm():
    """A Graph for sm_100a compiles fprops of every family to the tcgen05
    kernel; FP8 block scaling without power-of-two scales is a diagnostic
    at the Python line."""
    def blackwell(quantizer):
        return linear(quantizer, chip="sm_100a", k=256)
    compiled = qs.compile(blackwell(qs.NVFP4Quantizer()))
    assert compiled.chip == "sm_100a"
    assert "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X" in compiled.ptx
    assert "tcgen05.cp.cta_group::1.32x128b.warpx4" in compiled.ptx
    compiled = qs.compile(blackwell(qs.MXFP8Quantizer()))
    assert "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X" in compiled.ptx
    compiled = qs.compile(blackwell(qs.Float8CurrentScalingQuantizer()))
    assert "tcgen05.mma.cta_group::1.kind::f8f6f4" in compiled.ptx
    compiled = qs.compile(blackwell(qs.Float8BlockQuantizer(block_scaling_dim=1)))
    assert "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X" in compiled.ptx
    with pytest.raises(qs.QSError, match=r"test_runtime.py.*FP8 block GEMMs run as MXFP8 .* "
                                         r"exact only for power-of-two scales"):
        qs.compile(blackwell(qs.Float8BlockQuantizer(block_scaling_dim=1,
                                                     force_pow_2_scales=False)))


def test_run_cuda():
    found, text = qs.cuda_device()
    g = quantize_graph((64, 128), qs.MXFP8Quantizer())
    x = np.linspace(-3, 3, 64 * 128, dtype=np.float32).reshape(64, 128).astype(ml_dtypes.bfloat16)
    if not found:
        assert "no CUDA device" in text or "compute capability" in text
        with pytest.raises(qs.QSError, match="no CUDA device|compute capability"):
            qs.run_cuda(g, "quantize", x)
        return
    gpu = qs.run_cuda(g, "quantize", x)
    cpu = qs.run_cpu(g, "quantize", x)
    for name in cpu[0]:
        np.testing.assert_array_equal(gpu[0][name].view(np.uint8), cpu[0][name].view(np.uint8))
    np.testing.assert_array_equal(gpu[1].view(np.uint32), cpu[1].view(np.uint32))


def test_run_cuda_host_side_with_a_stand_in_driver():
    """qs.run_cuda end to end except the kernels, with the stand-in
    libcuda.so.1 of test/Device/FakeCUDA (its launches are logged)."""
    import os, subprocess, sys
    fake = os.environ.get("QS_FAKE_CUDA")
    if not fake or not os.path.exists(os.path.join(fake, "libcuda.so.1")):
        pytest.skip("QS_FAKE_CUDA (the stand-in libcuda.so.1, built with the tests) not set")
    code = """
import numpy as np, quant_storage as qs
print(qs.cuda_device())
g = qs.Graph()
f = g.function("q", [qs.TensorSpec((64, 128), "bf16")])
f.returns(f.quantize(f.args[0], qs.MXFP8Quantizer()))
inner, = qs.run_cuda(g, "q", np.zeros((64, 128), np.uint16))
print(list(inner))
"""
    env = dict(os.environ, LD_LIBRARY_PATH=fake,
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "(True, 'Fake CUDA device (sm_90a)')" in proc.stdout
    assert "['rowwise_data', 'rowwise_scale_inv', 'columnwise_data', 'columnwise_scale_inv']" in proc.stdout
    assert "fake-cuda: launch qs_quantize grid 2 block 128" in proc.stderr
