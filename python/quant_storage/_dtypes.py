"""Element types: names, MLIR types, and the NumPy dtypes of buffers."""

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    ml_dtypes = None

_NOMINAL = {
    "bf16": "bf16", "bfloat16": "bf16",
    "f16": "f16", "float16": "f16", "half": "f16",
    "f32": "f32", "float32": "f32", "float": "f32",
}


def nominal(dtype):
    """The MLIR name of a high-precision dtype given as a string, a NumPy
    dtype or ml_dtypes.bfloat16."""
    if isinstance(dtype, str) and dtype in _NOMINAL:
        return _NOMINAL[dtype]
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    if name in _NOMINAL:
        return _NOMINAL[name]
    name = getattr(dtype, "__name__", name)
    if name in _NOMINAL:
        return _NOMINAL[name]
    raise ValueError(f"expected a bf16, f16 or f32 dtype, got {dtype!r}")


def storage_dtype(element):
    """The NumPy dtype of a buffer as TE allocates it (torch dtype
    equivalent): FP8/E8M0/E4M3 and packed FP4 bytes are uint8."""
    return {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
            "bf16": np.dtype(ml_dtypes.bfloat16) if ml_dtypes else np.dtype(np.uint16),
            "f64": np.dtype(np.float64), "i32": np.dtype(np.int32),
            "i64": np.dtype(np.int64), "i16": np.dtype(np.int16),
            "i1": np.dtype(np.bool_)}.get(element, np.dtype(np.uint8))


def view_dtype(element):
    """The NumPy dtype run_cpu returns for an element type: ml_dtypes views
    for bf16 and the FP8/E8M0 formats, uint8 for packed FP4."""
    if ml_dtypes is not None:
        special = {"bf16": ml_dtypes.bfloat16, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
                   "f8E5M2": ml_dtypes.float8_e5m2, "f8E8M0FNU": ml_dtypes.float8_e8m0fnu}
        if element in special:
            return np.dtype(special[element])
    return storage_dtype(element)
