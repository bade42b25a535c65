//===- qs-bench-gemm.cpp - TFLOP/s of the generated GEMM kernels ----------===//
//
// For each shape M x N x K: compiles an FP8 fprop (`qs.gemm %a, %b
// transpose_b`, E4M3 operands, bf16 out; per-tensor, or with --family=
// fp8_block 1x128 activations x 128x128 weights, mxfp8, nvfp4; --layout=NN
// / NT for dgrad / wgrad, column-wise operands) with
// qs-nvptx-pipeline, runs its launch plan on the CUDA device (TMA
// descriptors encoded once, then the GEMM kernel alone, timed with CUDA
// events) on random FP8 operands, and reports TFLOP/s = 2 M N K / time.
// The first shape is also run with each tile width (qs.gemm_tile_n;
// per-tensor, and sm_90a MXFP8's 128; the other block-scaled GEMMs have
// one width) and, on sm_90a, with
// persistent kernels (qs.gemm_persistent = --persistent, default 132: one
// block per H100/H200 multiprocessor; column "sched" = pers) and, where
// the operands are K-major (all but MXFP8 NN/NT), with pairs of blocks
// multicasting B (qs.gemm_cluster = 2; sched = mc2), also persistent
// (sched = pmc2), and per-tensor TN with ping-pong consumers
// (qs.gemm_schedule = "pingpong", persistent; sched = pp, with multicast
// ppmc2), and with the TMA-store epilogue (qs.gemm_epilogue = "tma"; sched
// tma, persistent ptma) and the direct one (qs.gemm_epilogue = "direct";
// sched dir: the default is "tma" where defaultsToTmaStore says so).
// sm_90a MXFP8, converted to bf16 by default, is also run promoted per
// 32-block (qs.gemm_mx_scaling = "promote"; sched prom) in its default
// tiles (TN 128x64, NN/NT 128x128) and, TN, 128-wide ones, and dequantized
// to bf16 by pre-pass kernels (qs.gemm_mx_scaling = "dequantize"; sched
// deq, the time covering the pre-passes and the GEMM) in its default tiles
// (per-tensor FP8's: 128x256 where they fill the GPU) and 128-wide ones;
// so is NVFP4 (f16, sched deq).
// --split-k=S adds, for every shape whose k-tiles (ceil(K / 128)) S divides, a
// run with qs.gemm_split_k = S (sched skS; the time covers the GEMM kernel and
// the reduction kernel, the grid column is the GEMM's); --split-k-auto a run of
// every shape with qs.gemm_split_k = "auto" (sched askS: the cost model chose
// S, ask1 no split, astrm stream-K; read from the report-gemm-plans remark).
// A run without qs.gemm_split_k that split K by default (defaultsToSplitK:
// sm_90a grids that leave multiprocessors idle) is sched dskS.
// --split-k-reduce=fused sums those runs' planes in the GEMM kernel
// (qs.gemm_split_k_reduce = "fused"; sched skSf, askSf) instead of the
// reduction kernel.
// --stream-k adds (sm_90a) a run of every shape with qs.gemm_split_k =
// "stream" on the persistent grid (sched strm; compare with pers: the same
// grid without stream-K).
// --fast-accumulate gives the per-tensor GEMMs
// fast_accumulate (TE's fprop; on sm_90a ping-pong needs it, so those runs come
// with it); without it the sm_90a kernel promotes each k-tile into FP32
// (cuBLASLt's default; torch_baseline.py times both), 256-wide tiles in two
// 128-column chunks. On sm_90a the per-tensor and FP8 block GEMMs also run in
// 128x192 tiles (two promoted 96-column chunks).
// --fp8-out quantizes D with a #qs.fp8_delayed output quantizer (TE's FP8
// GEMM output; the time covers every kernel of the plan): per-tensor GEMMs
// do it in the pass that writes D (epilogue, split-K reduction) where the
// plan allows; one more run, sched "sep+q", is the unfused baseline: a
// qs.gemm into FP32, then a qs.quantize (the quantize kernels). "+q" marks
// every run whose plan has quantize kernels.
// --current-out quantizes D with a #qs.fp8_current output quantizer (E4M3,
// row-wise; TE's current-scaling GEMM output): the GEMM runs inside the
// quantize's kernels (an init kernel, the GEMM taking max |D| in the pass
// that writes D, the cast kernel; sched "+q"); one more run, sched
// "kept+q", returns the product too (a second use: the GEMM takes max |D|
// into a buffer of its own and the quantize is given it; D is written).
// The chip is the device's: sm_90a (wgmma kernels, every family) or
// sm_100a (tcgen05 kernels, every family); --chip picks it without a
// device. Without a device (or with --dry-run) it prints the launch plans.
// cuBLASLt on the same shapes: bench/gemm/torch_baseline.py.
//   qs-bench-gemm --shapes 8192x8192x8192,4096x4096x4096
//
//===----------------------------------------------------------------------===//

