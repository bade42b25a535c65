"""Element-wise functions shared by test_elementwise.py and the device
bundle (scripts/device_bundle.py): their MLIR and, where the payload is
exact IEEE arithmetic, the expected values computed by numpy."""

import ml_dtypes
import numpy as np

import harness as h

F32 = np.float32
NP = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": F32}


def np_in(x, element):
    """f32 values -> the narrow type's values (numpy)."""
    return np.asarray(x, F32).astype(NP[element])


def module(text, chip=None):
    """`text` in a module on `chip` (qs.chip), or as it is."""
    if chip is None:
        return text
    return f'module attributes {{qs.chip = "{chip}"}} {{\n{text}\n}}\n'


BIAS_RELU = """
func.func @f(%x: {X}, %b: {B}) -> {X} {{
  %e = tensor.empty() : {X}
  %zero = arith.constant 0.0 : {E}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%x, %b : {X}, {B}) outs(%e : {X}) {{
  ^bb0(%v: {E}, %bias: {E}, %o: {E}):
    %s = arith.addf %v, %bias : {E}
    %m = arith.maximumf %s, %zero : {E}
    linalg.yield %m : {E}
  }} -> {X}
  return %r : {X}
}}
"""


def bias_relu(shape, element):
    return BIAS_RELU.format(X=h.ttype(shape, element), B=h.ttype((shape[1],), element), E=element)


def bias_relu_values(x, b, element):
    """max(x + b, 0) in `element` (IEEE maximum: NaN propagates), as f32."""
    with np.errstate(all="ignore"):
        s = np_in(x, element) + np_in(b, element)[None, :]
        return np.where(np.isnan(s), s, np.maximum(s, NP[element](0))).astype(F32)


CAST_TRANSPOSE = """
func.func @f(%x: {X}, %s: tensor<1xf32>) -> {Y} {{
  %e = tensor.empty() : {Y}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                        affine_map<(d0, d1) -> (0)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%x, %s : {X}, tensor<1xf32>) outs(%e : {Y}) {{
  ^bb0(%v: bf16, %scale: f32, %o: {O}):
    %f = arith.extf %v : bf16 to f32
    %m = arith.mulf %f, %scale : f32
    %c = {CAST}
    linalg.yield %c : {O}
  }} -> {Y}
  return %r : {Y}
}}
"""


def cast_transpose(shape, out):
    """y = round(x^T * s) of a bf16 x of `shape`: a transposed operand, a
    broadcast scalar tensor; f32 results as m + m (one more exact op)."""
    cast = "arith.addf %m, %m : f32" if out == "f32" else f"arith.truncf %m : f32 to {out}"
    return CAST_TRANSPOSE.format(X=h.ttype(shape, "bf16"), Y=h.ttype(shape[::-1], out), O=out,
                                 CAST=cast)


def cast_transpose_values(x, s, out):
    with np.errstate(all="ignore"):
        m = np.asarray(x, F32).T * F32(s)
        return (m + m) if out == "f32" else m.astype(NP[out]).astype(F32)


# TE's gelu and dgelu (transformer_engine/common/util/math.h) in f32 on
# bf16 tensors, as examples/mlp_fp8_current.mlir writes them by hand
# (its dGELU: dgelu(h) * dA; the Python builder's Function.activation
# builds the same formulas).
TE_GELU = """
func.func @f(%h: {T}) -> {T} {{
  %e = tensor.empty() : {T}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%h : {T}) outs(%e : {T}) {{
  ^bb0(%{ARG}: {E}, %o: {E}):
    {EXT}
    %half = arith.constant 0.5 : f32
    %k0 = arith.constant 0.79788456 : f32
    %k1 = arith.constant 0.03567741 : f32
    %a = arith.mulf %k1, %v : f32
    %b = arith.mulf %a, %v : f32
    %c = arith.addf %k0, %b : f32
    %u = arith.mulf %v, %c : f32
    %t = math.tanh %u : f32
    %ht = arith.mulf %half, %t : f32
    %s = arith.addf %half, %ht : f32
    %g = arith.mulf %v, %s : f32
    {TRUNC}
  }} -> {T}
  return %r : {T}
}}
"""


def te_gelu(shape, element="bf16"):
    """TE's gelu of an `element` tensor, in f32, rounded to `element`."""
    narrow = element != "f32"
    return TE_GELU.format(
        T=h.ttype(shape, element), E=element, ARG="hv" if narrow else "v",
        EXT=f"%v = arith.extf %hv : {element} to f32" if narrow else "",
        TRUNC=(f"%gb = arith.truncf %g : f32 to {element}\n    linalg.yield %gb : {element}"
               if narrow else "linalg.yield %g : f32"))


def te_gelu_values(x):
    """TE's gelu in float64 (the exact value of each expression)."""
    v = np.asarray(x, np.float64)
    return v * (0.5 + 0.5 * np.tanh(v * (0.79788456 + 0.03567741 * v * v)))
