//===- QSOps.h - qs operations ----------------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSOPS_H
#define QS_DIALECT_QS_IR_QSOPS_H

#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "qs/Dialect/QS/IR/QSOps.h.inc"

#endif // QS_DIALECT_QS_IR_QSOPS_H
