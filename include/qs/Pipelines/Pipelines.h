//===- Pipelines.h - named qs pass pipelines --------------------*- C++ -*-===//

#ifndef QS_PIPELINES_PIPELINES_H
#define QS_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include <optional>
#include <string>

namespace mlir {
class OpPassManager;
namespace qs {

/// Options of `qs-storage-pipeline`.
struct StoragePipelineOptions
    : public PassPipelineOptions<StoragePipelineOptions> {
  PassOptions::Option<bool> inferUsage{
      *this, "infer-usage",
      llvm::cl::desc("Run qs-infer-usage (minimal usages per value)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> selectScaleLayout{
      *this, "select-scale-layout",
      llvm::cl::desc("Run qs-select-scale-layout (GEMM-swizzled scales for "
                     "GEMM operands)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> flatten{
      *this, "flatten",
      llvm::cl::desc("Run qs-flatten-storage (no !qs.tensor remains)"),
      llvm::cl::init(true)};
};

/// Builds, on a pass manager anchored on `builtin.module`:
/// qs-infer-usage, qs-select-scale-layout, qs-expand-storage, canonicalize,
/// qs-flatten-storage, canonicalize. Usages are inferred before the scale
/// layout is chosen (the layout rule looks at the final consumers) and both
/// before expansion (which allocates what the types say).
void buildStoragePipeline(OpPassManager &pm,
                          const StoragePipelineOptions &options);

/// Registers `qs-storage-pipeline` for the command line.
void registerStoragePipeline();

/// Options of `qs-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<unsigned> llvmOptLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level the JIT should use, 0-3 "
                     "(recorded for runners; the pipeline itself stops at "
                     "the LLVM dialect)"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> emulateGPUKernels{
      *this, "emulate-gpu-kernels",
      llvm::cl::desc("Quantize/dequantize with the GPU kernels of "
                     "convert-qs-to-gpu, emulated on the CPU "
                     "(convert-qs-to-gpu{emulate=true}), instead of the "
                     "reference lowering; tests the kernels without a GPU"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> gpuChip{
      *this, "gpu-chip",
      llvm::cl::desc("With emulate-gpu-kernels: whose kernels to emulate, "
                     "sm_90a or sm_100a (convert-qs-to-gpu's chip; "
                     "default: the module's qs.chip, else sm_90a); the "
                     "storage layouts still follow the module's qs.chip"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> gpuMultiprocessors{
      *this, "gpu-multiprocessors",
      llvm::cl::desc("With emulate-gpu-kernels: the streaming "
                     "multiprocessors of the GPU whose kernels to emulate "
                     "(convert-qs-to-gpu's multiprocessors: the GEMM plans' "
                     "tile widths, persistent grids and split-K \"auto\" "
                     "follow it); 0: the chip's data-sheet count"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Insert MLIR's runtime op verification "
                     "(generate-runtime-verification) once the code is "
                     "loops over buffers: a memref access outside its "
                     "buffer (and the other checked ops' conditions) "
                     "prints the op and its location and aborts the run; "
                     "for kernel development and the test suite "
                     "(QS_RUNTIME_CHECKS), slower"),
      llvm::cl::init(false)};

  /// Checks the options' rules, as the registered pipeline's parser does
  /// before building (call it when building from C++): opt-level is 0-3;
  /// gpu-chip is empty, sm_90a or sm_100a; gpu-chip and gpu-multiprocessors
  /// need emulate-gpu-kernels. On failure `os` says which option and why.
  LogicalResult validate(llvm::raw_ostream &os) const;
};

/// Builds, on a pass manager anchored on `builtin.module`, the pipeline from
/// proto-level IR to the LLVM dialect, runnable by the CPU JIT:
/// qs-storage-pipeline, convert-qs-to-linalg, canonicalize, one-shot
/// bufferization with identity-layout function boundaries, buffer results
/// turned into out-parameters (the caller allocates them), deallocation,
/// linalg to loops, and the conversions to LLVM. Functions that should get
/// a C interface (`_mlir_ciface_<name>`) carry `llvm.emit_c_interface`.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers `qs-cpu-pipeline` for the command line.
void registerCPUPipeline();

/// Options of `qs-nvptx-pipeline`.
struct NVPTXPipelineOptions
    : public PassPipelineOptions<NVPTXPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU: sm_90a (Hopper) or sm_100a (Blackwell); "
                     "must agree with the module's qs.chip when it has one"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX text), bin (cubin), "
                     "fatbin (cubin + PTX), or auto (fatbin when ptxas is "
                     "found, else isa)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory holding bin/ptxas, used as "
                     "given (one without an executable bin/ptxas is an "
                     "error; default: search CUDA_HOME, CUDA_ROOT, "
                     "CUDA_PATH, the directory of ptxas on PATH, "
                     "/usr/local/cuda)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> ptxasOptions{
      *this, "ptxas-options",
      llvm::cl::desc("Extra ptxas command-line options"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the NVPTX backend, 0-3"),
      llvm::cl::init(3)};
  PassOptions::Option<unsigned> multiprocessors{
      *this, "multiprocessors",
      llvm::cl::desc("The target GPU's streaming multiprocessors "
                     "(convert-qs-to-gpu's multiprocessors); 0: the chip's "
                     "data-sheet count"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> reportGemmPlans{
      *this, "report-gemm-plans",
      llvm::cl::desc("A remark on each GEMM stating its kernel plan "
                     "(convert-qs-to-gpu's report-gemm-plans)"),
      llvm::cl::init(false)};

  /// Checks the options' rules, as the registered pipelines' parser does
  /// before building (call it when building from C++): format is isa, bin,
  /// fatbin or auto; opt-level is 0-3; a toolkit, when given, holds an
  /// executable bin/ptxas (it is used as given, never searched past). On
  /// failure `os` says which option and why. (The chip is checked by
  /// convert-qs-to-gpu, against the module's qs.chip too.)
  LogicalResult validate(llvm::raw_ostream &os) const;
};

/// The PTX ISA feature a chip needs (`+ptx80` for sm_90a, `+ptx88` for
/// sm_100a), or none for chips the pipeline does not support.
std::optional<std::string> getPTXFeatures(StringRef chip);

/// The CUDA toolkit directory holding `bin/ptxas`: `preferred` when it has
/// one, else the first of CUDA_HOME, CUDA_ROOT, CUDA_PATH, the parent of
/// ptxas on PATH, /usr/local/cuda that does; empty if none.
std::string findCUDAToolkit(StringRef preferred);

/// Builds, on a pass manager anchored on `builtin.module`, the pipeline from
/// proto-level IR to host code in the LLVM dialect plus one `gpu.binary`
/// (@qs_kernels) for `chip`: qs-storage-pipeline, convert-qs-to-gpu,
/// bufferization (identity-layout boundaries, results as out-parameters),
/// qs-gpu-host-buffers, the NVVM lowering of the kernels (bare-pointer
/// kernel arguments), gpu-to-llvm for the host, gpu-module-to-binary.
/// Unsupported chips, chip/module mismatches and ops without GPU kernels
/// are diagnostics (convert-qs-to-gpu, qs-gpu-host-buffers), never LLVM
/// aborts.
void buildNVPTXPipeline(OpPassManager &pm,
                        const NVPTXPipelineOptions &options);

/// The two halves of buildNVPTXPipeline. The host half ends with host code
/// on memrefs (device buffers: gpu.alloc, gpu.memcpy) calling one launcher
/// function per kernel (a gpu.launch_func of a gpu.func in
/// `gpu.module @qs_kernels`): the place to inspect or schedule launches.
/// The lowering half produces LLVM-dialect host code and the gpu.binary.
void buildNVPTXHostPipeline(OpPassManager &pm,
                            const NVPTXPipelineOptions &options);
void buildNVPTXLoweringPipeline(OpPassManager &pm,
                                const NVPTXPipelineOptions &options);

/// Registers `qs-nvptx-pipeline` for the command line.
void registerNVPTXPipeline();

} // namespace qs
} // namespace mlir

#endif // QS_PIPELINES_PIPELINES_H
