//===- InitAll.h - register everything quant-storage provides ---*- C++ -*-===//

#ifndef QS_INITALL_H
#define QS_INITALL_H

namespace mlir {
class DialectRegistry;
namespace qs {

/// Adds the qs dialect and its reference-lowering interfaces (what a tool
/// that registers the upstream dialects itself, such as mlir-opt loading
/// the QSPlugin, needs besides them).
void registerQSDialect(DialectRegistry &registry);

/// Adds the qs dialect, its reference-lowering interfaces and every upstream
/// dialect with its interface implementations to `registry`.
void registerAllQSDialects(DialectRegistry &registry);

/// Registers the qs passes and the qs pipelines (qs-storage-pipeline,
/// qs-cpu-pipeline, qs-nvptx-pipeline) only.
void registerQSPassesAndPipelines();

/// Registers the qs passes and pipelines and the upstream passes a qs user needs around
/// them (every upstream pass, for qs-opt).
void registerAllQSPasses();

} // namespace qs
} // namespace mlir

#endif // QS_INITALL_H
