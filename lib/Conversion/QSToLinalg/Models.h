//===- Models.h - attach the per-family reference models ------------------===//
//
// Private to the QSToLinalg library. Each family's numerics live in their own
// file and are attached to the quantizer attributes by
// registerQSToLinalgInterfaces.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOLINALG_MODELS_H
#define QS_LIB_CONVERSION_QSTOLINALG_MODELS_H

namespace mlir {
class MLIRContext;
namespace qs {
void attachPerTensorReference(MLIRContext *ctx);
void attachMXFP8Reference(MLIRContext *ctx);
void attachBlockReference(MLIRContext *ctx);
void attachNVFP4Reference(MLIRContext *ctx);
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOLINALG_MODELS_H
