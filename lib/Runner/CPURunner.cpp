//===- CPURunner.cpp - run qs functions on the CPU through the JIT --------===//

#include "qs/Runner/CPURunner.h"
#include "RunnerDetail.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/Pipelines/Pipelines.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace mlir::qs;

#ifndef QS_MLIR_C_RUNNER_UTILS
#define QS_MLIR_C_RUNNER_UTILS ""
#endif

std::string FlatValue::describe(bool isResult) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << (isResult ? "result " : "arg ") << origin;
  if (quantized)
    os << " '" << innerName << "' of " << quantized;
  return s;
}

unsigned mlir::qs::getElementByteWidth(Type type) {
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(type))
    return 1;
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return type.getIntOrFloatBitWidth() / 8;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    unsigned width = integer.getWidth();
    if (width == 1)
      return 1;
    if (width == 8 || width == 16 || width == 32 || width == 64)
      return width / 8;
  }
  return 0;
}

/// Appends the flattened values of one argument or result type.
static LogicalResult flatten(func::FuncOp func, Type type, unsigned index,
                             bool isResult, const TargetInfo &target,
                             std::vector<FlatValue> &out) {
  auto fail = [&](StringRef why) {
    return func.emitError() << "qs-run cannot pass "
                            << (isResult ? "result " : "argument ") << index
                            << " of type " << type << ": " << why;
  };
  if (auto quantized = dyn_cast<QuantTensorType>(type)) {
    for (const InnerTensor &t : quantized.getInnerTensors(target))
      out.push_back({t.getType(), quantized, t.name.str(), index});
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return fail("only ranked tensors and !qs.tensor values are supported");
  if (!tensor.hasStaticShape())
    return fail("the shape must be static");
  if (!getElementByteWidth(tensor.getElementType()))
    return fail("the element type has no .npy representation");
  out.push_back({tensor, Type(), "", index});
  return success();
}

FailureOr<FlatSignature> mlir::qs::getFlatSignature(func::FuncOp func) {
  TargetInfo target = TargetInfo::lookup(func);
  FlatSignature signature;
  FunctionType type = func.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (failed(flatten(func, t, i, false, target, signature.inputs)))
      return failure();
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (failed(flatten(func, t, i, true, target, signature.results)))
      return failure();
  return signature;
}

using runner::byteSize;
using runner::Descriptor;

llvm::Error runner::invokeWithDescriptors(ExecutionEngine &engine,
                                          StringRef function,
                                          std::vector<Descriptor> &descriptors) {
  std::vector<void *> pointers;
  for (Descriptor &d : descriptors)
    pointers.push_back(d.get());
  std::vector<void *> args;
  for (void *&p : pointers)
    args.push_back(&p);
  return engine.invokePacked(("_mlir_ciface_" + function).str(), args);
}

std::function<llvm::Error(llvm::Module *)>
runner::makeJitTransformer(unsigned optLevel) {
  // The host's features as the JIT's target machine takes them
  // (JITTargetMachineBuilder::detectHost), then the two disabled last, which
  // also disables every feature that implies them (AVX10).
  llvm::SubtargetFeatures features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  if (llvm::Triple(llvm::sys::getProcessTriple()).isX86()) {
    features.AddFeature("avx512bf16", false);
    features.AddFeature("avxneconvert", false);
  }
  std::string featureString = features.getString();
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, 0, nullptr);
  return [featureString, optimize](llvm::Module *module) -> llvm::Error {
    for (llvm::Function &function : *module)
      if (!function.isDeclaration())
        function.addFnAttr("target-features", featureString);
    return optimize(module);
  };
}

static std::string callError;

std::string runner::lastCallError() { return callError; }

FailureOr<FlatSignature>
runner::checkCall(func::FuncOp func, StringRef function,
                  const std::vector<HostTensor> &inputs) {
  auto fail = [](const Twine &message) -> FailureOr<FlatSignature> {
    callError = message.str();
    return failure();
  };
  if (!func)
    return fail("no function @" + function + " in the module");
  FailureOr<FlatSignature> signature = getFlatSignature(func);
  if (failed(signature))
    return fail("unsupported signature of @" + function);
  if (inputs.size() != signature->inputs.size())
    return fail("@" + function + " takes " + Twine(signature->inputs.size()) +
                " flattened inputs, got " + Twine(inputs.size()));
  for (auto [i, input] : llvm::enumerate(inputs))
    if (input.type != signature->inputs[i].type ||
        input.bytes.size() != byteSize(input.type))
      return fail("input " + Twine(i) + " does not match " +
                  signature->inputs[i].describe(false));
  return signature;
}

/// Bytes of a static tensor type, saturating at UINT64_MAX (builtin tensor
/// shapes may overflow int64 when multiplied out).
static uint64_t saturatingBytes(RankedTensorType type) {
  uint64_t bytes =
      std::max<uint64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  for (int64_t d : type.getShape())
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes))
      return UINT64_MAX;
  return bytes;
}

/// Half the machine's physical memory: the default bound of runOnCPU.
static uint64_t defaultMemoryLimit() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(8) << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / 2;
}

