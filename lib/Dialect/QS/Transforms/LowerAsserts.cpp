//===- LowerAsserts.cpp - cf.assert to puts and abort in linear time ------===//
//
// Implements `qs-lower-asserts`: every cf.assert becomes a cf.cond_br to the
// rest of its block or to a block that puts the message and aborts, as
// convert-cf-to-llvm lowers it, but splitting each block at its last assert
// first so that every operation moves once (convert-cf-to-llvm's split
// inside the dialect conversion moves and records the rest of the block
// for each assert: quadratic in the asserts of a block).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSLOWERASSERTSPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

namespace {
/// The module's declaration of `name` with `type`, created at the start of
/// the module if it has none; failure (with a diagnostic on the assert
/// that needs it) if the symbol exists as something else.
FailureOr<LLVM::LLVMFuncOp> declare(SymbolTable &symbols, ModuleOp module,
                                    StringRef name, LLVM::LLVMFunctionType type,
                                    cf::AssertOp user) {
  Operation *existing = symbols.lookup(name);
  if (!existing) {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto fn = LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
    symbols.insert(fn);
    return fn;
  }
  auto fn = dyn_cast<LLVM::LLVMFuncOp>(existing);
  if (fn && fn.getFunctionType() == type)
    return fn;
  InFlightDiagnostic diag = user.emitOpError()
                            << "is lowered to a call of @" << name
                            << " of type " << type << ", but the module's @"
                            << name << " is not an llvm.func of that type";
  diag.attachNote(existing->getLoc()) << "@" << name << " defined here";
  return failure();
}

struct QSLowerAssertsPass final
    : qs::impl::QSLowerAssertsPassBase<QSLowerAssertsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<cf::AssertOp> asserts;
    bool splittable = true;
    module.walk([&](cf::AssertOp op) {
      asserts.push_back(op);
      Operation *parent = op->getParentOp();
      if (parent->hasTrait<OpTrait::SingleBlock>()) {
        op.emitOpError() << "inside '" << parent->getName()
                         << "', whose region holds a single block, cannot "
                            "become a branch: lower structured control flow "
                            "first (convert-scf-to-cf)";
        splittable = false;
      }
    });
    if (asserts.empty())
      return;
    if (!splittable)
      return signalPassFailure();

    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    FailureOr<LLVM::LLVMFuncOp> puts =
        declare(symbols, module, "puts",
                LLVM::LLVMFunctionType::get(voidType, {ptr}), asserts.front());
    FailureOr<LLVM::LLVMFuncOp> abort =
        declare(symbols, module, "abort",
                LLVM::LLVMFunctionType::get(voidType, {}), asserts.front());
    if (failed(puts) || failed(abort))
      return signalPassFailure();

    // One message global per distinct message, one failure block per
    // message and region.
    llvm::StringMap<LLVM::GlobalOp> globals;
    DenseMap<std::pair<Region *, Operation *>, Block *> failureBlocks;
    auto failureBlock = [&](cf::AssertOp op) {
      LLVM::GlobalOp &global = globals[op.getMsg()];
      if (!global) {
        OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
        SmallVector<char> bytes(op.getMsg().begin(), op.getMsg().end());
        bytes.push_back(0);
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
        global = LLVM::GlobalOp::create(
            b, op.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Private,
            "assert_msg",
            b.getStringAttr(StringRef(bytes.data(), bytes.size())));
        symbols.insert(global); // renamed assert_msg_N if taken
      }
      Region *region = op->getParentRegion();
      Block *&block = failureBlocks[{region, global.getOperation()}];
      if (!block) {
        OpBuilder b(ctx);
        block = b.createBlock(region, region->end());
        Value message = LLVM::AddressOfOp::create(b, op.getLoc(), global);
        LLVM::CallOp::create(b, op.getLoc(), *puts, ValueRange{message});
        LLVM::CallOp::create(b, op.getLoc(), *abort, ValueRange{});
        LLVM::UnreachableOp::create(b, op.getLoc());
      }
      return block;
    };

    // The walk lists a block's asserts in order: the last is split first,
    // so the operations after an assert move once, into its continuation.
    for (cf::AssertOp op : llvm::reverse(asserts)) {
      Block *block = op->getBlock();
      Block *rest = block->splitBlock(std::next(op->getIterator()));
      Block *failure = failureBlock(op);
      OpBuilder b(op);
      cf::CondBranchOp::create(b, op.getLoc(), op.getArg(), rest, ValueRange{},
                               failure, ValueRange{});
      op.erase();
    }
  }
};
} // namespace
