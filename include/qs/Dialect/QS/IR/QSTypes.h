//===- QSTypes.h - the !qs.tensor type --------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSTYPES_H
#define QS_DIALECT_QS_IR_QSTYPES_H

#include "qs/Dialect/QS/IR/QSInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "qs/Dialect/QS/IR/QSTypes.h.inc"

#endif // QS_DIALECT_QS_IR_QSTYPES_H
