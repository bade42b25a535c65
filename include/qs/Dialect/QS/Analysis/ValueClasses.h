//===- ValueClasses.h - quantized values that share one type ----*- C++ -*-===//
//
// Control flow forwards values: branch operands become block arguments,
// region-branch operands and yields become region arguments and results.
// Forwarded values must have equal types, so a pass that rewrites the type
// of a quantized value (its usage flags, its scale layout) must rewrite the
// whole class of values connected that way, and only if nothing in the
// class has a type fixed from outside (a function argument, a call result,
// a use by `func.return` or an op the pass does not understand).
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_ANALYSIS_VALUECLASSES_H
#define QS_DIALECT_QS_ANALYSIS_VALUECLASSES_H

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace qs {

/// A set of `!qs.tensor` values that must share one type.
struct QuantizedValueClass {
  /// Every value of the class (op results and block arguments).
  SmallVector<Value> members;
  /// Uses of members that consume them (not control-flow forwarding).
  SmallVector<OpOperand *> uses;
  /// A member whose type comes from outside (function argument, call
  /// result, `qs.assemble` result, value of an op not understood), or null.
  Value fixedMember;
  /// A consumer whose operand type must not change (`func.return`,
  /// `func.call`, `qs.disassemble`, an op not understood), or null.
  OpOperand *pinningUse = nullptr;

  /// Whether a pass may give the class another type.
  bool isRewritable() const { return !fixedMember && !pinningUse; }
  /// The common type of the members.
  QuantTensorType getType() const;
  /// Gives every member `type`.
  void setType(QuantTensorType type) const;
};

/// Whether a pass may rewrite the type of `value` as its producer: a result
/// of `qs.quantize`, `qs.empty` or `qs.update_usage`, or the quantized result
/// of `qs.gemm` (its output quantizer writes any usage and scale layout).
bool isRewritableProducer(Value value);

/// Whether the type of the operand of `use` may change without changing the
/// owner's other types: operands of `qs.gemm`, `qs.dequantize` and the
/// input of `qs.update_usage`.
bool isRewritableConsumer(OpOperand &use);

/// The classes of all `!qs.tensor` values defined inside the regions of a
/// root operation.
class QuantizedValueClasses {
public:
  explicit QuantizedValueClasses(Operation *root);

  /// The class of the single value `value`, ignoring control flow: a use
  /// that forwards it pins the class.
  static QuantizedValueClass getLocalClass(Value value);

  ArrayRef<QuantizedValueClass> getClasses() const { return classes; }
  /// The class holding `value` (which must be a quantized value in the
  /// root's regions).
  const QuantizedValueClass &getClass(Value value) const {
    return classes[classOf.at(value)];
  }
  unsigned getClassIndex(Value value) const { return classOf.at(value); }

private:
  SmallVector<QuantizedValueClass> classes;
  DenseMap<Value, unsigned> classOf;
};

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_ANALYSIS_VALUECLASSES_H
