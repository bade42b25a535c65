//===- GemmPlan.cpp - GEMM kernels: support, plan and launch --------------===//
//
// Which GEMMs have kernels (checkGemmSupport: every rule a diagnostic), the
// plan of one (tile shape, stage ring, per-operand scaling; GemmPlan.h),
// its TMA descriptors and arguments, and the kernel (sm_90a wgmma, sm_100a
// tcgen05, or the emulation of either) it launches. The time model behind
// split-K and stream-K is GemmSplitKModel.cpp's.
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "llvm/Support/Format.h"
#include <optional>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {

StringRef ptxType(Type t) { return isa<Float8E5M2Type>(t) ? "e5m2" : "e4m3"; }

/// Per-tensor FP8, or 16-bit values scaled per tensor (an MXFP8 or NVFP4
/// operand's pre-pass output: GemmOperand::sixteenBit).
bool isPerTensor(const GemmOperand &operand) {
  return operand.sixteenBit ||
         isa<Fp8DelayedAttr, Fp8CurrentAttr>(operand.type.getQuantizer());
}

/// The family of an operand as the kernel reads it (dequantized MXFP8 and
/// NVFP4 operands are per-tensor).
template <typename Attr>
bool isFamily(const GemmOperand &operand) {
  return !operand.sixteenBit && isa<Attr>(operand.type.getQuantizer());
}

/// Why stream-K (qs.gemm_split_k = "stream") does not apply to `operands`
/// on compute capability `cc` (`mx`: MXFP8 operands), as the rule's
/// diagnostic; null where it applies. Split-K "auto" considers stream-K
/// exactly where this is null on sm_90a (on sm_100a, unmeasured, never).
const char *streamKRule(const GemmOperands &operands, unsigned cc, bool mx) {
  if (operands.pingpong || operands.clusterSize == 2)
    return "qs.gemm_split_k = \"stream\" (stream-K: persistent blocks share "
           "the last tiles' k-tiles) exists for the sm_90a kernels with the "
           "cooperative schedule and no clusters, and for the sm_100a "
           "kernels";
  if (operands.kernelReduce)
    return "qs.gemm_split_k = \"stream\" sums the tiles its blocks share "
           "inside the GEMM kernel (each tile's last block), so "
           "qs.gemm_split_k_reduce = \"kernel\" does not apply";
  if (cc == 100)
    return nullptr;
  if (mx && operands.tileN == 128)
    return "qs.gemm_split_k = \"stream\" with MXFP8 operands promoted per "
           "32-block (qs.gemm_mx_scaling = \"promote\" or a "
           "qs.gemm_promotion) needs their default 128x64 tiles: with "
           "qs.gemm_tile_n = 128 the "
           "segments' bookkeeping next to two sets of partial accumulators "
           "exceeds the consumers' 232 registers (ptxas spills)";
  if (operands.tmaStore && (operands.b.blockDim == 1 || mx))
    return "qs.gemm_split_k = \"stream\" with qs.gemm_epilogue = \"tma\" "
           "needs operands scaled per tensor, FP8 block 1x128 x 128x128, "
           "MXFP8 converted to bf16 or NVFP4: with 1x128-scaled B or MXFP8 "
           "promoted per 32-block the segments' bookkeeping, the planes' "
           "sums and the staging exceed the consumers' 232 registers (ptxas "
           "spills)";
  return nullptr;
}

bool isMX(const GemmOperands &operands) {
  return isFamily<MXFP8Attr>(operands.a) && isFamily<MXFP8Attr>(operands.b);
}

/// MXFP8 operands that the sm_90a kernel promotes per 32-block (FP8
/// wgmma), as opposed to converting them to bf16.
bool isPromotedMX(const GemmOperands &operands, unsigned cc) {
  return isMX(operands) && !mxConverts(operands, cc);
}
} // namespace

bool gpuk::mxConverts(const GemmOperands &operands, int64_t cc) {
  // By default (K-major and MN-major operands alike: the conversion
  // transposes MN-major tiles) unless a promotion option asks for the
  // promoting kernel.
  if (cc != 90 || operands.a.blockDim != 3 || operands.b.blockDim != 3 ||
      operands.mxPromote || operands.mxDequantize)
    return false;
  return operands.mxConvert ||
         (!operands.promotionInTile && !operands.promotionOverlapped);
}

bool gpuk::mxDequantizes(const GemmOperands &operands, int64_t cc) {
  return cc == 90 && operands.mxDequantize &&
         operands.a.blockDim == operands.b.blockDim &&
         (operands.a.blockDim == 3 || operands.a.blockDim == 4);
}

GemmOperands gpuk::dequantizedView(const GemmOperands &operands) {
  GemmOperands view = operands;
  for (GemmOperand *op : {&view.a, &view.b}) {
    auto source = std::make_shared<const GemmOperand>(*op);
    GemmOperand wide;
    wide.type = source->type;
    wide.data = source->data;
    wide.scaleInv = source->scaleInv;
    wide.kMajor = true;
    // MXFP8: bf16 (FP32's exponent range); NVFP4: f16 (a code times its
    // E4M3 scale has at most 5 significant bits, magnitude 2^-10 .. 2688).
    MLIRContext *ctx = source->type.getContext();
    wide.sixteenBit = source->blockDim == 4 ? Type(Float16Type::get(ctx))
                                            : Type(BFloat16Type::get(ctx));
    wide.source = source;
    *op = wide;
  }
  view.fastAccumulate = true;
  view.mxDequantize = false;
  return view;
}

