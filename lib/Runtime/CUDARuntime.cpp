//===- CUDARuntime.cpp - CUDA driver access loaded at run time ------------===//
//
// The CUDA driver API is declared here (the few types and functions used),
// not included: the library builds without a CUDA installation and loads
// libcuda.so.1 with dlopen on first use.
//
//===----------------------------------------------------------------------===//

#include "qs/Runtime/CUDARuntime.h"
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>

#define QS_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;

constexpr int kAttrCCMajor = 75, kAttrCCMinor = 76;
/// CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
constexpr int kAttrMultiprocessors = 16;
constexpr int kFuncAttrMaxDynamicShared = 8;
constexpr int kJitOptimizationLevel = 7;
constexpr unsigned kStreamNonBlocking = 1, kEventDisableTiming = 2;
constexpr unsigned kMemAttachGlobal = 1;
// CUtensorMap enums: UINT8 data, no interleave, no or 128-byte swizzle, 128-byte L2
// promotion, zero fill out of bounds.
constexpr int kTensorMapUInt8 = 0, kTensorMapInterleaveNone = 0,
              kTensorMapSwizzleNone = 0, kTensorMapSwizzle128B = 3,
              kTensorMapL2Promotion128B = 2,
              kTensorMapOOBZero = 0;

/// The driver entry points, resolved once.
struct Driver {
#define QS_CU(name, ...) CUresult (*name)(__VA_ARGS__) = nullptr;
  QS_CU(cuInit, unsigned)
  QS_CU(cuDeviceGet, CUdevice *, int)
  QS_CU(cuDeviceGetCount, int *)
  QS_CU(cuDeviceGetName, char *, int, CUdevice)
  QS_CU(cuDeviceGetAttribute, int *, int, CUdevice)
  QS_CU(cuDevicePrimaryCtxRetain, CUcontext *, CUdevice)
  QS_CU(cuCtxSetCurrent, CUcontext)
  QS_CU(cuCtxSynchronize)
  QS_CU(cuGetErrorString, CUresult, const char **)
  QS_CU(cuModuleLoadData, CUmodule *, const void *)
  QS_CU(cuModuleLoadDataEx, CUmodule *, const void *, unsigned, int *, void **)
  QS_CU(cuModuleUnload, CUmodule)
  QS_CU(cuModuleGetFunction, CUfunction *, CUmodule, const char *)
  QS_CU(cuFuncSetAttribute, CUfunction, int, int)
  QS_CU(cuLaunchKernel, CUfunction, unsigned, unsigned, unsigned, unsigned,
        unsigned, unsigned, unsigned, CUstream, void **, void **)
  QS_CU(cuStreamCreate, CUstream *, unsigned)
  QS_CU(cuStreamDestroy_v2, CUstream)
  QS_CU(cuStreamSynchronize, CUstream)
  QS_CU(cuStreamWaitEvent, CUstream, CUevent, unsigned)
  QS_CU(cuEventCreate, CUevent *, unsigned)
  QS_CU(cuEventDestroy_v2, CUevent)
  QS_CU(cuEventRecord, CUevent, CUstream)
  QS_CU(cuEventSynchronize, CUevent)
  QS_CU(cuEventElapsedTime, float *, CUevent, CUevent)
  QS_CU(cuMemAlloc_v2, CUdeviceptr *, size_t)
  QS_CU(cuMemAllocManaged, CUdeviceptr *, size_t, unsigned)
  QS_CU(cuMemFree_v2, CUdeviceptr)
  QS_CU(cuMemcpy, CUdeviceptr, CUdeviceptr, size_t)
  QS_CU(cuMemcpyAsync, CUdeviceptr, CUdeviceptr, size_t, CUstream)
  QS_CU(cuMemsetD8_v2, CUdeviceptr, unsigned char, size_t)
  QS_CU(cuMemsetD16Async, CUdeviceptr, unsigned short, size_t, CUstream)
  QS_CU(cuMemsetD32Async, CUdeviceptr, unsigned, size_t, CUstream)
  QS_CU(cuTensorMapEncodeTiled, void *, int, unsigned, void *,
        const unsigned long long *, const unsigned long long *,
        const unsigned *, const unsigned *, int, int, int, int)
#undef QS_CU
  CUcontext context = nullptr;
  CUdevice device = 0;
  bool ready = false;
};

