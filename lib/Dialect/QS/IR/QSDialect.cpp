//===- QSDialect.cpp - qs dialect -----------------------------------------===//

#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::qs;

#include "qs/Dialect/QS/IR/QSDialect.cpp.inc"

void QSDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "qs/Dialect/QS/IR/QSOps.cpp.inc"
      >();
}

LogicalResult QSDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() == getChipAttrName()) {
    auto chip = dyn_cast<StringAttr>(attr.getValue());
    if (!chip || failed(TargetInfo::parse(chip.getValue())))
      return op->emitError()
             << "'" << getChipAttrName()
             << "' must be a string naming an NVIDIA chip as "
                "sm_<major><minor>[a|f], e.g. \"sm_90a\" or \"sm_100a\", got "
             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown qs dialect attribute '"
                         << attr.getName().getValue()
                         << "'";
}
