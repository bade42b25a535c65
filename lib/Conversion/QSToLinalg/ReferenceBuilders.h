//===- ReferenceBuilders.h - building blocks of the reference numerics ----===//
//
// Private to the QSToLinalg library: static-shape tensor helpers on top of
// linalg/tensor/arith that the per-family reference models compose. Every
// elementwise body uses IEEE f32 arithmetic and FloatEmulation.h.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOLINALG_REFERENCEBUILDERS_H
#define QS_LIB_CONVERSION_QSTOLINALG_REFERENCEBUILDERS_H

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace qs {
namespace ref {

using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// The inner tensor of `type` named `name` among `inner` (all inner tensors
/// in interface order), or null.
Value findInner(QuantTensorType type, ValueRange inner,
                const TargetInfo &target, StringRef name);
/// element [0] of a tensor<1xT>, and the tensor<1xT> holding a scalar.
Value extractScalar(OpBuilder &b, Location loc, Value tensor1,
                    int64_t index = 0);
/// The 1-D tensor of `scalars` (one or more, of one type).
Value scalarTensor(OpBuilder &b, Location loc, ValueRange scalars);

RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elementType);
ArrayRef<int64_t> shapeOf(Value tensor);
Value constF32(OpBuilder &b, Location loc, float value);
Value constI32(OpBuilder &b, Location loc, int32_t value);

/// Same elements, other static shape (row-major order kept).
Value reshape(OpBuilder &b, Location loc, Value tensor,
              ArrayRef<int64_t> shape);
/// The 2-D [M, K] view of an N-D tensor (TE's flattening; [1, K] for 1-D).
Value to2D(OpBuilder &b, Location loc, Value tensor);
/// linalg.transpose of a 2-D tensor.
Value transpose2D(OpBuilder &b, Location loc, Value tensor);
/// Zero-pads a tensor at the high end of every dimension to `shape`.
Value padZero(OpBuilder &b, Location loc, Value tensor,
              ArrayRef<int64_t> shape);
/// The top-left [rows, cols] part of a 2-D tensor.
Value slice2D(OpBuilder &b, Location loc, Value tensor, int64_t rows,
              int64_t cols);

/// A parallel linalg.generic producing `resultType` (identity map); input i
/// is read through `inputMaps[i]` (from the result's iteration space); the
/// body gets the input elements and the iteration indices are available
/// through linalg.index.
Value generic(OpBuilder &b, Location loc, RankedTensorType resultType,
              ValueRange inputs, ArrayRef<AffineMap> inputMaps, BodyFn body);
/// Elementwise map of same-shaped inputs.
Value map(OpBuilder &b, Location loc, Type resultElementType,
          ValueRange inputs, BodyFn body);

/// Elementwise exact conversion to f32 (f32, f16, bf16 inputs).
Value toF32(OpBuilder &b, Location loc, Value tensor);
/// Elementwise f32 -> f32/f16/bf16 (RNE, overflow to inf).
Value fromF32(OpBuilder &b, Location loc, Value tensor, Type elementType);
/// Elementwise arith.bitcast to an element type of the same width.
Value bitcastElements(OpBuilder &b, Location loc, Value tensor,
                      Type elementType);

/// Elementwise exact decode of a tensor of FP8/FP4/E4M3 codes (element type
/// f8*, or i8 holding codes) to f32.
Value decodeElements(OpBuilder &b, Location loc, Value codes,
                     const SmallFloatFormat &format);
/// Elementwise E8M0 scale bytes (f8E8M0FNU or i8) to their f32 values
/// 2^(e-127).
Value decodeE8M0Elements(OpBuilder &b, Location loc, Value codes);

/// A zero-filled f32 tensor.
Value zerosF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape);
/// out[i...] = sum_r lhs[lhsMap(i..., r)] * rhs[rhsMap(i..., r)] in f32,
/// summed from 0 in order r = 0, 1, ...; the maps take the result's
/// dimensions followed by the reduction dimension.
Value contract(OpBuilder &b, Location loc, ArrayRef<int64_t> outShape,
               Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap);

/// Max |x| over blocks of br x bc elements of a 2-D f32 tensor whose
/// dimensions are multiples of the block; NaN is ignored (fmaxf), the
/// result of an all-zero or all-NaN block is 0.
Value blockAbsMax(OpBuilder &b, Location loc, Value x, int64_t br, int64_t bc);
/// Max |x| over a whole 2-D f32 tensor, as a scalar f32.
Value absMaxAll(OpBuilder &b, Location loc, Value x);
/// Max |x| of every row of a 2-D f32 tensor: [R].
Value absMaxRows(OpBuilder &b, Location loc, Value x);

