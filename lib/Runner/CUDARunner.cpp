//===- CUDARunner.cpp - run qs functions on a CUDA device ------------------===//
//
// qs-nvptx-pipeline, then the host code in the JIT against libQSCUDARuntime
// (which implements the mgpu* functions the host code calls and loads the
// CUDA driver at run time).
//
//===----------------------------------------------------------------------===//

#include "RunnerDetail.h"
#include "qs/Pipelines/Pipelines.h"
#include "qs/Runtime/CUDARuntime.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"
#include <dlfcn.h>

using namespace mlir;
using namespace mlir::qs;

/// The file of the loaded libQSCUDARuntime (the JIT loads it by path: in a
/// Python extension it is not in the global symbol scope).
static std::string runtimeLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&qsCudaInit), &info) && info.dli_fname)
    return info.dli_fname;
  return "";
}

static llvm::Error makeError(const Twine &message) {
  return llvm::make_error<llvm::StringError>(message,
                                             llvm::inconvertibleErrorCode());
}

/// The chip of the CUDA device, or an error.
static llvm::Expected<std::pair<std::string, std::string>> cudaDevice() {
  if (qsCudaInit() != 0)
    return makeError(Twine("no CUDA device: ") + qsCudaLastError());
  char name[256] = {0};
  int major = 0, minor = 0;
  if (qsCudaDeviceInfo(name, sizeof(name), &major, &minor) != 0)
    return makeError(Twine("no CUDA device: ") + qsCudaLastError());
  std::string chip;
  if (major == 9)
    chip = "sm_90a";
  else if (major == 10)
    chip = "sm_100a";
  else
    return makeError(Twine("the CUDA device ") + name +
                     " has compute capability " + Twine(major) + "." +
                     Twine(minor) +
                     "; qs-nvptx-pipeline targets sm_90a and sm_100a");
  return std::make_pair(std::string(name), chip);
}

llvm::Expected<std::string> mlir::qs::describeCUDADevice() {
  auto device = cudaDevice();
  if (!device)
    return device.takeError();
  return device->first + " (" + device->second + ")";
}

namespace {
/// Device buffers freed on scope exit.
struct DeviceBuffers {
  std::vector<void *> pointers;
  ~DeviceBuffers() {
    for (void *p : pointers)
      qsCudaFree(p);
  }
  void *allocate(size_t bytes) {
    void *p = qsCudaMalloc(bytes);
    if (p)
      pointers.push_back(p);
    return p;
  }
};
} // namespace

llvm::Expected<std::vector<HostTensor>>
mlir::qs::runOnCUDA(ModuleOp module, StringRef function,
                    const std::vector<HostTensor> &inputs) {
  auto device = cudaDevice();
  if (!device)
    return device.takeError();
  auto func = module.lookupSymbol<func::FuncOp>(function);
  FailureOr<FlatSignature> signature = runner::checkCall(func, function, inputs);
  if (failed(signature))
    return makeError(runner::lastCallError());

  // Compile for the device's chip (the storage layouts follow qs.chip; a
  // module without one gets the device's).
  MLIRContext *ctx = module.getContext();
  if (!module->hasAttr("qs.chip"))
    module->setAttr("qs.chip", StringAttr::get(ctx, device->second));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(ctx));
  PassManager pm(ctx);
  NVPTXPipelineOptions options;
  options.chip = device->second;
  // The GEMM plans fill the device's own multiprocessors (an H100 PCIe has
  // 114, an H20 78, against the 132 an sm_90a plan assumes otherwise).
  int multiprocessors = 0;
  if (qsCudaDeviceMultiprocessors(&multiprocessors) == 0 && multiprocessors > 0)
    options.multiprocessors = multiprocessors;
  buildNVPTXPipeline(pm, options);
  if (failed(pm.run(module)))
    return makeError("qs-nvptx-pipeline failed on @" + function);

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  ctx->appendDialectRegistry(registry);
  ExecutionEngineOptions engineOptions;
  std::function<llvm::Error(llvm::Module *)> transformer =
      runner::makeJitTransformer();
  engineOptions.transformer = transformer;
  std::string runtime = runtimeLibraryPath();
  SmallVector<StringRef> libs;
  if (!runtime.empty())
    libs.push_back(runtime);
  engineOptions.sharedLibPaths = libs;
  qsCudaClearError();
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return engine.takeError();
  if (StringRef(qsCudaLastError()).size())
    return makeError(Twine("loading the kernels: ") + qsCudaLastError());

  // Device copies of the inputs, device results.
  DeviceBuffers buffers;
  std::vector<runner::Descriptor> descriptors;
  for (const HostTensor &in : inputs) {
    void *p = buffers.allocate(in.bytes.size());
    if (!p || qsCudaCopy(p, in.bytes.data(), in.bytes.size()) != 0)
      return makeError(Twine("copying an input to the device: ") +
                       qsCudaLastError());
    descriptors.emplace_back(p, in.type.getShape());
  }
  std::vector<HostTensor> results;
  std::vector<void *> resultPointers;
  for (const FlatValue &r : signature->results) {
    results.push_back({r.type, std::vector<char>(runner::byteSize(r.type))});
    void *p = buffers.allocate(results.back().bytes.size());
    if (!p)
      return makeError(Twine("allocating a result on the device: ") +
                       qsCudaLastError());
    resultPointers.push_back(p);
    descriptors.emplace_back(p, r.type.getShape());
  }
  if (llvm::Error error =
          runner::invokeWithDescriptors(**engine, function, descriptors))
    return std::move(error);
  if (qsCudaSynchronize() != 0 || StringRef(qsCudaLastError()).size())
    return makeError(Twine("running @") + function + ": " + qsCudaLastError());
  for (auto [r, p] : llvm::zip(results, resultPointers))
    if (qsCudaCopy(r.bytes.data(), p, r.bytes.size()) != 0)
      return makeError(Twine("copying a result to the host: ") +
                       qsCudaLastError());
  return results;
}
