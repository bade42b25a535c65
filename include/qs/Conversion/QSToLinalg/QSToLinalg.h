//===- QSToLinalg.h - reference lowering of buffer-level qs ops -*- C++ -*-===//

#ifndef QS_CONVERSION_QSTOLINALG_QSTOLINALG_H
#define QS_CONVERSION_QSTOLINALG_QSTOLINALG_H

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir {
class DialectRegistry;
class RewritePatternSet;
namespace qs {

/// One operand of a GEMM as the reference computes it:
///   op(operand)[r, k] = global * rowFactor[r] * blockScales[r, k / blockK] * q[r, k]
/// q: f32 [rows, K] (the quantized values, decoded exactly);
/// blockScales: f32 [rows, ceil(K / blockK)], or null for none;
/// global: f32 scalar, or null; rowFactor: f32 [rows], or null.
struct ReferenceGemmOperand {
  Value q;
  Value blockScales;
  int64_t blockK = 0;
  Value global;
  Value rowFactor;
};

} // namespace qs
} // namespace mlir

#include "qs/Conversion/QSToLinalg/QuantizerReferenceInterface.h.inc"

namespace mlir {
namespace qs {

/// Patterns lowering qs.quantize_buffers, qs.dequantize_buffers,
/// qs.gemm_buffers and qs.update_usage_buffers through
/// QuantizerReferenceInterface.
void populateQSToLinalgPatterns(RewritePatternSet &patterns);

/// Attaches QuantizerReferenceInterface to every quantizer attribute.
void registerQSToLinalgInterfaces(DialectRegistry &registry);

} // namespace qs
} // namespace mlir

#endif // QS_CONVERSION_QSTOLINALG_QSTOLINALG_H