std::mutex mutex;
Driver driver;
std::string lastError;
bool initTried = false;

void setError(const std::string &message) {
  std::lock_guard<std::mutex> lock(mutex);
  lastError = message;
}

/// Records a failed driver call; returns whether it succeeded.
bool check(CUresult result, const char *what) {
  if (result == 0)
    return true;
  const char *text = nullptr;
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  setError(std::string(what) + " failed: " + (text ? text : "unknown error") +
           " (CUresult " + std::to_string(result) + ")");
  return false;
}

bool loadDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    setError(std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
             (why ? why : "unknown reason") + ")");
    return false;
  }
  bool ok = true;
  auto resolve = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(lib, name));
    if (!fn) {
      setError(std::string("the CUDA driver lacks ") + name);
      ok = false;
    }
  };
#define QS_RESOLVE(name) resolve(driver.name, #name);
  QS_RESOLVE(cuInit) QS_RESOLVE(cuDeviceGet) QS_RESOLVE(cuDeviceGetCount)
  QS_RESOLVE(cuDeviceGetName) QS_RESOLVE(cuDeviceGetAttribute)
  QS_RESOLVE(cuDevicePrimaryCtxRetain) QS_RESOLVE(cuCtxSetCurrent)
  QS_RESOLVE(cuCtxSynchronize) QS_RESOLVE(cuGetErrorString)
  QS_RESOLVE(cuModuleLoadData) QS_RESOLVE(cuModuleLoadDataEx)
  QS_RESOLVE(cuModuleUnload) QS_RESOLVE(cuModuleGetFunction)
  QS_RESOLVE(cuFuncSetAttribute) QS_RESOLVE(cuLaunchKernel)
  QS_RESOLVE(cuStreamCreate) QS_RESOLVE(cuStreamDestroy_v2)
  QS_RESOLVE(cuStreamSynchronize) QS_RESOLVE(cuStreamWaitEvent)
  QS_RESOLVE(cuEventCreate) QS_RESOLVE(cuEventDestroy_v2)
  QS_RESOLVE(cuEventRecord) QS_RESOLVE(cuEventSynchronize)
  QS_RESOLVE(cuEventElapsedTime) QS_RESOLVE(cuMemAlloc_v2)
  QS_RESOLVE(cuMemAllocManaged) QS_RESOLVE(cuMemFree_v2)
  QS_RESOLVE(cuMemcpy) QS_RESOLVE(cuMemcpyAsync) QS_RESOLVE(cuMemsetD8_v2)
  QS_RESOLVE(cuMemsetD16Async) QS_RESOLVE(cuMemsetD32Async)
  QS_RESOLVE(cuTensorMapEncodeTiled)
#undef QS_RESOLVE
  return ok;
}

/// Loads and initializes the driver once; makes the context current on the
/// calling thread.
bool ensureContext() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (driver.ready)
      return driver.cuCtxSetCurrent(driver.context) == 0;
    if (initTried)
      return false;
    initTried = true;
  }
  if (!loadDriver())
    return false;
  if (!check(driver.cuInit(0), "cuInit"))
    return false;
  int count = 0;
  if (!check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return false;
  if (count == 0) {
    setError("the CUDA driver reports no device");
    return false;
  }
  if (!check(driver.cuDeviceGet(&driver.device, 0), "cuDeviceGet") ||
      !check(driver.cuDevicePrimaryCtxRetain(&driver.context, driver.device),
             "cuDevicePrimaryCtxRetain") ||
      !check(driver.cuCtxSetCurrent(driver.context), "cuCtxSetCurrent"))
    return false;
  std::lock_guard<std::mutex> lock(mutex);
  driver.ready = true;
  return true;
}

