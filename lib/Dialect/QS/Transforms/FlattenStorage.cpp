//===- FlattenStorage.cpp - replace !qs.tensor values by their buffers ----===//
//
// Implements `qs-flatten-storage`: a 1:N dialect conversion that replaces
// each `!qs.tensor` value (function signatures in every block, calls,
// returns, branches, scf regions, selects) by the inner tensors its
// quantizer describes. qs.assemble / qs.disassemble fold away. Upstream's
// call, return and SCF structural patterns work 1:N; the function-signature
// and branch patterns of MLIR 22 do not (non-entry blocks, 1:1 only), so
// this file has its own (test/Dialect/QS/upstream-one-to-n.mlir shows when
// upstream catches up).
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Dialect/QS/Transforms/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSFLATTENSTORAGEPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

//===----------------------------------------------------------------------===//
// Type converter
//===----------------------------------------------------------------------===//

StorageTypeConverter::StorageTypeConverter(const TargetInfo &target)
    : target(target) {
  addConversion([](Type type) { return type; });
  addConversion([target](QuantTensorType type, SmallVectorImpl<Type> &results)
                    -> LogicalResult {
    llvm::append_range(results, type.getInnerTypes(target));
    return success();
  });
  // N inner tensors -> one quantized value, for uses not converted (yet).
  addSourceMaterialization([](OpBuilder &b, QuantTensorType type,
                              ValueRange inputs, Location loc) -> Value {
    return AssembleOp::create(b, loc, type, inputs);
  });
  // One quantized value -> its inner tensors.
  addTargetMaterialization([](OpBuilder &b, TypeRange types, ValueRange inputs,
                              Location loc) -> SmallVector<Value> {
    if (inputs.size() != 1 || !isa<QuantTensorType>(inputs.front().getType()))
      return {};
    return DisassembleOp::create(b, loc, types, inputs.front()).getResults();
  });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

static SmallVector<Value> flattenValues(ArrayRef<ValueRange> values) {
  SmallVector<Value> result;
  for (ValueRange range : values)
    llvm::append_range(result, range);
  return result;
}

/// Appends the attribute dictionaries of the values that replace an argument
/// or result of type `type` (index `origin`, attributes `original`).
static void appendFlattenedAttrs(MLIRContext *ctx, Type type, unsigned origin,
                                 DictionaryAttr original,
                                 const StorageTypeConverter &converter,
                                 SmallVectorImpl<Attribute> &result) {
  auto quantized = dyn_cast<QuantTensorType>(type);
  if (!quantized) {
    result.push_back(original ? original : DictionaryAttr::get(ctx));
    return;
  }
  Builder b(ctx);
  for (const InnerTensor &inner :
       quantized.getInnerTensors(converter.getTarget())) {
    NamedAttrList attrs(original);
    attrs.set("qs.inner", b.getStringAttr(inner.name));
    attrs.set("qs.origin", b.getI64IntegerAttr(origin));
    attrs.set("qs.type", TypeAttr::get(quantized));
    result.push_back(attrs.getDictionary(ctx));
  }
}

namespace {

/// qs.assemble: its uses see the inner tensors directly.
struct FlattenAssemble final : OpConversionPattern<AssembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssembleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> inner = flattenValues(adaptor.getInputs());
    rewriter.replaceOpWithMultiple(op, {inner});
    return success();
  }
};

/// qs.disassemble: forwards the N converted values.
struct FlattenDisassemble final : OpConversionPattern<DisassembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DisassembleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// func.func: converts the signature and every block of the body, and tags
/// flattened arguments and results with qs.inner / qs.origin / qs.type.
struct FlattenFuncSignature final : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const auto &converter = *getTypeConverter<StorageTypeConverter>();
    MLIRContext *ctx = func.getContext();
    FunctionType type = func.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    SmallVector<Attribute> argAttrs, resultAttrs;
    for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
      SmallVector<Type> converted;
      if (failed(converter.convertType(argType, converted)))
        return failure();
      signature.addInputs(i, converted);
      appendFlattenedAttrs(ctx, argType, i, func.getArgAttrDict(i), converter,
                           argAttrs);
    }
    SmallVector<Type> results;
    for (auto [i, resultType] : llvm::enumerate(type.getResults())) {
      if (failed(converter.convertType(resultType, results)))
        return failure();
      appendFlattenedAttrs(ctx, resultType, i, func.getResultAttrDict(i),
                           converter, resultAttrs);
    }
    if (!func.isExternal() &&
        failed(rewriter.convertRegionTypes(&func.getBody(), converter,
                                           &signature)))
      return failure();
    rewriter.modifyOpInPlace(func, [&] {
      func.setType(
          FunctionType::get(ctx, signature.getConvertedTypes(), results));
      func.setAllArgAttrs(argAttrs);
      func.setAllResultAttrs(resultAttrs);
    });
    return success();
  }
};

/// cf.br with flattened operands.
struct FlattenBranch final : OpConversionPattern<cf::BranchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(cf::BranchOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<cf::BranchOp>(
        op, op.getDest(), flattenValues(adaptor.getDestOperands()));
    return success();
  }
};

/// cf.cond_br with flattened operands (branch weights kept).
struct FlattenCondBranch final : OpConversionPattern<cf::CondBranchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(cf::CondBranchOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto newOp = rewriter.replaceOpWithNewOp<cf::CondBranchOp>(
        op, adaptor.getCondition().front(), op.getTrueDest(),
        flattenValues(adaptor.getTrueDestOperands()), op.getFalseDest(),
        flattenValues(adaptor.getFalseDestOperands()));
    newOp.setBranchWeightsAttr(op.getBranchWeightsAttr());
    return success();
  }
};

