//===- DescribeStorage.cpp - print the inner tensors of quantized values --===//
//
// Implements `qs-describe-storage`: for every function argument and result of
// `!qs.tensor` type, prints the ordered inner tensors its quantizer describes
// (the command-line form of TE's TensorSpec.inner_tensor_specs()).
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSDESCRIBESTORAGEPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

static void describe(raw_ostream &os, StringRef function, StringRef kind,
                     unsigned index, QuantTensorType type,
                     const TargetInfo &target, bool metadata) {
  os << "@" << function << " " << kind << " " << index << ": " << type << "\n";
  if (metadata)
    os << "  metadata: "
       << type.getQuantizer().getStorageMetadata(type.getElementType())
       << "\n";
  for (const InnerTensor &inner : type.getInnerTensors(target))
    os << "  " << inner.name << " : " << inner.getType() << "\n";
}

namespace {
struct QSDescribeStoragePass final
    : qs::impl::QSDescribeStoragePassBase<QSDescribeStoragePass> {
  using Base::Base;

  void runOnOperation() override {
    raw_ostream &os = llvm::outs();
    getOperation()->walk([&](FunctionOpInterface func) {
      TargetInfo target = TargetInfo::lookup(func);
      StringRef name = SymbolTable::getSymbolName(func).getValue();
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (auto qt = dyn_cast<QuantTensorType>(type))
          describe(os, name, "arg", i, qt, target, metadata);
      for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
        if (auto qt = dyn_cast<QuantTensorType>(type))
          describe(os, name, "result", i, qt, target, metadata);
    });
    os.flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
