//===- Passes.cpp - C API: passes, pipelines and the CPU runner -----------===//

#include "qs-c/Passes.h"
#include "qs/InitAll.h"
#include "qs/Runner/CPURunner.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unistd.h>

using namespace mlir;
using namespace mlir::qs;

void qsRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { registerAllQSPasses(); });
}

/// Parses `text`, with what llvm::cl writes on file descriptor 2 meanwhile
/// appended to `errors`: an option's invalid value ("'abc' value invalid
/// for long argument!") goes to llvm::errs(), not to the parser's stream.
/// Parsing takes microseconds; a mutex keeps two parses from sharing the
/// redirection, and anything else written there meanwhile is written back
/// to stderr when the parse succeeds.
static FailureOr<OpPassManager> parseCapturingStderr(StringRef text,
                                                     std::string &errors) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  llvm::raw_string_ostream os(errors);
  llvm::errs().flush();
  std::fflush(stderr);
  std::FILE *capture = std::tmpfile();
  int saved = capture ? ::dup(2) : -1;
  if (saved < 0 || ::dup2(::fileno(capture), 2) < 0) {
    if (saved >= 0)
      ::close(saved);
    if (capture)
      std::fclose(capture);
    return parsePassPipeline(text, os);
  }
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, os);
  llvm::errs().flush();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string written;
  std::rewind(capture);
  char buffer[512];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), capture)) > 0;)
    written.append(buffer, n);
  std::fclose(capture);
  if (succeeded(parsed)) {
    llvm::errs() << written;
    return parsed;
  }
  // The cause first: llvm::cl's lines (": for the --flatten option: 'maybe'
  // is invalid value ...", the program name being empty), then the
  // parser's "failed to add ...".
  std::string cause;
  SmallVector<StringRef> lines;
  StringRef(written).trim().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    line.consume_front(": ");
    cause += line.trim().str() + "\n";
  }
  errors = cause + StringRef(errors).trim().str();
  return parsed;
}

