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
  if (attr.getName() == getGemmTileNAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || (value.getInt() != 128 && value.getInt() != 256))
      return op->emitError()
             << "'" << getGemmTileNAttrName()
             << "' must be the integer 128 or 256 (the GEMM kernels' tile "
                "width in N), got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == getGemmPersistentAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(64) || value.getInt() < 1)
      return op->emitError()
             << "'" << getGemmPersistentAttrName()
             << "' must be an i64 of at least 1 (the number of blocks of "
                "the persistent GEMM kernels), got "
             << attr.getValue();
    return success();
  }
  return op->emitError() << "unknown qs dialect attribute '"
                         << attr.getName().getValue()
                         << "'";
}

/// Checks one of the qs.inner / qs.origin / qs.type argument or result
/// attributes of qs-flatten-storage.
static LogicalResult verifyFlattenedValueAttribute(Operation *op,
                                                   NamedAttribute attr,
                                                   StringRef where) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == QSDialect::getInnerAttrName()) {
    if (!isa<StringAttr>(value))
      return op->emitError() << "'" << name << "' on " << where
                             << " must name an inner tensor (a string), got "
                             << value;
    return success();
  }
  if (name == QSDialect::getOriginAttrName()) {
    auto index = dyn_cast<IntegerAttr>(value);
    if (!index || !index.getType().isInteger(64) || index.getInt() < 0)
      return op->emitError() << "'" << name << "' on " << where
                             << " must be a non-negative i64 index, got "
                             << value;
    return success();
  }
  if (name == QSDialect::getTypeAttrName()) {
    auto type = dyn_cast<TypeAttr>(value);
    if (!type || !isa<QuantTensorType>(type.getValue()))
      return op->emitError() << "'" << name << "' on " << where
                             << " must be a !qs.tensor type, got " << value;
    return success();
  }
  return op->emitError() << "unknown qs dialect attribute '" << name
                         << "' on " << where;
}

LogicalResult QSDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned,
                                                  NamedAttribute attr) {
  return verifyFlattenedValueAttribute(op, attr, "an argument");
}

LogicalResult QSDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned,
                                                     NamedAttribute attr) {
  return verifyFlattenedValueAttribute(op, attr, "a result");
}
