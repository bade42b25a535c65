//===- QS.td - quant-storage dialect ODS root --------------*- tablegen -*-===//
//
// Single ODS root for the `qs` dialect: dialect, attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_IR_QS_TD
#define QS_DIALECT_QS_IR_QS_TD

include "qs/Dialect/QS/IR/QSDialect.td"
include "qs/Dialect/QS/IR/QSAttrs.td"
include "qs/Dialect/QS/IR/QSTypes.td"
include "qs/Dialect/QS/IR/QSOps.td"

#endif // QS_DIALECT_QS_IR_QS_TD