#include "../BenchDevice.h"
#include "qs/InitAll.h"
#include "qs/Pipelines/Pipelines.h"
#include "qs/Runner/LaunchPlan.h"
#include "qs/Runtime/CUDARuntime.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <random>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory benchCategory("qs-bench-gemm options");

static cl::opt<std::string> shapesOpt(
    "shapes", cl::cat(benchCategory),
    cl::desc("M x N x K shapes (comma separated)"),
    cl::init("8192x8192x8192,4096x4096x4096,8192x4096x4096,8192x14336x4096,"
             "8192x4096x14336,8192x28672x8192,8192x8192x28672"));
static cl::opt<int> iterations("iters", cl::cat(benchCategory),
                               cl::desc("Timed repetitions"), cl::init(20));
static cl::opt<int> warmup("warmup", cl::cat(benchCategory),
                           cl::desc("Untimed repetitions"), cl::init(3));
static cl::opt<std::string> familyOpt(
    "family", cl::cat(benchCategory),
    cl::desc("fp8_current (per-tensor E4M3 x E4M3), fp8_block (1x128 "
             "activations x 128x128 weights, DeepGEMM-style promotion), "
             "mxfp8 (sm_90a: converted to bf16, or with sched prom promoted "
             "per 32-block, with sched deq dequantized to bf16 by pre-pass "
             "kernels; swizzled weight scales) or nvfp4 (E2M1 converted to "
             "f16 in shared memory, f16 wgmma; sched deq: dequantized to f16 "
             "by pre-pass kernels)"),
    cl::init("fp8_current"));
static cl::opt<std::string> layoutOpt(
    "layout", cl::cat(benchCategory),
    cl::desc("TN (fprop: both operands row-wise), NN (dgrad: B column-wise, "
             "contracted over its first dimension) or NT (wgrad: both "
             "column-wise); M x N x K are the GEMM's"),
    cl::init("TN"));
static cl::opt<std::string>
    chipOpt("chip", cl::cat(benchCategory),
            cl::desc("sm_90a (wgmma kernels), sm_100a (tcgen05 kernels), or "
                     "auto (the device's; sm_90a without one)"),
            cl::init("auto"));
static cl::opt<int> persistentOpt(
    "persistent", cl::cat(benchCategory),
    cl::desc("Blocks of the persistent-kernel run of the first shape "
             "(qs.gemm_persistent; sm_90a); 0: none"),
    cl::init(132));
static cl::opt<int>
    splitKOpt("split-k", cl::cat(benchCategory),
              cl::desc("Also run each shape whose k-tiles it divides with "
                       "qs.gemm_split_k = this (both chips); 0: none"),
              cl::init(0));
static cl::opt<bool> splitKAutoOpt(
    "split-k-auto", cl::cat(benchCategory),
    cl::desc("Also run each shape with qs.gemm_split_k = \"auto\" (the "
             "kernels' cost model picks the split or stream-K; sched askS, "
             "astrm)"));
static cl::opt<std::string> splitKReduceOpt(
    "split-k-reduce", cl::cat(benchCategory),
    cl::desc("qs.gemm_split_k_reduce of the split-K runs: kernel (a second "
             "kernel sums the planes) or fused (each tile's last unit does; "
             "sched skSf / askSf)"),
    cl::init("kernel"));
static cl::opt<bool>
    streamKOpt("stream-k", cl::cat(benchCategory),
               cl::desc("Also run each shape with qs.gemm_split_k = \"stream\" "
                        "(sm_90a, --persistent blocks; sched strm)"));
static cl::opt<bool> fastOpt(
    "fast-accumulate", cl::cat(benchCategory),
    cl::desc("Per-tensor FP8 with qs.gemm's fast_accumulate (TE's fprop): "
             "the sm_90a kernel sums all of K in the tensor core, and the "
             "runs that need it (ping-pong) are added; without it each "
             "k-tile is promoted into FP32"));
