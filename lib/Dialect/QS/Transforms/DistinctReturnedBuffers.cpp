//===- DistinctReturnedBuffers.cpp - copy buffers returned twice ----------===//
//
// Implements `qs-distinct-returned-buffers`: every memref value a
// func.return returns more than once is, from its second occurrence on,
// replaced by a copy in a new allocation, so that
// buffer-results-to-out-params{hoist-static-allocs} (which crashes in MLIR
// 22.1.8 on a repeated result) can give each result the caller's buffer.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSDISTINCTRETURNEDBUFFERSPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

namespace {
struct QSDistinctReturnedBuffersPass final
    : qs::impl::QSDistinctReturnedBuffersPassBase<
          QSDistinctReturnedBuffersPass> {
  void runOnOperation() override {
    getOperation()->walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<MemRefType>(v.getType());
        // Function boundaries have identity layouts after bufferization
        // (IdentityLayoutMap); anything else is left as it is.
        if (!type || seen.insert(v).second || !type.hasStaticShape() ||
            !type.getLayout().isIdentity())
          continue;
        Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
        memref::CopyOp::create(b, ret.getLoc(), v, copy);
        operand.set(copy);
      }
    });
  }
};
} // namespace
