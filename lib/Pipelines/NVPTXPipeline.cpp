//===- NVPTXPipeline.cpp - qs-nvptx-pipeline ------------------------------===//
//
// Proto-level qs IR to host LLVM-dialect code launching kernels held in a
// gpu.binary (PTX, cubin or both) for sm_90a / sm_100a.
//
//===----------------------------------------------------------------------===//

#include "Bufferize.h"
#include "RegisterPipeline.h"
#include "qs/Conversion/Passes.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Pipelines/Pipelines.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <cstdlib>

using namespace mlir;

std::optional<std::string> mlir::qs::getPTXFeatures(StringRef chip) {
  if (chip == "sm_90a")
    return std::string("+ptx80");
  if (chip == "sm_100a")
    return std::string("+ptx88");
  return std::nullopt;
}

static bool hasPtxas(StringRef dir) {
  if (dir.empty())
    return false;
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, "bin", "ptxas");
  return llvm::sys::fs::can_execute(path);
}

std::string mlir::qs::findCUDAToolkit(StringRef preferred) {
  if (hasPtxas(preferred))
    return preferred.str();
  for (const char *var : {"CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && hasPtxas(value))
      return value;
  if (auto onPath = llvm::sys::findProgramByName("ptxas")) {
    llvm::SmallString<256> dir(*onPath);
    llvm::sys::path::remove_filename(dir); // .../bin
    llvm::sys::path::remove_filename(dir); // toolkit root
    if (hasPtxas(dir))
      return std::string(dir);
  }
  if (hasPtxas("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

LogicalResult
mlir::qs::NVPTXPipelineOptions::validate(llvm::raw_ostream &os) const {
  StringRef fmt = format;
  if (fmt != "isa" && fmt != "bin" && fmt != "fatbin" && fmt != "auto") {
    os << "qs-nvptx-pipeline: format must be isa, bin, fatbin or auto, got '"
       << fmt << "'";
    return failure();
  }
  if (optLevel > 3) {
    os << "qs-nvptx-pipeline: opt-level must be 0, 1, 2 or 3, got " << optLevel;
    return failure();
  }
  if (!toolkit.empty() && !hasPtxas(toolkit)) {
    os << "qs-nvptx-pipeline: toolkit '" << toolkit
       << "' holds no executable bin/ptxas (name a CUDA toolkit directory, "
          "or leave the option out to search CUDA_HOME, CUDA_ROOT, "
          "CUDA_PATH, PATH and /usr/local/cuda)";
    return failure();
  }
  return success();
}

void mlir::qs::buildNVPTXHostPipeline(OpPassManager &pm,
                                      const NVPTXPipelineOptions &options) {
  buildStoragePipeline(pm, StoragePipelineOptions());
  ConvertQSToGPUPassOptions toGPU;
  toGPU.chip = options.chip;
  toGPU.requireNVPTXChip = true;
  toGPU.reportGemmPlans = options.reportGemmPlans;
  toGPU.multiprocessors = options.multiprocessors;
  pm.addPass(createConvertQSToGPUPass(toGPU));
  // The element-wise ops between qs ops become kernels too: host code may
  // not touch device buffers.
  addElementwisePasses(pm);
  pm.addPass(createQSElementwiseToGPUPass());
  pm.addPass(createCanonicalizerPass());

  // Tensors to buffers, as in qs-cpu-pipeline; the buffers then move to the
  // device.
  addBufferizationPasses(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createQSGPUHostBuffersPass());
}

void mlir::qs::buildNVPTXLoweringPipeline(
    OpPassManager &pm, const NVPTXPipelineOptions &options) {
  // Kernels to NVVM (bare pointers: every kernel argument is a static,
  // identity-layout buffer), host to LLVM, kernels to a binary.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = getPTXFeatures(options.chip).value_or("+ptx80");
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createConvertNVVMToLLVMPass());

  // Host gpu ops (alloc, memcpy, dealloc, launch) in async form on a stream,
  // as gpu-to-llvm requires.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  GpuToLLVMConversionPassOptions host;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());

  // gpu-module-to-binary with the kernels' inline PTX convergent.
  qs::QSGPUModuleToBinaryPassOptions binary;
  // A toolkit named in the options is used as given (validate() checks it
  // holds ptxas); the search is for when none is named.
  std::string toolkit = options.toolkit.empty() ? qs::findCUDAToolkit("")
                                                : options.toolkit.getValue();
  binary.toolkitPath = toolkit;
  binary.cmdOptions = options.ptxasOptions;
  StringRef format = options.format;
  if (format == "auto")
    format = toolkit.empty() ? "isa" : "fatbin";
  binary.compilationTarget = format.str();
  pm.addPass(qs::createQSGPUModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
}

void mlir::qs::buildNVPTXPipeline(OpPassManager &pm,
                                  const NVPTXPipelineOptions &options) {
  buildNVPTXHostPipeline(pm, options);
  buildNVPTXLoweringPipeline(pm, options);
}

void mlir::qs::registerNVPTXPipeline() {
  registerPipeline<NVPTXPipelineOptions>(
      "qs-nvptx-host-pipeline",
      "The host half of qs-nvptx-pipeline: host code on device buffers "
      "calling one launcher per kernel, kernels still gpu.func (to inspect "
      "or schedule launches)",
      buildNVPTXHostPipeline);
  registerPipeline<NVPTXPipelineOptions>(
      "qs-nvptx-pipeline",
      "Lower proto-level qs IR to host code launching GPU kernels held in a "
      "gpu.binary for sm_90a or sm_100a",
      buildNVPTXPipeline);
}
