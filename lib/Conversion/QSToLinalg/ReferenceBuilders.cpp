//===- ReferenceBuilders.cpp - building blocks of the reference numerics --===//

#include "ReferenceBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include <cfloat>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::ref;

Value ref::findInner(QuantTensorType type, ValueRange inner,
                     const TargetInfo &target, StringRef name) {
  for (auto [t, v] : llvm::zip(type.getInnerTensors(target), inner))
    if (t.name == name)
      return v;
  return {};
}

Value ref::extractScalar(OpBuilder &b, Location loc, Value tensor1,
                         int64_t index) {
  Value at = arith::ConstantIndexOp::create(b, loc, index);
  return tensor::ExtractOp::create(b, loc, tensor1, at);
}

Value ref::scalarTensor(OpBuilder &b, Location loc, ValueRange scalars) {
  return tensor::FromElementsOp::create(
      b, loc,
      RankedTensorType::get({static_cast<int64_t>(scalars.size())},
                            scalars.front().getType()),
      scalars);
}

RankedTensorType ref::tensorOf(ArrayRef<int64_t> shape, Type elementType) {
  return RankedTensorType::get(shape, elementType);
}

ArrayRef<int64_t> ref::shapeOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getShape();
}

static Type elementTypeOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getElementType();
}

Value ref::constF32(OpBuilder &b, Location loc, float value) {
  return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                        llvm::APFloat(value));
}

Value ref::constI32(OpBuilder &b, Location loc, int32_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

static ReassociationIndices allDims(int64_t rank) {
  ReassociationIndices dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(i);
  return dims;
}

Value ref::reshape(OpBuilder &b, Location loc, Value tensor,
                   ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getShape() == shape)
    return tensor;
  Value flat = tensor;
  if (type.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(b, loc, tensor,
                                           {allDims(type.getRank())});
  if (shape.size() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(
      b, loc, tensorOf(shape, type.getElementType()), flat,
      {allDims(shape.size())});
}

Value ref::to2D(OpBuilder &b, Location loc, Value tensor) {
  ArrayRef<int64_t> shape = shapeOf(tensor);
  int64_t m = 1;
  for (int64_t d : shape.drop_back())
    m *= d;
  return reshape(b, loc, tensor, {m, shape.back()});
}

Value ref::transpose2D(OpBuilder &b, Location loc, Value tensor) {
  ArrayRef<int64_t> shape = shapeOf(tensor);
  Value init = tensor::EmptyOp::create(b, loc, {shape[1], shape[0]},
                                       elementTypeOf(tensor));
  return linalg::TransposeOp::create(b, loc, tensor, init, {1, 0})
      .getResult()[0];
}

static Value zeroOf(OpBuilder &b, Location loc, Type type) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}

Value ref::padZero(OpBuilder &b, Location loc, Value tensor,
                   ArrayRef<int64_t> shape) {
  if (shapeOf(tensor) == shape)
    return tensor;
  Type element = elementTypeOf(tensor);
  return tensor::createPadHighOp(tensorOf(shape, element), tensor,
                                 zeroOf(b, loc, element), /*nofold=*/false,
                                 loc, b);
}

Value ref::slice2D(OpBuilder &b, Location loc, Value tensor, int64_t rows,
                   int64_t cols) {
  if (shapeOf(tensor) == ArrayRef<int64_t>{rows, cols})
    return tensor;
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                     b.getIndexAttr(cols)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  return tensor::ExtractSliceOp::create(b, loc, tensor, offsets, sizes,
                                        strides);
}

Value ref::generic(OpBuilder &b, Location loc, RankedTensorType resultType,
                   ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                   BodyFn body) {
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value result = body(nb, nl, args.drop_back());
               linalg::YieldOp::create(nb, nl, result);
             })
      .getResult(0);
}

Value ref::map(OpBuilder &b, Location loc, Type resultElementType,
               ValueRange inputs, BodyFn body) {
  ArrayRef<int64_t> shape = shapeOf(inputs.front());
  SmallVector<AffineMap> maps(inputs.size(),
                              b.getMultiDimIdentityMap(shape.size()));
  return generic(b, loc, tensorOf(shape, resultElementType), inputs, maps,
                 body);
}

Value ref::toF32(OpBuilder &b, Location loc, Value tensor) {
  if (elementTypeOf(tensor).isF32())
    return tensor;
  return map(b, loc, b.getF32Type(), tensor,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               return emitExtToF32(nb, nl, args[0]);
             });
}