/// cf.switch with flattened default and case operands.
struct FlattenSwitch final : OpConversionPattern<cf::SwitchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(cf::SwitchOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ArrayRef<ValueRange> operands = adaptor.getOperands();
    auto convert = [&](OperandRange range) {
      SmallVector<Value> result;
      for (OpOperand &operand : op->getOpOperands())
        if (operand.getOperandNumber() >= range.getBeginOperandIndex() &&
            operand.getOperandNumber() <
                range.getBeginOperandIndex() + range.size())
          llvm::append_range(result, operands[operand.getOperandNumber()]);
      return result;
    };
    SmallVector<SmallVector<Value>> cases;
    for (unsigned i = 0, e = op.getCaseDestinations().size(); i < e; ++i)
      cases.push_back(convert(op.getCaseOperands(i)));
    SmallVector<ValueRange> caseRanges(cases.begin(), cases.end());
    rewriter.replaceOpWithNewOp<cf::SwitchOp>(
        op, adaptor.getFlag().front(), op.getDefaultDestination(),
        convert(op.getDefaultOperands()), op.getCaseValuesAttr(),
        op.getCaseDestinations(), caseRanges);
    return success();
  }
};

/// arith.select of quantized values selects every inner tensor.
struct FlattenSelect final : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange trueValues = adaptor.getTrueValue();
    ValueRange falseValues = adaptor.getFalseValue();
    if (!isa<QuantTensorType>(op.getType()) ||
        adaptor.getCondition().size() != 1)
      return failure();
    SmallVector<Value> selected;
    for (auto [t, f] : llvm::zip_equal(trueValues, falseValues))
      selected.push_back(arith::SelectOp::create(
          rewriter, op.getLoc(), adaptor.getCondition().front(), t, f));
    rewriter.replaceOpWithMultiple(op, {selected});
    return success();
  }
};

} // namespace

void mlir::qs::populateFlattenStoragePatterns(
    const StorageTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FlattenAssemble, FlattenDisassemble, FlattenFuncSignature,
               FlattenBranch, FlattenCondBranch, FlattenSwitch, FlattenSelect>(
      converter, patterns.getContext());
}

void mlir::qs::configureFlattenStorageTarget(
    const StorageTypeConverter &converter, ConversionTarget &target) {
  target.addIllegalOp<AssembleOp, DisassembleOp>();
  target.addDynamicallyLegalOp<func::FuncOp>([&converter](func::FuncOp func) {
    return converter.isSignatureLegal(func.getFunctionType()) &&
           converter.isLegal(&func.getBody());
  });
  target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp, cf::BranchOp,
                               cf::CondBranchOp, cf::SwitchOp, arith::SelectOp>(
      [&converter](Operation *op) { return converter.isLegal(op); });
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

static bool usesQuantized(Operation *op) {
  auto isQuantized = [](Type t) { return isa<QuantTensorType>(t); };
  if (llvm::any_of(op->getOperandTypes(), isQuantized) ||
      llvm::any_of(op->getResultTypes(), isQuantized))
    return true;
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    if (llvm::any_of(func.getArgumentTypes(), isQuantized) ||
        llvm::any_of(func.getResultTypes(), isQuantized))
      return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isQuantized))
        return true;
  return false;
}

/// Reports every op whose quantized values this pass cannot flatten, before
/// anything is changed.
static LogicalResult checkFlattenable(Operation *root) {
  bool ok = succeeded(
      TargetInfo::verifyOneChip(root, "qs-flatten-storage flattens"));
  root->walk([&](Operation *op) {
    if (!usesQuantized(op))
      return;
    if (isa<EmptyOp, QuantizeOp, DequantizeOp, UpdateUsageOp, GemmOp>(op)) {
      op->emitError() << "'" << op->getName()
                      << "' is a proto-level op; run qs-expand-storage "
                         "before qs-flatten-storage";
      ok = false;
      return;
    }
    if (isa<AssembleOp, DisassembleOp, func::FuncOp, func::CallOp,
            func::ReturnOp, cf::BranchOp, cf::CondBranchOp, cf::SwitchOp,
            arith::SelectOp, scf::IfOp, scf::ForOp, scf::WhileOp,
            scf::YieldOp, scf::ConditionOp>(op))
      return;
    op->emitError() << "qs-flatten-storage cannot flatten the !qs.tensor "
                       "values of '"
                    << op->getName()
                    << "' (it flattens func.func, func.call, func.return, "
                       "cf.br, cf.cond_br, cf.switch, scf.if, scf.for, "
                       "scf.while, arith.select, qs.assemble and "
                       "qs.disassemble)";
    ok = false;
  });
  return success(ok);
}

namespace {
struct QSFlattenStoragePass final
    : qs::impl::QSFlattenStoragePassBase<QSFlattenStoragePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetInfo targetInfo = TargetInfo::lookup(module);
    if (failed(checkFlattenable(module)))
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    StorageTypeConverter converter(targetInfo);
    ConversionTarget target(*ctx);
    RewritePatternSet patterns(ctx);
    populateFlattenStoragePatterns(converter, patterns);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    configureFlattenStorageTarget(converter, target);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
