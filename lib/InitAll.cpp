//===- InitAll.cpp - register everything quant-storage provides ----------===//

#include "qs/InitAll.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "qs/Pipelines/Pipelines.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void mlir::qs::registerAllQSDialects(DialectRegistry &registry) {
  registry.insert<qs::QSDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect, linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, nvgpu::NVGPUDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  // Interface implementations (bufferization, inlining, conversion to LLVM)
  // of the upstream dialects; they attach only when a dialect is loaded.
  registerAllExtensions(registry);
}

void mlir::qs::registerAllQSPasses() {
  registerAllPasses();
  qs::registerQSPasses();
  qs::registerStoragePipeline();
}
