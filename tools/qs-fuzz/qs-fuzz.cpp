//===- qs-fuzz.cpp - libFuzzer target: parse, verify, lower ---------------===//
//
// Each input is either MLIR text (first byte even) or, first byte odd, the
// seed of the structure-aware generator (Generator.h). The target parses it
// with every dialect a qs user has, verifies it, and on what verifies checks
// the invariants a compiler owes its users:
//
//  1. printing and re-parsing a verified module gives a module that verifies
//     and prints identically (generic and custom forms agree);
//  2. every pipeline (qs-storage-pipeline with and without flattening, then
//     convert-qs-to-linalg; qs-infer-usage and qs-select-scale-layout alone)
//     either succeeds with IR that verifies, or fails having reported an
//     error: no crash, no silent failure, no invalid IR;
//
// and any sanitizer report (ASan, UBSan) is a crash. A violated invariant
// aborts with a message saying which.
//
// Run it through scripts/fuzz.sh (builds it with -DQS_ENABLE_FUZZER=ON).
// QS_FUZZ_PRINT=1 prints each input's module text (the generated one in
// generator mode) to stderr.
//
//===----------------------------------------------------------------------===//

#include "Generator.h"

#include "qs/Dialect/QS/Utils/UpstreamWorkarounds.h"
#include "qs/InitAll.h"
#include "llvm/Support/xxhash.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace mlir;

namespace {

/// The pipelines every verified input goes through (each on a fresh copy),
/// as passes nested under the builtin.module pass manager.
const char *const kPipelines[] = {
    "qs-storage-pipeline,convert-qs-to-linalg",
    "qs-storage-pipeline{flatten=false},convert-qs-to-linalg",
    "qs-infer-usage,qs-select-scale-layout",
};

/// The GPU backend up to the kernels as gpu.func (the NVPTX code generator
/// itself is LLVM's), and the CPU emulation of the kernels. They cost ~10x
/// the others, so they run on one input in kGPUEvery (chosen by a hash of
/// the input: a finding reproduces from its file).
const char *const kGPUPipelines[] = {
    "qs-nvptx-host-pipeline{chip=sm_90a}",
    "qs-nvptx-host-pipeline{chip=sm_100a}",
    "qs-storage-pipeline,convert-qs-to-gpu{emulate=true}",
    // The element-wise ops as emulated kernels (ops that cannot be are
    // left for the CPU).
    ("qs-storage-pipeline,convert-elementwise-to-linalg,"
     "linalg-fuse-elementwise-ops,qs-approximate-math,"
     "qs-elementwise-to-gpu{emulate=true}"),
    // sm_90a's kernels on whatever layouts the module's qs.chip chose
    // (Blackwell layouts: MN-major operands copied transposed), planned
    // for a GPU of 7 multiprocessors (ping-pong grids, split-K "auto"),
    // with the plan remarks.
    ("qs-storage-pipeline,convert-qs-to-gpu{chip=sm_90a multiprocessors=7 "
     "report-gemm-plans=true}"),
};
constexpr uint64_t kGPUEvery = 4;

/// Inputs per context: types and attributes are uniqued in the context for
/// its lifetime, so a long run would otherwise grow without bound.
constexpr int kInputsPerContext = 2000;

DialectRegistry *registry;

/// What the run reached, printed at exit: the generator's job is to make
/// `verified` and `lowered` large.
struct Stats {
  long inputs = 0, generated = 0, verified = 0, lowered = 0, rejected = 0;
  ~Stats() {
    std::fprintf(stderr,
                 "qs-fuzz: %ld inputs (%ld generated), %ld verified; "
                 "pipelines: %ld succeeded, %ld rejected with a diagnostic\n",
                 inputs, generated, verified, lowered, rejected);
  }
} stats;

std::unique_ptr<MLIRContext> makeContext() {
  auto context = std::make_unique<MLIRContext>(
      *registry, MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects(false);
  return context;
}

[[noreturn]] void fail(const char *invariant, const std::string &detail) {
  std::fprintf(stderr, "qs-fuzz: invariant violated: %s\n%s\n", invariant,
               detail.c_str());
  std::abort();
}

std::string print(Operation *op, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os, OpPrintingFlags().printGenericOpForm(generic));
  return text;
}

/// Counts error diagnostics while a pipeline runs (and drops them all).
struct ErrorCounter {
  int errors = 0;
  ScopedDiagnosticHandler handler;
  explicit ErrorCounter(MLIRContext *context)
      : handler(context, [this](Diagnostic &d) {
          if (d.getSeverity() == DiagnosticSeverity::Error)
            ++errors;
          return success();
        }) {}
};

void checkRoundTrip(ModuleOp module, MLIRContext *context) {
  for (bool generic : {false, true}) {
    std::string text = print(module, generic);
    ErrorCounter counter(context);
    OwningOpRef<ModuleOp> again =
        parseSourceString<ModuleOp>(text, ParserConfig(context));
    if (!again || failed(verify(*again)))
      fail(generic ? "the generic form of a verified module parses and "
                     "verifies"
                   : "the printed form of a verified module parses and "
                     "verifies",
           text);
    if (print(*again, generic) != text)
      fail("print(parse(print(m))) == print(m)", text);
  }
}

void checkPipeline(ModuleOp module, MLIRContext *context, const char *text) {
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  PassManager pm(context, ModuleOp::getOperationName());
  pm.enableVerifier(false); // checked below, so a bad pass is a finding
  if (failed(parsePassPipeline(text, pm)))
    fail("the fuzzer's pipelines parse", text);
  ErrorCounter counter(context);
  if (succeeded(pm.run(*copy))) {
    ++stats.lowered;
    if (failed(verify(*copy)))
      fail("a pipeline that succeeds leaves IR that verifies",
           std::string(text) + "\n" + print(module, true));
  } else if (++stats.rejected, counter.errors == 0) {
    fail("a pipeline that fails reports an error",
         std::string(text) + "\n" + print(module, true));
  }
}

} // namespace