LogicalResult
gpuk::checkGemmSupport(const GemmOperands &operands, const TargetInfo &chip,
                       function_ref<InFlightDiagnostic()> emitError) {
  bool perTensor = isPerTensor(operands.a) && isPerTensor(operands.b);
  bool block =
      isFamily<Fp8BlockAttr>(operands.a) && isFamily<Fp8BlockAttr>(operands.b);
  bool mx = isMX(operands);
  bool fp4 = isFamily<NVFP4Attr>(operands.a) && isFamily<NVFP4Attr>(operands.b);
  bool sixteenBit = operands.a.sixteenBit && operands.b.sixteenBit;
  // (Every family has a kernel; qs.gemm's verifier guarantees one family
  // for both operands and at most one 128x128-scaled FP8 block operand.)
  assert((perTensor || block || mx || fp4) && "a GEMM of mixed families");
  unsigned cc = chip.getComputeCapability();
  for (const GemmOperand *op : {&operands.a, &operands.b})
    if (op->source && op->source->rowScaled)
      return emitError()
             << "qs.gemm_mx_scaling = \"dequantize\" folds an NVFP4 "
                "operand's global amax into the GEMM's per-tensor alpha; a "
                "row-scaled NVFP4 operand (one amax per row) has none, so "
                "its GEMM converts in the kernel (without "
                "qs.gemm_mx_scaling)";
  if (cc != 90 && cc != 100)
    return emitError() << "GEMM kernels exist for sm_90a (wgmma) and sm_100a "
                          "(tcgen05), not for compute capability "
                       << cc / 10 << "." << cc % 10;
  if (cc == 100 && block)
    for (auto [name, operand] :
         {std::pair<StringRef, const GemmOperand *>{"a", &operands.a},
          {"b", &operands.b}})
      if (!cast<Fp8BlockAttr>(operand->type.getQuantizer())
               .getForcePow_2Scales())
        return emitError()
               << "on sm_100a, FP8 block GEMMs run as MXFP8 (E8M0 scales, "
                  "as TE converts them on Blackwell), which is exact only "
                  "for power-of-two scales: operand "
               << name << "'s quantizer has force_pow_2_scales = false";
  for (auto [name, operand, extent] :
       {std::tuple<StringRef, const GemmOperand *, int64_t>{"a", &operands.a,
                                                            operands.m},
        {"b", &operands.b, operands.n}}) {
    if (operand->kMajor)
      continue;
    // MN-major operands (sm_100a: tcgen05's major bits; sm_90a: copied
    // transposed into shared memory): TMA rows of the [K, MN] data must be
    // 16-byte multiples. (qs.gemm's verifier guarantees every operand one
    // of the two.)
    assert(operand->mnMajor && "a GEMM operand without K- or MN-major data");
    if (extent % 16 != 0)
      return emitError()
             << "operand " << name
             << " is read MN-major (contracted over its first dimension, "
                "data in the tensor's own layout), so its other dimension "
                "(here "
             << extent
             << ") must be a multiple of 16: TMA row strides are "
                "multiples of 16 bytes";
  }
  if (operands.k % 16 != 0)
    return emitError() << "GEMM kernels need K (here " << operands.k
                       << ") to be a multiple of 16: TMA row strides are "
                          "multiples of 16 bytes (cuBLASLt has the same "
                          "rule, lda % 16 == 0)";
  if (fp4 && operands.k % 32 != 0)
    return emitError() << "NVFP4 GEMM kernels need K (here " << operands.k
                       << ") to be a multiple of 32: a packed row (K / 2 "
                          "bytes) must be a multiple of 16 bytes for TMA";
  if (operands.pingpong &&
      (cc != 90 || !perTensor || !operands.fastAccumulate ||
       operands.a.mnMajor || operands.b.mnMajor ||
       (operands.tileN && operands.tileN != 128)))
    return emitError() << "qs.gemm_schedule = \"pingpong\" (each consumer "
                          "warpgroup computes its own 128x128 tiles) exists "
                          "for the sm_90a per-tensor FP8 kernel with "
                          "fast_accumulate (no registers are left to promote "
                          "into), K-major operands and 128-wide tiles";
  if (operands.scaleLoadsAhead &&
      (cc != 90 || !block || operands.b.blockDim != 2 ||
       (operands.tileN && operands.tileN != 128)))
    return emitError()
           << "qs.gemm_scale_loads = \"ahead\" (each consumer thread loads "
              "the next k-tile's scales while one runs) exists for the sm_90a "
              "FP8 block kernel with 128x128-block B (1x128 x 128x128) in "
              "128-wide tiles: 1x128 x 1x128 would carry 32 column scales per "
              "thread and k-tile, 128x192 tiles spill, and the other "
              "families and sm_100a load their scales otherwise";
  if (((operands.mxConvert && mxConverts(operands, cc)) || sixteenBit) &&
      (operands.promotionOverlapped || operands.promotionInTile))
    return emitError() << "qs.gemm_promotion applies to kernels that promote "
                          "partial sums; with qs.gemm_mx_scaling = "
                       << (sixteenBit ? "\"dequantize\" the 16-bit"
                                      : "\"convert\" the bf16")
                       << " wgmmas sum all of K in FP32 and nothing is "
                          "promoted";
  if (operands.promotionOverlapped &&
      (cc != 90 || !(block || mx || (perTensor && !operands.fastAccumulate)) ||
       operands.b.blockDim == 1 || operands.a.mnMajor || operands.b.mnMajor ||
       operands.tileN == 256 || (mx && operands.tileN == 128)))
    return emitError()
           << "qs.gemm_promotion = \"overlapped\" (the wgmmas of a k-tile "
              "run while the previous k-tile's partial sums are promoted) "
              "exists for the sm_90a kernels that promote, per-tensor FP8 "
              "without fast_accumulate and FP8 block with 128x128-block B "
              "(1x128 x 128x128) in 128- or 192-wide tiles and MXFP8 in "
              "64-wide ones, with K-major operands: the second partial "
              "accumulator set does not fit next to 128x256 tiles' totals "
              "(nor, with MXFP8's four 32-blocks per k-tile, in 128x128 "
              "tiles), 1x128 x 1x128 spills, MN-major tiles are transposed "
              "within the k-tile, and sm_100a accumulates in tensor memory";
  if (operands.clusterSize == 2 &&
      (cc != 90 || operands.a.mnMajor || operands.b.mnMajor))
    return emitError() << "qs.gemm_cluster = 2 (TMA multicast of B across "
                          "a pair of blocks) exists for the sm_90a "
                          "kernels with K-major operands (not for MN-major "
                          "data, whose tiles the consumers transpose in "
                          "shared memory)";
  if (operands.tmaStore && (operands.n * operands.outBytes) % 16 != 0)
    return emitError() << "qs.gemm_epilogue = \"tma\" needs D's rows to be "
                          "multiples of 16 bytes (TMA row strides), here N = "
                       << operands.n << " elements of " << operands.outBytes
                       << " bytes";
  if (operands.splitK > 1) {
    // K-tiles as the kernels cut K: 128 elements (sm_100a NVFP4: 256, one
    // 128-byte row of packed codes; MXFP8 and NVFP4 dequantized to 16-bit
    // values: 64).
    int64_t kTileElems = cc == 100 && fp4 ? 256 : sixteenBit ? 64 : 128;
    int64_t kTiles = ceilDiv(operands.k, kTileElems);
    if (kTiles % operands.splitK != 0)
      return emitError() << "qs.gemm_split_k = " << operands.splitK
                         << " must divide the GEMM's " << kTiles
                         << " k-tiles (ceil(K / " << kTileElems
                         << "), K = " << operands.k
                         << "): each split sums an equal range of them";
    if (operands.tmaStore && !operands.fusedReduce)
      return emitError() << "qs.gemm_split_k stores FP32 partial results "
                            "into a workspace and a second kernel writes D, "
                            "so qs.gemm_epilogue = \"tma\" (D written by "
                            "the GEMM kernel through TMA) needs "
                            "qs.gemm_split_k_reduce = \"fused\" (each tile's "
                            "last unit writes D)";
  }
  if (operands.streamK)
    if (const char *rule =
            streamKRule(operands, cc, isPromotedMX(operands, cc)))
      return emitError() << rule;
  if (cc == 100 && operands.tileN == 192)
    return emitError() << "qs.gemm_tile_n = 192 (128x192 tiles, promoted in "
                          "two 96-column chunks) exists for the sm_90a "
                          "kernels; sm_100a tiles are 128 or 256 wide";
  // FP8 block: 192 only with 128x128-block B (1x128 B's column scales do
  // not fit the registers beside 128x192 or 128x256 accumulators).
  if (cc == 90 &&
      ((block && (operands.tileN == 256 ||
                  (operands.tileN == 192 && operands.b.blockDim != 2))) ||
       (fp4 && operands.tileN) ||
       (mx && operands.tileN && operands.tileN != 128)))
    return emitError() << "sm_90a block-scaled GEMM kernels use fixed tile "
                          "widths (FP8 block 128, MXFP8 converted to bf16 "
                          "128 and promoted 64, NVFP4 128); "
                          "qs.gemm_tile_n applies to them as 128 to MXFP8 "
                          "and as 192 to FP8 block GEMMs whose B has "
                          "128x128 blocks (sm_100a: 128 or 256 for every "
                          "family)";
  return success();
}

