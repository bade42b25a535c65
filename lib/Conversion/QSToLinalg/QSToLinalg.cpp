//===- QSToLinalg.cpp - reference lowering of buffer-level qs ops ---------===//
//
// Implements `convert-qs-to-linalg`: each buffer-level op is rewritten into
// the computation its quantizer's QuantizerReferenceInterface builds; the
// GEMM combines two operands with per-block FP32 promotion. Families are
// never switched on here.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "ReferenceBuilders.h"
#include "qs/Conversion/Passes.h"
#include "qs/Conversion/QSToLinalg/QSToLinalg.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::qs {
#define GEN_PASS_DEF_CONVERTQSTOLINALGPASS
#include "qs/Conversion/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::ref;

#include "qs/Conversion/QSToLinalg/QuantizerReferenceInterface.cpp.inc"

static QuantizerReferenceInterface referenceOf(QuantTensorType type) {
  return dyn_cast<QuantizerReferenceInterface>(type.getQuantizer());
}

/// D[m, n] = sum_kb sA[m,kb] sB[n,kb] (sum_{k in kb} qA[m,k] qB[n,k]), then
/// times gA gB, times rA[m] rB[n], plus bias[n] and the accumulator; f32
/// throughout, sums in index order.
static Value buildGemm(OpBuilder &b, Location loc, ReferenceGemmOperand a,
                       ReferenceGemmOperand bOp, Value bias, Value acc) {
  MLIRContext *ctx = b.getContext();
  int64_t m = shapeOf(a.q)[0], n = shapeOf(bOp.q)[0], k = shapeOf(a.q)[1];
  bool blocked = a.blockScales || bOp.blockScales;
  int64_t blockK = !blocked ? k : (a.blockScales ? a.blockK : bOp.blockK);
  int64_t kp = roundUp(k, blockK), kb = kp / blockK;
  Value qa = padZero(b, loc, a.q, {m, kp});
  Value qb = padZero(b, loc, bOp.q, {n, kp});
  Type f32 = b.getF32Type();
  using utils::IteratorType;
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  // Partial sums per contraction block ([rows, blocks, blockK] views).
  Value qa3 = reshape(b, loc, qa, {m, kb, blockK});
  Value qb3 = reshape(b, loc, qb, {n, kb, blockK});
  Value partial = contract(b, loc, {m, n, kb}, qa3,
                           AffineMap::get(4, 0, {d0, d2, d3}, ctx), qb3,
                           AffineMap::get(4, 0, {d1, d2, d3}, ctx));
  // Promotion: scale each block's partial sum and accumulate over blocks.
  SmallVector<Value> inputs = {partial};
  SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d0, d1, d2}, ctx)};
  if (a.blockScales) {
    inputs.push_back(a.blockScales);
    maps.push_back(AffineMap::get(3, 0, {d0, d2}, ctx));
  }
  if (bOp.blockScales) {
    inputs.push_back(bOp.blockScales);
    maps.push_back(AffineMap::get(3, 0, {d1, d2}, ctx));
  }
  maps.push_back(AffineMap::get(3, 0, {d0, d1}, ctx));
  bool hasA = static_cast<bool>(a.blockScales);
  bool hasB = static_cast<bool>(bOp.blockScales);
  Value d =
      linalg::GenericOp::create(
          b, loc, TypeRange{tensorOf({m, n}, f32)}, inputs,
          ValueRange{zerosF32(b, loc, {m, n})}, maps,
          ArrayRef<IteratorType>{IteratorType::parallel,
                                 IteratorType::parallel,
                                 IteratorType::reduction},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value scale = constF32(nb, nl, 1.0f);
            unsigned next = 1;
            if (hasA)
              scale = args[next++];
            if (hasB)
              scale = arith::MulFOp::create(nb, nl, scale, args[next++]);
            Value term = arith::MulFOp::create(nb, nl, scale, args[0]);
            Value sum = arith::AddFOp::create(nb, nl, args.back(), term);
            linalg::YieldOp::create(nb, nl, sum);
          })
          .getResult(0);
  // Per-tensor factors, per-row factors, bias, accumulator.
  Value global;
  if (a.global && bOp.global)
    global = arith::MulFOp::create(b, loc, a.global, bOp.global);
  else
    global = a.global ? a.global : bOp.global;
  SmallVector<Value> epiInputs = {d};
  SmallVector<AffineMap> epiMaps = {b.getMultiDimIdentityMap(2)};
  AffineExpr e0, e1;
  bindDims(ctx, e0, e1);
  auto add = [&](Value v, AffineMap map) {
    if (!v)
      return -1;
    epiInputs.push_back(v);
    epiMaps.push_back(map);
    return static_cast<int>(epiInputs.size()) - 1;
  };
  int ra = add(a.rowFactor, AffineMap::get(2, 0, {e0}, ctx));
  int rb = add(bOp.rowFactor, AffineMap::get(2, 0, {e1}, ctx));
  int bi = add(bias, AffineMap::get(2, 0, {e1}, ctx));
  int ac = add(acc, b.getMultiDimIdentityMap(2));
  return generic(
      b, loc, tensorOf({m, n}, f32), epiInputs, epiMaps,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = args[0];
        if (global)
          v = arith::MulFOp::create(nb, nl, v, global);
        if (ra >= 0 || rb >= 0) {
          Value rows = ra >= 0 ? args[ra] : constF32(nb, nl, 1.0f);
          if (rb >= 0)
            rows = arith::MulFOp::create(nb, nl, rows, args[rb]);
          v = arith::MulFOp::create(nb, nl, v, rows);
        }
        if (bi >= 0)
          v = arith::AddFOp::create(nb, nl, v, emitExtToF32(nb, nl, args[bi]));
        if (ac >= 0)
          v = arith::AddFOp::create(nb, nl, v, emitExtToF32(nb, nl, args[ac]));
        return v;
      });
}

