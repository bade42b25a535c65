//===- ExpandStorage.cpp - proto-level ops to buffer-level ops ------------===//
//
// Implements `qs-expand-storage`: every proto-level op becomes explicit
// allocations (`tensor.empty`, one per inner tensor, interface order) and a
// buffer-level, destination-style op on the inner tensors; quantized values
// still travel as one `!qs.tensor` joined by qs.assemble / qs.disassemble.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Dialect/QS/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSEXPANDSTORAGEPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

/// One `tensor.empty` per inner tensor.
static SmallVector<Value> createEmpties(OpBuilder &b, Location loc,
                                        ArrayRef<InnerTensor> inner) {
  return llvm::map_to_vector(inner, [&](const InnerTensor &t) -> Value {
    return tensor::EmptyOp::create(b, loc, t.shape, t.elementType);
  });
}

/// The inner tensors of `value`: the operands of its qs.assemble when it has
/// one (the usual case once its producer is expanded; this keeps the IR
/// small), else the results of a new qs.disassemble.
static SmallVector<Value> disassemble(OpBuilder &b, Location loc, Value value,
                                      const TargetInfo &target) {
  if (auto assemble = value.getDefiningOp<AssembleOp>())
    return llvm::to_vector(assemble.getInputs());
  auto type = cast<QuantTensorType>(value.getType());
  return DisassembleOp::create(b, loc, type.getInnerTypes(target), value)
      .getResults();
}

/// The buffer-level op keeps the proto-level op's discardable attributes
/// (qs.chip, the qs.gemm_* kernel options), which later passes look up on the
/// op or its ancestors.
static void keepDiscardableAttrs(Operation *from, Operation *to) {
  for (NamedAttribute attr : from->getDiscardableAttrs())
    to->setDiscardableAttr(attr.getName(), attr.getValue());
}

/// tensor.empty per inner tensor of `type` + qs.quantize_buffers of `input`
/// (read as `readAs`, a quantized type with the same inner tensors and
/// `input`'s type as its expressed type; `amax`: the amax state of delayed
/// scaling, as the last init, or current scaling's given global amax, an
/// operand; `rng`: stochastic rounding's state, or null) + qs.assemble.
/// Returns the quantized value and, with an amax state, the updated amax.
static SmallVector<Value>
quantizeInto(PatternRewriter &rewriter, Location loc, const TargetInfo &target,
             Value input, Value scale, Value amax, Value rng,
             QuantTensorType type, QuantTensorType readAs,
             QuantizeBuffersOp *created = nullptr) {
  SmallVector<InnerTensor> inner = type.getInnerTensors(target);
  SmallVector<Value> outs = createEmpties(rewriter, loc, inner);
  bool state = amax && type.getQuantizer().takesRecipeScale();
  if (state)
    outs.push_back(amax);
  auto buffers = QuantizeBuffersOp::create(
      rewriter, loc, ValueRange(outs).getTypes(), input, scale,
      state ? Value() : amax, rng, outs, TypeAttr::get(readAs));
  if (created)
    *created = buffers;
  SmallVector<Value> results = {AssembleOp::create(
      rewriter, loc, type, buffers.getResults().take_front(inner.size()))};
  if (state)
    results.push_back(buffers.getResults().back());
  return results;
}

namespace {

/// qs.empty -> tensor.empty per inner tensor + qs.assemble.
struct ExpandEmpty final : OpRewritePattern<EmptyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmptyOp op,
                                PatternRewriter &rewriter) const override {
    QuantTensorType type = op.getResult().getType();
    SmallVector<Value> empties = createEmpties(
        rewriter, op.getLoc(), type.getInnerTensors(TargetInfo::lookup(op)));
    rewriter.replaceOpWithNewOp<AssembleOp>(op, type, empties);
    return success();
  }
};

/// qs.quantize -> tensor.empty per inner tensor + qs.quantize_buffers +
/// qs.assemble (the amax state of delayed scaling is the last init).
struct ExpandQuantize final : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    QuantTensorType type = op.getResult().getType();
    QuantizeBuffersOp buffers;
    SmallVector<Value> replacements = quantizeInto(
        rewriter, op.getLoc(), TargetInfo::lookup(op), op.getInput(),
        op.getScale(), op.getAmax(), op.getRng(), type, type, &buffers);
    keepDiscardableAttrs(op, buffers);
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// qs.dequantize -> qs.disassemble + tensor.empty + qs.dequantize_buffers.
struct ExpandDequantize final : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    SmallVector<Value> inner =
        disassemble(rewriter, loc, op.getInput(), TargetInfo::lookup(op));
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType());
    auto buffers =
        DequantizeBuffersOp::create(rewriter, loc, resultType, inner, init,
                                    TypeAttr::get(op.getInput().getType()));
    keepDiscardableAttrs(op, buffers);
    rewriter.replaceOp(op, buffers);
    return success();
  }
};