/// What split-K "auto" chose between: the model's time of the plan it
/// picked and of the same GEMM unsplit (microseconds).
struct AutoChoice {
  double micros, unsplitMicros;
  /// Split-K by default (GemmOperands::splitKDefault): said only where it
  /// split.
  bool byDefault = false;
};

/// The plan in words: kernel, tiles, ring, K and its split (with "auto",
/// the model's times), schedule, grid.
static std::string describe(const GemmPlan &plan,
                            std::optional<AutoChoice> autoChoice) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (plan.tcgen05 ? "sm_100a tcgen05" : "sm_90a wgmma") << " kernel, "
     << kTileM << "x" << plan.tileN << " tiles (" << plan.tilesM << " x "
     << plan.tilesN << "), " << plan.stages << "-stage ring, " << plan.kTiles()
     << " k-tiles of " << plan.kTileElems();
  if (plan.splitsK())
    os << " in " << plan.splitK << " splits of " << plan.kTilesPerUnit();
  if (autoChoice && autoChoice->byDefault && plan.splitsK()) {
    os << " (split-K by default, model "
       << llvm::format("%.1f", autoChoice->micros) << " us against "
       << llvm::format("%.1f", autoChoice->unsplitMicros) << " unsplit)";
  } else if (autoChoice && !autoChoice->byDefault) {
    os << " (split-K \"auto\""
       << (plan.splitsK() ? ""
           : plan.streamK ? ": stream-K"
                          : ": none")
       << ", model " << llvm::format("%.1f", autoChoice->micros) << " us";
    if (plan.splitsK() || plan.streamK)
      os << " against " << llvm::format("%.1f", autoChoice->unsplitMicros)
         << " unsplit";
    os << ")";
  }
  if (plan.tcgen05 && plan.a.blockDim != 0)
    os << ", block-scaled MMA (scale factors in tensor memory)";
  else if (plan.promotes())
    os << ", FP32 promotion per " << plan.blockK() << " of K";
  else if (plan.fp4())
    os << ", E2M1 codes times E4M3 scales converted to f16 in shared memory";
  else if (plan.mxConverts)
    os << ", FP8 codes times E8M0 scales converted to bf16 in shared memory"
       << (plan.a.mnMajor || plan.b.mnMajor ? " (MN-major tiles transposed)"
                                            : "");
  else if (plan.sixteenBit())
    os << ", " << plan.sixteenBitType << " wgmma (FP32 sums)";
  if (plan.transposes())
    os << ", MN-major tiles transposed in shared memory";
  if (plan.persistent())
    os << ", persistent";
  if (plan.multicast())
    os << ", 2-block clusters multicasting B";
  if (plan.pingpong)
    os << ", ping-pong consumers";
  if (plan.tmaStore)
    os << ", TMA-store epilogue";
  // The pass that writes D quantizes: the epilogue, or the reduction
  // kernel that sums split-K planes.
  if (plan.quantizesOutput())
    os << ", FP8 output quantized in the "
       << (plan.splitsK() && !plan.fusesReduction() ? "split-K reduction"
                                                    : "epilogue")
       << " (scale, amax atomics"
       << (plan.outputTranspose       ? ", transpose staged in shared memory"
           : plan.reductionTransposes ? ", transpose through shared memory"
                                      : "")
       << ")";
  if (const ProducerBlockQuantizer *q = plan.outputBlocks
                                            ? plan.outputBlocks.get()
                                            : plan.reductionBlocks.get()) {
    os << ", block-scaled output quantized in the "
       << (plan.reductionBlocks ? "split-K reduction" : "epilogue") << " (";
    if (q->rowwise())
      os << "1x" << q->block << " row blocks, ";
    if (q->columnwise())
      os << q->block << "x1 column blocks, ";
    os << q->scaleFormat << " scales"
       << (plan.stagesBlocks() ? ", staged in shared memory" : "") << ")";
  }
  if (plan.outputAmaxes)
    os << ", D's amax taken in the "
       << (plan.splitsK() && !plan.fusesReduction() ? "split-K reduction"
                                                    : "epilogue");
  os << "; " << plan.blocks() << (plan.blocks() == 1 ? " block" : " blocks")
     << " of " << plan.threads() << " threads, " << plan.sharedBytes()
     << " bytes of shared memory";
  if (plan.streamsK()) {
    // Each block's share of the stream-K k-tiles: "a-b", or "a" if even.
    int64_t fewest = plan.streamKIters() / plan.blocks();
    int64_t most = ceilDiv(plan.streamKIters(), plan.blocks());
    os << "; stream-K: the last " << plan.streamKTiles() << " tiles' "
       << plan.streamKIters() << " k-tiles shared by the blocks (" << fewest;
    if (most != fewest)
      os << "-" << most;
    os << " each, up to " << plan.streamKPlanes() << " per tile), then "
       << plan.dataParallelRounds() << " whole tiles each; each shared "
       << "tile's last block sums its planes";
  } else if (plan.streamK) {
    os << "; stream-K: none (the blocks divide the tiles)";
  }
  if (plan.fusesReduction())
    os << "; each tile's last unit sums its planes";
  else if (plan.splitsK())
    os << "; then qs_gemm_split_k_reduce"
       << (plan.reductionTransposes ? "_transpose"
           : plan.reductionBlocks   ? "_blocks"
                                    : "");
  return text;
}

