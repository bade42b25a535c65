//===- LaunchPlan.h - the kernel launches of a compiled function -*- C++ -*-===//
//
// What the host code of a qs-nvptx-pipeline function does, as data: its
// device buffers (the function's flattened arguments, inputs then results,
// and the buffers it allocates) and, in order, its kernel launches and
// device-to-device copies, plus the gpu.binary holding the kernels. A
// launch plan replays the function without MLIR or LLVM on the GPU machine
// (scripts/device-run.py) and is what qs-bench-quantize times.
//
//===----------------------------------------------------------------------===//

#ifndef QS_RUNNER_LAUNCHPLAN_H
#define QS_RUNNER_LAUNCHPLAN_H

#include "qs/Pipelines/Pipelines.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace qs {

struct LaunchPlan {
  struct Buffer {
    int64_t bytes = 0;
    /// Index among the function's flattened arguments (inputs, then the
    /// results as out-parameters), or -1 for a buffer the host code
    /// allocates.
    int argument = -1;
  };
  struct Step {
    /// A kernel launch (1-D grid and block; one pointer argument per
    /// buffer in `args`), or a copy of `bytes` from `src` to `dst`.
    bool isCopy = false;
    /// Or: encode the TMA descriptor of buffer `src` (a [rows, cols] byte
    /// matrix, tensorMap = {rows, cols, boxRows, boxCols, swizzle bytes})
    /// into buffer `dst` (qsCudaEncodeTensorMap2D).
    bool isTensorMap = false;
    int64_t tensorMap[5] = {0, 0, 0, 0, 0};
    std::string kernel;
    int64_t grid = 0, block = 0;
    /// Dynamic shared memory of the launch in bytes.
    int64_t sharedBytes = 0;
    std::vector<unsigned> args;
    unsigned dst = 0, src = 0;
    int64_t bytes = 0;
  };
  std::vector<Buffer> buffers;
  std::vector<Step> steps;
  /// The gpu.binary object and its format ("isa": NUL-terminated PTX,
  /// "bin": cubin, "fatbin").
  std::string binary;
  std::string format;
  std::string chip;

  /// {"chip", "format", "buffers": [{"bytes", "argument"}], "steps":
  /// [{"kernel", "grid", "block", "shared", "args"} | {"copy": {"dst",
  /// "src", "bytes"}} | {"tensormap": {"map", "global", "rows", "cols",
  /// "box_rows", "box_cols", "swizzle"}}]}.
  std::string toJSON() const;
};

/// Compiles `module` in place with qs-nvptx-pipeline (`options`) and
/// returns the launch plan of `function`; fails with a diagnostic if the
/// pipeline fails or the host code does something a plan cannot express.
FailureOr<LaunchPlan> compileLaunchPlan(ModuleOp module, StringRef function,
                                        const NVPTXPipelineOptions &options);

/// Median milliseconds of `iterations` calls of `call` after `warmup`
/// (libQSCUDARuntime, default stream): an event before and after each
/// call, all calls queued behind qsCudaSpin for twice the host time they
/// take to queue, so the host's launch gaps do not count as GPU time (no
/// spin where its kernel cannot be loaded); < 0 if a call or the timing
/// fails.
double medianTimeMs(llvm::function_ref<bool()> call, int iterations,
                    int warmup);

/// A launch plan loaded on the CUDA device (libQSCUDARuntime): its module,
/// functions and one device buffer per plan buffer. Used by the benchmarks.
class DevicePlan {
public:
  /// Loads `plan`; on failure returns the reason.
  static llvm::Expected<std::unique_ptr<DevicePlan>> load(const LaunchPlan &plan);
  ~DevicePlan();

  /// The device buffer of plan buffer `index`.
  void *buffer(unsigned index) const { return buffers[index]; }
  /// Runs every step (copies, TMA descriptor encodings, launches) or, with
  /// kernelsOnly, the launches alone (descriptors encoded by an earlier
  /// full run stay valid: buffers do not move). False on failure
  /// (qsCudaLastError says why).
  bool run(bool kernelsOnly);
  /// Median milliseconds of `iterations` kernels-only runs after `warmup`
  /// (and one full run first), cycling through `sets` (loads of one plan
  /// with inputs filled, so that inputs are not timed from L2); < 0 on
  /// failure. Timed as medianTimeMs.
  static double time(llvm::ArrayRef<DevicePlan *> sets, int iterations,
                     int warmup);

private:
  explicit DevicePlan(const LaunchPlan &plan) : plan(plan) {}
  const LaunchPlan &plan;
  void *module = nullptr;
  std::vector<void *> functions, buffers;
  std::vector<std::vector<void *>> params;
};

} // namespace qs
} // namespace mlir

#endif // QS_RUNNER_LAUNCHPLAN_H
