//===- Elementwise.h - TE's activations as linalg ops ------------*- C++
//-*-===//
//
// The element-wise ops a TransformerEngine model applies between its
// quantized GEMMs, built as linalg.generic ops on tensors: TE's activation
// functions and their derivatives (transformer_engine/common/util/math.h,
// formula by formula, in f32), and f32 add, subtract, multiply and cast.
// qs-cpu-pipeline runs them as loops, qs-nvptx-pipeline as kernels
// (qs-elementwise-to-gpu); the C API (qsBuildElementwise) and Python
// (Function.activation, Function.add, ...) build them.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_ELEMENTWISE_H
#define QS_DIALECT_QS_UTILS_ELEMENTWISE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace mlir {
namespace qs {

enum class ElementwiseKind {
  // TE's activations, y = act(x).
  Gelu,
  Qgelu,
  Silu,
  Relu,
  Srelu,
  // Their backward, dx = dact(x) * dy, on (dy, x).
  Dgelu,
  Dqgelu,
  Dsilu,
  Drelu,
  Dsrelu,
  // f32 arithmetic on (a, b), and a cast of one operand.
  Add,
  Sub,
  Mul,
  Cast,
};

/// The kind named `name` ("gelu", "dgelu", "add", ...); nullopt if none.
std::optional<ElementwiseKind> parseElementwiseKind(StringRef name);
/// The names of every kind, comma-separated (for diagnostics).
StringRef elementwiseKindNames();
/// The tensor operands `kind` takes: 1 (activations, cast) or 2.
unsigned elementwiseArity(ElementwiseKind kind);

/// `kind` on f32 scalars, TE's formula op by op (math.tanh and math.exp
/// for tanhf and expf; fmaxf as arith.maxnumf).
Value buildElementwiseScalar(OpBuilder &b, Location loc, ElementwiseKind kind,
                             ValueRange operands);

/// A linalg.generic computing `kind` on `operands` (ranked tensors of bf16,
/// f16 or f32), each extended to f32, the result rounded to the element
/// type of `resultType` (bf16, f16 or f32; RNE). The first operand has the
/// result's shape; a second one the result's shape or, broadcast over the
/// leading dimensions, its last dimension alone (a bias). Rules broken are
/// reported through `emitError` (and failure returned).
FailureOr<Value>
buildElementwiseOp(OpBuilder &b, Location loc, ElementwiseKind kind,
                   ValueRange operands, RankedTensorType resultType,
                   llvm::function_ref<InFlightDiagnostic()> emitError);

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_ELEMENTWISE_H
