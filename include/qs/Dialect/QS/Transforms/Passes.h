//===- Passes.h - qs dialect passes -----------------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_TRANSFORMS_PASSES_H
#define QS_DIALECT_QS_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace qs {

#define GEN_PASS_DECL
#include "qs/Dialect/QS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qs/Dialect/QS/Transforms/Passes.h.inc"

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_TRANSFORMS_PASSES_H
