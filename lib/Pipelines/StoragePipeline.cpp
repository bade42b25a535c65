//===- StoragePipeline.cpp - qs-storage-pipeline --------------------------===//
//
// The storage half of the compiler as one reusable pipeline: proto-level IR
// in, flattened buffer-level IR (no !qs.tensor) out.
//
//===----------------------------------------------------------------------===//

#include "qs/Pipelines/Pipelines.h"
#include "RegisterPipeline.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::qs::buildStoragePipeline(OpPassManager &pm,
                                    const StoragePipelineOptions &options) {
  if (options.inferUsage)
    pm.addPass(createQSInferUsagePass());
  if (options.selectScaleLayout)
    pm.addPass(createQSSelectScaleLayoutPass());
  pm.addPass(createQSExpandStoragePass());
  pm.addPass(createCanonicalizerPass());
  if (options.flatten) {
    pm.addPass(createQSFlattenStoragePass());
    pm.addPass(createCanonicalizerPass());
  }
}

void mlir::qs::registerStoragePipeline() {
  registerPipeline<StoragePipelineOptions>(
      "qs-storage-pipeline",
      "Infer usages, choose scale layouts, expand proto-level ops into inner "
      "buffers and flatten every !qs.tensor into its inner tensors",
      buildStoragePipeline);
}