namespace {

/// Lowers an op whose numerics are its quantized type's reference model
/// alone (the type `typeOf` gives): `build` returns its replacement values,
/// none for no match.
template <typename OpT>
struct LowerThroughReference final : OpRewritePattern<OpT> {
  using Build = SmallVector<Value> (*)(OpT, QuantizerReferenceInterface,
                                       PatternRewriter &);
  LowerThroughReference(MLIRContext *ctx, QuantTensorType (*typeOf)(OpT),
                        Build build)
      : OpRewritePattern<OpT>(ctx), typeOf(typeOf), build(build) {}
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    QuantizerReferenceInterface reference = referenceOf(typeOf(op));
    if (!reference)
      return rewriter.notifyMatchFailure(op, "no reference model");
    SmallVector<Value> results = build(op, reference, rewriter);
    // None only for a qs.amax of a quantizer without global amaxes, which
    // the verifier rejects.
    if (results.empty())
      return rewriter.notifyMatchFailure(op, "no reference values");
    rewriter.replaceOp(op, results);
    return success();
  }
  QuantTensorType (*typeOf)(OpT);
  Build build;
};

template <typename OpT>
static void
addThroughReference(RewritePatternSet &patterns, QuantTensorType (*typeOf)(OpT),
                    typename LowerThroughReference<OpT>::Build build) {
  patterns.add(std::make_unique<LowerThroughReference<OpT>>(
      patterns.getContext(), typeOf, build));
}

struct LowerGemmBuffers final : OpRewritePattern<GemmBuffersOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmBuffersOp op,
                                PatternRewriter &rewriter) const override {
    QuantizerReferenceInterface refA = referenceOf(op.getATensorType());
    QuantizerReferenceInterface refB = referenceOf(op.getBTensorType());
    if (!refA || !refB)
      return rewriter.notifyMatchFailure(op, "no reference model");
    Location loc = op.getLoc();
    TargetInfo target = TargetInfo::lookup(op);
    ReferenceGemmOperand a =
        refA.buildGemmOperand(rewriter, loc, op.getATensorType(), op.getA(),
                              !op.getTransposeA(), target);
    ReferenceGemmOperand b =
        refB.buildGemmOperand(rewriter, loc, op.getBTensorType(), op.getB(),
                              op.getTransposeB(), target);
    RankedTensorType resultType = op.getResult().getType();
    Value acc;
    if (op.getAccumulate())
      acc = to2D(rewriter, loc, op.getInit());
    Value d = buildGemm(rewriter, loc, a, b, op.getBias(), acc);
    d = fromF32(rewriter, loc, d, resultType.getElementType());
    rewriter.replaceOp(op, reshape(rewriter, loc, d, resultType.getShape()));
    return success();
  }
};

