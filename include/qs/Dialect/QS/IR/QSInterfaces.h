//===- QSInterfaces.h - QuantizerAttrInterface ------------------*- C++ -*-===//

#ifndef QS_DIALECT_QS_IR_QSINTERFACES_H
#define QS_DIALECT_QS_IR_QSINTERFACES_H

#include "qs/Dialect/QS/IR/QSTarget.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace qs {

/// Which representation(s) of a quantized tensor something belongs to or
/// needs. A bit set: `Both` is `Rowwise | Columnwise`.
enum class Usage : unsigned { None = 0, Rowwise = 1, Columnwise = 2, Both = 3 };

inline Usage makeUsage(bool rowwise, bool columnwise) {
  return static_cast<Usage>((rowwise ? 1u : 0u) | (columnwise ? 2u : 0u));
}
inline Usage operator|(Usage a, Usage b) {
  return static_cast<Usage>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
inline Usage operator&(Usage a, Usage b) {
  return static_cast<Usage>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
/// Whether every usage in `needed` is in `available`.
inline bool hasUsage(Usage available, Usage needed) {
  return (available & needed) == needed;
}
/// "rowwise", "columnwise", "rowwise+columnwise" or "none".
StringRef stringifyUsage(Usage usage);

/// TransformerEngine's NVTEScalingMode (values as in TE's C header).
enum class ScalingMode : unsigned {
  DelayedTensor = 0, // both per-tensor FP8 quantizers
  MXFP8_1D = 1,
  Block1D = 2,
  Block2D = 3,
  NVFP4_1D = 4,
};
StringRef stringifyScalingMode(ScalingMode mode);
/// Whether TE runs a GEMM on operands of these two scaling modes: equal
/// families, and for block FP8 not both 128x128 (te-formats.md §6.3).
bool areGemmCompatible(ScalingMode a, ScalingMode b);

/// One inner tensor of a quantized tensor's storage.
struct InnerTensor {
  /// TE's attribute name without the leading underscore ("rowwise_data").
  StringRef name;
  SmallVector<int64_t, 4> shape;
  Type elementType;
  /// The representation(s) the buffer belongs to (`scale_inv` of per-tensor
  /// FP8 and every buffer of a non-TN per-tensor FP8 tensor serve both).
  Usage usage;

  RankedTensorType getType() const {
    return RankedTensorType::get(shape, elementType);
  }
};

} // namespace qs
} // namespace mlir

#include "qs/Dialect/QS/IR/QSInterfaces.h.inc"

#endif // QS_DIALECT_QS_IR_QSINTERFACES_H
