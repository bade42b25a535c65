"""Quantizers named and parameterized like TransformerEngine's.

Each class mirrors the TE constructor (keyword names, defaults) and is a
plain Python value: `set_usage` mutates it, `copy` duplicates it, `str()`
gives its `#qs.*` attribute text and `Quantizer.from_attr` parses one back.
Options TE has but quant-storage does not model raise ValueError; parameter
combinations the dialect rejects raise QSError with the dialect's
diagnostic when the attribute is built.
"""

import copy as _copy
import enum

from . import _qs
from ._context import default_context


class DType(enum.Enum):
    """TE's transformer_engine_torch.DType members that name quantized formats."""

    kFloat8E4M3 = "f8E4M3FN"
    kFloat8E5M2 = "f8E5M2"
    kFloat4E2M1 = "f4E2M1FN"


def _fp8(dtype):
    if isinstance(dtype, DType):
        dtype = dtype.value
    names = {"f8E4M3FN": DType.kFloat8E4M3, "e4m3": DType.kFloat8E4M3,
             "float8_e4m3fn": DType.kFloat8E4M3, "f8E5M2": DType.kFloat8E5M2,
             "e5m2": DType.kFloat8E5M2, "float8_e5m2": DType.kFloat8E5M2}
    if dtype not in names:
        raise ValueError(f"fp8_dtype must be DType.kFloat8E4M3 or DType.kFloat8E5M2, got {dtype!r}")
    return names[dtype]


def _unsupported(name, value, default, instead=""):
    if value != default:
        raise ValueError(f"{name}={value!r} is not modelled by quant-storage (only {default!r})"
                         + (f"; {instead}" if instead else ""))


# Amax reduction (current scaling; NVFP4 without row scales) is explicit
# data flow in the graph.
_AMAX_REDUCTION = ("all-reduce Function.amax(x, quantizer) across the group yourself and "
                   "pass the result: Function.quantize(x, quantizer, amax=global_amax)")


class Quantizer:
    """Base of the TE-named quantizers: usage flags and the attribute."""

    family = None

    def __init__(self, rowwise=True, columnwise=True):
        self.rowwise_usage = bool(rowwise)
        self.columnwise_usage = bool(columnwise)
        self.internal = False
        self.optimize_for_gemm = False

    # TE API -----------------------------------------------------------------
    def set_usage(self, *, rowwise=None, columnwise=None):
        """TE's Quantizer.set_usage: change the requested representations."""
        if rowwise is not None:
            self.rowwise_usage = bool(rowwise)
        if columnwise is not None:
            self.columnwise_usage = bool(columnwise)

    def copy(self):
        return _copy.copy(self)

    # Attribute ----------------------------------------------------------------
    def to_attr(self, context=None):
        """The `#qs.*` attribute (raises QSError if the dialect rejects it)."""
        return self._build(context or default_context())

    def __str__(self):
        return str(self.to_attr())

    def __repr__(self):
        return f"{type(self).__name__}({self})"

    def __eq__(self, other):
        return type(self) is type(other) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))

    @staticmethod
    def from_attr(attr, context=None):
        """The quantizer of an attribute (an Attribute or its text)."""
        if isinstance(attr, str):
            attr = (context or default_context()).parse_attribute(attr)
        p = attr.quantizer_params()
        cls = _FAMILIES[p["family"]]
        return cls._from_params(p)


class Float8Quantizer(Quantizer):
    """TE Float8Quantizer (delayed scaling). `scale` and `amax` are TE's
    recipe state tensors: in the IR they are operands of `quantize`, so they
    are accepted and ignored here."""

    family = "fp8_delayed"

    def __init__(self, scale=None, amax=None, fp8_dtype=DType.kFloat8E4M3, *,
                 rowwise=True, columnwise=True):
        super().__init__(rowwise, columnwise)
        self.scale, self.amax = scale, amax
        self.dtype = _fp8(fp8_dtype)

    def _build(self, c):
        return c.fp8_delayed(self.dtype.value, self.rowwise_usage, self.columnwise_usage)

    @classmethod
    def _from_params(cls, p):
        return cls(fp8_dtype=p["element_format"], rowwise=p["rowwise"], columnwise=p["columnwise"])