/// qs.bias_grad: column sums of the input folded to [M, N], in chunks of
/// kBiasGradChunkRows rows (the op's order): the transposed rows zero-padded
/// to whole chunks (adding +0.0 to a sum that started at +0.0 changes
/// nothing), each chunk summed from 0 in row order, the chunks' sums summed
/// from 0 in chunk order, rounded to the result type.
struct LowerBiasGrad final : OpRewritePattern<BiasGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BiasGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = toF32(rewriter, loc, to2D(rewriter, loc, op.getInput()));
    int64_t m = shapeOf(x)[0], n = shapeOf(x)[1];
    int64_t chunks = ceilDiv(m, kBiasGradChunkRows);
    Value xt = padZero(rewriter, loc, transpose2D(rewriter, loc, x),
                       {n, chunks * kBiasGradChunkRows});
    Value partial = blockSum(rewriter, loc, xt, kBiasGradChunkRows);
    Value total = blockSum(rewriter, loc, partial, chunks);
    // Any NaN as +0x7FC00000 (which fromF32 writes as the format's quiet
    // NaN): NaN bits from additions differ between CPUs and GPUs.
    total = map(rewriter, loc, rewriter.getF32Type(), total,
                [](OpBuilder &nb, Location nl, ValueRange args) {
                  return emitCanonicalNaN(nb, nl, args[0]);
                });
    RankedTensorType resultType = op.getResult().getType();
    total = fromF32(rewriter, loc, total, resultType.getElementType());
    rewriter.replaceOp(op,
                       reshape(rewriter, loc, total, resultType.getShape()));
    return success();
  }
};

/// Elements [offset, offset + size) of a 1-D tensor.
static Value slice1D(OpBuilder &b, Location loc, Value tensor, int64_t offset,
                     int64_t size) {
  return tensor::ExtractSliceOp::create(
      b, loc, tensor, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// qs.amax_and_scale_update: the history rolled with tensor slices, the
/// amax a linalg.reduce of arith.maxnumf (fmaxf: NaN ignored; a maximum is
/// the same in any order) from 0.0, the scale delayedScaleFromAmax's.
struct LowerAmaxAndScaleUpdate final : OpRewritePattern<AmaxAndScaleUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AmaxAndScaleUpdateOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value history = op.getHistory();
    int64_t length = shapeOf(history)[0];
    // The step's amax: the given (all-reduced) one unless it is 0.0.
    Value last = extractScalar(rewriter, loc, history);
    if (Value given = op.getAmax())
      last = delayedStepAmax(rewriter, loc, last,
                             extractScalar(rewriter, loc, given));
    // [0, h[2], ..., h[L-1], last].
    Value rolled = zerosF32(rewriter, loc, {length});
    if (length >= 3) {
      Value tail = slice1D(rewriter, loc, history, 2, length - 2);
      rolled = tensor::InsertSliceOp::create(
          rewriter, loc, tail, rolled,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(length - 2)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    }
    if (length >= 2)
      rolled =
          tensor::InsertOp::create(rewriter, loc, last, rolled,
                                   ValueRange{arith::ConstantIndexOp::create(
                                       rewriter, loc, length - 1)});
    Value amax = last;
    if (op.getAmaxComputeAlgo() == "max") {
      Value acc = constF32(rewriter, loc, 0.0f);
      if (length >= 2) {
        Value older = slice1D(rewriter, loc, history, 1, length - 1);
        Value init = tensor::FromElementsOp::create(
            rewriter, loc, RankedTensorType::get({}, rewriter.getF32Type()),
            ValueRange{acc});
        Value reduced =
            linalg::ReduceOp::create(
                rewriter, loc, ValueRange{older}, ValueRange{init},
                ArrayRef<int64_t>{0},
                [](OpBuilder &nb, Location nl, ValueRange args) {
                  linalg::YieldOp::create(nb, nl,
                                          ValueRange{arith::MaxNumFOp::create(
                                              nb, nl, args[1], args[0])});
                })
                .getResult(0);
        acc = tensor::ExtractOp::create(rewriter, loc, reduced, ValueRange{});
      }
      amax = arith::MaxNumFOp::create(rewriter, loc, acc, last);
    }
    Value scale = delayedScaleFromAmax(
        rewriter, loc, amax, extractScalar(rewriter, loc, op.getScale()),
        op.getScaledMax());
    rewriter.replaceOp(op, {rolled, scalarTensor(rewriter, loc, scale)});
    return success();
  }
};

} // namespace