/// cuBLAS's 128x4-tiled scale order (te-formats.md §3.b): `g` is [R, C]
/// with R % 128 == 0 and C % 4 == 0; the result has the same shape and its
/// row-major elements are g in swizzled order. `unswizzle` inverts it.
Value swizzle(OpBuilder &b, Location loc, Value g);
Value unswizzle(OpBuilder &b, Location loc, Value s);

/// Packs pairs of E2M1 codes (i8, low nibble) along the last dimension:
/// [R, C] -> [R, C/2], element 2j in bits 3..0, 2j+1 in bits 7..4.
Value packNibbles(OpBuilder &b, Location loc, Value codes);
/// Inverse of packNibbles: [R, C/2] -> [R, C] codes in the low nibble.
Value unpackNibbles(OpBuilder &b, Location loc, Value packed);

/// TE compute_scale_from_amax (recipe_common.cuh) on scalar f32 values.
Value computeScaleFromAmax(OpBuilder &b, Location loc, Value amax,
                           float fp8Max, bool pow2, float epsilon,
                           float valueForInf);

/// Delayed scaling's step amax (TE's amax_and_scale_update): the given
/// (all-reduced) amax unless it compares equal to 0.0, else history[0].
Value delayedStepAmax(OpBuilder &b, Location loc, Value history0, Value given);
/// Delayed scaling's new scale (te-formats.md §2.c; TE's
/// amax_and_scale_update): scaledMax / amax (IEEE f32 division) if amax is
/// finite and > 0, else `previous`; then an infinite value -> FLT_MAX.
Value delayedScaleFromAmax(OpBuilder &b, Location loc, Value amax,
                           Value previous, float scaledMax);

/// TE compute_global_encode_scaling_factor_FP4 on a scalar f32 amax:
/// min(6 E / amax, FLT_MAX), 1 if amax or the result is 0, with E the
/// quantizer's nvfp4_e4m3_max (6 E = 2688, or 1536 with 4over6's 256).
Value nvfp4GlobalEncodeScale(OpBuilder &b, Location loc, Value amax,
                             int64_t e4m3Max);

/// Sums of `bc` consecutive elements along the last dimension of a 2-D f32
/// tensor ([R, C] -> [R, C / bc]), each from 0 in element order.
Value blockSum(OpBuilder &b, Location loc, Value x, int64_t bc);
/// Tree sums of 16 consecutive rows of a 2-D f32 tensor ([R, C] ->
/// [R / 16, C]) in a 16-lane shuffle-down order: a_i = r_i + r_{i+8}, then
/// b_i = a_i + a_{i+4}, c_i = b_i + b_{i+2}, c_0 + c_1.
Value treeSum16Rows(OpBuilder &b, Location loc, Value x);

/// The factor s[r] / 4 of input r of NVFP4's RHT, diag(s) H16 / 4, with the
/// signs of `signMask` (bit r set iff s[r] = -1; TE's is kNvfp4RhtSignMask):
/// the exact products the butterflies start from (Numerics.md).
float nvfp4RHTInputFactor(int r, uint32_t signMask);

/// The largest finite value of a nominal element type (bf16, f16, f32).
float maxFiniteOf(Type type);
/// The largest finite value of an FP8 element format.
float fp8MaxOf(Type fp8Type);

/// Writes a 2-D scale matrix `g` ([rows, cols] of the GEMM scale matrix G)
/// into a buffer of `bufferShape` (same byte count as roundup(rows, 128) x
/// roundup(cols, 4)): zero padding, then swizzled if `swizzled`, else
/// compact. For compact layouts `bufferShape` is the padded matrix shape.
Value layoutScales(OpBuilder &b, Location loc, Value g,
                   ArrayRef<int64_t> paddedShape, bool swizzled,
                   ArrayRef<int64_t> bufferShape);
/// Reads the [rows, cols] GEMM scale matrix back from a scale buffer laid
/// out by layoutScales with the same padded shape.
Value readScales(OpBuilder &b, Location loc, Value buffer,
                 ArrayRef<int64_t> paddedShape, bool swizzled, int64_t rows,
                 int64_t cols);

} // namespace ref
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOLINALG_REFERENCEBUILDERS_H