bool gpuk::canFuseOutputQuantizer(const GemmOperands &operands, bool accumulate,
                                  int64_t cc, bool transposes) {
  if (accumulate)
    return false;
  // The transpose (GemmPlan::outputTranspose): staged whole chunks of 128
  // codes in the tile (not 128x192), read back by the GEMM kernel's pass
  // that writes D (a fused reduction's last unit and stream-K's sum the
  // planes in the fragments, then stage), or written by the split-K
  // reduction kernel through shared memory; 16-byte stores of D's and the
  // transpose's rows. Persistent kernels in 128x256 tiles (asked for, or
  // the default of fast_accumulate) spill with the read-back (ptxas:
  // 12-280 bytes); split-K "auto" leaves stream-K (which would make them
  // persistent) out for them (emitGemm).
  bool persistent = operands.persistentBlocks || operands.streamK;
  bool wide = operands.tileN == 256 ||
              (operands.tileN == 0 && operands.fastAccumulate &&
               !operands.pingpong);
  if (transposes &&
      (cc >= 100 || operands.tileN % 128 != 0 || operands.m % 16 != 0 ||
       operands.n % 16 != 0 || (persistent && wide)))
    return false;
  if (!operands.tmaStore)
    return true;
  // The TMA store of FP8 codes: D's rows of N bytes must be multiples of
  // 16 bytes (checkGemmSupport checked them as FP32), and the staging
  // chunks of 128 one-byte columns must tile the tile (not 128x192: its
  // second chunk's box would overwrite the next tile's columns).
  if (operands.n % 16 != 0 || operands.tileN == 192)
    return false;
  // sm_90a per-tensor kernels that promote (no fast_accumulate) in 128x256
  // tiles, persistent (or stream-K) and staging FP8 codes spill (ptxas:
  // 108-180 bytes of spill stores).
  return !(cc < 100 && !operands.fastAccumulate && operands.tileN == 256 &&
           persistent);
}

bool GemmPlan::stagesBlocks() const {
  return outputBlocks && (!tcgen05 || outputBlocks->columnwise());
}