Value ref::fromF32(OpBuilder &b, Location loc, Value tensor,
                   Type elementType) {
  if (elementType.isF32())
    return tensor;
  return map(b, loc, elementType, tensor,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               return emitTruncFromF32(nb, nl, args[0], elementType);
             });
}

Value ref::bitcastElements(OpBuilder &b, Location loc, Value tensor,
                           Type elementType) {
  if (elementTypeOf(tensor) == elementType)
    return tensor;
  return map(b, loc, elementType, tensor,
             [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
               return arith::BitcastOp::create(nb, nl, elementType, args[0]);
             });
}

/// The i8 view of an 8-bit element (f8 types are bitcast).
static Value asI8(OpBuilder &b, Location loc, Value element) {
  if (element.getType().isInteger(8))
    return element;
  return arith::BitcastOp::create(b, loc, b.getI8Type(), element);
}

Value ref::decodeElements(OpBuilder &b, Location loc, Value codes,
                          const SmallFloatFormat &format) {
  return map(b, loc, b.getF32Type(), codes,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               return emitDecodeToF32(nb, nl, asI8(nb, nl, args[0]), format);
             });
}

Value ref::decodeE8M0Elements(OpBuilder &b, Location loc, Value codes) {
  return map(b, loc, b.getF32Type(), codes,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               return emitE8M0ToF32(nb, nl, asI8(nb, nl, args[0]));
             });
}

Value ref::zerosF32(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::FillOp::create(b, loc, constF32(b, loc, 0.0f),
                                ValueRange{empty})
      .getResult(0);
}

Value ref::contract(OpBuilder &b, Location loc, ArrayRef<int64_t> outShape,
                    Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap) {
  unsigned rank = outShape.size();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(rank + 1, b.getContext())
                         .getMajorSubMap(rank);
  Value init = zerosF32(b, loc, outShape);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
             ValueRange{init}, ArrayRef<AffineMap>{lhsMap, rhsMap, outMap},
             iterators,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
               Value sum = arith::AddFOp::create(nb, nl, args[2], p);
               linalg::YieldOp::create(nb, nl, sum);
             })
      .getResult(0);
}

Value ref::blockAbsMax(OpBuilder &b, Location loc, Value x, int64_t br,
                       int64_t bc) {
  ArrayRef<int64_t> shape = shapeOf(x);
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> outShape = {shape[0] / br, shape[1] / bc};
  // Blocks as dimensions, so every loop is a plain dimension of a map.
  Value blocks = reshape(b, loc, x, {outShape[0], br, outShape[1], bc});
  Value init = zerosF32(b, loc, outShape);
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  auto inMap = AffineMap::get(4, 0, {d0, d2, d1, d3}, ctx);
  auto outMap = AffineMap::get(4, 0, {d0, d1}, ctx);
  using utils::IteratorType;
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{blocks},
             ValueRange{init}, ArrayRef<AffineMap>{inMap, outMap},
             ArrayRef<IteratorType>{IteratorType::parallel,
                                    IteratorType::parallel,
                                    IteratorType::reduction,
                                    IteratorType::reduction},
             [](OpBuilder &nb, Location nl, ValueRange args) {
               Value abs = math::AbsFOp::create(nb, nl, args[0]);
               Value max = arith::MaxNumFOp::create(nb, nl, args[1], abs);
               linalg::YieldOp::create(nb, nl, max);
             })
      .getResult(0);
}

Value ref::blockSum(OpBuilder &b, Location loc, Value x, int64_t bc) {
  ArrayRef<int64_t> shape = shapeOf(x);
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> outShape = {shape[0], shape[1] / bc};
  Value blocks = reshape(b, loc, x, {shape[0], shape[1] / bc, bc});
  Value init = zerosF32(b, loc, outShape);
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  using utils::IteratorType;
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{blocks},
             ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::get(3, 0, {d0, d1, d2}, ctx),
                                 AffineMap::get(3, 0, {d0, d1}, ctx)},
             ArrayRef<IteratorType>{IteratorType::parallel,
                                    IteratorType::parallel,
                                    IteratorType::reduction},
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{arith::AddFOp::create(nb, nl, args[1], args[0])});
             })
      .getResult(0);
}

Value ref::treeSum16Rows(OpBuilder &b, Location loc, Value x) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  int64_t groups = shapeOf(x)[0] / 16, cols = shapeOf(x)[1];
  // Rows of a group as [groups, 2, n, C]: row h * n + i pairs i with n + i.
  for (int64_t n = 8; n >= 1; n /= 2) {
    Value halves = reshape(b, loc, x, {groups, 2, n, cols});
    AffineExpr zero = getAffineConstantExpr(0, ctx),
               one = getAffineConstantExpr(1, ctx);
    x = generic(b, loc, tensorOf({groups, n, cols}, b.getF32Type()),
                {halves, halves},
                {AffineMap::get(3, 0, {d0, zero, d1, d2}, ctx),
                 AffineMap::get(3, 0, {d0, one, d1, d2}, ctx)},
                [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                  return arith::AddFOp::create(nb, nl, args[0], args[1]);
                });
  }
  return reshape(b, loc, x, {groups, cols});
}

