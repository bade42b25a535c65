//===- SelectScaleLayout.cpp - GEMM-swizzled scales where GEMMs read them -===//
//
// Implements `qs-select-scale-layout`: MXFP8 and NVFP4 values that feed a
// qs.gemm get `optimize_for_gemm = true`, so their producer writes the
// scales in the 128x4-tiled layout the GEMM reads (te-formats.md §3.b)
// instead of TE's separate swizzle kernel before every GEMM.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Analysis/ValueClasses.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Dialect/QS/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSSELECTSCALELAYOUTPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

static bool isGemmOperand(OpOperand *use) {
  return isa<GemmOp>(use->getOwner()) && use->getOperandNumber() < 2;
}

static bool wantsSwizzle(QuantTensorType type) {
  QuantizerAttrInterface q = type.getQuantizer();
  return q.canWriteGemmSwizzledScales() && !q.writesGemmSwizzledScales();
}

static QuantTensorType withSwizzle(QuantTensorType type) {
  return QuantTensorType::get(type.getContext(), type.getShape(),
                              type.getElementType(),
                              type.getQuantizer().withGemmSwizzledScales(true));
}

void mlir::qs::selectScaleLayout(Operation *root) {
  QuantizedValueClasses classes(root);
  ArrayRef<QuantizedValueClass> all = classes.getClasses();
  // qs.update_usage keeps the quantizer's layout, so its input and result
  // classes form one layout group.
  llvm::EquivalenceClasses<unsigned> groups;
  for (unsigned i = 0, e = all.size(); i < e; ++i)
    groups.insert(i);
  for (const QuantizedValueClass &c : all)
    for (OpOperand *use : c.uses)
      if (auto update = dyn_cast<UpdateUsageOp>(use->getOwner()))
        groups.unionSets(classes.getClassIndex(update.getInput()),
                         classes.getClassIndex(update.getResult()));

  for (auto it = groups.begin(), e = groups.end(); it != e; ++it) {
    if (!(*it)->isLeader())
      continue;
    bool feedsGemm = false, rewritable = true;
    for (auto member = groups.member_begin(**it); member != groups.member_end();
         ++member) {
      const QuantizedValueClass &c = all[*member];
      feedsGemm |= llvm::any_of(c.uses, isGemmOperand);
      rewritable &= c.isRewritable() && wantsSwizzle(c.getType());
    }
    if (!feedsGemm || !rewritable)
      continue;
    for (auto member = groups.member_begin(**it); member != groups.member_end();
         ++member)
      all[*member].setType(withSwizzle(all[*member].getType()));
  }
}

namespace {
/// Local form: a qs.quantize / qs.empty result or a quantized qs.gemm result
/// used only by qs.gemm and qs.dequantize, at least once as a GEMM operand.
struct SwizzleLocalGemmScales final : RewritePattern {
  SwizzleLocalGemmScales(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (isa<UpdateUsageOp>(op) || op->getNumResults() == 0 ||
        !isRewritableProducer(op->getResult(0)))
      return failure();
    QuantizedValueClass c =
        QuantizedValueClasses::getLocalClass(op->getResult(0));
    if (!c.isRewritable() || !wantsSwizzle(c.getType()) ||
        !llvm::any_of(c.uses, isGemmOperand) ||
        llvm::any_of(c.uses, [](OpOperand *use) {
          return isa<UpdateUsageOp>(use->getOwner());
        }))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { c.setType(withSwizzle(c.getType())); });
    return success();
  }
};
} // namespace

void mlir::qs::populateSelectScaleLayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<SwizzleLocalGemmScales>(patterns.getContext());
}

namespace {
struct QSSelectScaleLayoutPass final
    : qs::impl::QSSelectScaleLayoutPassBase<QSSelectScaleLayoutPass> {
  void runOnOperation() override { selectScaleLayout(getOperation()); }
};
} // namespace