bool GemmPlan::stagesAcrossGroups() const {
  return outputBlocks && outputBlocks->columnwise() &&
         outputBlocks->block == 128;
}

Type GemmPlan::stagedType() const {
  return stagesBlocks() ? outputBlocks->nominal : outType;
}

int64_t GemmPlan::stagedChunkGroup() const {
  return stagesBlocks()
             ? std::max<int64_t>(1, outputBlocks->block * stagedBytes() / 128)
             : 1;
}

int64_t GemmPlan::outputExtras() const {
  return quantizesOutput() ? 2 + outputTranspose
         : outputBlocks    ? outputBlocks->extraBuffers().size()
                           : outputAmaxes;
}

bool gpuk::defaultsToTmaStore(const GemmOperands &operands, bool accumulate,
                              int64_t cc, int64_t multiprocessors) {
  bool perTensor = isPerTensor(operands.a) && isPerTensor(operands.b);
  // FP8 block 1x128 x 128x128 (measured +2.3% at 8192^3).
  bool block = operands.a.blockDim == 1 && operands.b.blockDim == 2;
  if (cc != 90 || !(perTensor || block) || accumulate ||
      operands.persistentBlocks || operands.pingpong ||
      operands.clusterSize > 1 || operands.splitK > 1 || operands.splitKAuto ||
      operands.streamK || (operands.n * operands.outBytes) % 16 != 0)
    return false;
  // The default tiles (GemmPlan: per-tensor 128x256 where they fill the
  // GPU, FP8 block 128x128) do.
  int64_t sms = multiprocessors ? multiprocessors : kSMs;
  int64_t tileN = operands.tileN ? operands.tileN : block ? 128 : 256;
  return ceilDiv(operands.m, 128) * ceilDiv(operands.n, tileN) >= sms;
}

bool gpuk::defaultsToSplitK(const GemmOperands &operands, int64_t cc,
                            int64_t multiprocessors) {
  if (cc != 90 || operands.persistentBlocks || operands.pingpong ||
      operands.clusterSize > 1 || operands.tmaStore || operands.fusedReduce)
    return false;
  // The default tiles where they do not fill the chip (128 wide; MXFP8
  // promoted 64), and K in more than one k-tile.
  int64_t sms = multiprocessors ? multiprocessors : kSMs;
  int64_t tileN = operands.tileN ? operands.tileN
                  : operands.a.blockDim == 3 && !mxConverts(operands, cc) ? 64
                                                                          : 128;
  return ceilDiv(operands.m, 128) * ceilDiv(operands.n, tileN) < sms &&
         operands.k > 128;
}

bool gpuk::canFuseBlockQuantizer(const GemmOperands &operands, bool accumulate,
                                 int64_t cc, int64_t block, bool columnwise) {
  if (accumulate || operands.tmaStore || operands.streamK ||
      operands.n % block != 0 ||
      (columnwise && block == 128 && operands.m % 16 != 0))
    return false;
  // The split-K reduction kernel (qs_gemm_split_k_reduce_blocks) quantizes
  // D's blocks from rows it stages in shared memory, whatever the GEMM
  // kernel's tiles or consumers: FP8 128 x 1 column blocks stage 128 rows,
  // of a 16-bit nominal type (32 KiB of static shared memory), and store
  // 16-byte pieces of the transpose's rows (M a multiple of 16).
  bool reductionBlocks =
      !(columnwise && block == 128 && operands.outBytes != 2);
  if (operands.splitK > 1 && !operands.fusedReduce)
    return reductionBlocks;
  // Split-K "auto" chooses no split (the epilogue's rules below) or the
  // reduction kernel (its rule); not stream-K (emitGemm leaves it out for
  // a block quantizer), nor a fused reduction.
  if (operands.splitKAuto && (operands.fusedReduce || !reductionBlocks))
    return false;
  // The GEMM kernel's epilogue. One tensor-memory load gives a thread 32
  // columns of a row; the tiles (128 or 256 wide) hold whole blocks of 32
  // or 128. sm_90a stages 128 bytes of each row per buffer (64 or 32
  // columns), whole MXFP8 blocks; a 1x128 block takes both buffers of
  // 16-bit values, in tiles 128 or 256 wide (MXFP8 operands' default
  // 128x64 and FP8 block's 128x192 are not). Column-wise blocks (MXFP8): a
  // thread reads 32 staged rows of a column (not ping-pong consumers, whose
  // 128 accumulator registers leave too few for a column's values: ptxas
  // spills). FP8 1x128 column-wise blocks (128 x 1, the rows of every
  // staging group: sm_90a's two consumers meet at a 256-thread barrier,
  // sm_100a's four epilogue warps at a 128-thread one; not ping-pong, whose
  // consumers run different tiles) store 16-byte pieces of the
  // transpose's rows; on sm_100a too, a pass (both of a warp's buffers)
  // holds 128 16-bit columns: a 16-bit result in tiles 128 or 256 wide.
  // Fused split-K (each tile's last unit) is not: its reducing pass does
  // not stage blocks.
  if ((columnwise && operands.pingpong) || operands.splitK > 1)
    return false;
  int64_t tileN = operands.pingpong ? 128 : operands.tileN;
  bool sm90Blocks =
      block == 32 ||
      (block == 128 && operands.outBytes == 2 &&
       (tileN ? tileN % 128 == 0
              : operands.a.blockDim != 3 || mxConverts(operands, cc)));
  bool sm100Blocks = block == 32 || !columnwise ||
                     (operands.outBytes == 2 && tileN % 128 == 0);
  return cc >= 100 ? sm100Blocks : sm90Blocks;
}