Value ref::absMaxAll(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Value amax = blockAbsMax(b, loc, x, shape[0], shape[1]);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return tensor::ExtractOp::create(b, loc, amax, ValueRange{zero, zero});
}

Value ref::absMaxRows(OpBuilder &b, Location loc, Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  return reshape(b, loc, blockAbsMax(b, loc, x, 1, shape[1]), {shape[0]});
}

static Value transposeND(OpBuilder &b, Location loc, Value tensor,
                         ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> shape = shapeOf(tensor);
  SmallVector<int64_t> outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  Value init =
      tensor::EmptyOp::create(b, loc, outShape, elementTypeOf(tensor));
  return linalg::TransposeOp::create(b, loc, tensor, init, perm)
      .getResult()[0];
}

// G[i, j] with i = a*128 + bb*32 + c, j = d*4 + e is stored at
// ((a * C/4 + d) * 32 + c) * 16 + bb * 4 + e: dims [a, bb, c, d, e] ->
// [a, d, c, bb, e], a swap of dims 1 and 3 (its own inverse).
Value ref::swizzle(OpBuilder &b, Location loc, Value g) {
  ArrayRef<int64_t> shape = shapeOf(g);
  int64_t rows = shape[0], cols = shape[1];
  Value tiled =
      reshape(b, loc, g, {rows / 128, 4, 32, cols / 4, 4});
  Value swapped = transposeND(b, loc, tiled, {0, 3, 2, 1, 4});
  return reshape(b, loc, swapped, {rows, cols});
}

Value ref::unswizzle(OpBuilder &b, Location loc, Value s) {
  ArrayRef<int64_t> shape = shapeOf(s);
  int64_t rows = shape[0], cols = shape[1];
  Value tiled = reshape(b, loc, s, {rows / 128, cols / 4, 32, 4, 4});
  Value swapped = transposeND(b, loc, tiled, {0, 3, 2, 1, 4});
  return reshape(b, loc, swapped, {rows, cols});
}

Value ref::packNibbles(OpBuilder &b, Location loc, Value codes) {
  ArrayRef<int64_t> shape = shapeOf(codes);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  auto lo = AffineMap::get(2, 0, {d0, d1 * 2}, ctx);
  auto hi = AffineMap::get(2, 0, {d0, d1 * 2 + 1}, ctx);
  Type i8 = b.getI8Type();
  return generic(
      b, loc, tensorOf({shape[0], shape[1] / 2}, i8), {codes, codes}, {lo, hi},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value mask = arith::ConstantIntOp::create(nb, nl, i8, 0xF);
        Value four = arith::ConstantIntOp::create(nb, nl, i8, 4);
        Value low = arith::AndIOp::create(nb, nl, args[0], mask);
        Value high = arith::ShLIOp::create(
            nb, nl, arith::AndIOp::create(nb, nl, args[1], mask), four);
        return arith::OrIOp::create(nb, nl, low, high);
      });
}

Value ref::unpackNibbles(OpBuilder &b, Location loc, Value packed) {
  ArrayRef<int64_t> shape = shapeOf(packed);
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  auto byteMap = AffineMap::get(2, 0, {d0, d1.floorDiv(2)}, ctx);
  Type i8 = b.getI8Type();
  return generic(
      b, loc, tensorOf({shape[0], shape[1] * 2}, i8), {packed}, {byteMap},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value column = linalg::IndexOp::create(nb, nl, 1);
        Value parity = arith::IndexCastOp::create(nb, nl, i8, column);
        Value one = arith::ConstantIntOp::create(nb, nl, i8, 1);
        Value four = arith::ConstantIntOp::create(nb, nl, i8, 4);
        Value shift = arith::MulIOp::create(
            nb, nl, arith::AndIOp::create(nb, nl, parity, one), four);
        Value nibble = arith::ShRUIOp::create(nb, nl, args[0], shift);
        return arith::AndIOp::create(
            nb, nl, nibble, arith::ConstantIntOp::create(nb, nl, i8, 0xF));
      });
}

