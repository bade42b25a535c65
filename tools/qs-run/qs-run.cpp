//===- qs-run.cpp - run a qs function on .npy files -----------------------===//
//
//   qs-run FILE.mlir --function=NAME --input=@a.npy ... --output=@out.npy ...
//
// JIT-compiles FILE through qs-cpu-pipeline (the bit-exact reference
// numerics) and runs NAME on the CPU. Quantized arguments and results are
// passed as their inner tensors, in interface order (one --input/--output
// each). Element types NumPy lacks travel as raw bits in the unsigned integer
// of the same width: bf16 as uint16, FP8/E8M0 and packed FP4 (i8) as uint8.
//
//===----------------------------------------------------------------------===//

#include "NpyIO.h"
#include "qs/Dialect/QS/Utils/UpstreamWorkarounds.h"
#include "qs/InitAll.h"
#include "qs/Runner/CPURunner.h"
#include "qs/Runner/LaunchPlan.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::qs;
namespace cl = llvm::cl;

/// qs-run's own options: --help lists these only (LLVM's code-generation
/// options, hidden, stay accepted).
static cl::OptionCategory qsRunCategory("qs-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Optional, cl::cat(qsRunCategory));
static cl::opt<std::string> function("function",
                                     cl::desc("The function to run"),
                                     cl::cat(qsRunCategory));
static cl::list<std::string>
    inputs("input", cl::desc("@FILE.npy for the next flattened argument"),
           cl::cat(qsRunCategory));
static cl::list<std::string>
    outputs("output", cl::desc("@FILE.npy for the next flattened result"),
            cl::cat(qsRunCategory));
static cl::opt<std::string>
    device("device",
           cl::desc("Where to run: cpu (qs-cpu-pipeline, the reference "
                    "numerics unless --kernels=gpu-emulated) or cuda "
                    "(qs-nvptx-pipeline on CUDA device 0, sm_90a or "
                    "sm_100a; the driver is loaded at run time)"),
           cl::init("cpu"), cl::cat(qsRunCategory));
static cl::opt<std::string> exportPlan(
    "export-cuda-plan",
    cl::desc("Compile --function with qs-nvptx-pipeline and write its launch "
             "plan (DIR/plan.json, DIR/kernels.bin: buffers, kernel launches, "
             "copies, the gpu.binary) instead of running it; "
             "scripts/device-run.py replays plans on a GPU machine without "
             "MLIR"),
    cl::value_desc("DIR"), cl::cat(qsRunCategory));
static cl::opt<std::string> kernelChip(
    "chip",
    cl::desc("With --export-cuda-plan or --kernels=gpu-emulated: the chip "
             "whose kernels to compile or emulate, sm_90a or sm_100a "
             "(default: the module's qs.chip, else sm_90a; storage layouts "
             "follow the module's qs.chip)"),
    cl::cat(qsRunCategory));
static cl::opt<unsigned> multiprocessors(
    "multiprocessors",
    cl::desc("With --export-cuda-plan or --kernels=gpu-emulated: the "
             "streaming multiprocessors of the GPU to plan the kernels for "
             "(GEMM tile widths, persistent grids, split-K \"auto\"; "
             "default 0: the chip's data-sheet count, 132 for sm_90a, 148 "
             "for sm_100a); --device=cuda uses the device's"),
    cl::init(0), cl::cat(qsRunCategory));
static cl::opt<std::string> planFormat(
    "format",
    cl::desc("With --export-cuda-plan: isa, bin, fatbin or auto (default)"),
    cl::init("auto"), cl::cat(qsRunCategory));
static cl::opt<bool> cudaInfo(
    "cuda-info",
    cl::desc("Print the CUDA device --device=cuda would use and exit (exit "
             "code 1 with the reason if there is none)"),
    cl::cat(qsRunCategory));
static cl::opt<std::string> kernels(
    "kernels",
    cl::desc("With --device=cpu: reference (the reference lowering) or "
             "gpu-emulated (the GPU kernels of convert-qs-to-gpu, run on "
             "the CPU)"),
    cl::init("reference"), cl::cat(qsRunCategory));
static cl::opt<uint64_t> maxBytes(
    "max-bytes",
    cl::desc("Refuse modules whose tensors add up to more bytes than this "
             "(default 0: half the physical memory)"),
    cl::init(0), cl::cat(qsRunCategory));
static cl::opt<bool> runtimeChecks(
    "runtime-checks",
    cl::desc("With --device=cpu: bounds-check every memref access of the "
             "compiled code (qs-cpu-pipeline's runtime-checks); one outside "
             "its buffer prints the op and its location and ends the run "
             "(exit code 3); for kernel development, slower"),
    cl::cat(qsRunCategory));
static cl::opt<unsigned> jitOptLevel(
    "jit-opt-level",
    cl::desc("With --device=cpu: LLVM's optimization level for the JIT, "
             "0-3 (default 2); 0 compiles fastest, for short runs of large "
             "code such as --kernels=gpu-emulated GEMMs; results do not "
             "change"),
    cl::init(2), cl::cat(qsRunCategory));
static cl::opt<bool> printSignature(
    "print-signature",
    cl::desc("Print the flattened inputs and outputs the function takes "
             "(one --input/--output each) and exit"),
    cl::cat(qsRunCategory));

/// The .npy type string of an element type, and the ones accepted for it.
static std::string npyType(Type type) {
  if (type.isF32())
    return "<f4";
  if (type.isF64())
    return "<f8";
  if (type.isF16())
    return "<f2";
  if (type.isBF16())
    return "<u2";
  if (type.isInteger(1))
    return "|b1";
  if (getElementByteWidth(type) == 1)
    return "|u1"; // FP8, E8M0, packed FP4 / i8
  return "<i" + std::to_string(getElementByteWidth(type));
}

static bool accepts(Type type, const std::string &dtype) {
  if (dtype == npyType(type))
    return true;
  return type.isInteger(8) && dtype == "|i1";
}

static std::string describeShape(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + (shape.size() == 1 ? ",)" : ")");
}

static void printFlat(llvm::raw_ostream &os, const FlatSignature &sig) {
  for (auto [i, v] : llvm::enumerate(sig.inputs))
    os << "input " << i << ": " << v.describe(false) << " : " << v.type
       << " (.npy " << npyType(v.type.getElementType()) << " "
       << describeShape(v.type.getShape()) << ")\n";
  for (auto [i, v] : llvm::enumerate(sig.results))
    os << "output " << i << ": " << v.describe(true) << " : " << v.type
       << " (.npy " << npyType(v.type.getElementType()) << " "
       << describeShape(v.type.getShape()) << ")\n";
}

static int error(const Twine &message) {
  llvm::errs() << "qs-run: " << message << "\n";
  return 1;
}

static FailureOr<std::string> stripAt(const std::string &value,
                                      StringRef flag) {
  if (value.size() < 2 || value[0] != '@')
    return failure();
  return value.substr(1);
}

/// --export-cuda-plan: compile and write DIR/plan.json and DIR/kernels.bin.
static int writePlan(ModuleOp module, const FlatSignature &signature) {
  std::string chip = kernelChip;
  if (chip.empty()) {
    auto named = module->getAttrOfType<StringAttr>("qs.chip");
    chip = named ? named.getValue().str() : "sm_90a";
  }
  NVPTXPipelineOptions options;
  options.chip = chip;
  options.format = planFormat;
  options.multiprocessors = multiprocessors;
  FailureOr<LaunchPlan> plan = compileLaunchPlan(module, function, options);
  if (failed(plan))
    return 1;
  if (std::error_code ec = llvm::sys::fs::create_directories(exportPlan))
    return error("cannot create " + exportPlan + ": " + ec.message());
  auto write = [&](StringRef name, StringRef bytes) -> bool {
    llvm::SmallString<256> path(exportPlan);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return false;
    os << bytes;
    return true;
  };
  if (!write("plan.json", plan->toJSON()) || !write("kernels.bin", plan->binary))
    return error("cannot write the plan into " + exportPlan);
  size_t launches = llvm::count_if(
      plan->steps, [](const LaunchPlan::Step &s) { return !s.isCopy; });
  llvm::outs() << "qs-run: @" << function << " for " << chip << ": "
               << launches << " kernel launch(es), " << plan->buffers.size()
               << " buffers (" << signature.inputs.size() << " inputs, "
               << signature.results.size() << " results), " << plan->format
               << " binary of " << plan->binary.size() << " bytes -> "
               << exportPlan << "\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(qsRunCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "qs-run: run a qs function on .npy files\n");
  if (kernels != "reference" && kernels != "gpu-emulated")
    return error("--kernels=" + kernels +
                 " is not one of: reference, gpu-emulated");
  if (cudaInfo) {
    llvm::Expected<std::string> info = describeCUDADevice();
    if (!info)
      return error(llvm::toString(info.takeError()));
    llvm::outs() << "cuda: " << *info << "\n";
    return 0;
  }
  if (inputFile.empty())
    return error("no input file (qs-run FILE.mlir --function=NAME ...)");
  if (function.empty())
    return error("no --function=NAME given");
  if (device != "cpu" && device != "cuda")
    return error("--device=" + device + " is not one of: cpu, cuda");
  if (device == "cuda" && kernels != "reference")
    return error("--kernels applies to --device=cpu only");
  if (device == "cuda" && runtimeChecks)
    return error("--runtime-checks applies to --device=cpu only");
  if (device == "cuda" && jitOptLevel.getNumOccurrences())
    return error("--jit-opt-level applies to --device=cpu only");
  if (jitOptLevel > 3)
    return error("--jit-opt-level=" + std::to_string(jitOptLevel) +
                 " is not one of: 0, 1, 2, 3");
  if (!kernelChip.empty() && exportPlan.empty() && kernels != "gpu-emulated")
    return error("--chip applies to --export-cuda-plan and "
                 "--kernels=gpu-emulated only");
  if (multiprocessors.getNumOccurrences() && exportPlan.empty() &&
      kernels != "gpu-emulated")
    return error("--multiprocessors applies to --export-cuda-plan and "
                 "--kernels=gpu-emulated only (--device=cuda plans for the "
                 "device's multiprocessors)");
  if (!kernelChip.empty() && kernelChip != "sm_90a" && kernelChip != "sm_100a")
    return error("--chip=" + kernelChip + " is not one of: sm_90a, sm_100a");

  DialectRegistry registry;
  registerAllQSDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return error(errorMessage);
  if (std::optional<size_t> at = findIndexDenseArray(file->getBuffer())) {
    unsigned line = file->getBuffer().take_front(*at).count('\n') + 1;
    return error(inputFile + ":" + std::to_string(line) +
                 ": a dense array of `index` elements (`array<index ...>`) "
                 "crashes the MLIR 22.1 parser (llvm-project issue 179045); "
                 "use an integer element type such as i64");
  }
  if (std::optional<size_t> at =
          findMalformedLinalgDimensions(file->getBuffer())) {
    unsigned line = file->getBuffer().take_front(*at).count('\n') + 1;
    return error(inputFile + ":" + std::to_string(line) +
                 ": a linalg `dimensions`/`permutation` list that is not "
                 "`[` integers `]` crashes the MLIR 22.1 parser (llvm-project "
                 "issue 132747)");
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  auto func = module->lookupSymbol<func::FuncOp>(function);
  if (!func || func.isExternal())
    return error("no function @" + function + " with a body in " + inputFile);
  FailureOr<FlatSignature> signature = getFlatSignature(func);
  if (failed(signature))
    return 1;
  if (printSignature) {
    printFlat(llvm::outs(), *signature);
    return 0;
  }
  if (!exportPlan.empty())
    return writePlan(*module, *signature);
  if (inputs.size() != signature->inputs.size() ||
      outputs.size() != signature->results.size()) {
    llvm::errs() << "qs-run: @" << function << " takes "
                 << signature->inputs.size() << " --input and "
                 << signature->results.size() << " --output files, got "
                 << inputs.size() << " and " << outputs.size() << ":\n";
    printFlat(llvm::errs(), *signature);
    return 1;
  }

  std::vector<HostTensor> hostInputs;
  for (auto [i, spec] : llvm::enumerate(inputs)) {
    const FlatValue &expected = signature->inputs[i];
    std::string what = "--input " + std::to_string(i) + " (" +
                       expected.describe(false) + ")";
    FailureOr<std::string> path = stripAt(spec, "input");
    if (failed(path))
      return error(what + ": expected @FILE.npy, got '" + spec + "'");
    llvm::Expected<qs_run::NpyArray> array = qs_run::readNpy(*path);
    if (!array)
      return error(what + ": " + llvm::toString(array.takeError()));
    Type element = expected.type.getElementType();
    if (!accepts(element, array->dtype))
      return error(what + ": expected a " + npyType(element) + " array for " +
                   "elements of type " + [&] {
                     std::string s;
                     llvm::raw_string_ostream os(s);
                     os << element;
                     return s;
                   }() + ", got " + array->dtype);
    if (ArrayRef<int64_t>(array->shape) != expected.type.getShape())
      return error(what + ": expected shape " +
                   describeShape(expected.type.getShape()) + ", got " +
                   describeShape(array->shape));
    hostInputs.push_back({expected.type, std::move(array->bytes)});
  }
  std::vector<std::string> outputPaths, outputKeys;
  for (auto [i, spec] : llvm::enumerate(outputs)) {
    FailureOr<std::string> path = stripAt(spec, "output");
    if (failed(path))
      return error("--output " + std::to_string(i) +
                   ": expected @FILE.npy, got '" + spec + "'");
    // Two results into one file: the second would silently replace the
    // first (character devices such as /dev/null take any number).
    llvm::SmallString<256> key(*path);
    llvm::sys::fs::make_absolute(key);
    llvm::sys::path::remove_dots(key, /*remove_dot_dot=*/true);
    llvm::sys::fs::file_status status;
    bool device = !llvm::sys::fs::status(key, status) &&
                  status.type() == llvm::sys::fs::file_type::character_file;
    for (auto [j, earlier] : llvm::enumerate(outputKeys))
      if (!device && earlier == key)
        return error("--output " + std::to_string(i) + " and --output " +
                     std::to_string(j) + " name the same file '" + *path +
                     "': each result needs its own");
    outputKeys.push_back(std::string(key));
    outputPaths.push_back(*path);
  }

  llvm::Expected<std::vector<HostTensor>> results =
      device == "cuda" ? runOnCUDA(*module, function, hostInputs)
                       : runOnCPU(*module, function, hostInputs, maxBytes,
                                  kernels == "gpu-emulated", kernelChip,
                                  multiprocessors, runtimeChecks, jitOptLevel);
  if (!results)
    return error(llvm::toString(results.takeError()));
  for (auto [i, result] : llvm::enumerate(*results)) {
    std::vector<int64_t> shape(result.type.getShape().begin(),
                               result.type.getShape().end());
    if (llvm::Error e = qs_run::writeNpy(
            outputPaths[i], npyType(result.type.getElementType()), shape,
            result.bytes))
      return error("--output " + std::to_string(i) + " (" +
                   signature->results[i].describe(true) +
                   "): " + llvm::toString(std::move(e)));
  }
  return 0;
}