CUdeviceptr devicePointer(const void *p) {
  return reinterpret_cast<CUdeviceptr>(p);
}
} // namespace

//===----------------------------------------------------------------------===//
// qsCuda*
//===----------------------------------------------------------------------===//

QS_EXPORT int qsCudaInit(void) { return ensureContext() ? 0 : 1; }

QS_EXPORT const char *qsCudaLastError(void) {
  std::lock_guard<std::mutex> lock(mutex);
  return lastError.c_str();
}

QS_EXPORT void qsCudaClearError(void) { setError(""); }

QS_EXPORT int qsCudaDeviceInfo(char *name, size_t nameSize, int *major,
                               int *minor) {
  if (!ensureContext())
    return 1;
  if (name && nameSize &&
      !check(driver.cuDeviceGetName(name, static_cast<int>(nameSize),
                                    driver.device),
             "cuDeviceGetName"))
    return 1;
  if (!check(driver.cuDeviceGetAttribute(major, kAttrCCMajor, driver.device),
             "cuDeviceGetAttribute") ||
      !check(driver.cuDeviceGetAttribute(minor, kAttrCCMinor, driver.device),
             "cuDeviceGetAttribute"))
    return 1;
  return 0;
}

QS_EXPORT int qsCudaDeviceMultiprocessors(int *count) {
  if (!ensureContext() ||
      !check(driver.cuDeviceGetAttribute(count, kAttrMultiprocessors,
                                         driver.device),
             "cuDeviceGetAttribute"))
    return 1;
  return 0;
}

QS_EXPORT void *qsCudaMalloc(size_t bytes) {
  CUdeviceptr p = 0;
  if (!ensureContext() ||
      !check(driver.cuMemAlloc_v2(&p, bytes ? bytes : 1), "cuMemAlloc"))
    return nullptr;
  return reinterpret_cast<void *>(p);
}

QS_EXPORT void qsCudaFree(void *p) {
  if (p && ensureContext())
    check(driver.cuMemFree_v2(devicePointer(p)), "cuMemFree");
}

QS_EXPORT int qsCudaCopy(void *dst, const void *src, size_t bytes) {
  if (!ensureContext())
    return 1;
  return check(driver.cuMemcpy(devicePointer(dst), devicePointer(src), bytes),
               "cuMemcpy")
             ? 0
             : 1;
}

QS_EXPORT int qsCudaMemset(void *p, unsigned char value, size_t bytes) {
  if (!ensureContext())
    return 1;
  return check(driver.cuMemsetD8_v2(devicePointer(p), value, bytes),
               "cuMemsetD8")
             ? 0
             : 1;
}

QS_EXPORT int qsCudaSynchronize(void) {
  if (!ensureContext())
    return 1;
  return check(driver.cuCtxSynchronize(), "cuCtxSynchronize") ? 0 : 1;
}

QS_EXPORT void *qsCudaLoadModule(const void *image) {
  CUmodule module = nullptr;
  if (!ensureContext() ||
      !check(driver.cuModuleLoadData(&module, image), "cuModuleLoadData"))
    return nullptr;
  return module;
}

QS_EXPORT void qsCudaUnloadModule(void *module) {
  if (module && ensureContext())
    check(driver.cuModuleUnload(module), "cuModuleUnload");
}

QS_EXPORT void *qsCudaGetFunction(void *module, const char *name) {
  CUfunction function = nullptr;
  if (!ensureContext() ||
      !check(driver.cuModuleGetFunction(&function, module, name),
             (std::string("cuModuleGetFunction(") + name + ")").c_str()))
    return nullptr;
  return function;
}

