//===- Kernels.h - quantize/dequantize/GEMM kernel emission -----*- C++ -*-===//
//
// Private to the QSToGPU library: the per-op entry points used by the
// convert-qs-to-gpu pass. Buffers are passed as 1-D memrefs (the row-major
// elements of each inner tensor).
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_KERNELS_H
#define QS_LIB_CONVERSION_QSTOGPU_KERNELS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "qs/Dialect/QS/IR/QSTarget.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include <functional>
#include <memory>

namespace mlir {
namespace qs {
namespace gpuk {

struct EmitOptions {
  /// GPU kernels (else the CPU emulation).
  bool gpu = true;
  /// Use cvt.rn.satfinite.e4m3x2/e5m2x2 (sm_89+).
  bool hardwareFp8 = true;
  /// Use cvt.rn.satfinite.e2m1x2 and cvt.rp.satfinite.ue8m0x2 (sm_100a;
  /// sm_90a has neither conversion).
  bool hardwareMx = false;
  /// GEMMs: the sm_100a kernel (tcgen05) instead of sm_90a's (wgmma).
  bool tcgen05 = false;
  /// GEMMs: the target GPU's streaming multiprocessors (the tile width,
  /// the ping-pong grid and split-K "auto" fill them); 0: the chip's
  /// data-sheet count (GemmPlan::multiprocessors).
  int64_t multiprocessors = 0;
  /// Quantize kernels: each thread stores its own blocks' codes
  /// (qs.quantize_stores = "direct") instead of the coalesced stores.
  bool directQuantizeStores = false;
};

/// Scratch buffers the quantize kernels of `type` need (memref types), to be
/// allocated by the caller and passed to emitQuantize.
SmallVector<MemRefType> quantizeScratch(QuantTensorType type, MLIRContext *ctx);

struct KernelEnv; // KernelBuilder.h

/// A quantize of x that the kernel producing x applies itself, one scaling
/// block of a row at a time, in place of the cast kernels
/// (producerBlockSize; emitQuantize's `produce`): a GEMM epilogue whose
/// thread holds `block` consecutive elements of a row (or 32 of them at a
/// time) rounds them to `nominal` (x's type, as the quantize would read
/// them), takes their amax, then the block's scale and its codes.
struct ProducerBlockQuantizer {
  int64_t block = 32;
  /// x's type, and the type of the codes (FP8).
  Type nominal, codeType;
  /// The scales' format in words ("E8M0", "FP32"; plan remarks).
  StringRef scaleFormat;
  /// The row-wise codes' and scales' buffers (1-D; emitQuantize's outs);
  /// null where the quantize has no row-wise representation.
  Value data, scales;
  /// In the producer's kernel: the scale of the block at x row `row`,
  /// block `blockIndex` of the row, from `amax` (max |v| of its values as
  /// f32 of nominal-typed values, all inside x), stored into `scales` (that
  /// buffer as the producer's kernel sees it; null: not stored); returns
  /// the multiplier `encode` takes.
  std::function<Value(KernelEnv &, Value amax, Value row, Value blockIndex,
                      Value scales)>
      scale;
  /// The codes (i8) of some of a block's values, times its multiplier.
  std::function<SmallVector<Value>(KernelEnv &, ArrayRef<Value> values,
                                   Value mult)>
      encode;
  /// Column-wise usage (`scale` and `data` absent without row-wise
  /// usage): the column-wise codes (MXFP8: x's own layout, one byte per
  /// element like `data`; FP8 1x128: transposed, x^T's [N, M] layout,
  /// `columnTransposed`) and scales; `columnScale` as `scale` for the
  /// block of rows [B rowBlock, B rowBlock + B) of x column `column`
  /// (null: no column-wise representation).
  Value columnData, columnScales;
  bool columnTransposed = false;
  std::function<Value(KernelEnv &, Value amax, Value column, Value rowBlock,
                      Value scales)>
      columnScale;

