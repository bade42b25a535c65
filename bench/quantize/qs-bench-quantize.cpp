//===- qs-bench-quantize.cpp - bandwidth of the generated quantize kernels ===//
//
// For each size x family x usage: compiles a bf16 quantize with
// qs-nvptx-pipeline, finds its kernel launches in the host half of the
// pipeline (launcher calls and the buffers they get), runs exactly those
// launches on the CUDA device with device buffers, and reports
//   GB/s  = (bytes of the input + bytes of every inner tensor) / time
//   copy  = a device-to-device copy of the input in the same run (2 x bytes
//           / time), the bandwidth ceiling,
// and their ratio. Without a device (or with --dry-run) it prints the
// launch plan instead. Runnable as one command:
//   qs-bench-quantize --sizes 4096,8192,16384
//
//===----------------------------------------------------------------------===//

#include "qs/InitAll.h"
#include "qs/Pipelines/Pipelines.h"
#include "qs/Runtime/CUDARuntime.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> sizesOpt("sizes", cl::desc("Square sizes (comma separated)"),
                                     cl::init("4096,8192,16384"));
static cl::opt<std::string> familiesOpt(
    "families", cl::desc("Families (comma separated) or all"), cl::init("all"));
static cl::opt<std::string> usagesOpt("usages", cl::desc("row,col,both"),
                                      cl::init("row,col,both"));
static cl::opt<int> iterations("iters", cl::desc("Timed repetitions"), cl::init(20));
static cl::opt<int> warmup("warmup", cl::desc("Untimed repetitions"), cl::init(3));
static cl::opt<std::string> chipOpt(
    "chip", cl::desc("sm_90a, sm_100a, or auto (the device's; sm_90a without one)"),
    cl::init("auto"));
static cl::opt<bool> dryRun("dry-run",
                            cl::desc("Compile and print the launch plans only"));

namespace {
struct Family {
  const char *name;
  const char *attr; // without usage flags
};
const Family kFamilies[] = {
    {"fp8_delayed", "fp8_delayed<>"},
    {"fp8_current", "fp8_current<>"},
    {"mxfp8", "mxfp8<>"},
    {"mxfp8_swizzled", "mxfp8<optimize_for_gemm = true>"},
    {"fp8_block_1x128", "fp8_block<block_scaling_dim = 1>"},
    {"nvfp4", "nvfp4<>"},
};

/// One launch: kernel name, grid, block, and the buffer (index into
/// Plan::buffers) of each argument.
struct Launch {
  std::string kernel;
  int64_t grid = 0, block = 0;
  std::vector<unsigned> args;
};

/// Device buffers: function arguments (the input first, then the results
/// as out-parameters) and allocations made by the host code.
struct Buffer {
  int64_t bytes = 0;
  int argument = -1; // function argument index, -1 for gpu.alloc
};

struct Plan {
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::string binary; // gpu.binary object (cubin/fatbin or PTX)
  bool isPTX = false;
  int64_t inputBytes = 0, outputBytes = 0;
};

std::string withUsage(StringRef attr, StringRef usage) {
  std::string flag = usage == "row"   ? "columnwise = false"
                     : usage == "col" ? "rowwise = false"
                                      : "";
  if (flag.empty())
    return attr.str();
  size_t open = attr.find('<');
  bool empty = attr.substr(open + 1).starts_with(">");
  return (attr.substr(0, open + 1) + flag + (empty ? "" : ", ") +
          attr.substr(open + 1))
      .str();
}

std::string moduleText(int64_t n, StringRef attr, StringRef chip) {
  std::string t = "tensor<" + std::to_string(n) + "x" + std::to_string(n) + "xbf16>";
  std::string q = "!qs.tensor<" + std::to_string(n) + "x" + std::to_string(n) +
                  "xbf16, #qs." + attr.str() + ">";
  bool delayed = attr.starts_with("fp8_delayed");
  std::string s = "module attributes {qs.chip = \"" + chip.str() + "\"} {\n";
  if (delayed)
    s += "func.func @f(%x: " + t + ", %s: tensor<1xf32>, %a: tensor<1xf32>) -> (" +
         q + ", tensor<1xf32>) {\n  %q, %m = qs.quantize %x scale(%s : tensor<1xf32>) "
         "amax(%a : tensor<1xf32>) : " + t + " -> " + q + ", tensor<1xf32>\n"
         "  return %q, %m : " + q + ", tensor<1xf32>\n}\n}\n";
  else
    s += "func.func @f(%x: " + t + ") -> " + q + " {\n  %q = qs.quantize %x : " +
         t + " -> " + q + "\n  return %q : " + q + "\n}\n}\n";
  return s;
}

int64_t bytesOf(Type type) {
  auto m = cast<MemRefType>(type);
  return m.getNumElements() * m.getElementTypeBitWidth() / 8;
}

/// The buffer a memref value is a view of.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      v = c.getSource();
    else
      break;
  }
  return v;
}

