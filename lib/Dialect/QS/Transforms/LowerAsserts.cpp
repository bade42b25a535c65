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
#include <map>

namespace mlir::qs {
#define GEN_PASS_DEF_QSLOWERASSERTSPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

namespace {
/// What the asserts under one symbol table op (the module, or a nested one
/// such as a gpu.module, whose functions call its own symbols) call: its
/// puts and abort, and its message globals, one per distinct message.
struct Callees {
  SymbolTable *symbols = nullptr;
  Operation *table = nullptr;
  LLVM::LLVMFuncOp puts, abort;
  llvm::StringMap<LLVM::GlobalOp> globals;
};
} // namespace

/// The declaration of `name` with `type` in `callees`' symbol table,
/// created at the start of its body if it has none; failure (with a
/// diagnostic on the assert that needs it) if the symbol exists as
/// something else.
static FailureOr<LLVM::LLVMFuncOp> declare(Callees &callees, StringRef name,
                                           LLVM::LLVMFunctionType type,
                                           cf::AssertOp user) {
  Operation *existing = callees.symbols->lookup(name);
  if (!existing) {
    OpBuilder b = OpBuilder::atBlockBegin(&callees.table->getRegion(0).front());
    auto fn = LLVM::LLVMFuncOp::create(b, callees.table->getLoc(), name, type);
    callees.symbols->insert(fn);
    return fn;
  }
  auto fn = dyn_cast<LLVM::LLVMFuncOp>(existing);
  if (fn && fn.getFunctionType() == type)
    return fn;
  InFlightDiagnostic diag = user.emitOpError()
                            << "is lowered to a call of @" << name
                            << " of type " << type << ", but @" << name
                            << " in the enclosing '" << callees.table->getName()
                            << "' is not an llvm.func of that type";
  diag.attachNote(existing->getLoc()) << "@" << name << " defined here";
  return failure();
}

namespace {
struct QSLowerAssertsPass final
    : qs::impl::QSLowerAssertsPassBase<QSLowerAssertsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    auto putsType = LLVM::LLVMFunctionType::get(voidType, {ptr});
    auto abortType = LLVM::LLVMFunctionType::get(voidType, {});

    // Every assert, with the callees of its nearest symbol table (declared
    // when the table's first assert is seen), before anything is split.
    SymbolTableCollection tables;
    std::map<Operation *, Callees> calleesOf; // stable addresses
    SmallVector<std::pair<cf::AssertOp, Callees *>> asserts;
    bool valid = true;
    getOperation().walk([&](cf::AssertOp op) {
      Operation *parent = op->getParentOp();
      if (parent->hasTrait<OpTrait::SingleBlock>()) {
        op.emitOpError() << "inside '" << parent->getName()
                         << "', whose region holds a single block, cannot "
                            "become a branch: lower structured control flow "
                            "first (convert-scf-to-cf)";
        valid = false;
        return;
      }
      Operation *table = SymbolTable::getNearestSymbolTable(op);
      auto [it, inserted] = calleesOf.try_emplace(table);
      Callees &callees = it->second;
      if (inserted) {
        callees.table = table;
        callees.symbols = &tables.getSymbolTable(table);
        FailureOr<LLVM::LLVMFuncOp> puts =
            declare(callees, "puts", putsType, op);
        FailureOr<LLVM::LLVMFuncOp> abort =
            declare(callees, "abort", abortType, op);
        if (failed(puts) || failed(abort))
          valid = false;
        else
          std::tie(callees.puts, callees.abort) = std::make_pair(*puts, *abort);
      }
      asserts.emplace_back(op, &callees);
    });
    if (!valid)
      return signalPassFailure();

    // One failure block per message and region.
    DenseMap<std::pair<Region *, Operation *>, Block *> failureBlocks;
    auto failureBlock = [&](cf::AssertOp op, Callees &callees) {
      LLVM::GlobalOp &global = callees.globals[op.getMsg()];
      if (!global) {
        OpBuilder b =
            OpBuilder::atBlockBegin(&callees.table->getRegion(0).front());
        SmallVector<char> bytes(op.getMsg().begin(), op.getMsg().end());
        bytes.push_back(0);
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes.size());
        global = LLVM::GlobalOp::create(
            b, op.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Private,
            "assert_msg",
            b.getStringAttr(StringRef(bytes.data(), bytes.size())));
        callees.symbols->insert(global); // renamed assert_msg_N if taken
      }
      Region *region = op->getParentRegion();
      Block *&block = failureBlocks[{region, global.getOperation()}];
      if (!block) {
        OpBuilder b(ctx);
        block = b.createBlock(region, region->end());
        Value message = LLVM::AddressOfOp::create(b, op.getLoc(), global);
        LLVM::CallOp::create(b, op.getLoc(), callees.puts, ValueRange{message});
        LLVM::CallOp::create(b, op.getLoc(), callees.abort, ValueRange{});
        LLVM::UnreachableOp::create(b, op.getLoc());
      }
      return block;
    };

    // The walk lists a block's asserts in order: the last is split first,
    // so the operations after an assert move once, into its continuation.
    for (auto [op, callees] : llvm::reverse(asserts)) {
      Block *block = op->getBlock();
      Block *rest = block->splitBlock(std::next(op->getIterator()));
      Block *failure = failureBlock(op, *callees);
      OpBuilder b(op);
      cf::CondBranchOp::create(b, op.getLoc(), op.getArg(), rest, ValueRange{},
                               failure, ValueRange{});
      op.erase();
    }
  }
};
} // namespace
