"""Helpers shared by the numerics tests: quantizer descriptions with TE's
defaults, their attribute text, and running functions through qs-run."""

import os
import subprocess
import tempfile

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QS_RUN = os.environ.get("QS_RUN", os.path.join(ROOT, "build", "bin", "qs-run"))

# Which numerics run: "reference" (convert-qs-to-linalg on the CPU),
# "gpu-emulated" (the GPU kernels of convert-qs-to-gpu run on the CPU) or
# "cuda" (the GPU kernels on a CUDA device). The same expected bytes apply.
KERNELS = os.environ.get("QS_KERNELS", "reference")
# QS_RUNTIME_CHECKS=1 (CPU runs only): qs-run --runtime-checks, every memref
# access of the compiled code bounds-checked (an access outside its buffer
# aborts the run with the op and its location instead of corrupting memory).
RUNTIME_CHECKS = os.environ.get("QS_RUNTIME_CHECKS", "") not in ("", "0") and KERNELS != "cuda"
# QS_JIT_OPT_LEVEL=N (CPU runs only): qs-run --jit-opt-level=N, LLVM's
# optimization level for the JIT (default 2). 0 compiles fastest: the
# emulated GEMM suites, whose large kernels run once on small problems,
# take about a third less time; results do not change.
JIT_OPT_LEVEL = os.environ.get("QS_JIT_OPT_LEVEL", "") if KERNELS != "cuda" else ""
_KERNEL_ARGS = {"reference": [], "gpu-emulated": ["--kernels=gpu-emulated"],
                "cuda": ["--device=cuda"]}


DEFAULTS = {
    "fp8_delayed": {"fp8_dtype": "f8E4M3FN", "rowwise": True, "columnwise": True},
    "fp8_current": {"fp8_dtype": "f8E4M3FN", "rowwise": True, "columnwise": True,
                    "force_pow_2_scales": False, "amax_epsilon": 0.0},
    "mxfp8": {"fp8_dtype": "f8E4M3FN", "rowwise": True, "columnwise": True,
              "with_2d_quantization": False, "optimize_for_gemm": False},
    "fp8_block": {"fp8_dtype": "f8E4M3FN", "rowwise": True, "columnwise": True,
                  "block_scaling_dim": 2, "force_pow_2_scales": True, "amax_epsilon": 0.0},
    "nvfp4": {"rowwise": True, "columnwise": True, "with_rht": False,
              "with_post_rht_amax": False, "with_2d_quantization": False,
              "stochastic_rounding": False, "row_scaled_nvfp4": False,
              "optimize_for_gemm": False, "with_random_sign_mask": True,
              "nvfp4_use_4over6": False, "nvfp4_e4m3_max": 448,
              "nvfp4_4over6_err_mode": "MAE"},
}


# Parameters written as string literals (others, e.g. fp8_dtype, are types).
STRING_PARAMS = {"nvfp4_4over6_err_mode"}


def quantizer(family, **params):
    q = dict(DEFAULTS[family])
    q.update(params)
    if q.get("with_rht"):
        q["with_post_rht_amax"] = True
    q["family"] = family
    return q


def attr(q):
    """The #qs.<family><...> text of a quantizer description."""
    family = q["family"]
    items = []
    for key, default in DEFAULTS[family].items():
        value = q[key]
        if value == default:
            continue
        if isinstance(value, bool):
            items.append(f"{key} = {'true' if value else 'false'}")
        elif key in STRING_PARAMS:
            items.append(f'{key} = "{value}"')
        elif isinstance(value, float):
            items.append(f"{key} = {value!r}" if "e" in repr(value) or "." in repr(value)
                         else f"{key} = {value}.0")
        else:
            items.append(f"{key} = {value}")
    return f"#qs.{family}<{', '.join(items)}>"


def qtype(shape, nominal, q):
    return f"!qs.tensor<{'x'.join(map(str, shape))}x{nominal}, {attr(q)}>"


def ttype(shape, element):
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


NUMPY_IN = {"bf16": (ml_dtypes.bfloat16, np.uint16), "f16": (np.float16, np.float16),
            "f32": (np.float32, np.float32)}


def to_npy(x, element):
    """f32 values -> the .npy array qs-run takes for `element`."""
    dtype, view = NUMPY_IN[element]
    return np.ascontiguousarray(np.asarray(x, dtype=np.float32).astype(dtype).view(view))


def from_npy(a, element):
    """A qs-run output for `element` -> f32 values."""
    if element == "bf16":
        return a.view(ml_dtypes.bfloat16).astype(np.float32)
    return a.astype(np.float32)


class QSRunError(Exception):
    pass