FailureOr<Plan> makePlan(MLIRContext &ctx, StringRef text, StringRef chip,
                         std::string &error) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module) {
    error = "parse error";
    return failure();
  }
  qs::NVPTXPipelineOptions options;
  options.chip = chip.str();
  PassManager host(&ctx);
  qs::buildNVPTXHostPipeline(host, options);
  if (failed(host.run(*module))) {
    error = "host pipeline failed";
    return failure();
  }
  Plan plan;
  auto f = module->lookupSymbol<func::FuncOp>("f");
  llvm::DenseMap<Value, unsigned> bufferOf;
  auto bufferIndex = [&](Value v) -> unsigned {
    v = rootOf(v);
    auto it = bufferOf.find(v);
    if (it != bufferOf.end())
      return it->second;
    Buffer b;
    b.bytes = bytesOf(v.getType());
    if (auto arg = dyn_cast<BlockArgument>(v))
      b.argument = arg.getArgNumber();
    plan.buffers.push_back(b);
    return bufferOf[v] = plan.buffers.size() - 1;
  };
  for (BlockArgument arg : f.getArguments()) {
    unsigned i = bufferIndex(arg);
    // Inputs: x (and the delayed scale/amax state); the rest are results.
    if (arg.getArgNumber() == 0)
      plan.inputBytes += plan.buffers[i].bytes;
    else if (arg.getArgNumber() >= (f.getNumArguments() > 3 &&
                                            text.contains("fp8_delayed")
                                        ? 3u
                                        : 1u))
      plan.outputBytes += plan.buffers[i].bytes;
  }
  f.walk([&](func::CallOp call) {
    auto callee = module->lookupSymbol<func::FuncOp>(call.getCallee());
    gpu::LaunchFuncOp launchOp;
    callee.walk([&](gpu::LaunchFuncOp l) { launchOp = l; });
    if (!launchOp)
      return;
    Launch launch;
    launch.kernel = launchOp.getKernelName().str();
    launch.grid = getConstantIntValue(launchOp.getGridSizeX()).value_or(0);
    launch.block = getConstantIntValue(launchOp.getBlockSizeX()).value_or(0);
    for (Value a : call.getOperands())
      launch.args.push_back(bufferIndex(a));
    plan.launches.push_back(launch);
  });

  PassManager lower(&ctx);
  qs::buildNVPTXLoweringPipeline(lower, options);
  if (failed(lower.run(*module))) {
    error = "lowering pipeline failed";
    return failure();
  }
  module->walk([&](gpu::BinaryOp binary) {
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    plan.binary = object.getObject().getValue().str();
    plan.isPTX = object.getFormat() == gpu::CompilationTarget::Assembly;
  });
  if (plan.isPTX)
    plan.binary.push_back('\0');
  return plan;
}

struct Timing {
  double ms = 0;
  std::string error;
};

