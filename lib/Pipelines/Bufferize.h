//===- Bufferize.h - the steps the pipelines share
//-------------------------===//
//
// Private to the QSPipelines library.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_PIPELINES_BUFFERIZE_H
#define QS_LIB_PIPELINES_BUFFERIZE_H

namespace mlir {
class OpPassManager;
namespace qs {

/// Tensors to buffers: empty tensors to allocations, one-shot bufferization
/// with identity-layout function boundaries, results as caller-allocated
/// out-parameters, ownership-based deallocation, then the flatten metadata
/// (which LLVM does not know) stripped.
void addBufferizationPasses(OpPassManager &pm);

/// Element-wise ops on tensors before their kernels (or loops): arith/math
/// ops to linalg.generics, producer-consumer chains fused, transcendental
/// functions approximated (qs-approximate-math).
void addElementwisePasses(OpPassManager &pm);

} // namespace qs
} // namespace mlir

#endif // QS_LIB_PIPELINES_BUFFERIZE_H
