//===- InferUsage.cpp - minimal rowwise/columnwise usage per value --------===//
//
// Implements `qs-infer-usage`: gives every quantized value whose type may
// change exactly the usages its consumers need (gemm operand roles,
// dequantize, update_usage), over classes of values that control flow ties
// together (ValueClasses.h); checks values whose type is fixed.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Analysis/ValueClasses.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Dialect/QS/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSINFERUSAGEPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

/// What a use needs of the value it consumes.
struct UseNeed {
  Usage usage = Usage::None; // representations required
  bool either = false;       // one of the two, whichever exists
  bool derive = false;       // qs.update_usage input: `usage` may be derived
};

/// The need of a rewritable consumer (gemm operand, dequantize,
/// update_usage input); `resultUsage` is the usage an update_usage result
/// gets.
static UseNeed getNeed(OpOperand &use, Usage resultUsage) {
  Operation *owner = use.getOwner();
  if (auto gemm = dyn_cast<GemmOp>(owner)) {
    bool contractsLast = use.getOperandNumber() == 0 ? !gemm.getTransposeA()
                                                     : gemm.getTransposeB();
    return {contractsLast ? Usage::Rowwise : Usage::Columnwise};
  }
  if (auto dequantize = dyn_cast<DequantizeOp>(owner)) {
    if (!dequantize.getInput().getType().getQuantizer().canDequantizeColumnwise())
      return {Usage::Rowwise};
    return {Usage::None, /*either=*/true};
  }
  return {resultUsage, false, /*derive=*/true};
}

static Usage getUsage(QuantTensorType type) {
  QuantizerAttrInterface q = type.getQuantizer();
  return makeUsage(q.getRowwise(), q.getColumnwise());
}

/// The usage flags a rewritable class gets from the needs of its uses.
static Usage solve(Usage needed, bool either, Usage current) {
  if (needed != Usage::None)
    return needed;
  if (either)
    return hasUsage(current, Usage::Rowwise) ? Usage::Rowwise
                                             : Usage::Columnwise;
  return current; // nobody consumes it: leave it alone
}

/// Whether `update` stays valid when its input gets usage `in` and its
/// result usage `out`.
static bool isDerivable(UpdateUsageOp update, Usage in, Usage out,
                        const TargetInfo &target) {
  QuantTensorType input = update.getInput().getType().withUsage(
      hasUsage(in, Usage::Rowwise), hasUsage(in, Usage::Columnwise));
  QuantTensorType result = update.getResult().getType().withUsage(
      hasUsage(out, Usage::Rowwise), hasUsage(out, Usage::Columnwise));
  return input.getQuantizer().canCreateUsage(
      result.getQuantizer().getAvailableUsage(target), target);
}

