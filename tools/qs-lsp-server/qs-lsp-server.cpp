//===- qs-lsp-server.cpp - the MLIR language server with qs --------------===//
//
// mlir-lsp-server with the qs dialect and every upstream dialect registered:
// an editor (VS Code's MLIR extension, any LSP client) gets qs IR's
// diagnostics as you type, hover, go-to-definition and the document outline.
// Set the client's server path (VS Code: mlir.server_path) to this binary.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "qs/InitAll.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::qs::registerAllQSDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
