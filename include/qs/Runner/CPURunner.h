//===- CPURunner.h - run qs functions on the CPU through the JIT -*- C++ -*-===//
//
// Compiles a module with qs-cpu-pipeline and executes one of its functions
// with the MLIR ExecutionEngine. Quantized arguments and results travel as
// their inner tensors (interface order), exactly as qs-flatten-storage lays
// them out; element types are passed as raw bytes.
//
//===----------------------------------------------------------------------===//

#ifndef QS_RUNNER_CPURUNNER_H
#define QS_RUNNER_CPURUNNER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
namespace qs {

/// One flattened argument or result: a static tensor type and where it
/// comes from (`quantized` is the original !qs.tensor type, null for plain
/// tensors; `innerName` names the inner tensor; `origin` is the original
/// argument or result index).
struct FlatValue {
  RankedTensorType type;
  Type quantized;
  std::string innerName;
  unsigned origin = 0;
  /// "arg 1 'rowwise_scale_inv' of !qs.tensor<...>" or "arg 0".
  std::string describe(bool isResult) const;
};

struct FlatSignature {
  std::vector<FlatValue> inputs;
  std::vector<FlatValue> results;
};

/// The flattened signature of `func` (on the module's chip). Fails, with a
/// diagnostic at the function, if an argument or result is not a static
/// tensor or !qs.tensor, or has an element type the runner cannot pass.
FailureOr<FlatSignature> getFlatSignature(func::FuncOp func);

/// Row-major bytes of one tensor.
struct HostTensor {
  RankedTensorType type;
  std::vector<char> bytes;
};

/// Bytes per element of a tensor the runner passes (f32/f16/bf16/f64,
/// f8E4M3FN/f8E5M2/f8E8M0FNU, i1/i8/i16/i32/i64), or 0.
unsigned getElementByteWidth(Type elementType);

/// Compiles `module` in place with qs-cpu-pipeline (giving `function` a C
/// interface), then runs `function` on `inputs` (one per flattened input, in
/// order) and returns one HostTensor per flattened result. Diagnostics go to
/// the context's handler; JIT errors are returned.
///
/// Refuses (with a diagnostic) a module whose tensors add up to more than
/// `memoryLimit` bytes (0: half the machine's physical memory): every value
/// of every function counts, quantized ones as their inner tensors, so the
/// bound is conservative and the JIT'd code never meets a failed allocation.
///
/// With `emulateGPUKernels`, the GPU kernels of convert-qs-to-gpu run
/// emulated: those of `emulatedChip` (sm_90a or sm_100a; empty: the
/// module's qs.chip, else sm_90a) planned for a GPU of
/// `emulatedMultiprocessors` (0: the chip's data-sheet count). With
/// `runtimeChecks` (qs-cpu-pipeline's runtime-checks) every memref access
/// is bounds-checked: one outside its buffer prints the op and its
/// location to stderr and ends the process (exit code 3).
///
/// `jitOptLevel` (0-3) is LLVM's optimization level for the JIT, both the
/// IR passes and code generation. 2 suits most runs; 0 compiles several
/// times faster and runs slower, which wins for short runs of large code
/// (the emulated GEMM kernels on test-sized problems take about a third
/// less time in all). Results do not depend on it: the IR fixes every
/// rounding.
llvm::Expected<std::vector<HostTensor>>
runOnCPU(ModuleOp module, StringRef function,
         const std::vector<HostTensor> &inputs, uint64_t memoryLimit = 0,
         bool emulateGPUKernels = false, StringRef emulatedChip = "",
         unsigned emulatedMultiprocessors = 0, bool runtimeChecks = false,
         unsigned jitOptLevel = 2);

/// Compiles `module` in place with qs-nvptx-pipeline for the CUDA device
/// (device 0; sm_90a for compute capability 9.x, sm_100a for 10.x; the
/// module's qs.chip, if any, must name the same chip), then runs `function`
/// with its tensors in device memory: inputs are copied to the device,
/// results back. The CUDA driver is loaded at run time (libQSCUDARuntime):
/// without one, this returns an error saying so. Same interface as
/// runOnCPU.
llvm::Expected<std::vector<HostTensor>>
runOnCUDA(ModuleOp module, StringRef function,
          const std::vector<HostTensor> &inputs);

/// "NAME (sm_XXa)" of the CUDA device runOnCUDA would use, or an error
/// saying why there is none.
llvm::Expected<std::string> describeCUDADevice();

} // namespace qs
} // namespace mlir

#endif // QS_RUNNER_CPURUNNER_H