def run(module, function, inputs, num_outputs, extra_args=()):
    """Runs `function` of `module` (text) with qs-run; returns the outputs."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "module.mlir")
        with open(path, "w") as f:
            f.write(module)
        args = [QS_RUN, path, f"--function={function}", *_KERNEL_ARGS[KERNELS], *extra_args]
        on_cpu = "--device=cuda" not in extra_args
        if RUNTIME_CHECKS and on_cpu:
            args.append("--runtime-checks")
        if JIT_OPT_LEVEL and on_cpu:
            args.append(f"--jit-opt-level={JIT_OPT_LEVEL}")
        for i, x in enumerate(inputs):
            p = os.path.join(tmp, f"in{i}.npy")
            np.save(p, x)
            args.append(f"--input=@{p}")
        outs = [os.path.join(tmp, f"out{i}.npy") for i in range(num_outputs)]
        args += [f"--output=@{p}" for p in outs]
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired as e:
            raise QSRunError(f"qs-run did not finish in {e.timeout} s:\n{module}") from None
        if proc.returncode != 0:
            raise QSRunError(f"qs-run failed ({proc.returncode}):\n{proc.stderr}\n{module}")
        return [np.load(p) for p in outs]


def random_input(rng, shape, nominal, specials=True, exponents=(-12, 12)):
    """Random f32 values exactly representable in `nominal`: normal values whose
    magnitude varies per 16x16 region (so blocks get different scales), plus
    zeros, denormals, huge values, +-inf and NaN when `specials`."""
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    rows, cols = flat.shape
    exps = rng.integers(exponents[0], exponents[1], size=(-(-rows // 16), -(-cols // 16)))
    flat *= np.exp2(np.repeat(np.repeat(exps, 16, 0), 16, 1)[:rows, :cols]).astype(np.float32)
    if specials:
        n = flat.size
        idx = rng.choice(n, size=max(1, n // 50), replace=False)
        tiny = {"bf16": 1e-39, "f16": 3e-6, "f32": 1e-42}[nominal]
        huge = {"bf16": 3e38, "f16": 60000.0, "f32": 3e38}[nominal]
        choices = np.array([0.0, -0.0, tiny, -tiny, huge, -huge, np.inf, -np.inf, np.nan],
                           dtype=np.float32)
        flat.reshape(-1)[idx] = rng.choice(choices, size=idx.size)
        # An all-zero region and a region of denormals only (scales that
        # overflow to inf), if the tensor is big enough.
        if rows >= 32 and cols >= 32:
            flat[:32, :32] = 0.0
        if rows >= 64 and cols >= 32:
            flat[32:48, :] = np.float32(tiny) * rng.choice([-3, -1, 1, 2], size=(16, cols))
    dtype = NUMPY_IN[nominal][0]
    return x.astype(dtype).astype(np.float32)


def assert_bytes_equal(actual, expected, what, seed_note=""):
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    a = actual.view(np.uint8) if actual.dtype.itemsize == 1 else actual
    e = expected.astype(actual.dtype).view(np.uint8) if expected.dtype.itemsize == 1 else expected
    if a.dtype.kind == "f":
        same = (a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)
                == np.asarray(e, dtype=a.dtype).view(np.uint32 if a.dtype.itemsize == 4 else np.uint16))
    else:
        same = a == e.astype(a.dtype)
    if not same.all():
        bad = np.argwhere(~same)
        first = tuple(bad[0])
        raise AssertionError(f"{what}: {len(bad)} of {same.size} elements differ; first at "
                             f"{first}: got {a[first]!r}, expected {e[first]!r}")


def assert_floats_equal(actual, expected, what):
    """Bit-equal floats, with every NaN equal to every NaN."""
    actual = np.asarray(actual, dtype=np.float32)
    expected = np.asarray(expected, dtype=np.float32)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    nan_a, nan_e = np.isnan(actual), np.isnan(expected)
    same = (actual.view(np.uint32) == expected.view(np.uint32)) | (nan_a & nan_e)
    if not same.all():
        bad = np.argwhere(~same)
        first = tuple(bad[0])
        raise AssertionError(f"{what}: {len(bad)} of {same.size} values differ; first at {first}: "
                             f"got {actual[first]!r}, expected {expected[first]!r}")


def npy_inputs(buffers):
    """Reference inner tensors -> the arrays qs-run takes, in order."""
    return [np.ascontiguousarray(b) for b in buffers.values()]


# E4M3 block scale codes that code_sweep's NVFP4 blocks cycle through: 1.0,
# 448, the least subnormal, zero, NaN, 2, the least normal (2^-6), 0.5.
SWEEP_SCALE_CODES = np.array([0x38, 0x7E, 0x01, 0x00, 0x7F, 0x40, 0x08, 0x30], np.uint8)


def code_sweep(family, shape, factor, **params):
    """(quantizer, row-wise inner tensors) whose codes are the bytes 0..255
    in turn (FP8: a code per element; NVFP4: two), for dequantize: every
    FP8 code (NaN and, for E5M2, infinities included) and every E2M1 code
    at every position of a word. FP8's scale_inv and NVFP4's global amax
    are `factor`; NVFP4's block scales cycle through SWEEP_SCALE_CODES."""
    import qs_reference as ref
    q = quantizer(family, columnwise=False, **params)
    x = random_input(np.random.default_rng(0), shape, "bf16")
    with np.errstate(all="ignore"):
        buffers, _ = ref.quantize(x, q, "bf16", scale=np.float32(3.0), amax_state=np.float32(0))
    key = "rowwise_data" if "rowwise_data" in buffers else "data"
    data = buffers[key]
    buffers[key] = np.resize(np.arange(256, dtype=np.uint8), data.shape).astype(data.dtype)
    if family == "nvfp4":
        buffers["amax_rowwise"] = np.full_like(buffers["amax_rowwise"], factor)
        scales = buffers["rowwise_scale_inv"]
        buffers["rowwise_scale_inv"] = np.resize(SWEEP_SCALE_CODES, scales.shape)
    else:
        buffers["scale_inv"] = np.full_like(buffers["scale_inv"], factor)
    return q, buffers