void mlir::qs::populateQSToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGemmBuffers, LowerBiasGrad, LowerAmaxAndScaleUpdate>(
      patterns.getContext());
  addThroughReference<QuantizeBuffersOp>(
      patterns,
      [](QuantizeBuffersOp op) { return op.getQuantizedTensorType(); },
      [](QuantizeBuffersOp op, QuantizerReferenceInterface reference,
         PatternRewriter &rewriter) {
        return reference.buildQuantize(
            rewriter, op.getLoc(), op.getQuantizedTensorType(), op.getInput(),
            op.getScale(), op.getAmax(), op.getRng(), op.getOuts(),
            TargetInfo::lookup(op));
      });
  addThroughReference<DequantizeBuffersOp>(
      patterns,
      [](DequantizeBuffersOp op) { return op.getQuantizedTensorType(); },
      [](DequantizeBuffersOp op, QuantizerReferenceInterface reference,
         PatternRewriter &rewriter) {
        Value x = reference.buildDequantize(
            rewriter, op.getLoc(), op.getQuantizedTensorType(), op.getInputs(),
            TargetInfo::lookup(op));
        return SmallVector<Value>{
            fromF32(rewriter, op.getLoc(), x,
                    op.getResult().getType().getElementType())};
      });
  addThroughReference<UpdateUsageBuffersOp>(
      patterns,
      [](UpdateUsageBuffersOp op) { return op.getSourceTensorType(); },
      [](UpdateUsageBuffersOp op, QuantizerReferenceInterface reference,
         PatternRewriter &rewriter) {
        return reference.buildCreatedInnerTensors(
            rewriter, op.getLoc(), op.getSourceTensorType(),
            op.getResultTensorType(), op.getInputs(), TargetInfo::lookup(op));
      });
  addThroughReference<AmaxOp>(
      patterns, [](AmaxOp op) { return op.getQuantizedTensorType(); },
      [](AmaxOp op, QuantizerReferenceInterface reference,
         PatternRewriter &rewriter) {
        Value amaxes = reference.buildGlobalAmaxes(
            rewriter, op.getLoc(), op.getQuantizedTensorType(), op.getInput());
        return amaxes ? SmallVector<Value>{amaxes} : SmallVector<Value>();
      });
}

void mlir::qs::registerQSToLinalgInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, QSDialect *) {
    attachPerTensorReference(ctx);
    attachMXFP8Reference(ctx);
    attachBlockReference(ctx);
    attachNVFP4Reference(ctx);
  });
}

/// Reports quantizers the reference cannot lower, before anything changes.
static LogicalResult checkSupport(Operation *root) {
  bool ok = true;
  auto check = [&](Operation *op, QuantTensorType type) {
    QuantizerReferenceInterface reference = referenceOf(type);
    if (!reference) {
      // Tested by test/CAPI/qs-capi-test.c: qs-opt always registers the
      // models, a context built from dialect handles does not.
      op->emitError() << "no reference lowering for " << type
                      << " (the quantizer has no QuantizerReferenceInterface "
                         "model: call registerQSToLinalgInterfaces)";
      ok = false;
      return;
    }
    if (failed(reference.verifyReferenceSupport(
            type, [&] { return op->emitError(); })))
      ok = false;
  };
  root->walk([&](Operation *op) {
    if (auto q = dyn_cast<QuantizeBuffersOp>(op))
      check(op, q.getQuantizedTensorType());
    else if (auto d = dyn_cast<DequantizeBuffersOp>(op))
      check(op, d.getQuantizedTensorType());
    else if (auto g = dyn_cast<GemmBuffersOp>(op)) {
      check(op, g.getATensorType());
      check(op, g.getBTensorType());
    } else if (auto u = dyn_cast<UpdateUsageBuffersOp>(op))
      check(op, u.getSourceTensorType());
    else if (auto a = dyn_cast<AmaxOp>(op))
      check(op, a.getQuantizedTensorType());
    else if (isa<EmptyOp, QuantizeOp, DequantizeOp, UpdateUsageOp, GemmOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is a proto-level op; run qs-expand-storage before "
                         "convert-qs-to-linalg";
      ok = false;
    }
  });
  return success(ok);
}

namespace {
struct ConvertQSToLinalgPass final
    : qs::impl::ConvertQSToLinalgPassBase<ConvertQSToLinalgPass> {
  void runOnOperation() override {
    if (failed(checkSupport(getOperation())))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateQSToLinalgPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
