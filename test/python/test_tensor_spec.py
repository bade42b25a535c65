"""TensorSpec answers: the rows of te-formats.md §7.5, random N-D shapes
against the spec's formulas (written out here), both chips, usage updates,
storage metadata, plain specs and bad shapes."""

import math

import numpy as np
import pytest

import quant_storage as qs

U8, F32 = np.dtype(np.uint8), np.dtype(np.float32)


def rows(spec):
    return [(name, shape, dtype) for name, (shape, dtype) in spec.inner_tensor_specs().items()]


SECTION_7_5 = [
    # (quantizer, shape, chip, expected [(name, shape, dtype)])
    (qs.Float8CurrentScalingQuantizer(), (4, 8), "sm_90a",
     [("data", (4, 8), U8), ("transpose", (8, 4), U8), ("scale_inv", (1,), F32)]),
    (qs.Float8CurrentScalingQuantizer(), (4, 8), "sm_100a",
     [("data", (4, 8), U8), ("scale_inv", (1,), F32)]),
    (qs.MXFP8Quantizer(), (64, 128), "sm_90a",
     [("rowwise_data", (64, 128), U8), ("rowwise_scale_inv", (128, 4), U8),
      ("columnwise_data", (64, 128), U8), ("columnwise_scale_inv", (4, 128), U8)]),
    (qs.Float8BlockQuantizer(), (128, 256), "sm_90a",
     [("rowwise_data", (128, 256), U8), ("rowwise_scale_inv", (1, 4), F32),
      ("columnwise_data", (256, 128), U8), ("columnwise_scale_inv", (2, 4), F32)]),
    (qs.Float8BlockQuantizer(block_scaling_dim=1), (128, 256), "sm_90a",
     [("rowwise_data", (128, 256), U8), ("rowwise_scale_inv", (2, 128), F32),
      ("columnwise_data", (256, 128), U8), ("columnwise_scale_inv", (1, 256), F32)]),
    (qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True), (64, 128), "sm_90a",
     [("rowwise_data", (64, 64), U8), ("rowwise_scale_inv", (128, 8), U8),
      ("columnwise_data", (128, 32), U8), ("columnwise_scale_inv", (128, 4), U8),
      ("amax_rowwise", (1,), F32), ("amax_columnwise", (1,), F32)]),
    (qs.MXFP8Quantizer(), (2, 64, 256), "sm_90a",
     [("rowwise_data", (2, 64, 256), U8), ("rowwise_scale_inv", (128, 8), U8),
      ("columnwise_data", (2, 64, 256), U8), ("columnwise_scale_inv", (4, 256), U8)]),
    (qs.Float8BlockQuantizer(block_scaling_dim=1), (2, 64, 256), "sm_90a",
     [("rowwise_data", (2, 64, 256), U8), ("rowwise_scale_inv", (2, 128), F32),
      ("columnwise_data", (256, 2, 64), U8), ("columnwise_scale_inv", (1, 256), F32)]),
    (qs.NVFP4Quantizer(), (2, 64, 256), "sm_90a",
     [("rowwise_data", (2, 64, 128), U8), ("rowwise_scale_inv", (128, 16), U8),
      ("columnwise_data", (256, 64), U8), ("columnwise_scale_inv", (256, 8), U8),
      ("amax_rowwise", (1,), F32), ("amax_columnwise", (1,), F32)]),
]


@pytest.mark.parametrize("quantizer,shape,chip,expected", SECTION_7_5)
def test_section_7_5(quantizer, shape, chip, expected):
    spec = qs.TensorSpec(shape, "bf16", quantizer, chip=chip)
    assert rows(spec) == expected
    assert spec.inner_names() == tuple(name for name, _, _ in expected)


