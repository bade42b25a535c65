//===- DevicePlan.cpp - a launch plan on the CUDA device ------------------===//

#include "qs/Runner/LaunchPlan.h"
#include "qs/Runtime/CUDARuntime.h"

using namespace mlir;
using namespace mlir::qs;

static llvm::Error cudaError(const char *what) {
  return llvm::createStringError(std::string(what) + ": " + qsCudaLastError());
}

llvm::Expected<std::unique_ptr<DevicePlan>>
DevicePlan::load(const LaunchPlan &plan) {
  std::unique_ptr<DevicePlan> d(new DevicePlan(plan));
  d->module = qsCudaLoadModule(plan.binary.data());
  if (!d->module)
    return cudaError("load");
  for (const LaunchPlan::Step &s : plan.steps) {
    bool kernel = !s.isCopy && !s.isTensorMap;
    d->functions.push_back(kernel ? qsCudaGetFunction(d->module, s.kernel.c_str())
                                  : nullptr);
    if (kernel && !d->functions.back())
      return cudaError("function");
  }
  for (const LaunchPlan::Buffer &b : plan.buffers) {
    d->buffers.push_back(qsCudaMalloc(b.bytes));
    if (!d->buffers.back())
      return cudaError("malloc");
  }
  d->params.resize(plan.steps.size());
  for (auto [i, s] : llvm::enumerate(plan.steps))
    for (unsigned a : s.args)
      d->params[i].push_back(&d->buffers[a]);
  return d;
}

DevicePlan::~DevicePlan() {
  for (void *p : buffers)
    if (p)
      qsCudaFree(p);
  if (module)
    qsCudaUnloadModule(module);
}

bool DevicePlan::run(bool kernelsOnly) {
  for (auto [i, s] : llvm::enumerate(plan.steps)) {
    if (s.isCopy) {
      if (!kernelsOnly &&
          qsCudaCopy(buffers[s.dst], buffers[s.src], s.bytes))
        return false;
    } else if (s.isTensorMap) {
      if (!kernelsOnly &&
          qsCudaEncodeTensorMap2D(
              reinterpret_cast<intptr_t>(buffers[s.dst]),
              reinterpret_cast<intptr_t>(buffers[s.src]), s.tensorMap[0],
              s.tensorMap[1], s.tensorMap[2], s.tensorMap[3], s.tensorMap[4]))
        return false;
    } else if (qsCudaLaunch(functions[i], s.grid, s.block, s.sharedBytes,
                            params[i].data())) {
      return false;
    }
  }
  return true;
}

double DevicePlan::time(int iterations, int warmup) {
  if (!run(/*kernelsOnly=*/false))
    return -1;
  for (int i = 0; i < warmup; ++i)
    if (!run(/*kernelsOnly=*/true))
      return -1;
  void *start = qsCudaEventCreate(), *end = qsCudaEventCreate();
  qsCudaEventRecord(start);
  for (int i = 0; i < iterations; ++i)
    run(/*kernelsOnly=*/true);
  qsCudaEventRecord(end);
  double ms = qsCudaEventElapsedMs(start, end) / iterations;
  qsCudaEventDestroy(start);
  qsCudaEventDestroy(end);
  if (qsCudaSynchronize())
    return -1;
  return ms;
}