Value ref::computeScaleFromAmax(OpBuilder &b, Location loc, Value amax,
                                float fp8Max, bool pow2, float epsilon,
                                float valueForInf) {
  using P = arith::CmpFPredicate;
  Value eps = constF32(b, loc, epsilon);
  Value inf = constF32(b, loc, std::numeric_limits<float>::infinity());
  // NaN compares false here, as in TE.
  amax = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OLT, amax, eps), eps, amax);
  Value isInf = arith::CmpFOp::create(b, loc, P::OEQ, amax, inf);
  Value isZero =
      arith::CmpFOp::create(b, loc, P::OEQ, amax, constF32(b, loc, 0.0f));
  Value isNaN = arith::CmpFOp::create(b, loc, P::UNO, amax, amax);
  Value keepOne = arith::OrIOp::create(
      b, loc, arith::OrIOp::create(b, loc, isInf, isZero), isNaN);
  Value scale = arith::DivFOp::create(b, loc, constF32(b, loc, fp8Max), amax);
  scale = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OEQ, scale, inf),
      constF32(b, loc, valueForInf), scale);
  if (pow2) {
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), scale);
    bits = arith::AndIOp::create(b, loc, bits,
                                 constI32(b, loc, static_cast<int32_t>(
                                                      0xFF800000u)));
    scale = arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
  }
  return arith::SelectOp::create(b, loc, keepOne, constF32(b, loc, 1.0f),
                                 scale);
}

Value ref::delayedStepAmax(OpBuilder &b, Location loc, Value history0,
                           Value given) {
  Value nonZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                        given, constF32(b, loc, 0.0f));
  return arith::SelectOp::create(b, loc, nonZero, given, history0);
}

Value ref::delayedScaleFromAmax(OpBuilder &b, Location loc, Value amax,
                                Value previous, float scaledMax) {
  using P = arith::CmpFPredicate;
  Value inf = constF32(b, loc, std::numeric_limits<float>::infinity());
  // Ordered comparisons: false for NaN, as TE's isfinite(amax) && amax > 0.
  Value usable = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, P::OGT, amax, constF32(b, loc, 0.0f)),
      arith::CmpFOp::create(b, loc, P::OLT, amax, inf));
  Value scale = arith::SelectOp::create(
      b, loc, usable,
      arith::DivFOp::create(b, loc, constF32(b, loc, scaledMax), amax),
      previous);
  Value isInf = arith::CmpFOp::create(b, loc, P::OEQ,
                                      math::AbsFOp::create(b, loc, scale), inf);
  return arith::SelectOp::create(b, loc, isInf, constF32(b, loc, FLT_MAX),
                                 scale);
}

/// TE compute_global_encode_scaling_factor_FP4 on a scalar f32.
Value ref::nvfp4GlobalEncodeScale(OpBuilder &b, Location loc, Value amax,
                                  int64_t e4m3Max) {
  using P = arith::CmpFPredicate;
  Value s =
      arith::DivFOp::create(b, loc, constF32(b, loc, nvfp4SixE(e4m3Max)), amax);
  s = arith::MinNumFOp::create(b, loc, s, constF32(b, loc, FLT_MAX));
  Value zero = constF32(b, loc, 0.0f);
  Value one = arith::OrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OEQ, amax, zero),
      arith::CmpFOp::create(b, loc, P::OEQ, s, zero));
  return arith::SelectOp::create(b, loc, one, constF32(b, loc, 1.0f), s);
}

float ref::nvfp4RHTInputFactor(int r, uint32_t signMask) {
  return (signMask >> r) & 1 ? -0.25f : 0.25f;
}

float ref::maxFiniteOf(Type type) {
  if (type.isBF16())
    return 3.38953139e38f; // 0x7F7F0000
  if (type.isF16())
    return 65504.0f;
  return FLT_MAX;
}

float ref::fp8MaxOf(Type fp8Type) {
  return isa<Float8E5M2Type>(fp8Type) ? 57344.0f : 448.0f;
}

Value ref::layoutScales(OpBuilder &b, Location loc, Value g,
                        ArrayRef<int64_t> paddedShape, bool swizzled,
                        ArrayRef<int64_t> bufferShape) {
  Value padded = padZero(b, loc, g, paddedShape);
  if (swizzled)
    padded = swizzle(b, loc, padded);
  return reshape(b, loc, padded, bufferShape);
}

Value ref::readScales(OpBuilder &b, Location loc, Value buffer,
                      ArrayRef<int64_t> paddedShape, bool swizzled,
                      int64_t rows, int64_t cols) {
  Value padded = reshape(b, loc, buffer, paddedShape);
  if (swizzled)
    padded = unswizzle(b, loc, padded);
  return slice2D(b, loc, padded, rows, cols);
}
