/*===- qs-c/Passes.h - qs passes, pipelines and the CPU runner ------*- C -*-===*\
|*                                                                            *|
|* Registration of the qs passes and pipelines (and the upstream passes they  *|
|* compose with), so that mlirParsePassPipeline understands                   *|
|* "qs-storage-pipeline", "qs-cpu-pipeline", "qs-expand-storage", ...; and    *|
|* CPU execution of a function through qs-cpu-pipeline.                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QS_C_PASSES_H
#define QS_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every qs pass and pipeline and every upstream pass (once).
MLIR_CAPI_EXPORTED void qsRegisterPasses(void);

/// Parses `pipeline` (a textual pass pipeline on the module, either
/// "builtin.module(qs-storage-pipeline)" or just "qs-storage-pipeline") and
/// runs it on `module`; diagnostics go to the context's handler. A pipeline
/// that does not parse is one error on the module saying why, including what
/// LLVM's option parser writes on file descriptor 2 while it parses (an
/// option's invalid value), which is captured for that (microseconds,
/// serialized; other output of those microseconds is written back).
MLIR_CAPI_EXPORTED MlirLogicalResult qsRunPassPipeline(MlirModule module,
                                                       MlirStringRef pipeline);

//===----------------------------------------------------------------------===//
// CPU execution (qs-cpu-pipeline + the MLIR JIT)
//===----------------------------------------------------------------------===//

/// One flattened argument or result of a function: a static tensor type, and
/// for the inner tensor of a quantized value its name, the original index
/// and the !qs.tensor type (null otherwise).
typedef struct {
  MlirType type;
  MlirStringRef innerName;
  intptr_t origin;
  MlirType quantized;
} QSFlatValue;

/// The number of flattened inputs / results of `function`, or -1 (with a
/// diagnostic) if it does not exist or cannot be passed.
MLIR_CAPI_EXPORTED intptr_t qsFunctionGetNumFlatInputs(MlirModule module,
                                                       MlirStringRef function);
MLIR_CAPI_EXPORTED intptr_t qsFunctionGetNumFlatResults(MlirModule module,
                                                        MlirStringRef function);
MLIR_CAPI_EXPORTED QSFlatValue qsFunctionGetFlatInput(MlirModule module,
                                                      MlirStringRef function,
                                                      intptr_t i);
MLIR_CAPI_EXPORTED QSFlatValue qsFunctionGetFlatResult(MlirModule module,
                                                       MlirStringRef function,
                                                       intptr_t i);
/// Bytes of one element of a flattened value's tensor type.
MLIR_CAPI_EXPORTED intptr_t qsGetElementByteWidth(MlirType elementType);

/// Compiles a clone of `module` with qs-cpu-pipeline and runs `function`:
/// `inputs[i]` points to the row-major bytes of flattened input i,
/// `outputs[i]` to room for flattened result i. Errors are reported as
/// diagnostics on the module.
MLIR_CAPI_EXPORTED MlirLogicalResult qsRunOnCPU(MlirModule module,
                                                MlirStringRef function,
                                                intptr_t numInputs,
                                                const void *const *inputs,
                                                intptr_t numOutputs,
                                                void *const *outputs);

/// Same as qsRunOnCPU, on CUDA device 0 through qs-nvptx-pipeline (the
/// GPU kernels; the CUDA driver is loaded at run time). Without a usable
/// device the error says why.
MLIR_CAPI_EXPORTED MlirLogicalResult qsRunOnCUDA(MlirModule module,
                                                 MlirStringRef function,
                                                 intptr_t numInputs,
                                                 const void *const *inputs,
                                                 intptr_t numOutputs,
                                                 void *const *outputs);

/// Writes "NAME (sm_XXa)" of the CUDA device qsRunOnCUDA would use, or the
/// reason there is none, to `callback`; returns whether there is one.
MLIR_CAPI_EXPORTED bool qsDescribeCUDADevice(MlirStringCallback callback,
                                             void *userData);

#ifdef __cplusplus
}
#endif

#endif // QS_C_PASSES_H