def cdiv(a, b):
    return -(-a // b)


def up(a, b):
    return cdiv(a, b) * b


def expected_rows(family, q, shape):
    """te-formats.md §2.b-§5.b, written out independently of the compiler."""
    m, k = math.prod(shape[:-1]), shape[-1]
    t = (k,) + tuple(shape[:-1])
    r, c = q.rowwise_usage, q.columnwise_usage
    out = []
    if family == "fp8":
        if r:
            out.append(("data", shape, U8))
        if c:
            out.append(("transpose", t, U8))
        return out + [("scale_inv", (1,), F32)]
    if family == "mxfp8":
        if r:
            out += [("rowwise_data", shape, U8), ("rowwise_scale_inv", (up(m, 128), up(k // 32, 4)), U8)]
        if c:
            out += [("columnwise_data", shape, U8),
                    ("columnwise_scale_inv", (up(m // 32, 4), up(k, 128)), U8)]
        return out
    if family == "block1":
        if r:
            out += [("rowwise_data", shape, U8), ("rowwise_scale_inv", (cdiv(k, 128), up(m, 4)), F32)]
        if c:
            out += [("columnwise_data", t, U8), ("columnwise_scale_inv", (cdiv(m, 128), up(k, 4)), F32)]
        return out
    if family == "block2":
        if r:
            out += [("rowwise_data", shape, U8),
                    ("rowwise_scale_inv", (cdiv(m, 128), up(cdiv(k, 128), 4)), F32)]
        if c:
            out += [("columnwise_data", t, U8),
                    ("columnwise_scale_inv", (cdiv(k, 128), up(cdiv(m, 128), 4)), F32)]
        return out
    if r:
        out += [("rowwise_data", tuple(shape[:-1]) + (k // 2,), U8),
                ("rowwise_scale_inv", (up(m, 128), up(k // 16, 4)), U8)]
    if c:
        out += [("columnwise_data", (k, m // 2), U8),
                ("columnwise_scale_inv", (up(k, 128), up(m // 16, 4)), U8)]
    if r:
        out.append(("amax_rowwise", (1,), F32))
    if c:
        out.append(("amax_columnwise", (1,), F32))
    return out


@pytest.mark.parametrize("trial", range(40))
def test_random_nd_shapes(trial):
    rng = np.random.default_rng(trial)
    family = ["fp8", "mxfp8", "block1", "block2", "nvfp4"][trial % 5]
    rank = int(rng.integers(1, 5))
    unit = {"mxfp8": 32, "nvfp4": 16}.get(family, 1)
    shape = [int(rng.integers(1, 5)) * (unit if i >= rank - 2 else 1) for i in range(rank)]
    if rank == 1 and unit > 1:
        shape = [unit, unit * int(rng.integers(1, 4))]
    shape = tuple(shape)
    usage = [dict(), dict(columnwise=False), dict(rowwise=False)][trial % 3]
    q = {"fp8": lambda: qs.Float8CurrentScalingQuantizer(**usage),
         "mxfp8": lambda: qs.MXFP8Quantizer(**usage),
         "block1": lambda: qs.Float8BlockQuantizer(block_scaling_dim=1, **usage),
         "block2": lambda: qs.Float8BlockQuantizer(**usage),
         "nvfp4": lambda: qs.NVFP4Quantizer(**usage)}[family]()
    spec = qs.TensorSpec(shape, "f32", q)
    assert rows(spec) == expected_rows(family, q, shape), (family, shape, usage)


def test_update_usage_is_private_to_the_spec():
    q = qs.MXFP8Quantizer()
    spec = qs.TensorSpec((64, 128), "bf16", q)
    spec.update_usage(columnwise_usage=False)
    assert spec.inner_names() == ("rowwise_data", "rowwise_scale_inv")
    assert q.columnwise_usage  # the caller's quantizer is untouched
    spec.update_usage(rowwise_usage=False, columnwise_usage=True)
    assert spec.inner_names() == ("columnwise_data", "columnwise_scale_inv")


def test_storage_metadata():
    meta = qs.TensorSpec((64, 128), "bf16", qs.MXFP8Quantizer(optimize_for_gemm=True)).storage_metadata()
    assert meta["cls"] == "MXFP8TensorStorage"
    kw = meta["nontensor_kwargs"]
    assert kw["fp8_dtype"] == "f8E4M3FN" and kw["fake_dtype"] == "bf16"
    assert kw["with_gemm_swizzled_scales"] is True
    assert kw["quantizer"] == qs.MXFP8Quantizer(optimize_for_gemm=True)
    meta = qs.TensorSpec((128, 128), "f32", qs.Float8BlockQuantizer()).storage_metadata()
    assert meta["cls"] == "Float8BlockwiseQTensorStorage"
    assert meta["nontensor_kwargs"]["is_2D_scaled"] is True
    meta = qs.TensorSpec((64, 128), "f16", qs.NVFP4Quantizer()).storage_metadata()
    assert meta["nontensor_kwargs"]["fp4_dtype"] == "f4E2M1FN"
    assert meta["nontensor_kwargs"]["nvfp4_e4m3_max"] == 448
    assert meta["nontensor_kwargs"]["nvfp4_use_4over6"] is False
    four = qs.NVFP4Quantizer(nvfp4_use_4over6=True, nvfp4_e4m3_max=256)
    kw = qs.TensorSpec((64, 128), "bf16", four).storage_metadata()["nontensor_kwargs"]
    assert (kw["nvfp4_use_4over6"], kw["nvfp4_e4m3_max"]) == (True, 256)


def test_plain_spec():
    spec = qs.TensorSpec((3, 5), np.float32)
    assert not spec.is_quantized
    assert spec.inner_names() == ("data",)
    assert spec.inner_tensor_specs() == {"data": ((3, 5), np.dtype(np.float32))}
    with pytest.raises(RuntimeError):
        spec.update_usage(rowwise_usage=False)
    assert qs.TensorSpec((2,), "bfloat16").dtype == "bf16"


def test_bad_specs():
    with pytest.raises(qs.QSError, match="MXFP8 needs the last dimension K to be a multiple of 32, got K = 100"):
        qs.TensorSpec((64, 100), "bf16", qs.MXFP8Quantizer()).inner_names()
    with pytest.raises(qs.QSError, match="NVFP4 with_rht requires a bf16 nominal element type"):
        qs.TensorSpec((64, 128), "f32", qs.NVFP4Quantizer(with_rht=True, with_post_rht_amax=True)).inner_names()
    with pytest.raises(ValueError, match="expected a bf16, f16 or f32 dtype"):
        qs.TensorSpec((4,), np.int8)
    with pytest.raises(ValueError, match=r"chip must be of the form sm_<major><minor>\[a\|f\] "
                                         r"\(sm_90a, sm_100a\), got 'gfx942'"):
        qs.TensorSpec((32, 32), "bf16", qs.MXFP8Quantizer(), chip="gfx942")
    with pytest.raises(TypeError, match="chip must be a str such as 'sm_90a', got None"):
        qs.TensorSpec((32, 32), "bf16", qs.MXFP8Quantizer(), chip=None)
    with pytest.raises(ValueError, match='got \'sm_90a"\''):
        qs.Graph(chip='sm_90a"')
    with pytest.raises(ValueError, match="invalid chip 'gfx942'"):
        qs.TensorSpec((32, 32), "bf16", qs.MXFP8Quantizer()).mlir_type().inner_tensors("gfx942")
    with pytest.raises(TypeError):
        qs.TensorSpec((4, 8), "bf16", "mxfp8")
