//===- TestStoragePatterns.cpp - test passes for the qs storage patterns --===//
//
// `test-qs-storage-patterns`: the local (greedy) forms of qs-infer-usage and
// qs-select-scale-layout, as another compiler would use them.
//
// `test-qs-upstream-one-to-n`: flattens with upstream's function-signature
// and branch type-conversion patterns instead of ours, to show what they do
// not handle 1:N in this MLIR (test/Dialect/QS/upstream-one-to-n.mlir). When
// that test starts failing, upstream has caught up and our own patterns in
// FlattenStorage.cpp can go.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Transforms/Transforms.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::qs;

namespace {

struct TestStoragePatternsPass final
    : PassWrapper<TestStoragePatternsPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestStoragePatternsPass)
  StringRef getArgument() const final { return "test-qs-storage-patterns"; }
  StringRef getDescription() const final {
    return "Apply the local infer-usage and select-scale-layout patterns "
           "greedily";
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateInferUsagePatterns(patterns);
    populateSelectScaleLayoutPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// qs.assemble / qs.disassemble fold into their operands (as in the real
/// pass), so that only the upstream structural patterns are under test.
struct FoldAssemble final : OpConversionPattern<AssembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssembleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> inner;
    for (ValueRange range : adaptor.getInputs())
      llvm::append_range(inner, range);
    rewriter.replaceOpWithMultiple(op, {inner});
    return success();
  }
};

struct TestUpstreamOneToNPass final
    : PassWrapper<TestUpstreamOneToNPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestUpstreamOneToNPass)
  StringRef getArgument() const final { return "test-qs-upstream-one-to-n"; }
  StringRef getDescription() const final {
    return "Flatten !qs.tensor with upstream's function-signature and branch "
           "patterns only";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<cf::ControlFlowDialect, func::FuncDialect>();
  }
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    StorageTypeConverter converter(TargetInfo::lookup(getOperation()));
    ConversionTarget target(*ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<FoldAssemble>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp func) {
      return converter.isSignatureLegal(func.getFunctionType()) &&
             converter.isLegal(&func.getBody());
    });
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

namespace mlir::qs::test {
void registerTestPasses() {
  PassRegistration<TestStoragePatternsPass>();
  PassRegistration<TestUpstreamOneToNPass>();
}
} // namespace mlir::qs::test
