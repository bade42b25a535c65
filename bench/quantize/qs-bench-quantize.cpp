//===- qs-bench-quantize.cpp - bandwidth of the generated quantize kernels ===//
//
// For each size x family x usage: compiles a bf16 quantize with
// qs-nvptx-pipeline, finds its kernel launches in the host half of the
// pipeline (launcher calls and the buffers they get), runs exactly those
// launches on the CUDA device with device buffers, and reports
//   GB/s  = (bytes of the input + bytes of every inner tensor) / time
//   copy  = a device-to-device copy of the input in the same run (2 x bytes
//           / time), the bandwidth ceiling,
// and their ratio. Times are medians of per-call events, the calls queued
// behind a spin kernel (no host launch gaps counted), cycling through
// --rotate-mib of buffer copies (no input timed from L2). Without a device
// (or with --dry-run) it prints the launch plan instead. Runnable as one
// command:
//   qs-bench-quantize --sizes 4096,8192,16384
//
//===----------------------------------------------------------------------===//

#include "../BenchDevice.h"
#include "qs/InitAll.h"
#include "qs/Pipelines/Pipelines.h"
#include "qs/Runner/LaunchPlan.h"
#include "qs/Runtime/CUDARuntime.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory benchCategory("qs-bench-quantize options");

static cl::opt<std::string> sizesOpt("sizes", cl::cat(benchCategory),
                                     cl::desc("Square sizes (comma separated)"),
                                     cl::init("4096,8192,16384"));
static cl::opt<std::string>
    familiesOpt("families", cl::cat(benchCategory),
                cl::desc("Families (comma separated) or all"), cl::init("all"));
static cl::opt<std::string> usagesOpt("usages", cl::cat(benchCategory),
                                      cl::desc("row,col,both"),
                                      cl::init("row,col,both"));
static cl::opt<int> iterations("iters", cl::cat(benchCategory),
                               cl::desc("Timed repetitions"), cl::init(20));
static cl::opt<int> warmup("warmup", cl::cat(benchCategory),
                           cl::desc("Untimed repetitions"), cl::init(3));
static cl::opt<double> rotateMib(
    "rotate-mib", cl::cat(benchCategory),
    cl::desc("Cycle through as many copies of a plan's buffers (and of the "
             "copy's) as make up this many MiB, so that no input is timed "
             "from L2 (default 150: 3x an H100/H200's 50 MB L2; 0: one)"),
    cl::init(150));
static cl::opt<std::string> chipOpt(
    "chip", cl::cat(benchCategory),
    cl::desc("sm_90a, sm_100a, or auto (the device's; sm_90a without one)"),
    cl::init("auto"));
static cl::opt<bool>
    dryRun("dry-run", cl::cat(benchCategory),
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
    // TE's weight quantizers of the block recipes: FP8 128x128 blocks
    // (Float8BlockQuantizer, block_scaling_dim = 2) and NVFP4 16x16 tiles.
    {"fp8_block_128x128", "fp8_block<>"},
    {"nvfp4", "nvfp4<>"},
    // TE's NVFP4 recipe: RHT for activations and gradients, stochastic
    // rounding (an rng state input: a Philox byte per code) for gradients.
    {"nvfp4_rht", "nvfp4<with_rht = true, with_post_rht_amax = true>"},
    {"nvfp4_sr", "nvfp4<stochastic_rounding = true>"},
    // 4over6 with E = 256 (the 4/6 paper's bound; TE's recipe option
    // nvfp4_4over6_e4m3_use_256): two candidates per block.
    {"nvfp4_4over6", "nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256>"},
    {"nvfp4_16x16", "nvfp4<with_2d_quantization = true>"},
};

/// The plan's leading arguments besides x: delayed scaling's scale and
/// amax state, or stochastic rounding's rng state.
enum class Extra { None, DelayedState, RngState };

Extra extraOf(StringRef attr) {
  if (attr.starts_with("fp8_delayed"))
    return Extra::DelayedState;
  if (attr.contains("stochastic_rounding = true"))
    return Extra::RngState;
  return Extra::None;
}

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
  Extra extra = extraOf(attr);
  std::string s = "module attributes {qs.chip = \"" + chip.str() + "\"} {\n";
  if (extra == Extra::RngState)
    s += "func.func @f(%x: " + t + ", %r: tensor<2xi64>) -> " + q +
         " {\n  %q = qs.quantize %x rng(%r : tensor<2xi64>) : " + t + " -> " +
         q + "\n  return %q : " + q + "\n}\n}\n";
  else if (extra == Extra::DelayedState)
    s += "func.func @f(%x: " + t + ", %s: tensor<1xf32>, %a: tensor<1xf32>) -> (" +
         q + ", tensor<1xf32>) {\n  %q, %m = qs.quantize %x scale(%s : tensor<1xf32>) "
         "amax(%a : tensor<1xf32>) : " + t + " -> " + q + ", tensor<1xf32>\n"
         "  return %q, %m : " + q + ", tensor<1xf32>\n}\n}\n";
  else
    s += "func.func @f(%x: " + t + ") -> " + q + " {\n  %q = qs.quantize %x : " +
         t + " -> " + q + "\n  return %q : " + q + "\n}\n}\n";
  return s;
}

