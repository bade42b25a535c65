//===- QSOpsCommon.h - verification shared by proto and buffer ops -*- C++ -*-===//
//
// Private to the QS IR library: the rules a proto-level op and its
// buffer-level counterpart share, checked once.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_DIALECT_QS_IR_QSOPSCOMMON_H
#define QS_LIB_DIALECT_QS_IR_QSOPSCOMMON_H

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir {
namespace qs {
namespace detail {

/// `types` are exactly the inner tensors of `type` on the op's chip.
LogicalResult verifyInnerTypes(Operation *op, QuantTensorType type,
                               TypeRange types, StringRef what);

/// `input` is the expressed type of `result`.
LogicalResult verifyQuantizeTypes(Operation *op, Type input,
                                  QuantTensorType result);

/// A quantize into `result` takes an rng state (`rng`) exactly when its
/// quantizer rounds stochastically (NVFP4 `stochastic_rounding`).
LogicalResult verifyRngState(Operation *op, QuantTensorType result, Value rng);

/// `amaxType` holds the global amaxes a quantize into `quantized` computes
/// (QuantizerAttrInterface::getNumGlobalAmaxes: current scaling, NVFP4
/// without row scales), which a quantize may be given (TE's amax
/// reduction) and qs.amax returns; `what` is the op's subject for the
/// diagnostics.
LogicalResult verifyGlobalAmaxes(Operation *op, QuantTensorType quantized,
                                 Type amaxType, StringRef what);

/// The result of dequantizing `input` is `result`, and `input` can be
/// dequantized.
LogicalResult verifyDequantizeTypes(Operation *op, QuantTensorType input,
                                    RankedTensorType result);

/// `result` is `input` with other usage flags, and the representations it
/// adds can be created from `input`'s.
LogicalResult verifyUsageTransition(Operation *op, QuantTensorType input,
                                    QuantTensorType result);

/// Shapes, element types, scaling-mode compatibility and usages of a GEMM.
/// `bias` may be null.
LogicalResult verifyGemm(Operation *op, QuantTensorType a, QuantTensorType b,
                         bool transposeA, bool transposeB,
                         RankedTensorType result, Type bias);

} // namespace detail
} // namespace qs
} // namespace mlir

#endif // QS_LIB_DIALECT_QS_IR_QSOPSCOMMON_H
