//===- InitAll.cpp - register everything quant-storage provides ----------===//

#include "qs/InitAll.h"
#include "qs/Conversion/Passes.h"
#include "qs/Conversion/QSToLinalg/QSToLinalg.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Pipelines/Pipelines.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::qs::registerQSDialect(DialectRegistry &registry) {
  registry.insert<qs::QSDialect>();
  qs::registerQSToLinalgInterfaces(registry);
}

void mlir::qs::registerAllQSDialects(DialectRegistry &registry) {
  registerQSDialect(registry);
  // Every upstream dialect (func, arith, tensor, linalg, scf, cf, memref,
  // bufferization, gpu, nvvm, nvgpu, llvm, math, ...) with its interface
  // implementations (bufferization, inlining, conversion to LLVM); they
  // load lazily, so registering all costs nothing until used.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // Translation to LLVM IR (gpu-module-to-binary serializes kernels).
  registerAllToLLVMIRTranslations(registry);
}

void mlir::qs::registerQSPassesAndPipelines() {
  qs::registerQSPasses();
  qs::registerQSConversionPasses();
  qs::registerStoragePipeline();
  qs::registerCPUPipeline();
  qs::registerNVPTXPipeline();
}

void mlir::qs::registerAllQSPasses() {
  registerAllPasses();
  registerQSPassesAndPipelines();
}