/// Reports, at `func`, a module whose tensors (every value of every function,
/// quantized ones as their inner tensors) add up to more than `limit`
/// bytes: the JIT'd code would fail to allocate them, which it cannot report.
static LogicalResult checkMemory(ModuleOp module, func::FuncOp func,
                                 uint64_t limit) {
  TargetInfo target = TargetInfo::lookup(func);
  uint64_t total = 0, largest = 0;
  Type largestType;
  auto add = [&](Type type) {
    SmallVector<RankedTensorType> tensors;
    if (auto quantized = dyn_cast<QuantTensorType>(type)) {
      for (const InnerTensor &t : quantized.getInnerTensors(target))
        tensors.push_back(t.getType());
    } else if (auto tensor = dyn_cast<RankedTensorType>(type);
               tensor && tensor.hasStaticShape()) {
      tensors.push_back(tensor);
    }
    uint64_t bytes = 0;
    for (RankedTensorType t : tensors)
      if (__builtin_add_overflow(bytes, saturatingBytes(t), &bytes))
        bytes = UINT64_MAX;
    if (bytes > largest) {
      largest = bytes;
      largestType = type;
    }
    if (__builtin_add_overflow(total, bytes, &total))
      total = UINT64_MAX;
  };
  module.walk([&](Operation *op) {
    for (Value v : op->getResults())
      add(v.getType());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          add(arg.getType());
  });
  if (total <= limit)
    return success();
  return func.emitError() << "qs-run: the module's tensors need " << total
                          << " bytes (the largest, " << largestType << ", "
                          << largest << "), more than the CPU runner's limit of "
                          << limit << " bytes";
}

/// --runtime-checks: a failed check's message (the op, "out-of-bounds
/// access", its location), to stderr.
static int runtimeCheckMessage(const char *message) {
  std::fputs(message, stderr);
  std::fputc('\n', stderr);
  return std::fflush(stderr);
}

/// --runtime-checks: after a failed check's message, the process ends
/// (exit code 3).
[[noreturn]] static void runtimeCheckFailed() {
  std::fputs("qs-run: stopped at a failed runtime check (--runtime-checks)\n",
             stderr);
  std::fflush(stderr);
  std::_Exit(3);
}

llvm::Expected<std::vector<HostTensor>>
mlir::qs::runOnCPU(ModuleOp module, StringRef function,
                   const std::vector<HostTensor> &inputs, uint64_t memoryLimit,
                   bool emulateGPUKernels, StringRef emulatedChip,
                   unsigned emulatedMultiprocessors, bool runtimeChecks,
                   unsigned jitOptLevel) {
  auto makeError = [](const Twine &message) {
    return llvm::make_error<llvm::StringError>(message,
                                               llvm::inconvertibleErrorCode());
  };
  if (jitOptLevel > 3)
    return makeError("JIT optimization level must be 0, 1, 2 or 3, got " +
                     Twine(jitOptLevel));
  auto func = module.lookupSymbol<func::FuncOp>(function);
  FailureOr<FlatSignature> signature = runner::checkCall(func, function, inputs);
  if (failed(signature))
    return makeError(runner::lastCallError());
  if (failed(checkMemory(module, func,
                         memoryLimit ? memoryLimit : defaultMemoryLimit())))
    return makeError("@" + function + " needs more memory than the limit");

  // Compile.
  MLIRContext *ctx = module.getContext();
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(ctx));
  PassManager pm(ctx);
  CPUPipelineOptions pipelineOptions;
  pipelineOptions.emulateGPUKernels = emulateGPUKernels;
  pipelineOptions.gpuChip = emulatedChip.str();
  pipelineOptions.gpuMultiprocessors = emulatedMultiprocessors;
  pipelineOptions.runtimeChecks = runtimeChecks;
  buildCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return makeError("qs-cpu-pipeline failed on @" + function);

  // JIT.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  ExecutionEngineOptions options;
  // ExecutionEngineOptions holds a function_ref: keep the callee alive.
  std::function<llvm::Error(llvm::Module *)> transformer =
      runner::makeJitTransformer(jitOptLevel);
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOpt::getLevel(jitOptLevel);
  SmallVector<StringRef> libs;
  if (StringRef(QS_MLIR_C_RUNNER_UTILS).size())
    libs.push_back(QS_MLIR_C_RUNNER_UTILS);
  options.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    return engine.takeError();
  if (runtimeChecks) {
    // The failed checks' cf.assert calls puts, then abort: the message to
    // stderr at once (stdout, when piped, is lost at abort), and a plain
    // exit instead of LLVM's crash report.
    (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      symbols[interner("puts")] = {
          llvm::orc::ExecutorAddr::fromPtr(&runtimeCheckMessage),
          llvm::JITSymbolFlags::Exported};
      symbols[interner("abort")] = {
          llvm::orc::ExecutorAddr::fromPtr(&runtimeCheckFailed),
          llvm::JITSymbolFlags::Exported};
      return symbols;
    });
  }

  std::vector<HostTensor> results;
  for (const FlatValue &r : signature->results)
    results.push_back({r.type, std::vector<char>(byteSize(r.type))});
  std::vector<std::vector<char>> inputCopies;
  for (const HostTensor &in : inputs)
    inputCopies.push_back(in.bytes); // the callee may not write inputs, but be safe
  std::vector<Descriptor> descriptors;
  for (auto [i, in] : llvm::enumerate(inputs))
    descriptors.emplace_back(inputCopies[i].data(), in.type.getShape());
  for (HostTensor &r : results)
    descriptors.emplace_back(r.bytes.data(), r.type.getShape());
  if (llvm::Error error =
          runner::invokeWithDescriptors(**engine, function, descriptors))
    return std::move(error);
  return results;
}
