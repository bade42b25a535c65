"""TE's DelayedScaling recipe (transformer_engine.common.recipe) as a plain
Python value: which FP8 format each tensor role uses, the quantizers, the
shapes of the recipe's state, and the step after each iteration
(Function.amax_and_scale_update with the recipe's settings)."""

import enum
from typing import NamedTuple

import numpy as np

from .quantizers import DType, Float8Quantizer
from .spec import TensorSpec


class _FormatHelper(NamedTuple):
    max_fwd: float
    max_bwd: float


class Format(enum.Enum):
    """TE's recipe.Format: the FP8 format of forward tensors (activations,
    weights) and backward ones (gradients)."""

    E4M3 = _FormatHelper(max_fwd=448.0, max_bwd=448.0)
    E5M2 = _FormatHelper(max_fwd=57344.0, max_bwd=57344.0)
    HYBRID = _FormatHelper(max_fwd=448.0, max_bwd=57344.0)


class DelayedScaling:
    """TE's recipe.DelayedScaling with its keywords and defaults. The state
    per tensor is an amax history, a (amax_history_len,) float32 tensor
    whose element 0 is the step's amax (TE starts it at zeros), and a (1,)
    float32 scale (TE starts it at 1.0); quantize(..., scale, amax) uses
    and updates them, update() is the step after each iteration.
    reduce_amax is accepted (the all-reduce of the step's amax is the
    program's own collective, before update()); a callable algorithm,
    scaling_factor_compute_algo and FP8 attention (fp8_dpa, fp8_mha) are
    not modelled: ValueError."""

    def __init__(self, margin=0, fp8_format=Format.HYBRID, amax_history_len=1024,
                 amax_compute_algo="max", scaling_factor_compute_algo=None, reduce_amax=True,
                 fp8_dpa=False, fp8_mha=False):
        if not isinstance(fp8_format, Format):
            raise TypeError(f"fp8_format must be a Format, got {fp8_format!r}")
        if fp8_format == Format.E5M2:  # TE's assertion
            raise ValueError("fp8_format must be Format.E4M3 or Format.HYBRID: pure E5M2 "
                             "training is not supported (TE's DelayedScaling)")
        if not isinstance(margin, int) or isinstance(margin, bool):
            raise TypeError(f"margin must be an int, got {margin!r}")
        if (not isinstance(amax_history_len, int) or isinstance(amax_history_len, bool)
                or amax_history_len < 1):
            raise ValueError(f"amax_history_len must be a positive int, got {amax_history_len!r}")
        if amax_compute_algo not in ("max", "most_recent"):
            raise ValueError("amax_compute_algo must be \"max\" or \"most_recent\" (a callable is "
                             f"not modelled by quant-storage), got {amax_compute_algo!r}")
        for name, value in (("scaling_factor_compute_algo", scaling_factor_compute_algo),
                            ("fp8_dpa", fp8_dpa), ("fp8_mha", fp8_mha)):
            if value not in (None, False):
                raise ValueError(f"{name}={value!r} is not modelled by quant-storage")
        self.margin = margin
        self.fp8_format = fp8_format
        self.amax_history_len = amax_history_len
        self.amax_compute_algo = amax_compute_algo
        self.reduce_amax = bool(reduce_amax)

    def __repr__(self):
        return (f"DelayedScaling(margin={self.margin}, fp8_format={self.fp8_format.name}, "
                f"amax_history_len={self.amax_history_len}, "
                f"amax_compute_algo={self.amax_compute_algo!r})")

    def fp8_dtype(self, fprop_tensor=True):
        """TE's get_fp8_te_dtype: E4M3, except for gradients under HYBRID."""
        if self.fp8_format == Format.E4M3 or fprop_tensor:
            return DType.kFloat8E4M3
        return DType.kFloat8E5M2

    def quantizer(self, fprop_tensor=True, *, rowwise=True, columnwise=True):
        """The Float8Quantizer of a tensor of that role."""
        return Float8Quantizer(fp8_dtype=self.fp8_dtype(fprop_tensor), rowwise=rowwise,
                               columnwise=columnwise)

    def history_spec(self):
        return TensorSpec((self.amax_history_len,), "f32")

    def scale_spec(self):
        return TensorSpec((1,), "f32")

    def initial_state(self):
        """(history, scale) as TE starts them: zeros and 1.0."""
        return np.zeros(self.amax_history_len, np.float32), np.ones(1, np.float32)

    def update(self, f, history, scale, amax=None, fprop_tensor=True):
        """The step after an iteration for one tensor of that role, built in
        Function `f`: (rolled history, next scale)."""
        if tuple(history.shape) != (self.amax_history_len,):
            raise ValueError(f"the history must have shape ({self.amax_history_len},) "
                             f"(amax_history_len), got {tuple(history.shape)}")
        return f.amax_and_scale_update(history, scale, amax,
                                       fp8_dtype=self.fp8_dtype(fprop_tensor),
                                       margin=self.margin,
                                       amax_compute_algo=self.amax_compute_algo)