OperandPlan gemm::makeOperandPlan(const GemmOperand &op, int64_t rows,
                                  int64_t k) {
  OperandPlan p;
  p.blockDim = op.blockDim;
  p.swizzled = op.swizzled;
  p.rowScaled = op.rowScaled;
  p.e4m3Max = op.e4m3Max;
  p.mnMajor = op.mnMajor;
  p.rows = rows;
  p.scaleLd = op.blockDim == 3 && op.mnMajor && !op.swizzled
                  ? roundUp(rows, 128)
              : op.blockDim == 1 ? roundUp(rows, 4)
              : op.blockDim == 2 ? roundUp(ceilDiv(k, 128), 4)
              : op.blockDim == 3 ? roundUp(k / 32, 4)
              : op.blockDim == 4 ? roundUp(k / 16, 4)
                                 : 0;
  return p;
}

std::string gpuk::emitGemm(OpBuilder &b, Location loc, ModuleOp module,
                           const GemmOperands &operands, Type outType,
                           Value bias, Value c, Value d,
                           const EmitOptions &options,
                           const GemmOutputQuantizer *quantizer,
                           ValueRange outputAmaxes,
                           const ProducerBlockQuantizer *blockQuantizer) {
  // MXFP8 and NVFP4 dequantized by pre-passes (dequantizedView): each
  // operand's 16-bit values into a workspace (freed by buffer
  // deallocation, as the split-K planes) and its per-tensor factor into a
  // scale_inv of its own (MXFP8: 1; NVFP4: amax / 6E), then the GEMM
  // kernel on them.
  if (operands.a.source) {
    GemmOperands wide = operands;
    for (auto [op, rows] : {std::pair<GemmOperand *, int64_t>{&wide.a, wide.m},
                            {&wide.b, wide.n}}) {
      Value out = memref::AllocOp::create(
          b, loc, MemRefType::get({rows * wide.k * 2}, b.getI8Type()));
      Value factor =
          memref::AllocOp::create(b, loc, MemRefType::get({1}, b.getF32Type()));
      emitGemmDequantize(b, loc, module, *op->source, rows, wide.k, out, factor,
                         options);
      op->data = out;
      op->scaleInv = factor;
      op->source = nullptr;
    }
    bool fp4 = operands.a.source->blockDim == 4;
    return std::string(fp4 ? "NVFP4 operands dequantized to K-major f16"
                           : "MXFP8 operands dequantized to K-major bf16") +
           " by two pre-pass kernels (qs_gemm_dequantize), then " +
           emitGemm(b, loc, module, wide, outType, bias, c, d, options,
                    quantizer, outputAmaxes, blockQuantizer);
  }
  GemmPlan plan;
  plan.m = operands.m;
  plan.n = operands.n;
  plan.k = operands.k;
  plan.tcgen05 = options.tcgen05;
  if (operands.a.sixteenBit)
    plan.sixteenBitType = operands.a.sixteenBit.isBF16() ? "bf16" : "f16";
  plan.tilesM = ceilDiv(plan.m, kTileM);
  plan.a = makeOperandPlan(operands.a, plan.m, plan.k);
  plan.b = makeOperandPlan(operands.b, plan.n, plan.k);
  // Per-tensor FP8: 128x256 tiles when they still fill every
  // multiprocessor (sm_90a and sm_100a alike; block-scaled tiles are
  // fixed).
  plan.sms = options.multiprocessors;
  int64_t sms = plan.multiprocessors();
  // sm_90a per-tensor FP8 promotes each k-tile unless fast_accumulate
  // allows the tensor core's precision: a second (partial) accumulator
  // set; 128x256 tiles are promoted in two 128-column chunks. Measured on
  // the H200 (docs/performance.md, 2026-12-04), 8192^3: 128x256 851.6 us,
  // 128x192 888.2, 128x128 944.8. So the same rule as fast_accumulate's
  // for one block per tile; 128-wide where the kernel is persistent or
  // splits K (unmeasured wide: persistent 128x256 kernels that promote
  // spill with FP8 codes staged, canFuseOutputQuantizer).
  plan.splitAccumulator =
      !plan.tcgen05 && plan.a.blockDim == 0 && !operands.fastAccumulate;
  bool oneBlockPerTile = !operands.persistentBlocks && !operands.streamK &&
                         operands.splitK <= 1 && !operands.splitKAuto;
  // sm_90a MXFP8 promoted per 32-block: 128x64 tiles (the promotion
  // overlapped with the next k-tile's wgmmas); with an MN-major operand (dgrad,
  // wgrad: its tiles copied transposed into shared memory, no overlap) 128x128
  // tiles for kernels with a block per tile: measured on the H200 (2026-12-04,
  // 8192^3 NN, docs/performance.md) 6496.9 us against 7876.7 (+21%).
  bool mxMNMajorWide = plan.a.blockDim == 3 && !plan.tcgen05 &&
                       (operands.a.mnMajor || operands.b.mnMajor) &&
                       oneBlockPerTile;
  // sm_90a MXFP8 converted to bf16 (unless promotion is asked for;
  // mxConverts): 128-wide tiles, as NVFP4's converting kernel.
  plan.mxConverts = mxConverts(operands, plan.tcgen05 ? 100 : 90);
  plan.tileN = operands.pingpong ? 128
               : operands.tileN  ? operands.tileN
               : plan.mxConverts ? 128
               : plan.splitAccumulator &&
                       (!oneBlockPerTile || operands.promotionOverlapped)
                   ? 128
               : mxMNMajorWide                             ? 128
               : plan.a.blockDim == 3 && !plan.tcgen05     ? 64
               : plan.a.blockDim != 0                      ? 128
               : plan.tilesM * ceilDiv(plan.n, 256) >= sms ? 256
                                                           : 128;
  plan.tilesN = ceilDiv(plan.n, plan.tileN);
  // Ping-pong kernels are persistent: one block per multiprocessor unless
  // qs.gemm_persistent says otherwise.
  plan.pingpong = operands.pingpong;
  plan.persistentBlocks = operands.persistentBlocks ? operands.persistentBlocks
                          : plan.pingpong || operands.streamK ? sms
                                                              : 0;
  plan.streamK = operands.streamK;
  plan.cluster = operands.clusterSize;
  plan.tmaStore = operands.tmaStore;
  plan.scaleLoadsInTile = operands.scaleLoadsInTile;
  plan.promotionInTile = operands.promotionInTile;
  plan.splitK = operands.splitK;
  plan.fusedReduce = operands.fusedReduce;
  // "auto": the model's choice.
  std::optional<AutoChoice> autoChoice;
  if (operands.splitKAuto) {
    // sm_100a stream-K is unmeasured (no B200 here): "auto" weighs it on
    // sm_90a only; split-K by default never (slower than unsplit on every
    // shape the H200 timed). Nor where the pass that writes D could not
    // take the output quantizer (canFuseBlockQuantizer,
    // canFuseOutputQuantizer): stream-K's reducing pass does not stage blocks,
    // and makes 128x256 tiles persistent (ptxas spills with an FP8 transpose,
    // or with FP8 codes staged for the TMA store by promoting consumers).
    bool wideQuantized =
        quantizer && plan.tileN == 256 &&
        (quantizer->transpose || (plan.tmaStore && plan.splitAccumulator));
    bool streamKApplies =
        !operands.splitKDefault && !plan.tcgen05 &&
        !streamKRule(operands, 90, isPromotedMX(operands, 90)) &&
        !blockQuantizer && !wideQuantized;
    KSplit split = chooseKSplit(plan, streamKApplies);
    if (operands.splitKDefault)
      split.splitK = chooseDefaultSplitK(plan);
    double unsplit = modelGemmMicros(plan, 1);
    plan.splitK = split.splitK;
    if (split.streamK)
      plan = withStreamK(plan);
    autoChoice = AutoChoice{split.streamK ? modelStreamKMicros(plan)
                                          : modelGemmMicros(plan, plan.splitK),
                            unsplit, operands.splitKDefault};
  }
  plan.stages = (kRingBytes - plan.convertedBytes()) / plan.stageBytes();
  // sm_100a block-scaled 128x256 tiles (49.5 KiB a stage for MXFP8, 54 for
  // NVFP4) would get 3 stages: they take up to 224 KiB for 4 (persistent
  // with the TMA store: less its 32 KiB of staging, so 3).
  if (plan.tcgen05 && plan.stages < 4)
    plan.stages = std::min<int64_t>(4, (kRingBytesMax - plan.stagingBytes()) /
                                           plan.stageBytes());
  // 16-bit operands: their type (the workspaces hold their bytes).
  Type typeA =
      operands.a.sixteenBit
          ? operands.a.sixteenBit
          : cast<MemRefType>(operands.a.data.getType()).getElementType();
  Type typeB =
      operands.b.sixteenBit
          ? operands.b.sixteenBit
          : cast<MemRefType>(operands.b.data.getType()).getElementType();
  plan.typeA = plan.sixteenBit() ? plan.sixteenBitType : ptxType(typeA);
  plan.typeB = plan.sixteenBit() ? plan.sixteenBitType : ptxType(typeB);
  plan.outType = outType;
  plan.outputAmaxes = outputAmaxes.size();
  // The transpose: staged by the GEMM kernel where it writes D, else
  // written by the split-K reduction kernel (emitSplitKReduction).
  bool transposes = quantizer && quantizer->transpose;
  plan.outputTranspose =
      transposes && (!plan.splitsK() || plan.fusesReduction());
  plan.reductionTransposes = transposes && !plan.outputTranspose;
  // The block quantizer: in the GEMM kernel's pass that writes D, else in
  // the split-K reduction kernel.
  if (blockQuantizer) {
    auto blocks =
        std::make_shared<const ProducerBlockQuantizer>(*blockQuantizer);
    if (plan.splitsK() && !plan.fusesReduction())
      plan.reductionBlocks = blocks;
    else
      plan.outputBlocks = blocks;
  }
  plan.bias = static_cast<bool>(bias);
  plan.accumulate = static_cast<bool>(c);

  KernelDesc desc;
  desc.name = "qs_gemm";
  desc.gridSize = plan.blocks();
  desc.clusterSize = plan.cluster;
  desc.threads = plan.threads();
  desc.dynamicSharedBytes = plan.sharedBytes();
  // 384 threads x 168 registers fit the 64K register file; setmaxnreg then
  // moves 128 x (168 - 40) registers to the consumers (232 each).
  if (!plan.tcgen05)
    desc.maxRegisters = 168;
  // A tcgen05 block's shared memory (165 KiB or more) leaves room for one
  // block per multiprocessor: so told (.minnctapersm 1), ptxas no longer
  // holds registers down for an occupancy the kernel cannot have (it
  // spilled 32 bytes at 64 registers in persistent kernels with the TMA
  // store, 120 at 56 in one MXFP8 kernel variant).
  else
    desc.minBlocksPerSM = 1;
  SmallVector<Value> args;
  if (options.gpu) {
    // The TMA descriptors, encoded on the host into device buffers.
    auto mapType = MemRefType::get({16}, b.getI64Type());
    auto encode = [&](Value data, const OperandPlan &op, int64_t boxRows) {
      Value map = memref::AllocOp::create(b, loc, mapType);
      // 128-byte swizzle where the tensor cores read the tile; sm_90a's
      // packed FP4: none (the consumers read it with ordinary loads).
      // MN-major (FP8, [K, MN]): boxes of 128 K-rows of the tile's bytes
      // (128-byte atoms where swizzled).
      if (op.mnMajor)
        emitEncodeTensorMap(b, loc, module, map, data, plan.k, op.rows,
                            plan.kTileElems(), plan.mnBoxBytes(op, boxRows),
                            plan.swizzledTile(op) ? 128 : 0);
      else
        emitEncodeTensorMap(b, loc, module, map, data, op.rows, plan.pitch(),
                            boxRows, plan.rowBytes(),
                            plan.swizzledTile(op) ? 128 : 0);
      return map;
    };
    // Multicast: each block of a pair loads half of the B tile.
    args = {encode(operands.a.data, plan.a, kTileM),
            encode(operands.b.data, plan.b, plan.tileN / plan.cluster)};
  } else {
    args = {operands.a.data, operands.b.data};
  }
  args.push_back(operands.a.scaleInv);
  args.push_back(operands.b.scaleInv);
  if (plan.fp4()) {
    args.push_back(operands.a.amax);
    args.push_back(operands.b.amax);
  }
  // Split-K: the kernel stores FP32 planes into a workspace (freed by
  // buffer deallocation, as the tensor maps); the reduction, or with
  // fusesReduction() each tile's last unit, adds bias and C.
  Value workspace;
  if (plan.splitsK())
    workspace = memref::AllocOp::create(
        b, loc,
        MemRefType::get({plan.splitK * plan.m * plan.n}, b.getF32Type()));
  // Stream-K: streamKPlanes() planes of the stream-K tiles.
  if (plan.streamsK())
    workspace = memref::AllocOp::create(
        b, loc,
        MemRefType::get(
            {plan.streamKPlanes() * plan.streamKTiles() * kTileM * plan.tileN},
            b.getF32Type()));
  bool finishes = !workspace || plan.fusesReduction() || plan.streamK;
  if (bias && finishes)
    args.push_back(bias);
  if (c && finishes)
    args.push_back(c);
  if (finishes)
    args.push_back(d);
  // The pass that writes D quantizes it (with a separate split-K
  // reduction: that kernel).
  if (quantizer && finishes) {
    args.push_back(quantizer->scale);
    args.push_back(quantizer->amaxOut);
    if (quantizer->transpose)
      args.push_back(quantizer->transpose);
  }
  if (finishes)
    llvm::append_range(args, outputAmaxes);
  if (blockQuantizer && finishes)
    llvm::append_range(args, blockQuantizer->extraBuffers());
  if (workspace)
    args.push_back(workspace);
  if (options.gpu && plan.tmaStore) {
    // D as a [M, N * bytes] byte matrix, stored in boxes of 64 (sm_100a:
    // 32) rows x 128 bytes from 128-byte-swizzled staging buffers.
    auto mapType = MemRefType::get({16}, b.getI64Type());
    Value map = memref::AllocOp::create(b, loc, mapType);
    emitEncodeTensorMap(b, loc, module, map, d, plan.m,
                        plan.n * plan.outBytes(), plan.storeBoxRows(), 128,
                        128);
    args.push_back(map);
  }
  if (options.gpu && plan.tcgen05)
    desc.blockBody = [plan](KernelEnv &env) { emitTcgen05Body(env, plan); };
  else if (options.gpu)
    desc.blockBody = [plan](KernelEnv &env) { emitGpuBody(env, plan); };
  else if (plan.tcgen05)
    desc.blockBody = [plan, typeA, typeB](KernelEnv &env) {
      emitTcgen05EmulatedBody(env, plan, typeA, typeB);
    };
  else
    desc.blockBody = [plan, typeA, typeB](KernelEnv &env) {
      emitEmulatedBody(env, plan, typeA, typeB);
    };
  if (quantizer)
    emitOutputQuantizerPrepare(b, loc, module, *quantizer, options);
  emitKernel(b, loc, module, desc, args, options);
  if (workspace && !plan.fusesReduction() && !plan.streamK)
    emitSplitKReduction(b, loc, module, plan, workspace, bias, c, d, options,
                        quantizer, outputAmaxes);
  return describe(plan, autoChoice);
}

void gpuk::emitEncodeTensorMap(OpBuilder &b, Location loc, ModuleOp module,
                               Value map, Value data, int64_t rows,
                               int64_t cols, int64_t boxRows, int64_t boxCols,
                               int64_t swizzleBytes) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  auto fnType =
      FunctionType::get(ctx, SmallVector<Type>(7, i64), {b.getI32Type()});
  auto fn = module.lookupSymbol<func::FuncOp>(kEncodeTensorMapFn);
  if (!fn) {
    OpBuilder mb(ctx);
    mb.setInsertionPointToStart(module.getBody());
    fn = func::FuncOp::create(mb, loc, kEncodeTensorMapFn, fnType);
    fn.setPrivate();
  }
  auto pointer = [&](Value memref) {
    return arith::IndexCastUIOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  };
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  func::CallOp::create(b, loc, fn,
                       ValueRange{pointer(map), pointer(data), constant(rows),
                                  constant(cols), constant(boxRows),
                                  constant(boxCols), constant(swizzleBytes)});
}