/// A plan plus the bytes a quantize moves at least (input read, every
/// inner tensor written).
struct Plan {
  qs::LaunchPlan launch;
  int64_t inputBytes = 0, outputBytes = 0;
  Extra extra = Extra::None;
};

FailureOr<Plan> makePlan(MLIRContext &ctx, StringRef text, StringRef chip,
                         Extra extra) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    return failure();
  qs::NVPTXPipelineOptions options;
  options.chip = chip.str();
  FailureOr<qs::LaunchPlan> launch =
      qs::compileLaunchPlan(*module, "f", options);
  if (failed(launch))
    return failure();
  Plan plan;
  plan.launch = std::move(*launch);
  plan.extra = extra;
  // Arguments: x (+ scale and amax state for delayed scaling, + the rng
  // state for stochastic rounding), then results.
  int firstResult = extra == Extra::DelayedState ? 3
                    : extra == Extra::RngState   ? 2
                                                 : 1;
  for (const qs::LaunchPlan::Buffer &b : plan.launch.buffers) {
    if (b.argument == 0)
      plan.inputBytes += b.bytes;
    else if (b.argument >= firstResult)
      plan.outputBytes += b.bytes;
  }
  return plan;
}

struct Timing {
  double ms = 0;
  std::string error;
};

/// How many sets of `setBytes` make up --rotate-mib (1 to 16).
int64_t rotations(int64_t setBytes) {
  auto want = static_cast<int64_t>(rotateMib * 1048576.0);
  return std::clamp<int64_t>(
      (want + setBytes - 1) / std::max<int64_t>(setBytes, 1), 1, 16);
}

Timing runPlan(const Plan &p) {
  const qs::LaunchPlan &plan = p.launch;
  Timing t;
  std::vector<std::unique_ptr<qs::DevicePlan>> sets;
  std::vector<qs::DevicePlan *> order;
  for (int64_t s = 0, e = rotations(p.inputBytes + p.outputBytes); s < e; ++s) {
    auto loaded = qs::DevicePlan::load(plan);
    if (!loaded) {
      t.error = llvm::toString(loaded.takeError());
      return t;
    }
    sets.push_back(std::move(*loaded));
    order.push_back(sets.back().get());
  }
  // Random normal bf16 input; scale 1, amax state 0 for delayed scaling;
  // rng state (seed 2026, offset 0) for stochastic rounding.
  std::vector<uint16_t> input;
  for (auto [i, b] : llvm::enumerate(plan.buffers)) {
    if (b.argument == 0 && input.empty()) {
      input.resize(b.bytes / 2);
      std::mt19937 rng(1);
      std::normal_distribution<float> normal;
      for (uint16_t &h : input) {
        float v = normal(rng);
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        h = static_cast<uint16_t>(bits >> 16);
      }
    }
    for (qs::DevicePlan *set : order) {
      if (b.argument == 0) {
        qsCudaCopy(set->buffer(i), input.data(), b.bytes);
      } else if (p.extra == Extra::RngState && b.argument == 1) {
        int64_t state[2] = {2026, 0};
        qsCudaCopy(set->buffer(i), state, sizeof(state));
      } else if (b.bytes == 4) {
        float v = b.argument == 1 ? 1.0f : 0.0f;
        qsCudaCopy(set->buffer(i), &v, 4);
      }
    }
  }
  // The kernels only: the copies into out-parameters are an artifact of the
  // calling convention (results returned by copy), not of quantization.
  t.ms = qs::DevicePlan::time(order, iterations, warmup);
  if (t.ms < 0)
    t.error = std::string("run: ") + qsCudaLastError();
  return t;
}

