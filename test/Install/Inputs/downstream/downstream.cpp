//===- downstream.cpp - a compiler that reuses quant-storage -------------===//
//
// Built outside the quant-storage tree against its installed CMake package
// (test/Install/downstream.mlir): registers the dialects, reads the qs ops
// through the dialect's C++ classes (the installed TableGen'd headers),
// composes the pipelines' builder functions with a pass of its own in its
// own pass manager, and prints what the kernels' gpu.binary holds.
//
//   qs-downstream INPUT.mlir CHIP
//
// The own pass runs between the halves of qs-nvptx-pipeline, where the host
// code calls one launcher per kernel (Pipelines.h), and counts them.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/IR/QSTarget.h"
#include "qs/InitAll.h"
#include "qs/Pipelines/Pipelines.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
/// The downstream compiler's own pass: counts the kernel launches of the
/// host code.
struct CountLaunchesPass
    : public PassWrapper<CountLaunchesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountLaunchesPass)
  StringRef getArgument() const final { return "downstream-count-launches"; }
  void runOnOperation() override {
    unsigned launches = 0;
    getOperation().walk([&](gpu::LaunchFuncOp) { ++launches; });
    llvm::outs() << "qs-downstream: " << launches << " kernel launches\n";
  }
};
} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: qs-downstream INPUT.mlir CHIP\n";
    return 2;
  }
  DialectRegistry registry;
  qs::registerAllQSDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  // Each quantize's inner tensors on the module's chip, from the type.
  qs::TargetInfo target = qs::TargetInfo::lookup(*module);
  module->walk([&](qs::QuantizeOp quantize) {
    llvm::outs() << "qs-downstream: " << quantize.getResult().getType()
                 << " on " << target.getChip() << ":";
    for (const qs::InnerTensor &inner :
         quantize.getResult().getType().getInnerTensors(target))
      llvm::outs() << " " << inner.name << " " << inner.getType();
    llvm::outs() << "\n";
  });

  qs::NVPTXPipelineOptions options;
  options.chip = argv[2];
  options.format = "isa";
  if (failed(options.validate(llvm::errs())))
    return 1;
  PassManager pm(&context);
  qs::buildNVPTXHostPipeline(pm, options);
  pm.addPass(std::make_unique<CountLaunchesPass>());
  qs::buildNVPTXLoweringPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;

  module->walk([](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects()) {
      auto attr = cast<gpu::ObjectAttr>(object);
      llvm::outs() << "qs-downstream: " << binary.getSymName() << " for "
                   << attr.getTarget() << "\n"
                   << attr.getObject().getValue() << "\n";
    }
  });
  return 0;
}