class Float8CurrentScalingQuantizer(Quantizer):
    """TE Float8CurrentScalingQuantizer. `device` is accepted and ignored;
    amax reduction across a process group is the graph's own data flow
    (Function.amax of each part, all-reduced, passed to
    Function.quantize(..., amax=...)), not a quantizer setting."""

    family = "fp8_current"

    def __init__(self, fp8_dtype=DType.kFloat8E4M3, device=None, *, rowwise=True,
                 columnwise=True, with_amax_reduction=False, amax_reduction_group=None,
                 force_pow_2_scales=False, amax_epsilon=0.0):
        super().__init__(rowwise, columnwise)
        _unsupported("with_amax_reduction", with_amax_reduction, False, _AMAX_REDUCTION)
        _unsupported("amax_reduction_group", amax_reduction_group, None, _AMAX_REDUCTION)
        self.dtype = _fp8(fp8_dtype)
        self.device = device
        self.with_amax_reduction = False
        self.force_pow_2_scales = bool(force_pow_2_scales)
        self.amax_epsilon = float(amax_epsilon)

    def _build(self, c):
        return c.fp8_current(self.dtype.value, self.rowwise_usage, self.columnwise_usage,
                             self.force_pow_2_scales, self.amax_epsilon)

    @classmethod
    def _from_params(cls, p):
        return cls(p["element_format"], rowwise=p["rowwise"], columnwise=p["columnwise"],
                   force_pow_2_scales=p["force_pow_2_scales"], amax_epsilon=p["amax_epsilon"])


class MXFP8Quantizer(Quantizer):
    """TE MXFP8Quantizer; `optimize_for_gemm` (a TE base attribute) writes
    GEMM-swizzled scales."""

    family = "mxfp8"

    def __init__(self, fp8_dtype=DType.kFloat8E4M3, *, rowwise=True, columnwise=True,
                 with_2d_quantization=False, optimize_for_gemm=False):
        super().__init__(rowwise, columnwise)
        self.dtype = _fp8(fp8_dtype)
        self.with_2d_quantization = bool(with_2d_quantization)
        self.optimize_for_gemm = bool(optimize_for_gemm)

    def _build(self, c):
        return c.mxfp8(self.dtype.value, self.rowwise_usage, self.columnwise_usage,
                       self.with_2d_quantization, self.optimize_for_gemm)

    @classmethod
    def _from_params(cls, p):
        return cls(p["element_format"], rowwise=p["rowwise"], columnwise=p["columnwise"],
                   with_2d_quantization=p["with_2d_quantization"],
                   optimize_for_gemm=p["optimize_for_gemm"])


class Float8BlockQuantizer(Quantizer):
    """TE Float8BlockQuantizer (constructor defaults: 128x128 tiles,
    power-of-two scales)."""

    family = "fp8_block"

    def __init__(self, fp8_dtype=DType.kFloat8E4M3, *, rowwise=True, columnwise=True,
                 amax_epsilon=0.0, force_pow_2_scales=True, block_scaling_dim=2):
        super().__init__(rowwise, columnwise)
        self.dtype = _fp8(fp8_dtype)
        self.block_len = 128
        self.amax_epsilon = float(amax_epsilon)
        self.force_pow_2_scales = bool(force_pow_2_scales)
        self.block_scaling_dim = int(block_scaling_dim)

    def _build(self, c):
        return c.fp8_block(self.dtype.value, self.rowwise_usage, self.columnwise_usage,
                           self.block_scaling_dim, self.force_pow_2_scales, self.amax_epsilon)

    @classmethod
    def _from_params(cls, p):
        return cls(p["element_format"], rowwise=p["rowwise"], columnwise=p["columnwise"],
                   amax_epsilon=p["amax_epsilon"], force_pow_2_scales=p["force_pow_2_scales"],
                   block_scaling_dim=p["block_scaling_dim"])


