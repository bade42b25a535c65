//===- QSTypes.h - the !qs.tensor type --------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSTYPES_H
#define QS_DIALECT_QS_IR_QSTYPES_H

#include "qs/Dialect/QS/IR/QSInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "qs/Dialect/QS/IR/QSTypes.h.inc"

namespace mlir {
namespace qs {
/// The inner tensors of `result` (in interface order) that `source` does not
/// have, matched by name: what an `update_usage` from `source` to `result`
/// must create.
SmallVector<InnerTensor> getCreatedInnerTensors(QuantTensorType source,
                                                QuantTensorType result,
                                                const TargetInfo &target);
} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_IR_QSTYPES_H