static cl::opt<bool> fp8OutOpt(
    "fp8-out", cl::cat(benchCategory),
    cl::desc("Quantize D with a #qs.fp8_delayed output quantizer (E4M3, "
             "row-wise; TE's FP8 GEMM output): per-tensor GEMMs quantize it "
             "in the epilogue where the plan allows (not split-K, stream-K "
             "or the TMA store, whose runs add the quantize kernels)"));
static cl::opt<bool> currentOutOpt(
    "current-out", cl::cat(benchCategory),
    cl::desc("Quantize D with a #qs.fp8_current output quantizer (E4M3, "
             "row-wise; TE's current-scaling GEMM output): the pass that "
             "writes D takes its amax, the quantize's cast kernel follows; "
             "sched kept: the product returned too"));
static cl::opt<bool>
    dryRun("dry-run", cl::cat(benchCategory),
           cl::desc("Compile and print the launch plans only"));

namespace {
/// The GEMM of layout TN (fprop: A [M, K] and B [N, K] row-wise,
/// `transpose_b`), NN (dgrad: B [K, N] column-wise) or NT (wgrad: A [K, M]
/// and B [K, N] column-wise, `transpose_a`).
std::string moduleText(int64_t m, int64_t n, int64_t k, int64_t tileN,
                       int64_t persistent, int64_t cluster, bool pingpong,
                       bool tma, bool direct, int64_t splitK, bool splitKAuto,
                       bool streamK, bool fusedReduce, bool fast, bool fp8Out,
                       bool separate, bool currentOut, bool kept,
                       StringRef mxScaling, StringRef family, StringRef chip,
                       StringRef layout) {
  auto q = [&](bool a) {
    bool columnwise = a ? layout == "NT" : layout != "TN";
    int64_t rows = a ? m : n;
    std::string params =
        family == "fp8_block"
            ? (a ? "fp8_block<block_scaling_dim = 1, " : "fp8_block<")
        : family == "mxfp8"
            ? (a ? "mxfp8<" : "mxfp8<optimize_for_gemm = true, ")
        : family == "nvfp4"
            ? (a ? "nvfp4<"
                 : "nvfp4<with_2d_quantization = true, optimize_for_gemm = "
                   "true, ")
            : "fp8_current<";
    std::string shape = columnwise
                            ? std::to_string(k) + "x" + std::to_string(rows)
                            : std::to_string(rows) + "x" + std::to_string(k);
    return "!qs.tensor<" + shape + "xbf16, #qs." + params +
           (columnwise ? "rowwise = false>>" : "columnwise = false>>");
  };
  std::string r = "tensor<" + std::to_string(m) + "x" + std::to_string(n) + "xbf16>";
  std::string attrs = "qs.chip = \"" + chip.str() + "\"";
  if (tileN)
    attrs += ", qs.gemm_tile_n = " + std::to_string(tileN) + " : i64";
  if (persistent)
    attrs += ", qs.gemm_persistent = " + std::to_string(persistent) + " : i64";
  if (cluster)
    attrs += ", qs.gemm_cluster = " + std::to_string(cluster) + " : i64";
  if (pingpong)
    attrs += ", qs.gemm_schedule = \"pingpong\"";
  if (tma)
    attrs += ", qs.gemm_epilogue = \"tma\"";
  if (direct)
    attrs += ", qs.gemm_epilogue = \"direct\"";
  if (splitK)
    attrs += ", qs.gemm_split_k = " + std::to_string(splitK) + " : i64";
  if (splitKAuto)
    attrs += ", qs.gemm_split_k = \"auto\"";
  if (streamK)
    attrs += ", qs.gemm_split_k = \"stream\"";
  if (fusedReduce)
    attrs += ", qs.gemm_split_k_reduce = \"fused\"";
  if (!mxScaling.empty())
    attrs += (", qs.gemm_mx_scaling = \"" + mxScaling + "\"").str();
  std::string flags = layout == "TN"   ? " transpose_b"
                      : layout == "NT" ? " transpose_a"
                                       : "";
  if (fast)
    flags += " fast_accumulate";
  std::string args, names = "%d";
  if (fp8Out) {
    // The output quantizer's scale and amax state follow the operands.
    r = "!qs.tensor<" + std::to_string(m) + "x" + std::to_string(n) +
        "xbf16, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>";
    args = ", %s: tensor<1xf32>, %am: tensor<1xf32>";
    flags += " scale(%s : tensor<1xf32>) amax(%am : tensor<1xf32>)";
    names = "%d, %am2";
  }
  std::string mn = std::to_string(m) + "x" + std::to_string(n);
  if (currentOut && kept) {
    // The product returned beside its quantize.
    std::string p = "tensor<" + mn + "xbf16>";
    std::string qt =
        "!qs.tensor<" + mn + "xbf16, #qs.fp8_current<columnwise = false>>";
    return "module attributes {" + attrs + "} {\nfunc.func @f(%a: " + q(true) +
           ", %b: " + q(false) + ") -> (" + qt + ", " + p +
           ") {\n  %p = qs.gemm %a, %b" + flags + " : " + q(true) + ", " +
           q(false) + " -> " + p + "\n  %d = qs.quantize %p : " + p + " -> " +
           qt + "\n  return %d, %p : " + qt + ", " + p + "\n}\n}\n";
  }
  if (currentOut)
    r = "!qs.tensor<" + mn + "xbf16, #qs.fp8_current<columnwise = false>>";
  if (fp8Out && separate) {
    // The unfused baseline: the GEMM into FP32, then qs.quantize, which
    // keeps the nominal type (FP32; the codes are the fused GEMM's). The
    // product is returned too: as the quantize's only input it would be
    // fused into the GEMM (convert-qs-to-gpu fuses an explicit GEMM +
    // quantize as it does the output quantizer).
    std::string p =
        "tensor<" + std::to_string(m) + "x" + std::to_string(n) + "xf32>";
    flags = flags.substr(0, flags.find(" scale("));
    std::string qt =
        "!qs.tensor<" + std::to_string(m) + "x" + std::to_string(n) +
        "xf32, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>";
    std::string results = qt + ", " + p;
    return "module attributes {" + attrs + "} {\nfunc.func @f(%a: " + q(true) +
           ", %b: " + q(false) + args + ") -> (" + results +
           ") {\n  %p = qs.gemm %a, %b" + flags + " : " + q(true) + ", " +
           q(false) + " -> " + p + "\n  " + names +
           " = qs.quantize %p scale(%s : tensor<1xf32>) amax(%am : "
           "tensor<1xf32>) : " +
           p + " -> " + qt + "\n  return " + names + ", %p : " + results +
           "\n}\n}\n";
  }
  return "module attributes {" + attrs + "} {\nfunc.func @f(%a: " + q(true) +
         ", %b: " + q(false) + args + ") -> (" + r + ") {\n  " + names +
         " = qs.gemm %a, %b" + flags + " : " + q(true) + ", " + q(false) +
         " -> " + r + "\n  return " + names + " : " + r + "\n}\n}\n";
}

/// Random finite codes in the data inputs (E4M3 |v| < 2; any E2M1 pair),
/// 1.0 in every scale (E8M0 127, E4M3 0x38), NVFP4 amax 2688 (factor 1).
/// Flattened operands: data, scales (and NVFP4's amax); then, with an
/// output quantizer, its scale (1/64) and amax state (0).
void fillInputs(const qs::LaunchPlan &plan, qs::DevicePlan &device,
                StringRef family) {
  std::mt19937 rng(1);
  int perOperand = family == "nvfp4" ? 3 : 2;
  for (auto [i, b] : llvm::enumerate(plan.buffers)) {
    if (b.argument == 2 * perOperand || b.argument == 2 * perOperand + 1) {
      float value = b.argument == 2 * perOperand ? 1.0f / 64 : 0.0f;
      qsCudaCopy(device.buffer(i), &value, 4);
      continue;
    }
    if (b.argument < 0 || b.argument >= 2 * perOperand)
      continue;
    int role = b.argument % perOperand;
    if (role == 2) {
      float amax = 2688.0f;
      qsCudaCopy(device.buffer(i), &amax, 4);
      continue;
    }
    if (role == 1 && family != "fp8_current" && family != "fp8_block") {
      std::vector<uint8_t> ones(b.bytes, family == "mxfp8" ? 127 : 0x38);
      qsCudaCopy(device.buffer(i), ones.data(), b.bytes);
      continue;
    }
    if (role == 1) {
      std::vector<float> ones(b.bytes / 4, 1.0f);
      qsCudaCopy(device.buffer(i), ones.data(), b.bytes);
      continue;
    }
    std::vector<uint8_t> host(b.bytes);
    for (uint8_t &v : host)
      v = static_cast<uint8_t>(rng()) & (family == "nvfp4" ? 0xFF : 0xBF);
    qsCudaCopy(device.buffer(i), host.data(), b.bytes);
  }
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(argc, argv, "qs-bench-gemm\n");
  DialectRegistry registry;
  qs::registerAllQSDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  if (chipOpt != "auto" && chipOpt != "sm_90a" && chipOpt != "sm_100a") {
    llvm::errs() << "qs-bench-gemm: --chip must be sm_90a, sm_100a or auto\n";
    return 1;
  }
  if (!qs::bench::checkRepetitions("qs-bench-gemm", iterations, warmup))
    return 1;
  if (splitKOpt < 0) {
    llvm::errs() << "qs-bench-gemm: --split-k must be 0 (none) or a number "
                    "of splits, got "
                 << splitKOpt << "\n";
    return 1;
  }
  qs::bench::BenchDevice opened =
      qs::bench::openBenchDevice("qs-bench-gemm", dryRun, chipOpt);
  bool device = opened.present;
  std::string deviceName = opened.name, chip = opened.chip;
  StringRef family = familyOpt;
  if (persistentOpt < 0) {
    llvm::errs() << "qs-bench-gemm: --persistent must be 0 or a number of "
                    "blocks\n";
    return 1;
  }
  if (family != "fp8_current" && family != "fp8_block" && family != "mxfp8" &&
      family != "nvfp4") {
    llvm::errs() << "qs-bench-gemm: --family must be fp8_current, fp8_block, "
                    "mxfp8 or nvfp4\n";
    return 1;
  }
  StringRef layout = layoutOpt;
  if (layout != "TN" && layout != "NN" && layout != "NT") {
    llvm::errs() << "qs-bench-gemm: --layout must be TN, NN or NT\n";
    return 1;
  }
  if (splitKReduceOpt != "kernel" && splitKReduceOpt != "fused") {
    llvm::errs() << "qs-bench-gemm: --split-k-reduce must be kernel or fused\n";
    return 1;
  }
  bool fused = splitKReduceOpt == "fused";
  if (fp8OutOpt && currentOutOpt) {
    llvm::errs() << "qs-bench-gemm: --fp8-out and --current-out are "
                    "alternatives (D has one output quantizer)\n";
    return 1;
  }
  bool block = family != "fp8_current";
  StringRef pass = layout == "TN" ? " fprop" : layout == "NN" ? " dgrad (NN)"
                                                              : " wgrad (NT)";
  llvm::outs() << "device: " << deviceName << ", " << chip
               << (family == "fp8_block" ? ", FP8 block (1x128 x 128x128) E4M3"
                   : family == "mxfp8"   ? ", MXFP8 E4M3"
                   : family == "nvfp4"   ? ", NVFP4"
                                         : ", per-tensor FP8 E4M3")
               << pass
               << (fp8OutOpt ? ", E4M3 out (#qs.fp8_delayed output quantizer)"
                   : currentOutOpt
                       ? ", E4M3 out (#qs.fp8_current output quantizer)"
                       : ", bf16 out")
               << (fastOpt && !block ? ", fast_accumulate" : "") << ", "
               << iterations << " timed runs\n";
  llvm::outs() << llvm::format("%-22s %6s %5s %6s %6s %8s %10s %9s\n",
                               "M x N x K", "tile N", "sched", "grid", "block",
                               "smem", "time us", "TFLOP/s");
  SmallVector<StringRef> shapes;
  StringRef(shapesOpt).split(shapes, ',', -1, false);
  int failures = 0;
  for (auto [index, shape] : llvm::enumerate(shapes)) {
    SmallVector<StringRef> dims;
    shape.split(dims, 'x');
    int64_t m = 0, n = 0, k = 0;
    if (dims.size() != 3 || dims[0].getAsInteger(10, m) ||
        dims[1].getAsInteger(10, n) || dims[2].getAsInteger(10, k) ||
        m <= 0 || n <= 0 || k <= 0) {
      llvm::errs() << "qs-bench-gemm: bad shape '" << shape << "'\n";
      return 1;
    }
    // (tile width, persistent blocks, cluster size, ping-pong consumers,
    // TMA-store epilogue, split-K ranges or "auto") of each run.
    struct Run {
      int64_t tileN = 0, persistent = 0, cluster = 0;
      bool pingpong = false, tma = false;
      int64_t splitK = 0;
      bool splitKAuto = false, streamK = false;
      /// --fp8-out: the GEMM into FP32, then qs.quantize (unfused);
      /// --current-out: the product returned too (sched kept).
      bool separate = false;
      /// qs.gemm_epilogue = "direct" (sched dir).
      bool direct = false;
      /// qs.gemm_mx_scaling: "promote" (sched prom: sm_90a MXFP8 promoted
      /// per 32-block) or "dequantize" (sched deq: dequantized to bf16 by
      /// pre-pass kernels) instead of converted to bf16 in the kernel;
      /// empty: the default.
      StringRef mxScaling = "";
    };
    SmallVector<Run> runs = {Run()};
    // sm_90a ping-pong needs fast_accumulate.
    bool fast = fastOpt && !block;
    if (index == 0 && !block)
      runs.append({Run{128}, Run{256}});
    // sm_90a: 128x192 tiles (per-tensor; FP8 block, whose B has 128x128
    // blocks here).
    if (index == 0 && chip == "sm_90a" &&
        (family == "fp8_current" || family == "fp8_block"))
      runs.push_back(Run{192});
    // sm_90a MXFP8: converted to bf16 in 128x128 tiles by default; the
    // promoting kernel (sched prom) in its default tiles (TN 128x64, NN
    // and NT, whose MN-major operands it copies transposed, 128x128) and,
    // TN, in 128x128 (two 64-column chunks).
    if (index == 0 && family == "mxfp8" && chip == "sm_90a") {
      runs.push_back(Run());
      runs.back().mxScaling = "promote";
      if (layout == "TN") {
        runs.push_back(Run{128});
        runs.back().mxScaling = "promote";
      }
    }
    if (index == 0 && (family == "mxfp8" || family == "nvfp4") &&
        chip == "sm_90a") {
      runs.append({Run(), Run{128}});
      runs[runs.size() - 2].mxScaling = runs.back().mxScaling = "dequantize";
    }
    if (index == 0 && chip == "sm_90a" && persistentOpt > 0)
      runs.push_back(Run{0, persistentOpt});
    // Multicast pairs need K-major operands (MXFP8's column-wise data is
    // MN-major).
    if (index == 0 && chip == "sm_90a" &&
        (layout == "TN" || family != "mxfp8")) {
      runs.push_back(Run{0, 0, 2});
      if (persistentOpt > 0)
        runs.push_back(Run{0, persistentOpt, 2});
    }
    // Ping-pong consumers (per-tensor, K-major: TN; persistent).
    if (index == 0 && chip == "sm_90a" && fast && layout == "TN" &&
        persistentOpt > 0)
      runs.append(
          {Run{0, persistentOpt, 0, true}, Run{0, persistentOpt, 2, true}});
    // The TMA-store epilogue (D's rows must be 16-byte multiples: bf16 N
    // a multiple of 8), alone and persistent.
    if (index == 0 && chip == "sm_90a" && n % 8 == 0) {
      runs.push_back(Run{0, 0, 0, false, true});
      if (persistentOpt > 0)
        runs.push_back(Run{0, persistentOpt, 0, false, true});
      runs.push_back(Run());
      runs.back().direct = true;
    }
    // Split-K where it divides the k-tiles (sm_100a NVFP4: 256 wide).
    int64_t kTile = chip == "sm_100a" && family == "nvfp4" ? 256 : 128;
    if (splitKOpt > 1 && ((k + kTile - 1) / kTile) % splitKOpt == 0)
      runs.push_back(Run{0, 0, 0, false, false, splitKOpt});
    if (splitKAutoOpt)
      runs.push_back(Run{0, 0, 0, false, false, 0, true});
    if (streamKOpt && chip == "sm_90a")
      runs.push_back(Run{0, persistentOpt, 0, false, false, 0, false, true});
    // --fp8-out: the unfused baseline.
    if (index == 0 && (fp8OutOpt || currentOutOpt)) {
      runs.push_back(Run());
      runs.back().separate = true;
    }
    for (const Run &run : runs) {
      int64_t tileN = run.tileN;
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
          moduleText(m, n, k, tileN, run.persistent, run.cluster, run.pingpong,
                     run.tma, run.direct, run.splitK, run.splitKAuto,
                     run.streamK, fused && (run.splitK || run.splitKAuto), fast,
                     fp8OutOpt, run.separate, currentOutOpt,
                     currentOutOpt && run.separate, run.mxScaling, family, chip,
                     layout),
          &ctx);
      qs::NVPTXPipelineOptions options;
      options.chip = chip;
      options.multiprocessors = opened.multiprocessors;
      options.reportGemmPlans = true;
      // "auto" and the default: the split the plan chose, from its remark
      // ("... in S splits of ..."; none: 1; stream-K: "(split-K "auto":
      // stream-K, model ... us against ... unsplit)"; "(split-K by
      // default, ...)"). Other diagnostics print as usual.
      int64_t autoSplit = 1;
      bool autoStream = false, defaultSplit = false;
      ScopedDiagnosticHandler remarks(&ctx, [&](Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Remark)
          return failure();
        std::string message = d.str();
        StringRef text = StringRef(message).split(" splits of ").first;
        if (text.size() != message.size())
          text.rsplit(' ').second.getAsInteger(10, autoSplit);
        autoStream = StringRef(message).contains("\"auto\": stream-K");
        defaultSplit = StringRef(message).contains("split-K by default");
        return success();
      });
      FailureOr<qs::LaunchPlan> plan =
          module ? qs::compileLaunchPlan(*module, "f", options)
                 : FailureOr<qs::LaunchPlan>(failure());
      if (failed(plan)) {
        llvm::outs() << shape << ": compilation failed\n";
        ++failures;
        continue;
      }
      const qs::LaunchPlan::Step *gemm = nullptr;
      bool quantizeKernels = false;
      for (const qs::LaunchPlan::Step &s : plan->steps) {
        if (!s.isCopy && !s.isTensorMap && s.kernel == "qs_gemm")
          gemm = &s;
        quantizeKernels |= StringRef(s.kernel).starts_with("qs_quantize");
      }
      std::string tile = tileN ? std::to_string(tileN) : "auto";
      std::string splitName = run.splitKAuto
                                  ? "ask" + std::to_string(autoSplit)
                                  : "sk" + std::to_string(run.splitK);
      if (fused && (run.splitKAuto ? autoSplit > 1 : run.splitK > 1))
        splitName += "f";
      if (run.splitKAuto && autoStream)
        splitName = "astrm";
      if (defaultSplit)
        splitName = "dsk" + std::to_string(autoSplit);
      std::string sched = run.separate  ? (currentOutOpt ? "kept" : "sep")
                          : run.streamK ? "strm"
                          : run.splitK || run.splitKAuto || defaultSplit
                              ? splitName.c_str()
                          : run.pingpong && run.cluster   ? "ppmc2"
                          : run.pingpong                  ? "pp"
                          : run.tma && run.persistent     ? "ptma"
                          : run.tma                       ? "tma"
                          : run.direct                    ? "dir"
                          : run.mxScaling == "promote"    ? "prom"
                          : run.mxScaling == "dequantize" ? "deq"
                          : run.persistent && run.cluster ? "pmc2"
                          : run.persistent                ? "pers"
                          : run.cluster                   ? "mc2"
                                                          : "tile";
      // --fp8-out: "+q" where the quantize kernels run after the GEMM.
      if (quantizeKernels)
        sched += "+q";
      if (!device) {
        llvm::outs() << llvm::format("%-22s %6s %5s %6ld %6ld %8ld %10s %9s\n",
                                     shape.str().c_str(), tile.c_str(),
                                     sched.c_str(), gemm->grid, gemm->block, gemm->sharedBytes,
                                     "-", "-");
        continue;
      }
      auto loaded = qs::DevicePlan::load(*plan);
      if (!loaded) {
        llvm::outs() << shape << ": " << llvm::toString(loaded.takeError()) << "\n";
        ++failures;
        continue;
      }
      fillInputs(*plan, **loaded, family);
      double ms = qs::DevicePlan::time({loaded->get()}, iterations, warmup);
      if (ms < 0) {
        llvm::outs() << shape << ": run: " << qsCudaLastError() << "\n";
        ++failures;
        continue;
      }
      llvm::outs() << llvm::format(
          "%-22s %6s %5s %6ld %6ld %8ld %10.1f %9.1f\n", shape.str().c_str(),
          tile.c_str(), sched.c_str(), gemm->grid, gemm->block, gemm->sharedBytes,
          ms * 1000, 2.0 * m * n * k / (ms * 1e9));
    }
  }
  return failures ? 1 : 0;
}