/// libMLIR.so is not instrumented, our code is: LLVM's BumpPtrAllocator
/// poisons slab memory when inlined into our code and hands it out without
/// unpoisoning when inlined into libMLIR.so, which ASan would report as
/// use-after-poison. Manual poisoning is therefore off (docs/Testing.md).
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registry = new DialectRegistry();
  qs::registerAllQSDialects(*registry);
  qs::registerAllQSPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static std::unique_ptr<MLIRContext> context;
  static int uses = 0;
  if (!context || ++uses == kInputsPerContext) {
    context.reset();
    context = makeContext();
    uses = 0;
  }
  std::string text;
  ++stats.inputs;
  if (size && (data[0] & 1)) {
    ++stats.generated;
    text = qs_fuzz::generateModule(data + 1, size - 1);
  } else {
    text.assign(reinterpret_cast<const char *>(data), size);
  }
  if (std::getenv("QS_FUZZ_PRINT")) // to turn a finding into a .mlir test
    std::fprintf(stderr, "%s\n", text.c_str());
  // Known crashes of upstream MLIR's parser, not of ours (qs-run reports
  // them as diagnostics; UpstreamWorkarounds.h).
  if (qs::findIndexDenseArray(text) || qs::findMalformedLinalgDimensions(text))
    return 0;

  OwningOpRef<ModuleOp> module;
  {
    ErrorCounter counter(context.get());
    module = parseSourceString<ModuleOp>(text, ParserConfig(context.get()));
    if (!module || failed(verify(*module)))
      return 0;
  }
  ++stats.verified;
  checkRoundTrip(*module, context.get());
  for (const char *pipeline : kPipelines)
    checkPipeline(*module, context.get(), pipeline);
  if (llvm::xxh3_64bits(ArrayRef<uint8_t>(data, size)) % kGPUEvery == 0)
    for (const char *pipeline : kGPUPipelines)
      checkPipeline(*module, context.get(), pipeline);
  return 0;
}