void mlir::qs::inferUsage(Operation *root) {
  TargetInfo target = TargetInfo::lookup(root);
  QuantizedValueClasses classes(root);
  ArrayRef<QuantizedValueClass> all = classes.getClasses();

  // Direct needs per class (gemm operands, dequantize).
  SmallVector<Usage> direct(all.size(), Usage::None);
  SmallVector<bool> either(all.size(), false);
  SmallVector<UpdateUsageOp> updates;
  for (auto [i, c] : llvm::enumerate(all)) {
    for (OpOperand *use : c.uses) {
      if (auto update = dyn_cast<UpdateUsageOp>(use->getOwner())) {
        updates.push_back(update);
        continue;
      }
      if (!isRewritableConsumer(*use))
        continue;
      UseNeed need = getNeed(*use, Usage::None);
      direct[i] = direct[i] | need.usage;
      either[i] = either[i] || need.either;
    }
  }

  // A class may keep its type although the analysis could rewrite it: when
  // narrowing would leave an update_usage chain underivable (a safety net;
  // verified IR with one update_usage per value never needs it).
  SmallVector<bool> rewritable =
      llvm::map_to_vector(all, [](const QuantizedValueClass &c) {
        return c.isRewritable();
      });
  SmallVector<Usage> solution(all.size());
  auto in = [&](UpdateUsageOp u) { return classes.getClassIndex(u.getInput()); };
  auto out = [&](UpdateUsageOp u) {
    return classes.getClassIndex(u.getResult());
  };
  for (;;) {
    // Needs grow along update_usage (input provides the result's usages
    // directly) until a fixed point.
    SmallVector<Usage> needed(direct);
    auto solve = [&](unsigned i) {
      Usage current = getUsage(all[i].getType());
      return rewritable[i] ? ::solve(needed[i], either[i], current) : current;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (UpdateUsageOp update : updates) {
        if (!rewritable[in(update)])
          continue;
        Usage grown = needed[in(update)] | solve(out(update));
        changed |= grown != needed[in(update)];
        needed[in(update)] = grown;
      }
    }
    for (unsigned i = 0, e = all.size(); i < e; ++i)
      solution[i] = solve(i);
    bool pinned = false;
    for (UpdateUsageOp update : updates) {
      if (isDerivable(update, solution[in(update)], solution[out(update)],
                      target))
        continue;
      rewritable[in(update)] = rewritable[out(update)] = false;
      pinned = true;
    }
    if (!pinned)
      break;
  }

  for (auto [i, c] : llvm::enumerate(all)) {
    QuantTensorType type = c.getType();
    if (!rewritable[i] || solution[i] == getUsage(type))
      continue;
    c.setType(type.withUsage(hasUsage(solution[i], Usage::Rowwise),
                             hasUsage(solution[i], Usage::Columnwise)));
  }
  // update_usage ops whose input now has the result's type are no-ops.
  for (UpdateUsageOp update : updates)
    if (update.getInput().getType() == update.getResult().getType()) {
      update.getResult().replaceAllUsesWith(update.getInput());
      update->erase();
    }
}

namespace {

/// Local form: retypes one producer whose uses are all understood.
struct InferLocalUsage final : RewritePattern {
  InferLocalUsage(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() == 0 || !isRewritableProducer(op->getResult(0)))
      return failure();
    Value value = op->getResult(0);
    QuantizedValueClass c = QuantizedValueClasses::getLocalClass(value);
    if (!c.isRewritable())
      return failure();
    Usage needed = Usage::None;
    bool either = false;
    for (OpOperand *use : c.uses) {
      Usage resultUsage = Usage::None;
      if (auto update = dyn_cast<UpdateUsageOp>(use->getOwner()))
        resultUsage = getUsage(update.getResult().getType());
      UseNeed need = getNeed(*use, resultUsage);
      needed = needed | need.usage;
      either = either || need.either;
    }
    QuantTensorType type = c.getType();
    Usage usage = solve(needed, either, getUsage(type));
    if (usage == getUsage(type))
      return failure();
    QuantTensorType newType = type.withUsage(
        hasUsage(usage, Usage::Rowwise), hasUsage(usage, Usage::Columnwise));
    // An update_usage result can only get what its input can provide.
    if (auto update = dyn_cast<UpdateUsageOp>(op)) {
      TargetInfo target = TargetInfo::lookup(op);
      if (!update.getInput().getType().getQuantizer().canCreateUsage(
              newType.getQuantizer().getAvailableUsage(target), target))
        return failure();
    }
    rewriter.modifyOpInPlace(op, [&] { c.setType(newType); });
    return success();
  }
};

/// Removes a qs.update_usage whose input already has the result type.
struct EraseNoopUpdateUsage final : OpRewritePattern<UpdateUsageOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(UpdateUsageOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInput().getType() != op.getResult().getType())
      return failure();
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

} // namespace

void mlir::qs::populateInferUsagePatterns(RewritePatternSet &patterns) {
  patterns.add<InferLocalUsage, EraseNoopUpdateUsage>(patterns.getContext());
}

namespace {
struct QSInferUsagePass final
    : qs::impl::QSInferUsagePassBase<QSInferUsagePass> {
  void runOnOperation() override { inferUsage(getOperation()); }
};
} // namespace