class NVFP4Quantizer(Quantizer):
    """TE NVFP4Quantizer. Amax reduction is the graph's own data flow, as
    for Float8CurrentScalingQuantizer (with RHT two amaxes; not with
    row_scaled_nvfp4); `optimize_for_gemm` writes GEMM-swizzled scales. As in TE,
    `nvfp4_e4m3_max` is 448 unless 4over6 is on and the error mode is
    upper-cased."""

    family = "nvfp4"

    def __init__(self, fp4_dtype=DType.kFloat4E2M1, rowwise=True, columnwise=True,
                 with_amax_reduction=False, amax_reduction_group=None, with_rht=False,
                 with_post_rht_amax=False, with_2d_quantization=False,
                 stochastic_rounding=False, row_scaled_nvfp4=False, nvfp4_use_4over6=False,
                 nvfp4_e4m3_max=448, nvfp4_4over6_err_mode="MAE", with_random_sign_mask=True,
                 *, optimize_for_gemm=False):
        super().__init__(rowwise, columnwise)
        if fp4_dtype not in (DType.kFloat4E2M1, "f4E2M1FN"):
            raise ValueError(f"fp4_dtype must be DType.kFloat4E2M1, got {fp4_dtype!r}")
        _unsupported("with_amax_reduction", with_amax_reduction, False, _AMAX_REDUCTION)
        _unsupported("amax_reduction_group", amax_reduction_group, None, _AMAX_REDUCTION)
        self.dtype = DType.kFloat4E2M1
        self.with_rht = bool(with_rht)
        self.with_post_rht_amax = bool(with_post_rht_amax)
        self.with_2d_quantization = bool(with_2d_quantization)
        self.stochastic_rounding = bool(stochastic_rounding)
        self.row_scaled_nvfp4 = bool(row_scaled_nvfp4)
        self.nvfp4_use_4over6 = bool(nvfp4_use_4over6)
        self.nvfp4_e4m3_max = int(nvfp4_e4m3_max) if self.nvfp4_use_4over6 else 448
        self.nvfp4_4over6_err_mode = str(nvfp4_4over6_err_mode).upper()
        self.optimize_for_gemm = bool(optimize_for_gemm)
        self.with_random_sign_mask = bool(with_random_sign_mask)

    @property
    def rht_matrix_random_sign_mask_t(self):
        """TE's sign mask of the RHT matrix: bit i set iff sign i is -1."""
        return 0xD7E8 if self.with_random_sign_mask else 0

    @property
    def rht_matrix(self):
        """TE's `rht_matrix`: diag(s) H16 / 4 as a 16x16 bf16 array
        (`H16[i][j] = (-1)^popcount(i & j)`, s from the sign mask)."""
        import ml_dtypes
        import numpy as np
        mask = self.rht_matrix_random_sign_mask_t
        return np.array([[(-0.25 if (mask >> i) & 1 else 0.25) *
                          (-1 if bin(i & j).count("1") % 2 else 1) for j in range(16)]
                         for i in range(16)], dtype=np.float32).astype(ml_dtypes.bfloat16)

    def _build(self, c):
        return c.nvfp4(self.rowwise_usage, self.columnwise_usage, self.with_rht,
                       self.with_post_rht_amax, self.with_2d_quantization,
                       self.stochastic_rounding, self.row_scaled_nvfp4, self.optimize_for_gemm,
                       self.with_random_sign_mask, self.nvfp4_use_4over6, self.nvfp4_e4m3_max,
                       self.nvfp4_4over6_err_mode)

    @classmethod
    def _from_params(cls, p):
        return cls(rowwise=p["rowwise"], columnwise=p["columnwise"], with_rht=p["with_rht"],
                   with_post_rht_amax=p["with_post_rht_amax"],
                   with_2d_quantization=p["with_2d_quantization"],
                   stochastic_rounding=p["stochastic_rounding"],
                   row_scaled_nvfp4=p["row_scaled_nvfp4"],
                   with_random_sign_mask=p["with_random_sign_mask"],
                   nvfp4_use_4over6=p["nvfp4_use_4over6"],
                   nvfp4_e4m3_max=p["nvfp4_e4m3_max"],
                   nvfp4_4over6_err_mode=p["nvfp4_4over6_err_mode"],
                   optimize_for_gemm=p["optimize_for_gemm"])


_FAMILIES = {cls.family: cls for cls in (Float8Quantizer, Float8CurrentScalingQuantizer,
                                          MXFP8Quantizer, Float8BlockQuantizer, NVFP4Quantizer)}
