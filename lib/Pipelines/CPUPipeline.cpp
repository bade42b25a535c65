//===- CPUPipeline.cpp - qs-cpu-pipeline ----------------------------------===//
//
// Proto-level qs IR to the LLVM dialect through the reference lowering, for
// the CPU JIT (qs-run, the Python package): numerics without a GPU.
//
//===----------------------------------------------------------------------===//

#include "Bufferize.h"
#include "RegisterPipeline.h"
#include "qs/Conversion/Passes.h"
#include "qs/Pipelines/Pipelines.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::qs::addBufferizationPasses(OpPassManager &pm) {
  // Function boundaries get plain (identity-layout) memrefs and results
  // become caller-allocated out-parameters.
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // A loop may carry a quantized value whose buffers each iteration writes
  // anew (scf.for / scf.while yielding a fresh qs.quantize): its inner
  // tensors are new allocations, which ownership-based deallocation frees.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  // Results allocated in the function (static shapes) become the caller's
  // out-parameters themselves: the kernels write there, with no copy at
  // the end (a 16384^2 FP8 result is 256 MiB: 130 us at the H200's copy
  // bandwidth, next to 218 us for the delayed cast that writes it).
  // hoistStaticAllocs crashes in MLIR 22.1.8 when a function
  // returns one buffer twice (MXFP8 2-D returns equal row- and column-wise
  // data): qs-distinct-returned-buffers copies the repeats first.
  outParams.hoistStaticAllocs = true;
  pm.addPass(createQSDistinctReturnedBuffersPass());
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createQSStripFlattenAttributesPass());
  // The constant globals in an order and with names that do not depend on
  // the order in which bufferization visited the functions.
  pm.addPass(createQSOrderConstantGlobalsPass());
}

void mlir::qs::addElementwisePasses(OpPassManager &pm) {
  // arith/math ops on tensors as linalg.generics (bufferization does not
  // take them), chains of them fused into one (one kernel, one pass over
  // memory, the same arithmetic), their transcendental functions in the
  // arithmetic every target shares.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createQSApproximateMathPass());
}

LogicalResult
mlir::qs::CPUPipelineOptions::validate(llvm::raw_ostream &os) const {
  if (llvmOptLevel > 3) {
    os << "qs-cpu-pipeline: opt-level must be 0, 1, 2 or 3, got "
       << llvmOptLevel;
    return failure();
  }
  StringRef chip = gpuChip;
  if (!chip.empty() && chip != "sm_90a" && chip != "sm_100a") {
    os << "qs-cpu-pipeline: gpu-chip must be sm_90a or sm_100a (the chips "
          "with GPU kernels), got '"
       << chip << "'";
    return failure();
  }
  if (!emulateGPUKernels && (!chip.empty() || gpuMultiprocessors != 0)) {
    os << "qs-cpu-pipeline: "
       << (chip.empty() ? "gpu-multiprocessors" : "gpu-chip")
       << " applies to the emulated GPU kernels: add emulate-gpu-kernels";
    return failure();
  }
  return success();
}

void mlir::qs::buildCPUPipeline(OpPassManager &pm,
                                const CPUPipelineOptions &options) {
  buildStoragePipeline(pm, StoragePipelineOptions());
  if (options.emulateGPUKernels) {
    ConvertQSToGPUPassOptions gpu;
    gpu.emulate = true;
    gpu.chip = options.gpuChip;
    gpu.multiprocessors = options.gpuMultiprocessors;
    pm.addPass(createConvertQSToGPUPass(gpu));
  }
  addElementwisePasses(pm);
  if (options.emulateGPUKernels) {
    QSElementwiseToGPUPassOptions elementwise;
    elementwise.emulate = true;
    pm.addPass(createQSElementwiseToGPUPass(elementwise));
  }
  pm.addPass(createConvertQSToLinalgPass());
  // Bottom-up: on the emulated MXFP8 GEMM kernels (tens of thousands of ops
  // in nested loops) the default top-down walk takes about 5x longer (1.5 s
  // against 0.3 s per GEMM in qs-run) for the same result; other modules
  // take about as long either way.
  GreedyRewriteConfig bottomUp;
  bottomUp.setUseTopDownTraversal(false);
  pm.addPass(createCanonicalizerPass(bottomUp));

  addBufferizationPasses(pm);

  // Loops, then LLVM.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertVectorToSCFPass());
  // Bounds checks of every memref access (cf.assert: the message and
  // abort), the emulated kernels' and the loops' alike.
  if (options.runtimeChecks)
    pm.addPass(createGenerateRuntimeVerificationPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  // convert-cf-to-llvm's own lowering of cf.assert is quadratic in the
  // asserts of a block (qs-lower-asserts): up to 39% of the pipeline on
  // the emulated GEMM kernels with runtime checks.
  if (options.runtimeChecks)
    pm.addPass(createQSLowerAssertsPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::qs::registerCPUPipeline() {
  registerPipeline<CPUPipelineOptions>(
      "qs-cpu-pipeline",
      "Lower proto-level qs IR through the reference numerics to the LLVM "
      "dialect for the CPU JIT",
      buildCPUPipeline);
}
