//===- BenchDevice.h - device and chip selection of the benchmarks -*- C++
//-*-===//
//
// Shared by qs-bench-quantize and qs-bench-gemm: opens CUDA device 0
// (unless --dry-run) and picks the chip the kernels are compiled for;
// checks the repetition options.
//
//===----------------------------------------------------------------------===//

#ifndef QS_BENCH_BENCHDEVICE_H
#define QS_BENCH_BENCHDEVICE_H

#include "qs/Runtime/CUDARuntime.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace mlir {
namespace qs {
namespace bench {

struct BenchDevice {
  /// Whether kernels run (a device whose chip the kernels target).
  bool present = false;
  std::string name = "none";
  /// sm_90a or sm_100a.
  std::string chip = "sm_90a";
  /// The device's multiprocessors (NVPTXPipelineOptions::multiprocessors);
  /// 0: none known (the chip's data-sheet count).
  int multiprocessors = 0;
};

/// `requested`: "auto" (the device's chip: compute capability 9.x ->
/// sm_90a, 10.x -> sm_100a; sm_90a without a device), "sm_90a" or
/// "sm_100a". A device of another chip than an explicit request, or of
/// neither, only gets the launch plans printed (with the reason, prefixed
/// by `tool`); so does a missing device unless `dryRun`.
inline BenchDevice openBenchDevice(llvm::StringRef tool, bool dryRun,
                                   llvm::StringRef requested) {
  BenchDevice d;
  if (requested != "auto")
    d.chip = requested.str();
  if (dryRun)
    return d;
  if (qsCudaInit() != 0) {
    llvm::outs() << tool << ": " << qsCudaLastError()
                 << "; printing the launch plans only\n";
    return d;
  }
  char name[256] = {0};
  int major = 0, minor = 0;
  qsCudaDeviceInfo(name, sizeof(name), &major, &minor);
  d.name = name;
  std::string own = major == 9 ? "sm_90a" : major == 10 ? "sm_100a" : "";
  if (own.empty() || (requested != "auto" && requested != own)) {
    llvm::outs() << tool << ": " << name << " has compute capability "
                 << major << "." << minor << "; the kernels are compiled for "
                 << (requested == "auto" ? std::string("sm_90a or sm_100a")
                                         : requested.str())
                 << "; printing the launch plans only\n";
    return d;
  }
  d.chip = own;
  d.present = true;
  if (qsCudaDeviceMultiprocessors(&d.multiprocessors) != 0)
    d.multiprocessors = 0;
  return d;
}

/// Whether --iters (at least 1: the median of none is no time) and --warmup
/// (at least 0) are usable; if not, says why on stderr, prefixed by `tool`.
inline bool checkRepetitions(llvm::StringRef tool, int iterations, int warmup) {
  if (iterations < 1) {
    llvm::errs() << tool << ": --iters must be at least 1, got " << iterations
                 << "\n";
    return false;
  }
  if (warmup < 0) {
    llvm::errs() << tool << ": --warmup must be at least 0, got " << warmup
                 << "\n";
    return false;
  }
  return true;
}

} // namespace bench
} // namespace qs
} // namespace mlir

#endif // QS_BENCH_BENCHDEVICE_H