/// qs.gemm -> qs.disassemble of both operands + init + qs.gemm_buffers; with
/// an output quantizer, the product (GemmOp::getProductType) then goes
/// through qs.quantize_buffers into the result's inner tensors + qs.assemble.
struct ExpandGemm final : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TargetInfo target = TargetInfo::lookup(op);
    RankedTensorType productType = op.getProductType();
    SmallVector<Value> a = disassemble(rewriter, loc, op.getA(), target);
    SmallVector<Value> b = disassemble(rewriter, loc, op.getB(), target);
    Value init = op.getAccumulate();
    if (!init)
      init = tensor::EmptyOp::create(rewriter, loc, productType.getShape(),
                                     productType.getElementType());
    auto buffers = GemmBuffersOp::create(
        rewriter, loc, productType, a, b, op.getBias(), init,
        op.getA().getType(), op.getB().getType(), op.getTransposeA(),
        op.getTransposeB(), static_cast<bool>(op.getAccumulate()),
        op.getFastAccumulate());
    keepDiscardableAttrs(op, buffers);
    QuantTensorType quantized = op.getQuantizedResultType();
    if (!quantized) {
      rewriter.replaceOp(op, buffers);
      return success();
    }
    // The quantize reads the product as it is: its expressed type is the
    // product type (FP32 when fused), the inner tensors those of the result
    // (per-tensor FP8 storage does not depend on the nominal type).
    auto readAs =
        QuantTensorType::get(quantized.getShape(), productType.getElementType(),
                             quantized.getQuantizer());
    QuantizeBuffersOp quantize;
    SmallVector<Value> replacements =
        quantizeInto(rewriter, loc, target, buffers.getResult(), op.getScale(),
                     op.getAmax(), /*rng=*/Value(), quantized, readAs,
                     &quantize);
    // The GEMM's kernel options do not apply to the quantize; its chip does.
    StringRef chipAttr = QSDialect::getChipAttrName();
    if (Attribute chip = op->getDiscardableAttr(chipAttr))
      quantize->setDiscardableAttr(chipAttr, chip);
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// qs.update_usage -> qs.disassemble + (qs.update_usage_buffers for what it
/// creates) + qs.assemble of the kept and created inner tensors.
struct ExpandUpdateUsage final : OpRewritePattern<UpdateUsageOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UpdateUsageOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TargetInfo target = TargetInfo::lookup(op);
    QuantTensorType source = op.getInput().getType();
    QuantTensorType result = op.getResult().getType();
    SmallVector<Value> inputs = disassemble(rewriter, loc, op.getInput(), target);
    SmallVector<InnerTensor> sourceInner = source.getInnerTensors(target);
    SmallVector<InnerTensor> created =
        getCreatedInnerTensors(source, result, target);
    ValueRange createdValues;
    if (!created.empty()) {
      SmallVector<Value> outs = createEmpties(rewriter, loc, created);
      auto buffers = UpdateUsageBuffersOp::create(
          rewriter, loc, ValueRange(outs).getTypes(), inputs, outs,
          TypeAttr::get(source), TypeAttr::get(result));
      keepDiscardableAttrs(op, buffers);
      createdValues = buffers.getResults();
    }
    SmallVector<Value> values;
    unsigned next = 0;
    for (const InnerTensor &t : result.getInnerTensors(target)) {
      auto kept = llvm::find_if(sourceInner, [&](const InnerTensor &s) {
        return s.name == t.name;
      });
      values.push_back(kept != sourceInner.end()
                           ? inputs[kept - sourceInner.begin()]
                           : createdValues[next++]);
    }
    rewriter.replaceOpWithNewOp<AssembleOp>(op, result, values);
    return success();
  }
};

} // namespace

void mlir::qs::populateExpandStoragePatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandEmpty, ExpandQuantize, ExpandDequantize, ExpandGemm,
               ExpandUpdateUsage>(patterns.getContext());
}

namespace {
struct QSExpandStoragePass final
    : qs::impl::QSExpandStoragePassBase<QSExpandStoragePass> {
  void runOnOperation() override {
    // A quantized value's inner tensors follow the chip it was produced
    // for; an op selecting another chip would read them in another layout.
    if (failed(TargetInfo::verifyOneChip(getOperation(),
                                         "qs-expand-storage expands")))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateExpandStoragePatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