QS_EXPORT int qsCudaLaunch(void *function, uint32_t gridX, uint32_t blockX,
                           uint32_t sharedBytes, void **params) {
  if (!ensureContext())
    return 1;
  if (sharedBytes > 48 * 1024 &&
      !check(driver.cuFuncSetAttribute(function, kFuncAttrMaxDynamicShared,
                                       sharedBytes),
             "cuFuncSetAttribute"))
    return 1;
  return check(driver.cuLaunchKernel(function, gridX, 1, 1, blockX, 1, 1,
                                     sharedBytes, nullptr, params, nullptr),
               "cuLaunchKernel")
             ? 0
             : 1;
}

QS_EXPORT int qsCudaEncodeTensorMap2D(int64_t map, int64_t global,
                                      int64_t rows, int64_t cols,
                                      int64_t boxRows, int64_t boxCols,
                                      int64_t swizzleBytes) {
  if (swizzleBytes != 0 && swizzleBytes != 128) {
    setError("qsCudaEncodeTensorMap2D: swizzle must be 0 or 128 bytes");
    return 1;
  }
  if (!ensureContext())
    return 1;
  alignas(64) unsigned char encoded[128] = {};
  unsigned long long dims[2] = {static_cast<unsigned long long>(cols),
                                static_cast<unsigned long long>(rows)};
  unsigned long long strides[1] = {static_cast<unsigned long long>(cols)};
  unsigned box[2] = {static_cast<unsigned>(boxCols),
                     static_cast<unsigned>(boxRows)};
  unsigned elementStrides[2] = {1, 1};
  if (!check(driver.cuTensorMapEncodeTiled(
                 encoded, kTensorMapUInt8, 2,
                 reinterpret_cast<void *>(static_cast<intptr_t>(global)), dims,
                 strides, box, elementStrides, kTensorMapInterleaveNone,
                 swizzleBytes ? kTensorMapSwizzle128B : kTensorMapSwizzleNone,
                 kTensorMapL2Promotion128B,
                 kTensorMapOOBZero),
             "cuTensorMapEncodeTiled"))
    return 1;
  return check(driver.cuMemcpy(static_cast<CUdeviceptr>(map),
                               reinterpret_cast<CUdeviceptr>(encoded),
                               sizeof(encoded)),
               "cuMemcpy (tensor map)")
             ? 0
             : 1;
}

QS_EXPORT void *qsCudaEventCreate(void) {
  CUevent event = nullptr;
  if (!ensureContext() || !check(driver.cuEventCreate(&event, 0), "cuEventCreate"))
    return nullptr;
  return event;
}

QS_EXPORT void qsCudaEventDestroy(void *event) {
  if (event && ensureContext())
    check(driver.cuEventDestroy_v2(event), "cuEventDestroy");
}

QS_EXPORT int qsCudaEventRecord(void *event) {
  if (!ensureContext())
    return 1;
  return check(driver.cuEventRecord(event, nullptr), "cuEventRecord") ? 0 : 1;
}

QS_EXPORT float qsCudaEventElapsedMs(void *start, void *end) {
  float ms = -1.0f;
  if (!ensureContext() || !check(driver.cuEventSynchronize(end), "cuEventSynchronize") ||
      !check(driver.cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime"))
    return -1.0f;
  return ms;
}

/// qs_spin(ns) (spin.ptx): spins one thread for ns nanoseconds.
static const char kSpinPtx[] =
#include "SpinPtx.inc"
    ;

QS_EXPORT int qsCudaSpin(double ms) {
  // Loaded once (the module stays loaded for the process).
  static void *function = []() -> void * {
    void *module = qsCudaLoadModule(kSpinPtx);
    return module ? qsCudaGetFunction(module, "qs_spin") : nullptr;
  }();
  if (!function) {
    setError("qsCudaSpin: the spin kernel could not be loaded");
    return 1;
  }
  uint64_t ns = static_cast<uint64_t>(ms * 1e6);
  void *params[] = {&ns};
  return qsCudaLaunch(function, 1, 1, 0, params);
}

//===----------------------------------------------------------------------===//
// mgpu* (the ABI of MLIR's gpu-to-llvm lowering)
//===----------------------------------------------------------------------===//

QS_EXPORT void *mgpuModuleLoad(void *data, size_t /*size*/) {
  return qsCudaLoadModule(data);
}

QS_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule module = nullptr;
  if (!ensureContext())
    return nullptr;
  int options[] = {kJitOptimizationLevel};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  if (!check(driver.cuModuleLoadDataEx(&module, data, 1, options, values),
             "cuModuleLoadDataEx (PTX JIT)"))
    return nullptr;
  return module;
}

QS_EXPORT void mgpuModuleUnload(void *module) { qsCudaUnloadModule(module); }

QS_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  return module ? qsCudaGetFunction(module, name) : nullptr;
}

