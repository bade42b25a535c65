//===- QSAttrs.h - quantizer attributes -------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSATTRS_H
#define QS_DIALECT_QS_IR_QSATTRS_H

#include "qs/Dialect/QS/IR/QSInterfaces.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

namespace mlir {
namespace qs {
/// Parses an f32 attribute parameter (`amax_epsilon = 1.0e-12`); integer
/// literals are accepted too.
FailureOr<llvm::APFloat> parseF32Parameter(AsmParser &parser);
} // namespace qs
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "qs/Dialect/QS/IR/QSAttrs.h.inc"

#endif // QS_DIALECT_QS_IR_QSATTRS_H
