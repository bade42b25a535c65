//===- QSPlugin.cpp - qs as an mlir-opt dialect and pass plugin ----------===//
//
// QSPlugin.so gives upstream tools built on libMLIR.so (Debian's mlir-opt)
// the qs dialect, its passes and its pipelines:
//
//   mlir-opt --load-dialect-plugin=QSPlugin.so --load-pass-plugin=QSPlugin.so \
//     model.mlir --pass-pipeline="builtin.module(qs-storage-pipeline)"
//
// (pass flags are parsed before a plugin loads, so passes and pipelines are
// named through --pass-pipeline). The host registers the upstream dialects
// and passes itself; the plugin adds only what is ours.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "qs/InitAll.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QS", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) { qs::registerQSDialect(*registry); }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QSPasses", LLVM_VERSION_STRING,
          [] { qs::registerQSPassesAndPipelines(); }};
}