QS_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                intptr_t gridZ, intptr_t blockX,
                                intptr_t blockY, intptr_t blockZ,
                                int32_t sharedBytes, void *stream,
                                void **params, void **extra,
                                size_t /*paramsCount*/) {
  if (!function || !ensureContext())
    return;
  if (sharedBytes > 48 * 1024 &&
      !check(driver.cuFuncSetAttribute(function, kFuncAttrMaxDynamicShared,
                                       sharedBytes),
             "cuFuncSetAttribute"))
    return;
  check(driver.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                              blockZ, sharedBytes, stream, params, extra),
        "cuLaunchKernel");
}

QS_EXPORT void *mgpuStreamCreate() {
  CUstream stream = nullptr;
  if (ensureContext())
    check(driver.cuStreamCreate(&stream, kStreamNonBlocking), "cuStreamCreate");
  return stream;
}

QS_EXPORT void mgpuStreamDestroy(void *stream) {
  if (ensureContext())
    check(driver.cuStreamDestroy_v2(stream), "cuStreamDestroy");
}

QS_EXPORT void mgpuStreamSynchronize(void *stream) {
  if (ensureContext())
    check(driver.cuStreamSynchronize(stream), "cuStreamSynchronize");
}

QS_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  if (ensureContext())
    check(driver.cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

QS_EXPORT void *mgpuEventCreate() {
  CUevent event = nullptr;
  if (ensureContext())
    check(driver.cuEventCreate(&event, kEventDisableTiming), "cuEventCreate");
  return event;
}

QS_EXPORT void mgpuEventDestroy(void *event) { qsCudaEventDestroy(event); }

QS_EXPORT void mgpuEventSynchronize(void *event) {
  if (ensureContext())
    check(driver.cuEventSynchronize(event), "cuEventSynchronize");
}

QS_EXPORT void mgpuEventRecord(void *event, void *stream) {
  if (ensureContext())
    check(driver.cuEventRecord(event, stream), "cuEventRecord");
}

QS_EXPORT void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/,
                             bool isHostShared) {
  CUdeviceptr p = 0;
  if (!ensureContext())
    return nullptr;
  if (isHostShared)
    check(driver.cuMemAllocManaged(&p, bytes ? bytes : 1, kMemAttachGlobal),
          "cuMemAllocManaged");
  else
    check(driver.cuMemAlloc_v2(&p, bytes ? bytes : 1), "cuMemAlloc");
  return reinterpret_cast<void *>(p);
}

QS_EXPORT void mgpuMemFree(void *p, void * /*stream*/) { qsCudaFree(p); }

QS_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  if (ensureContext())
    check(driver.cuMemcpyAsync(devicePointer(dst), devicePointer(src), bytes,
                               stream),
          "cuMemcpyAsync");
}

QS_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                            void *stream) {
  if (ensureContext())
    check(driver.cuMemsetD32Async(devicePointer(dst), value, count, stream),
          "cuMemsetD32Async");
}

QS_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                            void *stream) {
  if (ensureContext())
    check(driver.cuMemsetD16Async(devicePointer(dst), value, count, stream),
          "cuMemsetD16Async");
}

QS_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    setError("qs CUDA runtime: only device 0 is supported");
}
