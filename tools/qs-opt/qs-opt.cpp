//===- qs-opt.cpp - the quant-storage optimizer driver --------------------===//
//
// mlir-opt with the qs dialect, its passes, and the upstream dialects and
// passes that qs IR is used with.
//
//===----------------------------------------------------------------------===//

#include "qs/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::qs::test {
void registerTestPasses();
} // namespace mlir::qs::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::qs::registerAllQSDialects(registry);
  mlir::qs::registerAllQSPasses();
  mlir::qs::test::registerTestPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "quant-storage optimizer driver\n", registry));
}
