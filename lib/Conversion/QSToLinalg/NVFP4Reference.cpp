//===- NVFP4Reference.cpp - NVFP4 reference numerics ----------------------===//
//
// te-formats.md §5.c-§5.e. With G the global amax of a representation (per
// row / column when row-scaled), S_enc = f32(2688 / G) (FLT_MAX if inf; 1 if
// G or S_enc is 0) and S_dec = f32(1 / S_enc); per 16-block (1x16, or 16x16
// tiles with 2-D quantization) sf = e4m3_rn_sat(f32(amax * f32(S_enc *
// f32(1/6)))), enc = min(f32(1 / f32(float(sf) * S_dec)), FLT_MAX) and
// q = e2m1_rn_sat(f32(x * enc)), two codes per byte. The column-wise
// representation quantizes x^T, or with RHT the bf16 RHT(x^T): each 16-row
// chunk v of a column times diag(s) H16 / 4, summed in f32 in order 0..15
// and rounded to bf16. Dequantize e2m1(q) * f32(f32(float(sf) * G) *
// f32(1/2688)). Stochastic rounding replaces e2m1_rn_sat by the rounding
// of StochasticRounding.h, with the random bits of element i of the stored
// codes (row-major; stream 0 row-wise, 1 column-wise) from the rng state.
// 4over6 (nvfp4_use_4over6; E = nvfp4_e4m3_max replaces 448, so 2688
// becomes 6 E): base = f32(f32(amax / 6) * S_enc), map-to-6 sf6 =
// e4m3(base), map-to-4 sf4 = e4m3(f32(base * 1.5)), both blocks quantized;
// error e = f32(f32(f32(e2m1(q) * sf) * G) / 6E) - x summed per block in
// element order as |e| or e^2 (2-D: the tile's 16 row sums added as a
// tree); map-to-4 iff its sum is strictly smaller.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "ReferenceBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "qs/Conversion/QSToLinalg/QSToLinalg.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "qs/Dialect/QS/Utils/StochasticRounding.h"
#include "llvm/ADT/bit.h"
#include <cfloat>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::ref;

static constexpr float kInvFp4Max = 1.0f / 6.0f; // 0x3E2AAAAB

