"""TensorSpec: TE's data-free prototype of a (quantized) tensor, answered by
the qs dialect's QuantizerAttrInterface (TE's C++ allocation is the ground
truth, te-formats.md §7 and §9.1)."""

import operator

import numpy as np

from ._context import check_chip, default_context
from ._dtypes import nominal, storage_dtype
from .quantizers import Quantizer


def _shape(shape):
    """A tuple of Python ints; TypeError for anything that is not a sequence
    of integers (3.5 or "64" are not silently truncated or parsed)."""
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise TypeError(f"shape must be a sequence of integers, got {shape!r}")
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be a sequence of integers, got {shape!r}") from None


def _is_int64(dtype):
    if isinstance(dtype, str):
        return dtype in ("int64", "i64")
    try:
        return np.dtype(dtype) == np.int64
    except TypeError:
        return False


class TensorSpec:
    """TensorSpec(shape, dtype, quantizer=None, requires_grad=False,
    device=None, chip="sm_90a").

    As in TE, the quantizer is copied: the spec's usage flags are private.
    `chip` selects TE's TN-only rule (per-tensor FP8 keeps a transpose on
    TN-only GPUs such as sm_90a)."""

    def __init__(self, shape, dtype, quantizer=None, requires_grad=False, device=None,
                 chip="sm_90a", context=None):
        self.shape = _shape(shape)
        if quantizer is not None and not isinstance(quantizer, Quantizer):
            raise TypeError(f"quantizer must be a quant_storage quantizer, got {quantizer!r}")
        # int64: the rng state of stochastic rounding, (seed, offset).
        self.dtype = "i64" if quantizer is None and _is_int64(dtype) else nominal(dtype)
        self.quantizer = quantizer.copy() if quantizer is not None else None
        self.requires_grad = bool(requires_grad)
        self.device = device
        self.chip = check_chip(chip)
        self._context = context

    @property
    def context(self):
        return self._context or default_context()

    @property
    def is_quantized(self):
        return self.quantizer is not None

    def mlir_type(self):
        """`!qs.tensor<...>` for a quantized spec, `tensor<...>` otherwise."""
        c = self.context
        if not self.is_quantized:
            return c.ranked_tensor_type(list(self.shape), self.dtype)
        return c.tensor_type(list(self.shape), self.dtype, self.quantizer.to_attr(c))

    def update_usage(self, rowwise_usage=None, columnwise_usage=None):
        if not self.is_quantized:
            raise RuntimeError("update_usage() needs a quantized TensorSpec")
        self.quantizer.set_usage(rowwise=rowwise_usage, columnwise=columnwise_usage)

    def _inner(self):
        return self.mlir_type().inner_tensors(self.chip)

    def inner_names(self):
        """The inner tensor names, in TE's _INNER_TENSORS order."""
        if not self.is_quantized:
            return ("data",)
        return tuple(name for name, _, _ in self._inner())

    def inner_tensor_specs(self):
        """name -> (shape, NumPy dtype), in TE's order (dict order)."""
        if not self.is_quantized:
            self.mlir_type()  # the shape's check
            return {"data": (self.shape, storage_dtype(self.dtype))}
        return {name: (tuple(shape), storage_dtype(element))
                for name, shape, element in self._inner()}

    def storage_metadata(self):
        """TE's storage metadata: {"cls": storage class name,
        "nontensor_kwargs": {...}} (fp8_dtype/fp4_dtype, quantizer,
        fake_dtype and the family's extras)."""
        if not self.is_quantized:
            return {"is_tensor": True, "is_quantized": False, "dtype": self.dtype,
                    "requires_grad": self.requires_grad}
        meta = dict(self.mlir_type().storage_metadata())
        cls = meta.pop("cls")
        meta["quantizer"] = self.quantizer.copy()
        return {"cls": cls, "nontensor_kwargs": meta}

    def __repr__(self):
        return (f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, "
                f"quantizer={self.quantizer!r})")
