//===- DevicePlan.cpp - a launch plan on the CUDA device ------------------===//

#include "qs/Runner/LaunchPlan.h"
#include "qs/Runtime/CUDARuntime.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include <algorithm>
#include <chrono>

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

double qs::medianTimeMs(llvm::function_ref<bool()> call, int iterations,
                        int warmup) {
  for (int i = 0; i < warmup; ++i)
    if (!call())
      return -1;
  auto started = std::chrono::steady_clock::now();
  if (!call())
    return -1;
  double hostMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  if (qsCudaSynchronize())
    return -1;
  std::vector<void *> events;
  for (int i = 0; i <= iterations; ++i)
    events.push_back(qsCudaEventCreate());
  llvm::scope_exit destroy([&] {
    for (void *e : events)
      qsCudaEventDestroy(e);
  });
  if (llvm::is_contained(events, nullptr))
    return -1;
  // Without the spin kernel the times include the host's launch gaps.
  if (qsCudaSpin(std::clamp(2 * iterations * hostMs + 1.0, 2.0, 500.0)))
    qsCudaClearError();
  if (qsCudaEventRecord(events[0]))
    return -1;
  for (int i = 0; i < iterations; ++i)
    if (!call() || qsCudaEventRecord(events[i + 1]))
      return -1;
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    ms.push_back(qsCudaEventElapsedMs(events[i], events[i + 1]));
    if (ms.back() < 0)
      return -1;
  }
  if (ms.empty())
    return -1;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  double median = ms[ms.size() / 2];
  if (ms.size() % 2 == 0)
    median =
        (median + *std::max_element(ms.begin(), ms.begin() + ms.size() / 2)) /
        2;
  return median;
}

double DevicePlan::time(llvm::ArrayRef<DevicePlan *> sets, int iterations,
                        int warmup) {
  for (DevicePlan *set : sets)
    if (!set->run(/*kernelsOnly=*/false))
      return -1;
  size_t next = 0;
  double ms = medianTimeMs(
      [&] { return sets[next++ % sets.size()]->run(/*kernelsOnly=*/true); },
      iterations, warmup);
  if (qsCudaSynchronize())
    return -1;
  return ms;
}