/// Device-to-device copy of `bytes`, milliseconds per copy (median, as the
/// plans; source/destination pairs cycled as --rotate-mib says).
double copyMs(int64_t bytes) {
  std::vector<void *> pointers;
  llvm::scope_exit release([&] {
    for (void *p : pointers)
      qsCudaFree(p);
  });
  for (int64_t s = 0, e = rotations(2 * bytes); s < e; ++s) {
    pointers.push_back(qsCudaMalloc(bytes));
    pointers.push_back(qsCudaMalloc(bytes));
    if (!pointers[pointers.size() - 2] || !pointers.back() ||
        qsCudaMemset(pointers[pointers.size() - 2], 1, bytes))
      return -1;
  }
  size_t next = 0;
  return qs::medianTimeMs(
      [&] {
        size_t pair = 2 * (next++ % (pointers.size() / 2));
        return qsCudaCopy(pointers[pair + 1], pointers[pair], bytes) == 0;
      },
      iterations, warmup);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(argc, argv, "qs-bench-quantize\n");
  DialectRegistry registry;
  qs::registerAllQSDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  // The options, before any output or device time.
  if (chipOpt != "auto" && chipOpt != "sm_90a" && chipOpt != "sm_100a") {
    llvm::errs() << "qs-bench-quantize: --chip must be sm_90a, sm_100a or "
                    "auto, got '"
                 << chipOpt << "'\n";
    return 1;
  }
  if (!qs::bench::checkRepetitions("qs-bench-quantize", iterations, warmup))
    return 1;
  if (!(rotateMib >= 0 && rotateMib <= 1e9)) {
    llvm::errs() << "qs-bench-quantize: --rotate-mib must be a number of MiB "
                    "(0: one buffer set), got "
                 << rotateMib << "\n";
    return 1;
  }
  SmallVector<StringRef> sizes, families, usages;
  SmallVector<int64_t> sizeValues;
  StringRef(sizesOpt).split(sizes, ',');
  StringRef(usagesOpt).split(usages, ',');
  StringRef(familiesOpt).split(families, ',');
  for (StringRef sizeText : sizes) {
    int64_t n = 0;
    if (sizeText.getAsInteger(10, n) || n <= 0 || n > (int64_t(1) << 24)) {
      llvm::errs() << "qs-bench-quantize: --sizes: bad size '" << sizeText
                   << "' (positive integers, comma separated)\n";
      return 1;
    }
    sizeValues.push_back(n);
  }
  for (StringRef usage : usages)
    if (usage != "row" && usage != "col" && usage != "both") {
      llvm::errs() << "qs-bench-quantize: --usages: '" << usage
                   << "' is not one of row, col, both\n";
      return 1;
    }
  if (familiesOpt != "all")
    for (StringRef name : families)
      if (llvm::none_of(kFamilies,
                        [&](const Family &f) { return name == f.name; })) {
        std::string known;
        for (const Family &f : kFamilies)
          known += std::string(known.empty() ? "" : ", ") + f.name;
        llvm::errs() << "qs-bench-quantize: --families: '" << name
                     << "' is not one of " << known << " (or all)\n";
        return 1;
      }

  qs::bench::BenchDevice opened =
      qs::bench::openBenchDevice("qs-bench-quantize", dryRun, chipOpt);
  bool device = opened.present;
  std::string deviceName = opened.name, chip = opened.chip;
  llvm::outs() << "device: " << deviceName << ", chip: " << chip
               << ", bf16 input, " << iterations << " timed runs\n";
  llvm::outs() << llvm::format("%-18s %-5s %6s %8s %6s %10s %10s %10s %7s\n",
                               "family", "usage", "size", "kernels", "MiB",
                               "time us", "GB/s", "copy GB/s", "ratio");
  int failures = 0;
  for (int64_t n : sizeValues) {
    double copy = device ? copyMs(n * n * 2) : 0;
    double copyGBs = copy > 0 ? 2.0 * n * n * 2 / (copy * 1e6) : 0;
    for (const Family &fam : kFamilies) {
      if (familiesOpt != "all" && !llvm::is_contained(families, fam.name))
        continue;
      for (StringRef usage : usages) {
        std::string text = moduleText(n, withUsage(fam.attr, usage), chip);
        FailureOr<Plan> plan = makePlan(ctx, text, chip, extraOf(fam.attr));
        if (failed(plan)) {
          llvm::outs() << fam.name << " " << usage << ": compilation failed\n";
          ++failures;
          continue;
        }
        double mib = (plan->inputBytes + plan->outputBytes) / 1048576.0;
        std::string kernels;
        size_t launches = 0;
        for (const qs::LaunchPlan::Step &l : plan->launch.steps)
          if (!l.isCopy) {
            kernels += (kernels.empty() ? "" : "+") + std::to_string(l.grid);
            ++launches;
          }
        if (!device) {
          llvm::outs() << llvm::format("%-18s %-5s %6ld %8zu %6.0f %10s %10s %10s %7s",
                                       fam.name, usage.str().c_str(), n,
                                       launches, mib, "-", "-",
                                       "-", "-")
                       << "   grids " << kernels << "\n";
          continue;
        }
        Timing t = runPlan(*plan);
        if (!t.error.empty()) {
          llvm::outs() << fam.name << " " << usage << ": " << t.error << "\n";
          ++failures;
          continue;
        }
        double gbs = (plan->inputBytes + plan->outputBytes) / (t.ms * 1e6);
        llvm::outs() << llvm::format("%-18s %-5s %6ld %8zu %6.0f %10.1f %10.0f %10.0f %6.1f%%\n",
                                     fam.name, usage.str().c_str(), n,
                                     launches, mib, t.ms * 1000,
                                     gbs, copyGBs, 100.0 * gbs / copyGBs);
      }
    }
  }
  return failures ? 1 : 0;
}
