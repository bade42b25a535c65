//===- QSDialect.h - qs dialect ---------------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSDIALECT_H
#define QS_DIALECT_QS_IR_QSDIALECT_H

#include "mlir/IR/Dialect.h"

#include "qs/Dialect/QS/IR/QSDialect.h.inc"

#endif // QS_DIALECT_QS_IR_QSDIALECT_H