  bool rowwise() const { return static_cast<bool>(data); }
  bool columnwise() const { return static_cast<bool>(columnScale); }
  /// The producer's D: the row-wise codes, else the column-wise ones.
  Value d() const { return rowwise() ? data : columnData; }
  /// The buffers the producer's kernel takes after d: the row-wise scales,
  /// then the column-wise codes (unless they are d) and scales.
  SmallVector<Value> extraBuffers() const {
    SmallVector<Value> extras;
    if (rowwise())
      extras.push_back(scales);
    if (rowwise() && columnwise())
      extras.push_back(columnData);
    if (columnwise())
      extras.push_back(columnScales);
    return extras;
  }
};

/// Emits the kernels and launches for one quantize: `x` the input, `scale`
/// the delayed-scaling scale (memref<1xf32>, else null), `amaxIn` the
/// delayed amax state or a given global amax (TE's amax reduction: no amax
/// kernel then; else null), `rng` stochastic rounding's rng state
/// (memref<2xi64>: seed, offset; else null), `outs` the inner tensors in
/// interface order followed, for delayed scaling, by the updated amax state.
/// With `fillAmax` (only where takesProducerAmax) the amax kernel is not
/// emitted: after the kernel that zeroes the global amax buffers,
/// fillAmax(b, buffers) emits (with `b`) whatever writes x and
/// max-combines max |x| into each of them (a GEMM's epilogue). With
/// `produce` (only where producerBlockSize; `x` unused) no amax or cast
/// kernel is emitted: after the kernel that zeroes padded scale buffers,
/// produce(b, quantizer) emits whatever computes x and quantizes it with
/// `quantizer` (a GEMM whose epilogue writes the codes and scales).
/// With `biasGradWorkspace` (memref<biasGradWorkspaceSize(M, K) x f32>;
/// not with `produce`) the first cast kernel also writes the chunk sums of
/// a qs.bias_grad of x from the tile it loaded (TE's bgrad_quantize: one
/// read of x for both); emitBiasGradSums finishes it.
void emitQuantize(
    OpBuilder &b, Location loc, ModuleOp module, QuantTensorType type,
    const TargetInfo &target, Value x, Value scale, Value amaxIn, Value rng,
    ValueRange outs, ValueRange scratch, const EmitOptions &options,
    const std::function<void(OpBuilder &, ValueRange)> &fillAmax = nullptr,
    const std::function<void(OpBuilder &, const ProducerBlockQuantizer &)>
        &produce = nullptr,
    Value biasGradWorkspace = Value());

/// Emits the kernels and launches of one qs.amax: the global amaxes a
/// quantize of x into `type` computes (its own amax kernels) into `out`
/// (memref<Nxf32>, QuantizerAttrInterface::getNumGlobalAmaxes).
/// With `fillAmax` (only where N is 1: no Hadamard transform) the amax
/// kernel is not emitted: after the kernel that zeroes `out`,
/// fillAmax(b, out) emits whatever writes x and max-combines max |x| into
/// `out` (a GEMM's epilogue), as emitQuantize's.
void emitGlobalAmaxes(
    OpBuilder &b, Location loc, ModuleOp module, QuantTensorType type,
    const TargetInfo &target, Value x, Value out, const EmitOptions &options,
    const std::function<void(OpBuilder &, ValueRange)> &fillAmax = nullptr);

/// The FP32 elements of qs.bias_grad's workspace for an input folded to
/// [m, n]: one sum per chunk of kBiasGradChunkRows rows and column.
int64_t biasGradWorkspaceSize(int64_t m, int64_t n);

/// Emits the kernels and launches of one qs.bias_grad of `x` (1-D, the
/// row-major elements of the input folded to [m, n]; bf16, f16 or f32)
/// into `out` (memref<n x T>) through `workspace` (memref<
/// biasGradWorkspaceSize(m, n) x f32>): chunk sums, then column sums.
void emitBiasGrad(OpBuilder &b, Location loc, ModuleOp module, Value x,
                  int64_t m, int64_t n, Value workspace, Value out,
                  const EmitOptions &options);
/// The second half of emitBiasGrad alone: the column sums of `workspace`'s
/// chunk sums (written by emitQuantize's biasGradWorkspace) into `out`.
void emitBiasGradSums(OpBuilder &b, Location loc, ModuleOp module, int64_t m,
                      int64_t n, Value workspace, Value out,
                      const EmitOptions &options);

/// qs.amax_and_scale_update's parameters.
struct ScaleUpdate {
  /// The history's length L.
  int64_t length;
  /// amax_compute_algo = "max" (else "most_recent").
  bool maxOfHistory;
  /// fp8_max * 2^-margin.
  float scaledMax;
  /// Whether the op has an amax operand.
  bool givenAmax;
};
/// Emits one kernel and launch for the qs.amax_and_scale_update ops
/// `updates` (one block each); `args` are each op's arguments in turn: the
/// updated history (memref<L x f32>), the updated scale (memref<1xf32>),
/// the history, the scale and, with givenAmax, the amax (memref<1xf32>).
void emitAmaxAndScaleUpdates(OpBuilder &b, Location loc, ModuleOp module,
                             ArrayRef<ScaleUpdate> updates, ValueRange args,
                             const EmitOptions &options);

/// The block size of a quantize of `type` that its producer can apply
/// block by block (emitQuantize's `produce`), else 0: 32 for 1-D MXFP8
/// (E8M0 scales, compact or GEMM-swizzled; row-wise 1 x 32 and column-wise
/// 32 x 1 blocks), 128 for FP8 1x128 blocks (FP32 scales; row-wise 1 x 128
/// and column-wise 128 x 1, its codes transposed); blocks whose scales
/// need nothing but their own values.
int64_t producerBlockSize(QuantTensorType type, const TargetInfo &target);

/// Whether the quantize kernels of `type` (current scaling, NVFP4 without
/// the Hadamard transform or row scales) read x once for its global amax
/// alone, which the kernel producing x can compute instead (emitQuantize's
/// fillAmax).
bool takesProducerAmax(QuantTensorType type, const TargetInfo &target);

/// Emits the kernel and launch for one dequantize of `inner` (interface
/// order) into `out` (1-D, the logical elements).
void emitDequantize(OpBuilder &b, Location loc, ModuleOp module,
                    QuantTensorType type, const TargetInfo &target,
                    ValueRange inner, Value out, const EmitOptions &options);

/// Emits the kernel and launch of one update_usage that creates a
/// representation: `inputs` are the inner tensors of `source` (interface
/// order), `outs` the created ones (getCreatedInnerTensors order), all 1-D.
void emitUpdateUsage(OpBuilder &b, Location loc, ModuleOp module,
                     QuantTensorType source, QuantTensorType result,
                     const TargetInfo &target, ValueRange inputs,
                     ValueRange outs, const EmitOptions &options);

/// One operand of a GEMM kernel: the data in K-major order ([rows, k]
/// row-major, FP8 bytes or packed E2M1 pairs, 1-D memref) and its scales
/// (per-tensor: memref<1xf32>; FP8 block: the GEMM_READY scale matrix;
/// MXFP8 / NVFP4: the E8M0 / E4M3 scales, 1-D).
struct GemmOperand {
  QuantTensorType type;
  Value data, scaleInv;
  /// 0: per-tensor FP8, 1: FP8 1x128 blocks, 2: FP8 128x128 blocks,
  /// 3: MXFP8 (1x32 blocks, E8M0 scales; `swizzled`: 128x4-tiled scales),
  /// 4: NVFP4 (packed E2M1 data [rows, k / 2], 1x16 E4M3 scales, `amax`
  /// the usage's global amax, memref<1xf32>).
  int blockDim = 0;
  bool swizzled = false;
  /// Row-scaled NVFP4: `amax` holds one amax per stored row.
  bool rowScaled = false;
  /// NVFP4: E of the global scale (nvfp4_e4m3_max); amax / 6E dequantizes.
  int64_t e4m3Max = 448;
  Value amax;
  /// Whether `data` is K-major (row-wise data of an operand contracted over
  /// its last dimension, or the transpose buffer of one contracted over its
  /// first); false if the operand has no such buffer.
  bool kMajor = false;
  /// Whether `data` is MN-major instead: the operand is contracted over its
  /// first dimension and `data` keeps the tensor's own layout [K, MN]
  /// (MXFP8 column-wise data; per-tensor FP8 on chips without a transpose
  /// buffer). The sm_100a kernel reads MN-major operands as they are; the
  /// sm_90a kernel copies them transposed into shared memory.
  bool mnMajor = false;
  /// sm_90a MXFP8 and NVFP4 with qs.gemm_mx_scaling = "dequantize"
  /// (dequantizedView): the 16-bit type (MXFP8 bf16, NVFP4 f16) a pre-pass
  /// kernel dequantizes the operand to, K-major [rows, K], before a
  /// per-tensor-style GEMM kernel reads it (GemmPlan::sixteenBit);
  /// `source` is the quantized operand it reads (its data, scales,
  /// layout, amax). Null otherwise.
  Type sixteenBit;
  std::shared_ptr<const GemmOperand> source;
};

/// D[m, n] = op(a)[m, k] op(b)[k, n].
struct GemmOperands {
  GemmOperand a, b;
  int64_t m = 0, n = 0, k = 0;
  /// Tile width in N: 128, 256 (qs.gemm_tile_n), or 0 to choose (256 when
  /// the 128x256 tiles still fill every multiprocessor; sm_90a per-tensor
  /// without fastAccumulate: always 128).
  int64_t tileN = 0;
  /// qs.gemm_persistent: the number of persistent blocks, each looping over
  /// output tiles; 0: one block per tile.
  int64_t persistentBlocks = 0;
  /// qs.gemm_cluster: 2 for pairs of blocks sharing B by TMA multicast.
  int64_t clusterSize = 1;
  /// qs.gemm_schedule = "pingpong": each consumer warpgroup computes its
  /// own 128 x 128 tiles, alternately.
  bool pingpong = false;
  /// qs.gemm_epilogue = "tma": D goes out through shared memory and TMA
  /// stores (GemmPlan::tmaStore).
  bool tmaStore = false;
  /// qs.gemm_scale_loads: "in_tile" (each k-tile loads its own block
  /// scales; GemmPlan::prefetchesScales off) and "ahead" said explicitly
  /// (an error where the kernel cannot).
  bool scaleLoadsInTile = false, scaleLoadsAhead = false;
  /// qs.gemm_promotion: "in_tile" (each k-tile promoted within its
  /// iteration; GemmPlan::overlapsPromotion off) and "overlapped" said
  /// explicitly (an error where the kernel cannot; 128-wide tiles for
  /// per-tensor FP8).
  bool promotionInTile = false, promotionOverlapped = false;
  /// qs.gemm_mx_scaling: "convert" (sm_90a MXFP8: codes times scales
  /// converted to K-major bf16 tiles, bf16 wgmma; GemmPlan::
  /// mxConverts) and "promote" (FP8 wgmma, each 32-block promoted) said
  /// explicitly; no effect on other GEMMs.
  bool mxConvert = false, mxPromote = false;
  /// qs.gemm_mx_scaling = "dequantize" (sm_90a MXFP8 and NVFP4): a pre-pass
  /// kernel per operand writes codes times scales as K-major bf16 (NVFP4:
  /// f16) into global memory, and a GEMM kernel reads those with TMA
  /// (mxDequantizes).
  bool mxDequantize = false;
  /// qs.gemm_split_k: K cut into this many ranges of k-tiles, each tile's
  /// ranges summed by a second kernel or (fusedReduce) by the tile's last
  /// unit (GemmPlan::splitK); 1: none.
  int64_t splitK = 1;
  /// qs.gemm_split_k = "auto": the plan picks the split (chooseSplitK).
  bool splitKAuto = false;
  /// "auto" applied without qs.gemm_split_k (defaultsToSplitK): splits of
  /// K summed by the reduction kernel, never stream-K.
  bool splitKDefault = false;
  /// qs.gemm_split_k_reduce = "fused": each tile's last work unit sums the
  /// planes (GemmPlan::fusedReduce) instead of a second kernel; "kernel"
  /// said explicitly (which stream-K cannot do).
  bool fusedReduce = false, kernelReduce = false;
  /// qs.gemm_split_k = "stream": stream-K over the last tiles
  /// (GemmPlan::streamK), persistentBlocks blocks or one per
  /// multiprocessor.
  bool streamK = false;
  /// Bytes of one element of D.
  int64_t outBytes = 0;
  /// qs.gemm's fast_accumulate: the tensor cores may sum all of K in their
  /// own precision (else the sm_90a per-tensor kernel promotes each
  /// 128-wide block of K into FP32 registers).
  bool fastAccumulate = false;
};


/// Whether a GEMM kernel exists for `operands` on `chip`; if not, reports
/// why through `emitError`.
LogicalResult checkGemmSupport(const GemmOperands &operands,
                               const TargetInfo &chip,
                               function_ref<InFlightDiagnostic()> emitError);

/// A delayed-scaling per-tensor FP8 quantizer fused into the GEMM's
/// epilogue (qs.gemm's fused output quantizer, cuBLASLt's FP8 output): D is
/// stored as fp8_rn_sat(D_f32 * scale) codes, `amaxOut` gets
/// max(amaxIn, max |D_f32|) and `scaleInv` 1 / scale, exactly as the
/// quantize kernels would write them from the FP32 product (all
/// memref<1xf32>). `transpose` (1-D, the [N, M] codes of a result with
/// column-wise usage on a chip with transpose buffers; else null) gets
/// the same codes transposed.
struct GemmOutputQuantizer {
  Type fp8Type; // f8E4M3FN or f8E5M2
  Value scale, amaxIn, scaleInv, amaxOut;
  Value transpose;
};

/// Whether the GEMM kernels of `operands` can quantize their output: the
/// pass that writes D (a tile's only block, or with split-K or stream-K
/// the pass or kernel that sums the FP32 planes) quantizes it, without an
/// accumulate operand; with the TMA-store epilogue (FP8 codes staged) D's
/// rows must stay multiples of 16 bytes (N % 16 == 0), the tiles 128 or
/// 256 columns wide, and on sm_90a (compute capability `cc` 90) no
/// promoting persistent kernel in 128x256 tiles (ptxas spills). With a
/// transpose buffer (`transposes`: sm_90a, column-wise usage) each
/// consumer stages its codes in shared memory and reads them back
/// transposed (GemmPlan::outputTranspose) where the GEMM kernel writes D
/// (one pass, a fused split-K reduction's last unit or stream-K), or the
/// split-K reduction kernel writes both layouts through shared memory
/// (GemmPlan::reductionTransposes); tiles 128 or 256 wide but not
/// persistent 128x256 ones (ptxas spills), nor 128x256 ones under split-K
/// "auto" (whose stream-K choice would make them persistent), M and N
/// multiples of 16 (16-byte stores of both layouts' rows). Elsewhere the
/// GEMM writes FP32 and the quantize kernels follow.
bool canFuseOutputQuantizer(const GemmOperands &operands, bool accumulate,
                            int64_t cc, bool transposes = false);

/// Whether a GEMM without qs.gemm_epilogue writes D through the TMA-store
/// epilogue (as "tma"): measured faster on the H200 (2026-12-04, 8192^3:
/// per-tensor +5.2%, fast_accumulate +7.6%, FP8 block 1x128 x 128x128
/// +2.3%; docs/performance.md), so the default for sm_90a (`cc` 90)
/// per-tensor FP8 and FP8 1x128 x 128x128 kernels with a block per
/// tile (not persistent, ping-pong, multicast or split-K) whose tiles fill
/// the `multiprocessors` (0: the chip's), D's rows multiples of 16 bytes,
/// no accumulate operand; the caller also leaves out GEMMs whose epilogue
/// quantizes D or takes its amax. Elsewhere the direct epilogue
/// (unmeasured there).
bool defaultsToTmaStore(const GemmOperands &operands, bool accumulate,
                        int64_t cc, int64_t multiprocessors);

/// Whether the sm_90a kernel of `operands` (compute capability `cc`)
/// converts MXFP8 operands to bf16 (GemmPlan::mxConverts): MXFP8 on
/// sm_90a (K-major or MN-major), unless qs.gemm_mx_scaling = "promote"
/// or "dequantize", or (without qs.gemm_mx_scaling = "convert") a
/// qs.gemm_promotion asks for the promoting kernel.
bool mxConverts(const GemmOperands &operands, int64_t cc);

/// Whether `operands` (MXFP8 or NVFP4 on sm_90a, `cc` 90, with
/// qs.gemm_mx_scaling = "dequantize") are dequantized to 16-bit floats by
/// pre-pass kernels before the GEMM (dequantizedView).
bool mxDequantizes(const GemmOperands &operands, int64_t cc);

/// The GEMM that mxDequantizes(`operands`) runs: both operands K-major
/// 16-bit (GemmOperand::sixteenBit: MXFP8 bf16, NVFP4 f16; `source` the
/// quantized operand), scaled per tensor (MXFP8 by 1: the scales are in
/// the values; NVFP4 by its amax / 6E), summed in FP32 by the tensor cores
/// (fastAccumulate: 16-bit wgmma keeps FP32 sums). Every
/// decision about the kernel (checkGemmSupport, the fusions, the
/// defaults) is made on this view; emitGemm emits the pre-passes
/// (emitGemmDequantize) and gives the GEMM kernel their outputs.
GemmOperands dequantizedView(const GemmOperands &operands);

/// Emits the pre-pass of a dequantized GEMM operand (GemmOperand::source,
/// `rows` its rows of the K-major view): its codes times their block
/// scales (MXFP8: rounded to bf16, the values the converting kernel
/// computes; NVFP4: f16, exact) into `out` (1-D i8: the 16-bit [rows, k]
/// K-major operand, little-endian), MN-major data transposed, and its
/// per-tensor factor (MXFP8 1, NVFP4 amax / 6E) into `factor`
/// (memref<1xf32>: the view's scale_inv).
void emitGemmDequantize(OpBuilder &b, Location loc, ModuleOp module,
                        const GemmOperand &source, int64_t rows, int64_t k,
                        Value out, Value factor, const EmitOptions &options);

/// Whether a GEMM without qs.gemm_split_k splits K as "auto" would, S-splits
/// only (GemmOperands::splitKDefault): where its tiles leave multiprocessors
/// idle. Measured on the H200 (2026-12-04, docs/performance.md): splits
/// of K ran 5-108% faster than one block per tile on the small-M shapes
/// timed, except one whose weights stream at the HBM floor either way
/// (which the model now keeps whole); stream-K ran slower everywhere. So
/// the default for sm_90a (`cc` 90) kernels with a block per tile (not
/// persistent, ping-pong or multicast; no TMA-store or fused-reduction
/// epilogue asked for) whose default tiles (128 wide, MXFP8 64) are fewer
/// than the `multiprocessors` (0: the chip's), K longer than a k-tile.
/// sm_100a: unmeasured, "auto" only.
bool defaultsToSplitK(const GemmOperands &operands, int64_t cc,
                      int64_t multiprocessors);

/// Whether the GEMM kernels of `operands` can apply a block quantizer of
/// D (ProducerBlockQuantizer of row blocks of `block` elements: MXFP8 32,
/// FP8 1x128) in their epilogue: the sm_100a (`cc` 100) kernels, whose
/// epilogue thread reads a row 32 consecutive columns at a time, and the
/// sm_90a kernels, which stage each consumer's rows in shared memory and
/// read one block per thread back (GemmPlan::stagesBlocks; FP8 1x128 of
/// a 16-bit result in tiles 128 or 256 wide), storing D directly from one
/// pass (no split-K); or the split-K reduction kernel
/// (GemmPlan::reductionBlocks: any tiles or consumers; FP8 128 x 1 column
/// blocks of a 16-bit result). Not with qs.gemm_epilogue = "tma", a
/// fused split-K reduction, stream-K or split-K "auto" (their reducing
/// passes sum 4-element groups), an accumulate operand; N a multiple of
/// the block (whole blocks). In the epilogue, a quantizer with column-wise
/// blocks
/// (`columnwise`) not with ping-pong consumers: MXFP8 (both chips stage
/// the rows in shared memory, where a thread reads a 32 x 1 block down a
/// column: GemmPlan::stagesBlocks; ping-pong spills), FP8 1x128, M a
/// multiple of 16 (128 x 1 blocks over every staging group's rows,
/// GemmPlan::stagesAcrossGroups; codes transposed, 16 bytes per store;
/// sm_100a: a 16-bit result in tiles 128 or 256 wide).
/// Elsewhere the GEMM writes D and the quantize kernels follow.
bool canFuseBlockQuantizer(const GemmOperands &operands, bool accumulate,
                           int64_t cc, int64_t block, bool columnwise);

/// Emits the GEMM kernel and its launch: d[m*n] (1-D, `outType`) =
/// alpha op(a) op(b) (+ bias[n]) (+ c[m*n]); with `quantizer` (and outType
/// its FP8 type) d gets the quantized codes, after a one-thread kernel that
/// writes scale_inv and the amax state the epilogue's atomics combine into.
/// Returns the plan it chose in words (convert-qs-to-gpu's
/// report-gemm-plans remark).
/// With `outputAmaxes` (memref<1xf32> each, instead of a quantizer) the
/// pass that writes D max-combines max |D| (D's type, as stored) into each.
/// With `blockQuantizer` (where canFuseBlockQuantizer; outType its code
/// type, d its data) the epilogue writes that quantize's codes and scales.
std::string emitGemm(OpBuilder &b, Location loc, ModuleOp module,
                     const GemmOperands &operands, Type outType, Value bias,
                     Value c, Value d, const EmitOptions &options,
                     const GemmOutputQuantizer *quantizer = nullptr,
                     ValueRange outputAmaxes = {},
                     const ProducerBlockQuantizer *blockQuantizer = nullptr);

/// The host function that encodes a 2-D TMA descriptor (libQSCUDARuntime).
constexpr llvm::StringLiteral kEncodeTensorMapFn = "qsCudaEncodeTensorMap2D";

/// Host code: encodes the TMA descriptor of `data` (a [rows, cols] byte
/// matrix, row-major) with boxes of [boxRows, boxCols] bytes and a 128-byte
/// (`swizzleBytes` 128) or no (0) swizzle into device buffer `map`
/// (memref<16xi64>).
void emitEncodeTensorMap(OpBuilder &b, Location loc, ModuleOp module,
                         Value map, Value data, int64_t rows, int64_t cols,
                         int64_t boxRows, int64_t boxCols,
                         int64_t swizzleBytes);

} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_KERNELS_H