Timing runPlan(const Plan &plan, void *copyDst) {
  Timing t;
  auto fail = [&](const char *what) {
    t.error = std::string(what) + ": " + qsCudaLastError();
    return t;
  };
  void *module = qsCudaLoadModule(plan.binary.data());
  if (!module)
    return fail("load");
  std::vector<void *> functions;
  for (const Launch &l : plan.launches) {
    functions.push_back(qsCudaGetFunction(module, l.kernel.c_str()));
    if (!functions.back())
      return fail("function");
  }
  std::vector<void *> device;
  for (const Buffer &b : plan.buffers) {
    device.push_back(qsCudaMalloc(b.bytes));
    if (!device.back())
      return fail("malloc");
  }
  // Random normal bf16 input; scale 1, amax state 0 for delayed scaling.
  {
    const Buffer &in = plan.buffers[0];
    std::vector<uint16_t> host(in.bytes / 2);
    std::mt19937 rng(1);
    std::normal_distribution<float> normal;
    for (uint16_t &h : host) {
      float v = normal(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      h = static_cast<uint16_t>(bits >> 16);
    }
    qsCudaCopy(device[0], host.data(), in.bytes);
    for (auto [i, b] : llvm::enumerate(plan.buffers))
      if (b.argument == 1 || b.argument == 2) {
        float v = b.argument == 1 ? 1.0f : 0.0f;
        qsCudaCopy(device[i], &v, 4);
      }
  }
  std::vector<std::vector<void *>> params(plan.launches.size());
  for (auto [i, l] : llvm::enumerate(plan.launches))
    for (unsigned a : l.args)
      params[i].push_back(&device[a]);
  auto once = [&]() {
    for (auto [i, l] : llvm::enumerate(plan.launches))
      if (qsCudaLaunch(functions[i], l.grid, l.block, 0, params[i].data()))
        return false;
    return true;
  };
  for (int i = 0; i < warmup; ++i)
    if (!once())
      return fail("launch");
  void *start = qsCudaEventCreate(), *end = qsCudaEventCreate();
  qsCudaEventRecord(start);
  for (int i = 0; i < iterations; ++i)
    once();
  qsCudaEventRecord(end);
  t.ms = qsCudaEventElapsedMs(start, end) / iterations;
  if (qsCudaSynchronize() || t.ms < 0)
    return fail("run");
  (void)copyDst;
  qsCudaEventDestroy(start);
  qsCudaEventDestroy(end);
  for (void *p : device)
    qsCudaFree(p);
  qsCudaUnloadModule(module);
  return t;
}

/// Device-to-device copy of `bytes`, milliseconds per copy.
double copyMs(int64_t bytes) {
  void *a = qsCudaMalloc(bytes), *b = qsCudaMalloc(bytes);
  if (!a || !b)
    return -1;
  qsCudaMemset(a, 1, bytes);
  for (int i = 0; i < warmup; ++i)
    qsCudaCopy(b, a, bytes);
  void *start = qsCudaEventCreate(), *end = qsCudaEventCreate();
  qsCudaEventRecord(start);
  for (int i = 0; i < iterations; ++i)
    qsCudaCopy(b, a, bytes);
  qsCudaEventRecord(end);
  double ms = qsCudaEventElapsedMs(start, end) / iterations;
  qsCudaEventDestroy(start);
  qsCudaEventDestroy(end);
  qsCudaFree(a);
  qsCudaFree(b);
  return ms;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "qs-bench-quantize\n");
  DialectRegistry registry;
  qs::registerAllQSDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  bool device = !dryRun && qsCudaInit() == 0;
  std::string deviceName = "none";
  std::string chip = chipOpt == "auto" ? "sm_90a" : chipOpt.getValue();
  if (device) {
    char name[256] = {0};
    int major = 0, minor = 0;
    qsCudaDeviceInfo(name, sizeof(name), &major, &minor);
    deviceName = name;
    if (chipOpt == "auto")
      chip = major == 10 ? "sm_100a" : "sm_90a";
  } else if (!dryRun) {
    llvm::outs() << "qs-bench-quantize: " << qsCudaLastError()
                 << "; printing the launch plans only\n";
  }
  llvm::outs() << "device: " << deviceName << ", chip: " << chip
               << ", bf16 input, " << iterations << " timed runs\n";
  llvm::outs() << llvm::format("%-16s %-5s %6s %8s %6s %10s %10s %10s %7s\n",
                               "family", "usage", "size", "kernels", "MiB",
                               "time us", "GB/s", "copy GB/s", "ratio");
  SmallVector<StringRef> sizes, families, usages;
  StringRef(sizesOpt).split(sizes, ',');
  StringRef(usagesOpt).split(usages, ',');
  StringRef(familiesOpt).split(families, ',');
  int failures = 0;
  for (StringRef sizeText : sizes) {
    int64_t n = 0;
    if (sizeText.getAsInteger(10, n) || n <= 0) {
      llvm::errs() << "qs-bench-quantize: bad size '" << sizeText << "'\n";
      return 1;
    }
    double copy = device ? copyMs(n * n * 2) : 0;
    double copyGBs = copy > 0 ? 2.0 * n * n * 2 / (copy * 1e6) : 0;
    for (const Family &fam : kFamilies) {
      if (familiesOpt != "all" && !llvm::is_contained(families, fam.name))
        continue;
      for (StringRef usage : usages) {
        std::string error;
        std::string text = moduleText(n, withUsage(fam.attr, usage), chip);
        FailureOr<Plan> plan = makePlan(ctx, text, chip, error);
        if (failed(plan)) {
          llvm::outs() << fam.name << " " << usage << ": " << error << "\n";
          ++failures;
          continue;
        }
        double mib = (plan->inputBytes + plan->outputBytes) / 1048576.0;
        std::string kernels;
        for (const Launch &l : plan->launches)
          kernels += (kernels.empty() ? "" : "+") + std::to_string(l.grid);
        if (!device) {
          llvm::outs() << llvm::format("%-16s %-5s %6ld %8zu %6.0f %10s %10s %10s %7s",
                                       fam.name, usage.str().c_str(), n,
                                       plan->launches.size(), mib, "-", "-",
                                       "-", "-")
                       << "   grids " << kernels << "\n";
          continue;
        }
        Timing t = runPlan(*plan, nullptr);
        if (!t.error.empty()) {
          llvm::outs() << fam.name << " " << usage << ": " << t.error << "\n";
          ++failures;
          continue;
        }
        double gbs = (plan->inputBytes + plan->outputBytes) / (t.ms * 1e6);
        llvm::outs() << llvm::format("%-16s %-5s %6ld %8zu %6.0f %10.1f %10.0f %10.0f %6.1f%%\n",
                                     fam.name, usage.str().c_str(), n,
                                     plan->launches.size(), mib, t.ms * 1000,
                                     gbs, copyGBs, 100.0 * gbs / copyGBs);
      }
    }
  }
  return failures ? 1 : 0;
}
