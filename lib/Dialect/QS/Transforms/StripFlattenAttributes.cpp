//===- StripFlattenAttributes.cpp - drop qs.inner/origin/type attributes --===//
//
// Implements `qs-strip-flatten-attributes`: removes the argument and result
// attributes qs-flatten-storage sets (qs.inner, qs.origin, qs.type) from
// every function, for consumers that do not need the mapping back (the CPU
// pipeline runs it before the conversion to LLVM, whose translation would
// otherwise warn about unknown parameter attributes).
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSSTRIPFLATTENATTRIBUTESPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

namespace {
struct QSStripFlattenAttributesPass final
    : qs::impl::QSStripFlattenAttributesPassBase<
          QSStripFlattenAttributesPass> {
  void runOnOperation() override {
    StringRef names[] = {QSDialect::getInnerAttrName(),
                         QSDialect::getOriginAttrName(),
                         QSDialect::getTypeAttrName()};
    getOperation()->walk([&](FunctionOpInterface func) {
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        for (StringRef name : names)
          func.removeArgAttr(i, name);
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        for (StringRef name : names)
          func.removeResultAttr(i, StringAttr::get(&getContext(), name));
    });
  }
};
} // namespace
