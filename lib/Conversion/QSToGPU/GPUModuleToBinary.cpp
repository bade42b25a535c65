//===- GPUModuleToBinary.cpp - qs-gpu-module-to-binary --------------------===//
//
// Upstream gpu-module-to-binary, with a hook on the kernels' initial LLVM
// IR: every inline-asm call becomes `convergent` (what clang does for CUDA
// device code), so LLVM neither duplicates nor sinks the `.sync.aligned`
// PTX of the GEMM kernels into divergent control flow.
//
//===----------------------------------------------------------------------===//

#include "qs/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSGPUMODULETOBINARYPASS
#include "qs/Conversion/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;

namespace {
/// Marks every inline-asm call in `module` convergent.
void makeInlineAsmConvergent(llvm::Module &module) {
  for (llvm::Function &function : module)
    for (llvm::BasicBlock &block : function)
      for (llvm::Instruction &instruction : block)
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&instruction))
          if (call->isInlineAsm())
            call->addFnAttr(llvm::Attribute::Convergent);
}

struct QSGPUModuleToBinaryPass
    : qs::impl::QSGPUModuleToBinaryPassBase<QSGPUModuleToBinaryPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(
            compilationTarget)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      getOperation()->emitError()
          << "qs-gpu-module-to-binary: format must be offloading (llvm), "
             "assembly (isa), binary (bin) or fatbinary (fatbin), got '"
          << compilationTarget << "'";
      return signalPassFailure();
    }
    std::optional<SymbolTable> parentTable;
    auto symbolTable = [&]() -> SymbolTable * {
      if (!parentTable) {
        Operation *table = SymbolTable::getNearestSymbolTable(getOperation());
        if (!table)
          return nullptr;
        parentTable.emplace(table);
      }
      return &*parentTable;
    };
    SmallVector<Attribute> libraries;
    for (const std::string &path : linkFiles)
      libraries.push_back(StringAttr::get(&getContext(), path));
    gpu::TargetOptions options(toolkitPath, libraries, cmdOptions, elfSection,
                               *target, symbolTable,
                               /*initialLlvmIRCallback=*/
                               makeInlineAsmConvergent);
    if (failed(gpu::transformGpuModulesToBinaries(
            getOperation(), gpu::OffloadingLLVMTranslationAttrInterface(),
            options)))
      signalPassFailure();
  }
};
} // namespace
