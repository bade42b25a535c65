//===- Passes.h - qs conversion passes --------------------------*- C++ -*-===//

#ifndef QS_CONVERSION_PASSES_H
#define QS_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace qs {

#define GEN_PASS_DECL
#include "qs/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "qs/Conversion/Passes.h.inc"

} // namespace qs
} // namespace mlir

#endif // QS_CONVERSION_PASSES_H