namespace {
/// One quantized representation: E2M1 codes [R, C] (i8), E4M3 block scale
/// bytes per row [R, C/16] (i8) and the global amax (scalar or [R]).
struct Quantized {
  Value codes;
  Value scales;
  Value amax;
};

struct NVFP4Reference final
    : QuantizerReferenceInterface::ExternalModel<NVFP4Reference, NVFP4Attr> {
  /// The bf16 RHT of x^T: y[k, 16i + j] = bf16(sum_r x[16i + r, k] * R[r, j])
  /// with R = diag(s) H16 / 4, the signs s of `signMask`, rounded as
  /// Numerics.md says: the exact products w[r] = x[16i + r, k] s[r] / 4, then
  /// four f32 butterfly stages over bit h = 1, 2, 4, 8 of the chunk index
  /// (a[i], a[i + h] <- a[i] + a[i + h], a[i] - a[i + h] where bit h of i is
  /// clear), which leave sum_r w[r] (-1)^popcount(r & j) at index j.
  static Value buildRHT(OpBuilder &b, Location loc, Value x,
                        uint32_t signMask) {
    ArrayRef<int64_t> shape = shapeOf(x);
    int64_t m = shape[0], k = shape[1], chunks = m / 16;
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    SmallVector<float> signs;
    for (int r = 0; r < 16; ++r)
      signs.push_back(nvfp4RHTInputFactor(r, signMask));
    // One fixed location for the table: bufferization turns every copy into
    // one shared memref.global whose location would otherwise be that of
    // whichever function it visits first (not deterministic across runs).
    Value signTable = arith::ConstantOp::create(
        b, NameLoc::get(b.getStringAttr("qs.nvfp4_rht_signs")),
        DenseElementsAttr::get(tensorOf({16}, f32), ArrayRef<float>(signs)));
    AffineExpr d0, d1, d2, d3, d4;
    bindDims(ctx, d0, d1, d2, d3, d4);
    // a[k, i, r] = x[16i + r, k] * s[r] / 4, with x viewed as [M/16, 16, K].
    Value a = generic(b, loc, tensorOf({k, chunks, 16}, f32),
                      {reshape(b, loc, x, {chunks, 16, k}), signTable},
                      {AffineMap::get(3, 0, {d1, d2, d0}, ctx),
                       AffineMap::get(3, 0, {d2}, ctx)},
                      [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                        return arith::MulFOp::create(nb, nl, args[0], args[1]);
                      });
    // Stage h views a chunk's 16 values as [16 / 2h, 2, h]: index g * 2h +
    // t * h + i; t = 0 takes lo + hi, t = 1 lo - hi.
    AffineExpr zero = getAffineConstantExpr(0, ctx),
               one = getAffineConstantExpr(1, ctx);
    for (int64_t h = 1; h < 16; h *= 2) {
      SmallVector<int64_t> view = {k, chunks, 16 / (2 * h), 2, h};
      Value in = reshape(b, loc, a, view);
      Value out = generic(
          b, loc, tensorOf(view, f32), {in, in},
          {AffineMap::get(5, 0, {d0, d1, d2, zero, d4}, ctx),
           AffineMap::get(5, 0, {d0, d1, d2, one, d4}, ctx)},
          [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            Value t = linalg::IndexOp::create(nb, nl, 3);
            Value isSum = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::eq, t,
                arith::ConstantIndexOp::create(nb, nl, 0));
            return arith::SelectOp::create(
                nb, nl, isSum, arith::AddFOp::create(nb, nl, args[0], args[1]),
                arith::SubFOp::create(nb, nl, args[0], args[1]));
          });
      a = reshape(b, loc, out, {k, chunks, 16});
    }
    Value sum = reshape(b, loc, a, {k, m});
    SmallFloatFormat bf16 = SmallFloatFormat::bf16();
    return map(b, loc, f32, sum,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 return emitRoundToFormat(nb, nl, args[0], bf16);
               });
  }

  /// Stochastic rounding's rng state (null: round to nearest) and the
  /// stream of the representation being quantized.
  struct Rng {
    Value seed, offset;
    unsigned stream = 0;
  };

  /// Per block of the E4M3 scale bytes `sf` [R / br, C / 16]: the encode
  /// multiplier min(1 / f32(float(sf) * S_dec), FLT_MAX), S_dec = 1 / S_enc
  /// with S_enc the row's (`rowEnc`, [R]) or `scalarEnc`.
  static Value encodeMultipliers(OpBuilder &b, Location loc, Value sf,
                                 Value rowEnc, Value scalarEnc) {
    MLIRContext *ctx = b.getContext();
    SmallVector<Value> inputs = {sf};
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(2)};
    if (rowEnc) {
      inputs.push_back(rowEnc);
      maps.push_back(AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
    return generic(b, loc, tensorOf(shapeOf(sf), b.getF32Type()), inputs, maps,
                   [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                     Value sDec =
                         arith::DivFOp::create(nb, nl, constF32(nb, nl, 1.0f),
                                               rowEnc ? args[1] : scalarEnc);
                     Value prod = arith::MulFOp::create(
                         nb, nl, emitDecodeToF32(nb, nl, args[0], e4m3), sDec);
                     Value inv = arith::DivFOp::create(
                         nb, nl, constF32(nb, nl, 1.0f), prod);
                     return arith::MinNumFOp::create(nb, nl, inv,
                                                     constF32(nb, nl, FLT_MAX));
                   });
  }

  /// Quantizes the rows of z [R, C] as `q` says (global amax per row if
  /// row-scaled, 16x16 tiles, 4over6); codes rounded stochastically if
  /// `rng.seed`; `givenAmax` (f32, TE's amax reduction) is the global amax
  /// instead of max |z|.
  static Quantized quantizeRows(OpBuilder &b, Location loc, Value z,
                                NVFP4Attr q, Rng rng, Value givenAmax) {
    bool rowScaled = q.getRowScaledNvfp4(), tiles = q.getWith_2dQuantization();
    int64_t e4m3Max = q.getNvfp4E4m3Max();
    ArrayRef<int64_t> shape = shapeOf(z);
    int64_t rows = shape[0], cols = shape[1];
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    Type i8 = b.getI8Type();
    SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
    SmallFloatFormat e2m1 = SmallFloatFormat::e2m1();

    Quantized result;
    // Per-row encode scales as a [rows] tensor, or one scalar.
    Value rowEnc, scalarEnc;
    if (rowScaled) {
      result.amax = absMaxRows(b, loc, z);
      rowEnc =
          map(b, loc, b.getF32Type(), result.amax,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                return ref::nvfp4GlobalEncodeScale(nb, nl, args[0], e4m3Max);
              });
    } else {
      result.amax = givenAmax ? givenAmax : absMaxAll(b, loc, z);
      scalarEnc = ref::nvfp4GlobalEncodeScale(b, loc, result.amax, e4m3Max);
    }
    int64_t br = tiles ? 16 : 1;
    Value blockAmax = blockAbsMax(b, loc, z, br, 16); // [rows/br, cols/16]
    if (q.getNvfp4Use_4over6())
      return quantize4over6(b, loc, z, q, result.amax, blockAmax, rowEnc,
                            scalarEnc);
    AffineMap id = b.getMultiDimIdentityMap(2);
    AffineMap perRow = AffineMap::get(2, 0, {d0}, ctx);

    // sf = e4m3(amax * (S_enc * 1/6)) and enc = min(1 / (sf * S_dec), FLT_MAX).
    SmallVector<Value> sfInputs = {blockAmax};
    SmallVector<AffineMap> sfMaps = {id};
    if (rowEnc) {
      sfInputs.push_back(rowEnc);
      sfMaps.push_back(perRow);
    }
    auto encOf = [&](ValueRange args) { return rowEnc ? args[1] : scalarEnc; };
    Value sf = generic(
        b, loc, tensorOf(shapeOf(blockAmax), i8), sfInputs, sfMaps,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value factor = arith::MulFOp::create(nb, nl, encOf(args),
                                               constF32(nb, nl, kInvFp4Max));
          Value v = arith::MulFOp::create(nb, nl, args[0], factor);
          v = arith::MinNumFOp::create(nb, nl, v, constF32(nb, nl, FLT_MAX));
          return emitEncodeF32(nb, nl, v, e4m3);
        });
    Value enc = encodeMultipliers(b, loc, sf, rowEnc, scalarEnc);
    AffineMap block = AffineMap::get(2, 0, {d0.floorDiv(br), d1.floorDiv(16)},
                                     ctx);
    result.codes = generic(
        b, loc, tensorOf({rows, cols}, i8), {z, enc}, {id, block},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = arith::MulFOp::create(nb, nl, args[0], args[1]);
          if (!rng.seed)
            return emitEncodeF32(nb, nl, v, e2m1);
          // Element i = r * C + c: byte i mod 4 of word (i / 4) mod 4 of
          // group i / 16.
          Value i = arith::AddIOp::create(
              nb, nl,
              arith::MulIOp::create(
                  nb, nl, linalg::IndexOp::create(nb, nl, 0),
                  arith::ConstantIndexOp::create(nb, nl, cols)),
              linalg::IndexOp::create(nb, nl, 1));
          auto idx = [&](int64_t c) {
            return arith::ConstantIndexOp::create(nb, nl, c).getResult();
          };
          std::array<Value, 4> words = emitStochasticBits(
              nb, nl, rng.seed, rng.offset,
              arith::DivUIOp::create(nb, nl, i, idx(16)), rng.stream);
          Value lane = arith::RemUIOp::create(
              nb, nl, arith::DivUIOp::create(nb, nl, i, idx(4)), idx(4));
          Value word = words[3];
          for (int w = 2; w >= 0; --w)
            word = arith::SelectOp::create(
                nb, nl,
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, lane,
                                      idx(w)),
                words[w], word);
          Type i32 = nb.getI32Type();
          Value shift = arith::IndexCastUIOp::create(
              nb, nl, i32,
              arith::MulIOp::create(
                  nb, nl, arith::RemUIOp::create(nb, nl, i, idx(4)), idx(8)));
          Value byte = arith::AndIOp::create(
              nb, nl, arith::ShRUIOp::create(nb, nl, word, shift),
              arith::ConstantIntOp::create(nb, nl, i32, 0xFF));
          return emitE2M1Stochastic(nb, nl, v, byte);
        });
    result.scales = tilesToRows(b, loc, sf, rows, tiles);
    return result;
  }

  /// quantizeRows with 4over6: both candidates of every block (or 16x16
  /// tile), their errors, and per block the codes and scale of the better.
  static Quantized quantize4over6(OpBuilder &b, Location loc, Value z,
                                  NVFP4Attr q, Value amax, Value blockAmax,
                                  Value rowEnc, Value scalarEnc) {
    ArrayRef<int64_t> shape = shapeOf(z);
    int64_t rows = shape[0], cols = shape[1];
    bool tiles = q.getWith_2dQuantization();
    int64_t br = tiles ? 16 : 1;
    bool mse = q.getNvfp4_4over6ErrMode() == "MSE";
    float sixE = nvfp4SixE(q.getNvfp4E4m3Max());
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    Type i8 = b.getI8Type(), f32 = b.getF32Type();
    SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
    SmallFloatFormat e2m1 = SmallFloatFormat::e2m1();
    AffineMap id = b.getMultiDimIdentityMap(2);
    AffineMap perRow = AffineMap::get(2, 0, {d0}, ctx);
    AffineMap block =
        AffineMap::get(2, 0, {d0.floorDiv(br), d1.floorDiv(16)}, ctx);
    // Block amaxes plus the row's S_enc when row-scaled (a tile never is:
    // row_scaled_nvfp4 excludes 2-D).
    SmallVector<Value> sfInputs = {blockAmax};
    SmallVector<AffineMap> sfMaps = {id};
    if (rowEnc) {
      sfInputs.push_back(rowEnc);
      sfMaps.push_back(perRow);
    }
    // The candidate's scale byte sf = e4m3(min(f32(amax / 6) * S_enc *
    // expand, 448)) and encode multiplier min(1 / f32(sf * S_dec), FLT_MAX).
    auto candidate = [&](float expand) {
      Value sf = generic(
          b, loc, tensorOf(shapeOf(blockAmax), i8), sfInputs, sfMaps,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value v = arith::MulFOp::create(
                nb, nl,
                arith::DivFOp::create(nb, nl, args[0], constF32(nb, nl, 6.0f)),
                rowEnc ? args[1] : scalarEnc);
            if (expand != 1.0f)
              v = arith::MulFOp::create(nb, nl, v, constF32(nb, nl, expand));
            v = arith::MinNumFOp::create(nb, nl, v, constF32(nb, nl, 448.0f));
            return emitEncodeF32(nb, nl, v, e4m3);
          });
      Value enc = encodeMultipliers(b, loc, sf, rowEnc, scalarEnc);
      Value codes = generic(
          b, loc, tensorOf({rows, cols}, i8), {z, enc}, {id, block},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            return emitEncodeF32(
                nb, nl, arith::MulFOp::create(nb, nl, args[0], args[1]), e2m1);
          });
      // Element errors, summed per 1x16 block, then per tile.
      SmallVector<Value> errInputs = {z, codes, sf};
      SmallVector<AffineMap> errMaps = {id, id, block};
      if (rowEnc) {
        errInputs.push_back(amax);
        errMaps.push_back(perRow);
      }
      Value err = generic(
          b, loc, tensorOf({rows, cols}, f32), errInputs, errMaps,
          [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
            Value g = rowEnc ? args[3] : amax;
            Value v = arith::MulFOp::create(
                nb, nl, emitDecodeToF32(nb, nl, args[1], e2m1),
                emitDecodeToF32(nb, nl, args[2], e4m3));
            v = arith::MulFOp::create(nb, nl, v, g);
            v = arith::DivFOp::create(nb, nl, v, constF32(nb, nl, sixE));
            Value diff = arith::SubFOp::create(nb, nl, v, args[0]);
            return mse ? arith::MulFOp::create(nb, nl, diff, diff).getResult()
                       : math::AbsFOp::create(nb, nl, diff).getResult();
          });
      Value sums = blockSum(b, loc, err, 16);
      if (tiles)
        sums = treeSum16Rows(b, loc, sums);
      return std::make_tuple(sf, codes, sums);
    };
    auto [sf6, codes6, err6] = candidate(1.0f);
    auto [sf4, codes4, err4] = candidate(1.5f);
    // Map-to-4 iff its error is strictly smaller (ties keep map-to-6).
    Value pick4 = generic(
        b, loc, tensorOf(shapeOf(err4), b.getI1Type()), {err4, err6}, {id, id},
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT,
                                       args[0], args[1]);
        });
    auto select = [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
      return arith::SelectOp::create(nb, nl, args[0], args[1], args[2]);
    };
    Quantized result;
    result.amax = amax;
    Value sf = generic(b, loc, tensorOf(shapeOf(blockAmax), i8),
                       {pick4, sf4, sf6}, {id, id, id}, select);
    result.codes = generic(b, loc, tensorOf({rows, cols}, i8),
                           {pick4, codes4, codes6}, {block, id, id}, select);
    result.scales = tilesToRows(b, loc, sf, rows, tiles);
    return result;
  }

  /// Block scales per row: a 16x16 tile's scale is written into the 16
  /// rows it covers.
  static Value tilesToRows(OpBuilder &b, Location loc, Value sf, int64_t rows,
                           bool tiles) {
    if (!tiles)
      return sf;
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    return generic(b, loc, tensorOf({rows, shapeOf(sf)[1]}, b.getI8Type()),
                   {sf}, {AffineMap::get(2, 0, {d0.floorDiv(16), d1}, ctx)},
                   [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }

  static SmallVector<int64_t> paddedScaleShape(int64_t rows, int64_t cols) {
    return {roundUp(rows, 128), roundUp(cols / 16, 4)};
  }

  Value buildGlobalAmaxes(Attribute attr, OpBuilder &b, Location loc,
                          QuantTensorType, Value input) const {
    auto q = cast<NVFP4Attr>(attr);
    if (q.getRowScaledNvfp4())
      return {}; // one amax per row
    Value x = toF32(b, loc, to2D(b, loc, input));
    SmallVector<Value> amaxes = {absMaxAll(b, loc, x)};
    if (std::optional<uint32_t> signMask = q.getColumnwiseRhtSignMask())
      amaxes.push_back(absMaxAll(b, loc, buildRHT(b, loc, x, *signMask)));
    return scalarTensor(b, loc, amaxes);
  }

  SmallVector<Value> buildQuantize(Attribute attr, OpBuilder &b, Location loc,
                                   QuantTensorType type, Value input, Value,
                                   Value amaxOperand, Value rngState,
                                   ValueRange, const TargetInfo &target) const {
    auto q = cast<NVFP4Attr>(attr);
    auto [m, k] = flatten2D(type.getShape());
    Value x = toF32(b, loc, to2D(b, loc, input));
    // The given global amaxes (TE's amax reduction): of both usages, or
    // with RHT max |x| then max |RHT(x^T)|; else null.
    Value givenRowAmax, givenColAmax;
    if (amaxOperand) {
      givenRowAmax = extractScalar(b, loc, amaxOperand);
      givenColAmax =
          q.getWithRht() ? extractScalar(b, loc, amaxOperand, 1) : givenRowAmax;
    }
    bool rowScaled = q.getRowScaledNvfp4();
    Rng rng;
    if (rngState) {
      auto element = [&](int64_t e) {
        return tensor::ExtractOp::create(
            b, loc, rngState,
            ValueRange{arith::ConstantIndexOp::create(b, loc, e)});
      };
      rng.seed = element(0);
      rng.offset = element(1);
    }
    Quantized row, col;
    if (q.getRowwise())
      row = quantizeRows(b, loc, x, q, rng, givenRowAmax);
    if (q.getColumnwise()) {
      std::optional<uint32_t> signMask = q.getColumnwiseRhtSignMask();
      Value y =
          signMask ? buildRHT(b, loc, x, *signMask) : transpose2D(b, loc, x);
      rng.stream = 1;
      col = quantizeRows(b, loc, y, q, rng, givenColAmax);
    }
    auto amaxTensor = [&](Value amax) {
      return rowScaled ? amax : scalarTensor(b, loc, amax);
    };
    SmallVector<Value> results;
    for (const InnerTensor &t : type.getInnerTensors(target)) {
      bool isRow = StringRef(t.name).starts_with("rowwise") ||
                   t.name == "amax_rowwise";
      const Quantized &rep = isRow ? row : col;
      int64_t rows = isRow ? m : k, cols = isRow ? k : m;
      if (StringRef(t.name).ends_with("_data"))
        results.push_back(
            reshape(b, loc, packNibbles(b, loc, rep.codes), t.shape));
      else if (StringRef(t.name).ends_with("_scale_inv"))
        results.push_back(bitcastElements(
            b, loc,
            layoutScales(b, loc, rep.scales, paddedScaleShape(rows, cols),
                         q.getOptimizeForGemm(), t.shape),
            t.elementType));
      else
        results.push_back(amaxTensor(rep.amax));
    }
    return results;
  }

  /// One stored representation ([M, K] row-wise, [K, M] column-wise):
  /// E2M1 values, E4M3 scale values per row block, amax per row or scalar.
  static Quantized readRows(OpBuilder &b, Location loc, NVFP4Attr q,
                            QuantTensorType type, ValueRange inner,
                            bool rowwise, const TargetInfo &target) {
    auto [m, k] = flatten2D(type.getShape());
    int64_t rows = rowwise ? m : k, cols = rowwise ? k : m;
    StringRef prefix = rowwise ? "rowwise" : "columnwise";
    Value data = findInner(type, inner, target, (prefix + "_data").str());
    Value buffer = findInner(type, inner, target, (prefix + "_scale_inv").str());
    Value amax = findInner(type, inner, target,
                           rowwise ? "amax_rowwise" : "amax_columnwise");
    Quantized rep;
    rep.codes = unpackNibbles(b, loc, reshape(b, loc, data, {rows, cols / 2}));
    rep.scales = readScales(b, loc, bitcastElements(b, loc, buffer, b.getI8Type()),
                            paddedScaleShape(rows, cols),
                            q.getOptimizeForGemm(), rows, cols / 16);
    rep.amax = q.getRowScaledNvfp4() ? amax : extractScalar(b, loc, amax);
    return rep;
  }

  Value buildDequantize(Attribute attr, OpBuilder &b, Location loc,
                        QuantTensorType type, ValueRange inner,
                        const TargetInfo &target) const {
    auto q = cast<NVFP4Attr>(attr);
    Quantized rep = readRows(b, loc, q, type, inner, /*rowwise=*/true, target);
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    SmallVector<Value> inputs = {rep.codes, rep.scales};
    SmallVector<AffineMap> maps = {
        b.getMultiDimIdentityMap(2),
        AffineMap::get(2, 0, {d0, d1.floorDiv(16)}, ctx)};
    bool rowScaled = q.getRowScaledNvfp4();
    if (rowScaled) {
      inputs.push_back(rep.amax);
      maps.push_back(AffineMap::get(2, 0, {d0}, ctx));
    }
    SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
    SmallFloatFormat e2m1 = SmallFloatFormat::e2m1();
    Value x = generic(
        b, loc, tensorOf(shapeOf(rep.codes), b.getF32Type()), inputs, maps,
        [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value g = rowScaled ? args[2] : rep.amax;
          Value sf = emitDecodeToF32(nb, nl, args[1], e4m3);
          Value factor = arith::MulFOp::create(
              nb, nl, arith::MulFOp::create(nb, nl, sf, g),
              constF32(nb, nl, nvfp4InvSixE(q.getNvfp4E4m3Max())));
          return arith::MulFOp::create(
              nb, nl, emitDecodeToF32(nb, nl, args[0], e2m1), factor);
        });
    return reshape(b, loc, x, type.getShape());
  }

  ReferenceGemmOperand buildGemmOperand(Attribute attr, OpBuilder &b,
                                        Location loc, QuantTensorType type,
                                        ValueRange inner, bool contractsLastDim,
                                        const TargetInfo &target) const {
    auto q = cast<NVFP4Attr>(attr);
    // Row-wise data is [M, K] and column-wise [K, M]: both are already
    // [rows, contraction] for the contraction they serve.
    Quantized rep =
        readRows(b, loc, q, type, inner, contractsLastDim, target);
    ReferenceGemmOperand operand;
    operand.q = decodeElements(b, loc, rep.codes, SmallFloatFormat::e2m1());
    operand.blockScales =
        decodeElements(b, loc, rep.scales, SmallFloatFormat::e4m3());
    operand.blockK = 16;
    auto factor = [&](OpBuilder &nb, Location nl, Value amax) -> Value {
      return arith::MulFOp::create(
          nb, nl, amax, constF32(nb, nl, nvfp4InvSixE(q.getNvfp4E4m3Max())));
    };
    if (q.getRowScaledNvfp4())
      operand.rowFactor =
          map(b, loc, b.getF32Type(), rep.amax,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                return factor(nb, nl, args[0]);
              });
    else
      operand.global = factor(b, loc, rep.amax);
    return operand;
  }

  SmallVector<Value> buildCreatedInnerTensors(Attribute attr, OpBuilder &b,
                                              Location loc,
                                              QuantTensorType source,
                                              QuantTensorType result,
                                              ValueRange inner,
                                              const TargetInfo &target) const {
    // 16x16 tiles without RHT: nibble transpose, tile scales transposed,
    // amax copied.
    auto q = cast<NVFP4Attr>(attr);
    auto [m, k] = flatten2D(source.getShape());
    Quantized row = readRows(b, loc, q, source, inner, /*rowwise=*/true, target);
    MLIRContext *ctx = b.getContext();
    AffineExpr d0, d1;
    bindDims(ctx, d0, d1);
    Value colScales = generic(
        b, loc, tensorOf({k, m / 16}, b.getI8Type()), {row.scales},
        {AffineMap::get(2, 0, {d1 * 16, d0.floorDiv(16)}, ctx)},
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    SmallVector<Value> created;
    for (const InnerTensor &t : getCreatedInnerTensors(source, result, target)) {
      if (t.name == "columnwise_data")
        created.push_back(packNibbles(b, loc, transpose2D(b, loc, row.codes)));
      else if (t.name == "columnwise_scale_inv")
        created.push_back(bitcastElements(
            b, loc,
            layoutScales(b, loc, colScales, paddedScaleShape(k, m),
                         q.getOptimizeForGemm(), t.shape),
            t.elementType));
      else
        created.push_back(findInner(source, inner, target, "amax_rowwise"));
    }
    return created;
  }
};
} // namespace

void mlir::qs::attachNVFP4Reference(MLIRContext *ctx) {
  NVFP4Attr::attachInterface<NVFP4Reference>(*ctx);
}
