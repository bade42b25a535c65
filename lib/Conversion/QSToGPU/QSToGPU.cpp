//===- QSToGPU.cpp - convert-qs-to-gpu -------------------------------------===//
//
// Rewrites buffer-level quantize, dequantize, update_usage and GEMM ops
// into kernel launches on memrefs; the kernels come from
// QuantizeKernels.cpp, DequantizeKernels.cpp and UpdateUsageKernels.cpp
// (plans and phases: QuantizePlan.h) and from GemmPlan.cpp
// (GemmKernels.cpp / GemmTcgen05.cpp).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "qs/Conversion/Passes.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::qs {
#define GEN_PASS_DEF_CONVERTQSTOGPUPASS
#include "qs/Conversion/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

/// The memref of a tensor value (read-only view).
static Value bufferOf(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                           /*readOnly=*/true);
}

/// The 1-D view of a static identity-layout memref.
static Value flat(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get({1}, type.getElementType()), memref,
        ArrayRef<ReassociationIndices>{});
  return memref::CollapseShapeOp::create(b, loc, memref, all);
}

/// A fresh buffer for a result tensor.
static Value newBuffer(OpBuilder &b, Location loc, Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()));
}

/// The result tensor reading a buffer back after the launches.
static Value readBack(OpBuilder &b, Location loc, Type tensorType,
                      Value alloc) {
  return bufferization::ToTensorOp::create(b, loc, tensorType, alloc,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

/// Where the kernels (gpu.module, or the emulation's functions) of `op`
/// go: its nearest module, the symbol table its calls and launches
/// resolve in (a module nested in the pass's gets its own).
static ModuleOp kernelModule(Operation *op) {
  return op->getParentOfType<ModuleOp>();
}

namespace {
struct ConvertQSToGPUPass
    : public qs::impl::ConvertQSToGPUPassBase<ConvertQSToGPUPass> {
  using Base::Base;

  /// The amax a quantize is lowered with as if given it (lowerGemm's
  /// amaxUses): a tensor<1xf32> the GEMM that wrote its input filled.
  DenseMap<Operation *, Value> givenAmaxes;
  /// qs.bias_grad ops lowered with a quantize of their input (erased).
  DenseSet<Operation *> fusedBiasGrads;

  void runOnOperation() override {
    givenAmaxes.clear();
    fusedBiasGrads.clear();
    fusedScaleUpdates.clear();
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<QuantizeBuffersOp, DequantizeBuffersOp, GemmBuffersOp,
              UpdateUsageBuffersOp, AmaxOp, BiasGradOp, AmaxAndScaleUpdateOp>(
              op))
        ops.push_back(op);
      return WalkResult::advance();
    });
    std::optional<TargetInfo> forced;
    if (!chip.empty()) {
      auto parsed = TargetInfo::parse(chip);
      if (failed(parsed)) {
        module.emitError() << "convert-qs-to-gpu: chip '" << chip
                           << "' is not of the form sm_<major><minor>[a]";
        return signalPassFailure();
      }
      forced = *parsed;
    }
    if (requireNVPTXChip && failed(checkNVPTXChip(module)))
      return signalPassFailure();
    bool failedAny = false;
    DenseSet<Operation *> fused;
    for (Operation *op : ops) {
      if (fused.contains(op) || fusedBiasGrads.contains(op) ||
          fusedScaleUpdates.contains(op))
        continue;
      // The storage layouts follow the op's qs.chip (as everywhere); the
      // chip option only selects the instructions the kernels may use.
      TargetInfo target = TargetInfo::lookup(op);
      gpuk::EmitOptions options;
      options.gpu = !emulate;
      options.hardwareFp8 =
          (forced ? *forced : target).getComputeCapability() >= 89;
      options.hardwareMx =
          (forced ? *forced : target).getComputeCapability() >= 100;
      if (auto q = dyn_cast<QuantizeBuffersOp>(op)) {
        if (failed(lowerQuantize(q, target, options)))
          failedAny = true;
      } else if (auto g = dyn_cast<GemmBuffersOp>(op)) {
        QuantizeBuffersOp quantize = fusableOutputQuantizer(g, target);
        QuantizeBuffersOp amaxQuantize =
            quantize ? QuantizeBuffersOp() : amaxTakingQuantize(g, target);
        QuantizeBuffersOp blockQuantize = quantize || amaxQuantize
                                              ? QuantizeBuffersOp()
                                              : blockTakingQuantize(g, target);
        for (QuantizeBuffersOp q : {quantize, amaxQuantize, blockQuantize})
          if (q)
            fused.insert(q);
        SmallVector<Operation *> amaxUses;
        if (!quantize && !amaxQuantize && !blockQuantize)
          amaxUses = productAmaxUses(g, target);
        for (Operation *use : amaxUses)
          if (isa<AmaxOp>(use))
            fused.insert(use);
        if (failed(lowerGemm(g, target, forced ? *forced : target, options,
                             quantize, amaxQuantize, blockQuantize, amaxUses)))
          failedAny = true;
      } else if (auto u = dyn_cast<UpdateUsageBuffersOp>(op)) {
        if (failed(lowerUpdateUsage(u, target, options)))
          failedAny = true;
      } else if (auto a = dyn_cast<AmaxOp>(op)) {
        lowerAmax(a, target, options);
      } else if (auto g = dyn_cast<BiasGradOp>(op)) {
        lowerBiasGrad(g, options);
      } else if (auto u = dyn_cast<AmaxAndScaleUpdateOp>(op)) {
        lowerAmaxAndScaleUpdates(scaleUpdateGroup(u), options);
      } else if (failed(lowerDequantize(cast<DequantizeBuffersOp>(op), target,
                                        options))) {
        failedAny = true;
      }
    }
    if (failedAny)
      signalPassFailure();
  }

  /// qs-nvptx-pipeline's rules: a supported chip, and the one the storage
  /// layouts were chosen for.
  LogicalResult checkNVPTXChip(ModuleOp module) {
    if (chip != "sm_90a" && chip != "sm_100a")
      return module.emitError()
             << "qs-nvptx-pipeline: chip '" << chip
             << "' is not supported; the kernels target sm_90a (Hopper) and "
                "sm_100a (Blackwell)";
    bool bad = false;
    module.walk([&](Operation *op) {
      auto named = op->getAttrOfType<StringAttr>("qs.chip");
      if (!named || named.getValue() == chip)
        return;
      op->emitError() << "qs-nvptx-pipeline: chip=" << chip
                      << " differs from qs.chip = \"" << named.getValue()
                      << "\" here; the storage layouts follow qs.chip, so "
                         "compile for that chip";
      bad = true;
    });
    return failure(bad);
  }

  /// `x`: the input's buffer (1-D), else the input's (neither with
  /// `produce`); `fillAmax` and `produce` as gpuk::emitQuantize's.
  LogicalResult lowerQuantize(
      QuantizeBuffersOp op, const TargetInfo &target,
      const gpuk::EmitOptions &options, Value x = {},
      const std::function<void(OpBuilder &, ValueRange)> &fillAmax = nullptr,
      const std::function<void(OpBuilder &,
                               const gpuk::ProducerBlockQuantizer &)> &produce =
          nullptr) {
    QuantTensorType type = op.getQuantizedTensorType();
    OpBuilder b(op);
    Location loc = op.getLoc();
    if (!x && !produce)
      x = flat(b, loc, bufferOf(b, loc, op.getInput()));
    Value scale, amaxIn;
    if (op.getScale()) {
      scale = bufferOf(b, loc, op.getScale());
      amaxIn = bufferOf(b, loc, op.getOuts().back());
    } else if (op.getAmax()) { // a given global amax (TE's amax reduction)
      amaxIn = bufferOf(b, loc, op.getAmax());
    } else if (Value given = givenAmaxes.lookup(op)) {
      // max |x| taken by the GEMM that wrote x (productAmaxUses): as given.
      amaxIn = bufferOf(b, loc, given);
    }
    SmallVector<Value> allocs, outs, results;
    for (Type t : op.getResultTypes()) {
      allocs.push_back(newBuffer(b, loc, t));
      outs.push_back(flat(b, loc, allocs.back()));
    }
    SmallVector<Value> scratch;
    for (MemRefType t : gpuk::quantizeScratch(type, b.getContext()))
      scratch.push_back(memref::AllocOp::create(b, loc, t));
    Value rng = op.getRng() ? bufferOf(b, loc, op.getRng()) : Value();
    // qs.quantize_stores on the op or the nearest ancestor (the dialect
    // checked its value).
    gpuk::EmitOptions quantizeOptions = options;
    for (Operation *p = op; p; p = p->getParentOp())
      if (auto stores = p->getAttrOfType<StringAttr>(
              QSDialect::getQuantizeStoresAttrName())) {
        quantizeOptions.directQuantizeStores = stores.getValue() == "direct";
        break;
      }
    // A qs.bias_grad of the same input after the quantize (TE's
    // bgrad_quantize): its chunk sums from the cast kernel's tiles.
    BiasGradOp biasGrad = produce ? BiasGradOp() : fusableBiasGrad(op);
    Flat2D shape = flatten2D(type.getShape());
    Value workspace, biasGradAlloc;
    if (biasGrad) {
      biasGradAlloc = newBuffer(b, loc, biasGrad.getResult().getType());
      workspace = memref::AllocOp::create(
          b, loc,
          MemRefType::get({gpuk::biasGradWorkspaceSize(shape.m, shape.k)},
                          b.getF32Type()));
    }
    gpuk::emitQuantize(b, loc, kernelModule(op), type, target, x, scale, amaxIn,
                       rng, outs, scratch, quantizeOptions, fillAmax, produce,
                       workspace);
    for (auto [t, alloc] : llvm::zip(op.getResultTypes(), allocs))
      results.push_back(readBack(b, loc, t, alloc));
    if (biasGrad) {
      gpuk::emitBiasGradSums(b, loc, kernelModule(op), shape.m, shape.k,
                             workspace, flat(b, loc, biasGradAlloc), options);
      Type resultType = biasGrad.getResult().getType();
      biasGrad->replaceAllUsesWith(
          ValueRange{readBack(b, loc, resultType, biasGradAlloc)});
      fusedBiasGrads.insert(biasGrad);
      biasGrad->erase();
    }
    op->replaceAllUsesWith(results);
    op->erase();
    return success();
  }

  /// The qs.bias_grad the quantize `op` takes along (one read of the input
  /// for both): one of the same input later in the same block, so that the
  /// quantize's position dominates its uses; null if none.
  BiasGradOp fusableBiasGrad(QuantizeBuffersOp op) {
    for (Operation *user : op.getInput().getUsers())
      if (auto g = dyn_cast<BiasGradOp>(user))
        if (!fusedBiasGrads.contains(g) && g->getBlock() == op->getBlock() &&
            op->isBeforeInBlock(g))
          return g;
    return {};
  }

  /// The FP8 (or packed FP4) buffer the contraction reads, K-major where the
  /// storage has one, else MN-major, and its scales.
  static gpuk::GemmOperand gemmOperand(OpBuilder &b, Location loc,
                                       QuantTensorType type, ValueRange inner,
                                       const TargetInfo &target,
                                       bool contractsLastDim) {
    gpuk::GemmOperand operand;
    operand.type = type;
    auto block = dyn_cast<Fp8BlockAttr>(type.getQuantizer());
    auto mx = dyn_cast<MXFP8Attr>(type.getQuantizer());
    auto fp4 = dyn_cast<NVFP4Attr>(type.getQuantizer());
    if (block)
      operand.blockDim = block.getBlockScalingDim();
    if (fp4) {
      operand.blockDim = 4;
      operand.swizzled = fp4.getOptimizeForGemm();
      operand.rowScaled = fp4.getRowScaledNvfp4();
      operand.e4m3Max = fp4.getNvfp4E4m3Max();
    }
    if (mx) {
      operand.blockDim = 3;
      operand.swizzled = mx.getOptimizeForGemm();
    }
    // Per-tensor: data / transpose (TN-only chips) + scale_inv; block: the
    // usage's data (column-wise is stored transposed) and its scales.
    bool blocked = block || mx || fp4;
    StringRef dataName = blocked ? (contractsLastDim ? "rowwise_data"
                                                     : "columnwise_data")
                                 : (contractsLastDim ? "data" : "transpose");
    StringRef scaleName = blocked ? (contractsLastDim ? "rowwise_scale_inv"
                                                      : "columnwise_scale_inv")
                                  : "scale_inv";
    StringRef amaxName = contractsLastDim ? "amax_rowwise" : "amax_columnwise";
    Value data;
    for (auto [t, v] : llvm::zip(type.getInnerTensors(target), inner)) {
      if (t.name == dataName)
        data = v;
      else if (t.name == scaleName)
        operand.scaleInv = flat(b, loc, bufferOf(b, loc, v));
      else if (fp4 && t.name == amaxName)
        operand.amax = bufferOf(b, loc, v);
    }
    // Column-wise MXFP8 data keeps x's layout, and so does per-tensor FP8
    // without a transpose buffer: MN-major.
    bool mnMajor = !contractsLastDim && (mx || (!blocked && !data));
    if (mnMajor && !mx)
      for (auto [t, v] : llvm::zip(type.getInnerTensors(target), inner))
        if (t.name == "data")
          data = v;
    if (data && operand.scaleInv) {
      operand.kMajor = !mnMajor;
      operand.mnMajor = mnMajor;
      operand.data = flat(b, loc, bufferOf(b, loc, data));
    }
    return operand;
  }

  /// The quantize whose input is the GEMM's product, where that is the
  /// product's only use, or null.
  static QuantizeBuffersOp productQuantize(GemmBuffersOp gemm) {
    Value product = gemm.getResult();
    if (!product.hasOneUse())
      return {};
    auto quantize = dyn_cast<QuantizeBuffersOp>(*product.user_begin());
    if (!quantize || quantize.getInput() != product)
      return {};
    return quantize;
  }

  /// The quantize of a GEMM's product that the GEMM kernel's epilogue can
  /// do instead (qs.gemm's fused output quantizer: a delayed-scaling
  /// per-tensor FP8 quantize of the FP32 product, its only use, writing
  /// data, a transpose where the target has one, and scale_inv), or null.
  static QuantizeBuffersOp fusableOutputQuantizer(GemmBuffersOp gemm,
                                                  const TargetInfo &target) {
    QuantizeBuffersOp quantize = productQuantize(gemm);
    if (!quantize)
      return {};
    QuantTensorType type = quantize.getQuantizedTensorType();
    // GemmOp::isResultQuantizationFused's rule, on the buffer-level ops: a
    // recipe-scaled (delayed) quantizer reading the FP32 product of
    // per-tensor operands.
    if (!type.getQuantizer().takesRecipeScale() ||
        !type.getElementType().isF32() ||
        gemm.getATensorType().getQuantizer().getScalingMode() !=
            ScalingMode::DelayedTensor ||
        gemm.getBTensorType().getQuantizer().getScalingMode() !=
            ScalingMode::DelayedTensor)
      return {};
    SmallVector<InnerTensor> inner = type.getInnerTensors(target);
    if (inner.size() < 2 || inner.size() > 3 || inner[0].name != "data" ||
        (inner.size() == 3 && inner[1].name != "transpose"))
      return {};
    return quantize;
  }

  /// The quantize of a GEMM's product (its only use) that `accepts`, or
  /// null.
  static QuantizeBuffersOp
  supportedProductQuantize(GemmBuffersOp gemm,
                           function_ref<bool(QuantTensorType)> accepts) {
    QuantizeBuffersOp quantize = productQuantize(gemm);
    if (!quantize || !accepts(quantize.getQuantizedTensorType()))
      return {};
    return quantize;
  }

  /// The quantize of a GEMM's product (its only use) whose one pass over
  /// the product is for its global amax (gpuk::takesProducerAmax: current
  /// scaling, NVFP4 without the Hadamard transform or row scales), which
  /// the GEMM's epilogue can take instead, or null.
  static QuantizeBuffersOp amaxTakingQuantize(GemmBuffersOp gemm,
                                              const TargetInfo &target) {
    QuantizeBuffersOp quantize =
        supportedProductQuantize(gemm, [&](QuantTensorType type) {
          return gpuk::takesProducerAmax(type, target);
        });
    // A quantize given its global amax (TE's amax reduction) reads none.
    return quantize && !quantize.getAmax() ? quantize : QuantizeBuffersOp();
  }

  /// The uses of a GEMM's product whose one global amax is max |D|
  /// (current scaling, NVFP4 without the Hadamard transform or row
  /// scales), which the GEMM's epilogue can take instead of an amax kernel
  /// reading D back: its qs.amax ops, and its quantizes (given no amax)
  /// whose one pass over D is for that amax alone (gpuk::
  /// takesProducerAmax); the product keeps its other uses.
  static SmallVector<Operation *> productAmaxUses(GemmBuffersOp gemm,
                                                  const TargetInfo &target) {
    auto oneAmax = [](QuantTensorType type) {
      return type.getQuantizer().getNumGlobalAmaxes() == 1;
    };
    SmallVector<Operation *> uses;
    for (Operation *user : gemm.getResult().getUsers()) {
      if (auto amax = dyn_cast<AmaxOp>(user)) {
        if (oneAmax(amax.getQuantizedTensorType()))
          uses.push_back(amax);
      } else if (auto q = dyn_cast<QuantizeBuffersOp>(user)) {
        if (q.getInput() == gemm.getResult() && !q.getAmax() && !q.getScale() &&
            oneAmax(q.getQuantizedTensorType()) &&
            gpuk::takesProducerAmax(q.getQuantizedTensorType(), target))
          uses.push_back(q);
      }
    }
    return uses;
  }

  /// The quantize of a GEMM's product (its only use) that the GEMM's
  /// epilogue can apply block by block (gpuk::producerBlockSize: row-wise
  /// MXFP8 or FP8 1x128), or null.
  static QuantizeBuffersOp blockTakingQuantize(GemmBuffersOp gemm,
                                               const TargetInfo &target) {
    return supportedProductQuantize(gemm, [&](QuantTensorType type) {
      return gpuk::producerBlockSize(type, target) != 0;
    });
  }

  /// A GEMM the kernels cannot run is an error, in the emulation as under
  /// qs-nvptx-pipeline. With `quantize` (fusableOutputQuantizer) the GEMM
  /// kernel writes that quantize's results too, where its plan allows
  /// (gpuk::canFuseOutputQuantizer); otherwise the quantize is lowered on
  /// its own after the GEMM.
  /// With `amaxQuantize` (amaxTakingQuantize) the GEMM is emitted within
  /// that quantize's kernels, in place of its amax kernel, and its epilogue
  /// takes the amax. With `blockQuantize` (blockTakingQuantize) the GEMM
  /// kernel writes that quantize's codes and scales, where its plan allows
  /// (gpuk::canFuseBlockQuantizer), in place of the quantize's cast kernel.
  /// With `amaxUses` (productAmaxUses; none of the three) the GEMM's
  /// epilogue takes max |D| into a buffer that an init kernel before it
  /// zeroes: the value of those qs.amax ops, and the given amax those
  /// quantizes are lowered with (givenAmaxes); D is kept for every use.
  LogicalResult
  lowerGemm(GemmBuffersOp op, const TargetInfo &target, const TargetInfo &chip,
            const gpuk::EmitOptions &options, QuantizeBuffersOp quantize,
            QuantizeBuffersOp amaxQuantize, QuantizeBuffersOp blockQuantize,
            ArrayRef<Operation *> amaxUses) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto [a0, a1] = flatten2D(op.getATensorType().getShape());
    auto [b0, b1] = flatten2D(op.getBTensorType().getShape());
    gpuk::GemmOperands operands;
    operands.m = op.getTransposeA() ? a1 : a0;
    operands.k = op.getTransposeA() ? a0 : a1;
    operands.n = op.getTransposeB() ? b0 : b1;
    operands.a = gemmOperand(b, loc, op.getATensorType(), op.getA(), target,
                             !op.getTransposeA());
    operands.b = gemmOperand(b, loc, op.getBTensorType(), op.getB(), target,
                             op.getTransposeB());
    // The kernel options qs.gemm_tile_n, _persistent, _cluster, _schedule,
    // _epilogue, _split_k and _split_k_reduce (checked by the dialect; the
    // strings a split_k can be are "auto" and "stream") on the op or an
    // ancestor.
    // The nearest one wins (the dialect checked each).
    auto inherited = [&](StringRef name) -> Attribute {
      for (Operation *p = op; p; p = p->getParentOp())
        if (Attribute value = p->getAttr(name))
          return value;
      return {};
    };
    auto integer = [&](StringRef name) -> int64_t {
      auto value = dyn_cast_or_null<IntegerAttr>(inherited(name));
      return value ? value.getInt() : 0;
    };
    operands.tileN = integer(QSDialect::getGemmTileNAttrName());
    operands.persistentBlocks = integer(QSDialect::getGemmPersistentAttrName());
    operands.clusterSize =
        std::max<int64_t>(1, integer(QSDialect::getGemmClusterAttrName()));
    auto schedule = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmScheduleAttrName()));
    operands.pingpong = schedule && schedule.getValue() == "pingpong";
    auto epilogue = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmEpilogueAttrName()));
    operands.tmaStore = epilogue && epilogue.getValue() == "tma";
    auto scaleLoads = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmScaleLoadsAttrName()));
    operands.scaleLoadsInTile =
        scaleLoads && scaleLoads.getValue() == "in_tile";
    operands.scaleLoadsAhead = scaleLoads && scaleLoads.getValue() == "ahead";
    auto promotion = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmPromotionAttrName()));
    operands.promotionInTile = promotion && promotion.getValue() == "in_tile";
    operands.promotionOverlapped =
        promotion && promotion.getValue() == "overlapped";
    auto mxScaling = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmMxScalingAttrName()));
    operands.mxConvert = mxScaling && mxScaling.getValue() == "convert";
    operands.mxPromote = mxScaling && mxScaling.getValue() == "promote";
    operands.mxDequantize = mxScaling && mxScaling.getValue() == "dequantize";
    operands.splitK =
        std::max<int64_t>(1, integer(QSDialect::getGemmSplitKAttrName()));
    auto splitK = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmSplitKAttrName()));
    operands.splitKAuto = splitK && splitK.getValue() == "auto";
    operands.streamK = splitK && splitK.getValue() == "stream";
    auto reduce = dyn_cast_or_null<StringAttr>(
        inherited(QSDialect::getGemmSplitKReduceAttrName()));
    operands.fusedReduce = reduce && reduce.getValue() == "fused";
    operands.kernelReduce = reduce && reduce.getValue() == "kernel";
    operands.outBytes = cast<RankedTensorType>(op.getResult().getType())
                            .getElementType()
                            .getIntOrFloatBitWidth() /
                        8;
    operands.fastAccumulate = op.getFastAccumulate();
    // MXFP8 dequantized by pre-passes: the kernel, its checks and its
    // defaults are those of the bf16 GEMM that follows them.
    if (gpuk::mxDequantizes(operands, chip.getComputeCapability()))
      operands = gpuk::dequantizedView(operands);
    // data, [transpose], scale_inv (fusableOutputQuantizer), amax.
    bool transposes = quantize && quantize.getNumResults() == 4;
    bool accumulate = static_cast<bool>(op.getAccumulate());
    unsigned cc = chip.getComputeCapability();
    // Which quantizers of D the GEMM kernels would take (else the quantize
    // kernels follow).
    auto fusions = [&](const gpuk::GemmOperands &o) {
      return std::make_pair(
          quantize &&
              gpuk::canFuseOutputQuantizer(o, accumulate, cc, transposes),
          blockQuantize &&
              gpuk::canFuseBlockQuantizer(
                  o, accumulate, cc,
                  gpuk::producerBlockSize(
                      blockQuantize.getQuantizedTensorType(), target),
                  blockQuantize.getQuantizedTensorType()
                      .getQuantizer()
                      .getColumnwise()));
    };
    // Split-K by default where it applies and takes the same quantizers.
    if (!splitK && !integer(QSDialect::getGemmSplitKAttrName()) &&
        gpuk::defaultsToSplitK(operands, cc, multiprocessors)) {
      gpuk::GemmOperands split = operands;
      split.splitKAuto = split.splitKDefault = true;
      if (fusions(split) == fusions(operands))
        operands = split;
    }
    if (failed(gpuk::checkGemmSupport(operands, chip,
                                      [&] { return op.emitOpError(); })))
      return failure();
    gpuk::EmitOptions gemmOptions = options;
    gemmOptions.tcgen05 = cc >= 100;
    gemmOptions.multiprocessors = multiprocessors;
    auto [fusesQuantize, fusesBlockQuantize] = fusions(operands);
    if (quantize && !fusesQuantize) {
      if (failed(lowerQuantize(quantize, target, options)))
        return failure();
      quantize = {};
    }
    if (blockQuantize && !fusesBlockQuantize) {
      if (failed(lowerQuantize(blockQuantize, target, options)))
        return failure();
      blockQuantize = {};
    }
    if (!epilogue && !quantize && !amaxQuantize && !blockQuantize &&
        amaxUses.empty() &&
        gpuk::defaultsToTmaStore(operands,
                                 static_cast<bool>(op.getAccumulate()),
                                 chip.getComputeCapability(), multiprocessors))
      operands.tmaStore = true;
    // Persistent (and stream-K) kernels that quantize D to FP8, or MXFP8
    // ones in blocks, keep no second partial set (GemmPlan::
    // overlapsPromotion).
    bool mx = isa<MXFP8Attr>(operands.a.type.getQuantizer());
    if (operands.promotionOverlapped &&
        (operands.persistentBlocks || operands.streamK) &&
        (quantize || (blockQuantize && mx)))
      return op.emitError()
             << "qs.gemm_promotion = \"overlapped\" does not exist for "
                "persistent or stream-K "
             << (quantize ? "GEMM kernels that quantize their output to FP8"
                          : "MXFP8 GEMM kernels that quantize their output "
                            "in blocks")
             << " (the epilogue inside the tile loop leaves no registers for "
                "a second partial accumulator set)";
    if (quantize || amaxQuantize || blockQuantize) {
      // Emitted where the quantize was: its scale and amax state dominate
      // it, and the GEMM's operands dominate the GEMM before it.
      b.setInsertionPoint(quantize       ? quantize
                          : amaxQuantize ? amaxQuantize
                                         : blockQuantize);
    }
    Type resultType = op.getResult().getType();
    Value bias = op.getBias() ? bufferOf(b, loc, op.getBias()) : Value();
    Value c = op.getAccumulate() ? flat(b, loc, bufferOf(b, loc, op.getInit()))
                                 : Value();
    if (quantize) {
      // The quantize's results: data, [transpose], scale_inv and the
      // updated amax.
      SmallVector<Value> allocs;
      for (Type t : quantize.getResultTypes())
        allocs.push_back(newBuffer(b, loc, t));
      gpuk::GemmOutputQuantizer out;
      out.fp8Type = cast<RankedTensorType>(quantize.getResult(0).getType())
                        .getElementType();
      out.scale = bufferOf(b, loc, quantize.getScale());
      out.amaxIn = bufferOf(b, loc, quantize.getOuts().back());
      out.scaleInv = allocs[allocs.size() - 2];
      out.amaxOut = allocs.back();
      if (transposes)
        out.transpose = flat(b, loc, allocs[1]);
      operands.outBytes = 1;
      std::string plan =
          gpuk::emitGemm(b, loc, kernelModule(op), operands, out.fp8Type, bias,
                         c, flat(b, loc, allocs[0]), gemmOptions, &out);
      if (reportGemmPlans)
        emitRemark(loc) << "GEMM kernel plan: " << plan;
      SmallVector<Value> results;
      for (auto [t, alloc] : llvm::zip(quantize.getResultTypes(), allocs))
        results.push_back(readBack(b, loc, t, alloc));
      quantize->replaceAllUsesWith(results);
      quantize->erase();
      op->erase();
      return success();
    }
    std::string plan;
    if (blockQuantize) {
      // The quantize's init kernel (padded scales zeroed), then the GEMM
      // writing its codes and scales; no product buffer.
      operands.outBytes = 1;
      if (failed(lowerQuantize(
              blockQuantize, target, options, Value(), nullptr,
              [&](OpBuilder &qb, const gpuk::ProducerBlockQuantizer &q) {
                plan = gpuk::emitGemm(qb, loc, kernelModule(op), operands,
                                      q.codeType, bias, c, q.d(), gemmOptions,
                                      nullptr, {}, &q);
              })))
        return failure();
      if (reportGemmPlans)
        emitRemark(loc) << "GEMM kernel plan: " << plan;
      op->erase();
      return success();
    }
    Value alloc = newBuffer(b, loc, resultType);
    Type outType = cast<RankedTensorType>(resultType).getElementType();
    if (amaxQuantize) {
      // The quantize's kernels with the GEMM in place of the amax kernel;
      // the product stays an internal buffer.
      Value d = flat(b, loc, alloc);
      if (failed(lowerQuantize(amaxQuantize, target, options, d,
                               [&](OpBuilder &qb, ValueRange amaxes) {
                                 plan = gpuk::emitGemm(
                                     qb, loc, kernelModule(op), operands,
                                     outType, bias, c, d, gemmOptions, nullptr,
                                     amaxes);
                               })))
        return failure();
      if (reportGemmPlans)
        emitRemark(loc) << "GEMM kernel plan: " << plan;
      op->erase();
      return success();
    }
    if (!amaxUses.empty()) {
      // A qs.amax's init kernel (zeroing the buffer), then the GEMM
      // max-combining max |D| into it.
      Value d = flat(b, loc, alloc);
      auto amaxType = RankedTensorType::get({1}, b.getF32Type());
      Value amax = newBuffer(b, loc, amaxType);
      Operation *first = amaxUses.front();
      QuantTensorType type =
          isa<AmaxOp>(first)
              ? cast<AmaxOp>(first).getQuantizedTensorType()
              : cast<QuantizeBuffersOp>(first).getQuantizedTensorType();
      gpuk::emitGlobalAmaxes(b, loc, kernelModule(op), type, target, d, amax,
                             options, [&](OpBuilder &ab, ValueRange amaxes) {
                               plan = gpuk::emitGemm(
                                   ab, loc, kernelModule(op), operands, outType,
                                   bias, c, d, gemmOptions, nullptr, amaxes);
                             });
      Value value = readBack(b, loc, amaxType, amax);
      for (Operation *use : amaxUses) {
        if (isa<AmaxOp>(use)) {
          use->replaceAllUsesWith(ValueRange{value});
          use->erase();
        } else {
          givenAmaxes[use] = value;
        }
      }
    } else {
      plan = gpuk::emitGemm(b, loc, kernelModule(op), operands, outType, bias,
                            c, flat(b, loc, alloc), gemmOptions);
    }
    if (reportGemmPlans) // At the GEMM's location, without the op's text.
      emitRemark(loc) << "GEMM kernel plan: " << plan;
    op->replaceAllUsesWith(ValueRange{readBack(b, loc, resultType, alloc)});
    op->erase();
    return success();
  }

  LogicalResult lowerDequantize(DequantizeBuffersOp op,
                                const TargetInfo &target,
                                const gpuk::EmitOptions &options) {
    QuantTensorType type = op.getQuantizedTensorType();
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> inner;
    for (Value v : op.getInputs())
      inner.push_back(flat(b, loc, bufferOf(b, loc, v)));
    Type resultType = op.getResult().getType();
    Value alloc = newBuffer(b, loc, resultType);
    gpuk::emitDequantize(b, loc, kernelModule(op), type, target, inner,
                         flat(b, loc, alloc), options);
    Value tensor = readBack(b, loc, resultType, alloc);
    op->replaceAllUsesWith(ValueRange{tensor});
    op->erase();
    return success();
  }

  /// qs.amax: the quantize's own amax kernels into a fresh buffer.
  void lowerAmax(AmaxOp op, const TargetInfo &target,
                 const gpuk::EmitOptions &options) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value x = flat(b, loc, bufferOf(b, loc, op.getInput()));
    Type resultType = op.getResult().getType();
    Value alloc = newBuffer(b, loc, resultType);
    gpuk::emitGlobalAmaxes(b, loc, kernelModule(op),
                           op.getQuantizedTensorType(), target, x, alloc,
                           options);
    op->replaceAllUsesWith(ValueRange{readBack(b, loc, resultType, alloc)});
    op->erase();
  }

  /// qs.bias_grad: chunk sums into a workspace, then column sums.
  void lowerBiasGrad(BiasGradOp op, const gpuk::EmitOptions &options) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value x = flat(b, loc, bufferOf(b, loc, op.getInput()));
    Flat2D shape =
        flatten2D(cast<RankedTensorType>(op.getInput().getType()).getShape());
    Type resultType = op.getResult().getType();
    Value alloc = newBuffer(b, loc, resultType);
    Value workspace = memref::AllocOp::create(
        b, loc,
        MemRefType::get({gpuk::biasGradWorkspaceSize(shape.m, shape.k)},
                        b.getF32Type()));
    gpuk::emitBiasGrad(b, loc, kernelModule(op), x, shape.m, shape.k, workspace,
                       flat(b, loc, alloc), options);
    op->replaceAllUsesWith(ValueRange{readBack(b, loc, resultType, alloc)});
    op->erase();
  }

  /// qs.amax_and_scale_update ops computed by one kernel (erased).
  DenseSet<Operation *> fusedScaleUpdates;

  /// The qs.amax_and_scale_update ops from `first` on that one kernel
  /// launched where the last of them is computes (TE's bulk launch): later
  /// ones in the same block while no result of the group is used before
  /// the next one (its computation moves to the launch) and the next one
  /// does not read one; at most kMaxBulkScaleUpdates (kernel parameters).
  static constexpr size_t kMaxBulkScaleUpdates = 32;
  SmallVector<AmaxAndScaleUpdateOp>
  scaleUpdateGroup(AmaxAndScaleUpdateOp first) {
    SmallVector<AmaxAndScaleUpdateOp> group = {first};
    DenseSet<Value> results(first->result_begin(), first->result_end());
    for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
      auto next = dyn_cast<AmaxAndScaleUpdateOp>(op);
      if (group.size() == kMaxBulkScaleUpdates)
        break;
      if (next && llvm::none_of(next->getOperands(),
                                [&](Value v) { return results.contains(v); })) {
        group.push_back(next);
        results.insert(next->result_begin(), next->result_end());
        continue;
      }
      // Any other op (or an update reading the group's results) that uses
      // a result ends the group.
      bool uses = false;
      op->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          uses |= results.contains(v);
      });
      if (uses)
        break;
    }
    return group;
  }

  /// A group of qs.amax_and_scale_update ops (scaleUpdateGroup): one
  /// kernel, one block per op, into fresh buffers, at the last op.
  void lowerAmaxAndScaleUpdates(SmallVector<AmaxAndScaleUpdateOp> group,
                                const gpuk::EmitOptions &options) {
    OpBuilder b(group.back());
    SmallVector<gpuk::ScaleUpdate> updates;
    SmallVector<Value> args;
    SmallVector<SmallVector<Value>> allocs;
    for (AmaxAndScaleUpdateOp op : group) {
      Location loc = op.getLoc();
      allocs.emplace_back();
      for (Value r : op.getResults()) {
        allocs.back().push_back(newBuffer(b, loc, r.getType()));
        args.push_back(allocs.back().back());
      }
      for (Value v : op.getOperands())
        args.push_back(bufferOf(b, loc, v));
      gpuk::ScaleUpdate update;
      update.length = op.getHistory().getType().getDimSize(0);
      update.maxOfHistory = op.getAmaxComputeAlgo() == "max";
      update.scaledMax = op.getScaledMax();
      update.givenAmax = static_cast<bool>(op.getAmax());
      updates.push_back(update);
    }
    Location loc = group.size() == 1
                       ? group.front().getLoc()
                       : b.getFusedLoc(llvm::to_vector(llvm::map_range(
                             group, [](AmaxAndScaleUpdateOp op) -> Location {
                               return op.getLoc();
                             })));
    gpuk::emitAmaxAndScaleUpdates(b, loc, kernelModule(group.front()), updates,
                                  args, options);
    for (auto [i, op] : llvm::enumerate(group)) {
      SmallVector<Value> results;
      for (auto [r, alloc] : llvm::zip(op->getResults(), allocs[i]))
        results.push_back(readBack(b, op->getLoc(), r.getType(), alloc));
      op->replaceAllUsesWith(results);
      fusedScaleUpdates.insert(op);
    }
    for (AmaxAndScaleUpdateOp op : group)
      op->erase();
  }

  LogicalResult lowerUpdateUsage(UpdateUsageBuffersOp op,
                                 const TargetInfo &target,
                                 const gpuk::EmitOptions &options) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> inputs, outs, allocs;
    for (Value v : op.getInputs())
      inputs.push_back(flat(b, loc, bufferOf(b, loc, v)));
    for (Value r : op.getResults()) {
      allocs.push_back(newBuffer(b, loc, r.getType()));
      outs.push_back(flat(b, loc, allocs.back()));
    }
    gpuk::emitUpdateUsage(b, loc, kernelModule(op), op.getSourceTensorType(),
                          op.getResultTensorType(), target, inputs, outs,
                          options);
    SmallVector<Value> tensors;
    for (auto [r, alloc] : llvm::zip_equal(op.getResults(), allocs))
      tensors.push_back(readBack(b, loc, r.getType(), alloc));
    op->replaceAllUsesWith(tensors);
    op->erase();
    return success();
  }
};
} // namespace