MlirLogicalResult qsRunPassPipeline(MlirModule module, MlirStringRef pipeline) {
  ModuleOp m = unwrap(module);
  // Accept "builtin.module(a, b)" as well as a bare "a, b" for the module.
  std::string text = unwrap(pipeline).str();
  if (!StringRef(text).starts_with("builtin.module("))
    text = "builtin.module(" + text + ")";
  std::string errors;
  FailureOr<OpPassManager> parsed = parseCapturingStderr(text, errors);
  if (failed(parsed)) {
    emitError(m.getLoc()) << "invalid pass pipeline '" << unwrap(pipeline)
                          << "': " << StringRef(errors).trim();
    return mlirLogicalResultFailure();
  }
  PassManager pm(m.getContext(), ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = std::move(*parsed);
  return wrap(pm.run(m));
}

/// The flat signature of `function`, or failure with a diagnostic.
static FailureOr<FlatSignature> signatureOf(MlirModule module,
                                            MlirStringRef function) {
  ModuleOp m = unwrap(module);
  auto func = m.lookupSymbol<func::FuncOp>(unwrap(function));
  if (!func || func.isExternal()) {
    emitError(m.getLoc()) << "no function @" << unwrap(function)
                          << " with a body in the module";
    return failure();
  }
  return getFlatSignature(func);
}

intptr_t qsFunctionGetNumFlatInputs(MlirModule module, MlirStringRef function) {
  FailureOr<FlatSignature> sig = signatureOf(module, function);
  return failed(sig) ? -1 : static_cast<intptr_t>(sig->inputs.size());
}

intptr_t qsFunctionGetNumFlatResults(MlirModule module,
                                     MlirStringRef function) {
  FailureOr<FlatSignature> sig = signatureOf(module, function);
  return failed(sig) ? -1 : static_cast<intptr_t>(sig->results.size());
}

static QSFlatValue wrapFlat(const FlatValue &v, MLIRContext *ctx) {
  // Inner names are interned in the context so the string outlives the call.
  StringRef name = StringAttr::get(ctx, v.innerName).getValue();
  return QSFlatValue{wrap(Type(v.type)), wrap(name),
                     static_cast<intptr_t>(v.origin), wrap(v.quantized)};
}

QSFlatValue qsFunctionGetFlatInput(MlirModule module, MlirStringRef function,
                                   intptr_t i) {
  FailureOr<FlatSignature> sig = signatureOf(module, function);
  if (failed(sig) || i < 0 || i >= static_cast<intptr_t>(sig->inputs.size()))
    return QSFlatValue{{nullptr}, {nullptr, 0}, -1, {nullptr}};
  return wrapFlat(sig->inputs[i], unwrap(module).getContext());
}

QSFlatValue qsFunctionGetFlatResult(MlirModule module, MlirStringRef function,
                                    intptr_t i) {
  FailureOr<FlatSignature> sig = signatureOf(module, function);
  if (failed(sig) || i < 0 || i >= static_cast<intptr_t>(sig->results.size()))
    return QSFlatValue{{nullptr}, {nullptr, 0}, -1, {nullptr}};
  return wrapFlat(sig->results[i], unwrap(module).getContext());
}

intptr_t qsGetElementByteWidth(MlirType elementType) {
  return getElementByteWidth(unwrap(elementType));
}

static size_t byteSize(RankedTensorType type) {
  return type.getNumElements() * getElementByteWidth(type.getElementType());
}

using Runner = llvm::Expected<std::vector<HostTensor>> (*)(
    ModuleOp, StringRef, const std::vector<HostTensor> &);

static llvm::Expected<std::vector<HostTensor>>
runCPU(ModuleOp module, StringRef function,
       const std::vector<HostTensor> &inputs) {
  return runOnCPU(module, function, inputs);
}

static MlirLogicalResult runWith(Runner runner, MlirModule module,
                                 MlirStringRef function, intptr_t numInputs,
                                 const void *const *inputs,
                                 intptr_t numOutputs, void *const *outputs) {
  ModuleOp m = unwrap(module);
  FailureOr<FlatSignature> sig = signatureOf(module, function);
  if (failed(sig))
    return mlirLogicalResultFailure();
  if (numInputs != static_cast<intptr_t>(sig->inputs.size()) ||
      numOutputs != static_cast<intptr_t>(sig->results.size())) {
    emitError(m.getLoc()) << "@" << unwrap(function) << " takes "
                          << sig->inputs.size() << " flattened inputs and "
                          << sig->results.size() << " results, got "
                          << numInputs << " and " << numOutputs;
    return mlirLogicalResultFailure();
  }
  std::vector<HostTensor> hostInputs;
  for (auto [i, v] : llvm::enumerate(sig->inputs)) {
    const char *data = static_cast<const char *>(inputs[i]);
    hostInputs.push_back(
        {v.type, std::vector<char>(data, data + byteSize(v.type))});
  }
  OwningOpRef<ModuleOp> clone = m.clone();
  llvm::Expected<std::vector<HostTensor>> results =
      runner(*clone, unwrap(function), hostInputs);
  if (!results) {
    emitError(m.getLoc()) << llvm::toString(results.takeError());
    return mlirLogicalResultFailure();
  }
  for (auto [i, r] : llvm::enumerate(*results))
    std::memcpy(outputs[i], r.bytes.data(), r.bytes.size());
  return mlirLogicalResultSuccess();
}

MlirLogicalResult qsRunOnCPU(MlirModule module, MlirStringRef function,
                             intptr_t numInputs, const void *const *inputs,
                             intptr_t numOutputs, void *const *outputs) {
  return runWith(runCPU, module, function, numInputs, inputs, numOutputs,
                 outputs);
}

MlirLogicalResult qsRunOnCUDA(MlirModule module, MlirStringRef function,
                              intptr_t numInputs, const void *const *inputs,
                              intptr_t numOutputs, void *const *outputs) {
  return runWith(runOnCUDA, module, function, numInputs, inputs, numOutputs,
                 outputs);
}

bool qsDescribeCUDADevice(MlirStringCallback callback, void *userData) {
  llvm::Expected<std::string> device = describeCUDADevice();
  std::string text = device ? *device : llvm::toString(device.takeError());
  callback(mlirStringRefCreate(text.data(), text.size()), userData);
  return static_cast<bool>(device);
}
