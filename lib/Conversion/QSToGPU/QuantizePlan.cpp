//===- QuantizePlan.cpp - quantize kernel plans ---------------------------===//
//
// The plan of a quantize or dequantize: which buffers each representation
// writes, its block size and scale rule, and the index of every scale in the
// layout the quantizer names (compact, GEMM-ready or GEMM-swizzled;
// te-formats.md §2-§5). Also the kernels' support check and scratch.
//
//===----------------------------------------------------------------------===//

#include "QuantizePlan.h"
#include "../QSToLinalg/ReferenceBuilders.h"
#include "Kernels.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

//===----------------------------------------------------------------------===//
// Scale layouts
//===----------------------------------------------------------------------===//

/// cuBLAS 128x4 tiling of a [R, C] scale matrix (C % 4 == 0, te-formats.md
/// §3.b): G[i, j] with i = a*128 + bb*32 + c, j = d*4 + e lives at
/// ((a * C/4 + d) * 32 + c) * 16 + bb * 4 + e.
static Value swizzledIndex(KernelEnv &env, Value i, Value j, int64_t cols) {
  Value a = env.div(i, env.idx(128));
  Value bb = env.rem(env.div(i, env.idx(32)), env.idx(4));
  Value c = env.rem(i, env.idx(32));
  Value d = env.div(j, env.idx(4));
  Value e = env.rem(j, env.idx(4));
  Value tile = env.add(env.mul(a, env.idx(cols / 4)), d);
  Value inTile =
      env.add(env.mul(c, env.idx(16)), env.add(env.mul(bb, env.idx(4)), e));
  return env.add(env.mul(tile, env.idx(512)), inTile);
}

/// Row-major G of `cols` padded columns, optionally swizzled.
static std::function<Value(KernelEnv &, Value, Value)> gLayout(int64_t cols,
                                                               bool swizzled) {
  return [=](KernelEnv &env, Value r, Value j) -> Value {
    if (swizzled)
      return swizzledIndex(env, r, j, cols);
    return env.add(env.mul(r, env.idx(cols)), j);
  };
}

/// The transposed layout: block index major ([blocks, rows] row-major).
static std::function<Value(KernelEnv &, Value, Value)>
transposedLayout(int64_t rows) {
  return [=](KernelEnv &env, Value r, Value j) -> Value {
    return env.add(env.mul(j, env.idx(rows)), r);
  };
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

SmallVector<MemRefType> gpuk::quantizeScratch(QuantTensorType type,
                                              MLIRContext *ctx) {
  if (isa<Fp8CurrentAttr>(type.getQuantizer()))
    return {MemRefType::get({1}, Float32Type::get(ctx))};
  return {};
}

static int64_t elementsOf(const InnerTensor &t) {
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  return n;
}

Plan quant::makePlan(QuantTensorType type, const TargetInfo &target,
                     bool hasScale, bool hasAmaxIn, unsigned numScratch,
                     bool hasRng) {
  Plan p;
  Flat2D flat = flatten2D(type.getShape());
  p.m = flat.m;
  p.k = flat.k;
  p.nominal = type.getElementType();
  SmallVector<InnerTensor> inner = type.getInnerTensors(target);
  int next = 1;
  llvm::StringMap<int> argOf;
  for (const InnerTensor &t : inner)
    argOf[t.name] = next++;
  Attribute q = type.getQuantizer();
  if (isa<Fp8DelayedAttr>(q))
    p.amaxStateOutArg = next++;
  if (hasScale)
    p.scaleOperandArg = next++;
  if (hasAmaxIn)
    (isa<Fp8DelayedAttr>(q) ? p.amaxStateInArg : p.givenAmaxArg) = next++;
  if (hasRng)
    p.rngArg = next++;
  int scratchBase = next;
  (void)numScratch;
  auto arg = [&](StringRef name) {
    auto it = argOf.find(name);
    return it == argOf.end() ? -1 : it->second;
  };
  // Scale buffers with padding are zeroed first.
  auto zeroIfPadded = [&](StringRef name, int64_t realEntries) {
    for (const InnerTensor &t : inner)
      if (t.name == name && elementsOf(t) != realEntries)
        p.zeroArgs.push_back(arg(name));
  };
  int64_t m = p.m, k = p.k;

  // A block-scaled representation of `prefix` ("rowwise"/"columnwise") with
  // FP8 codes of `fp8`; fails (-1 dataArg) if the representation is absent.
  auto fp8BlockRep = [&](StringRef prefix, Type fp8, int64_t block,
                         ScaleKind kind) {
    Rep r;
    r.columnwise = prefix == "columnwise";
    r.block = block;
    r.kind = kind;
    r.format = *SmallFloatFormat::get(fp8);
    r.fp8Type = fp8;
    r.fp8Max = ref::fp8MaxOf(fp8);
    r.dataArg = arg((prefix + "_data").str());
    r.scaleArg = arg((prefix + "_scale_inv").str());
    return r;
  };
  // Per-tensor FP8: the codes of `data` (row-wise, or both usages on
  // non-TN chips) and `transpose`, one scale for the tensor.
  auto perTensor = [&](Type fp8) {
    p.fp8Max = ref::fp8MaxOf(fp8);
    for (auto [name, col] :
         {std::pair<StringRef, bool>{"data", false}, {"transpose", true}}) {
      if (arg(name) < 0)
        continue;
      Rep r;
      r.columnwise = col;
      r.format = *SmallFloatFormat::get(fp8);
      r.fp8Type = fp8;
      r.dataArg = arg(name);
      p.reps.push_back(r);
    }
    p.scaleInvArg = arg("scale_inv");
  };
  if (auto pt = dyn_cast<Fp8DelayedAttr>(q)) {
    p.delayed = true;
    perTensor(pt.getFp8Dtype());
  } else if (auto pt = dyn_cast<Fp8CurrentAttr>(q)) {
    p.current = true;
    perTensor(pt.getFp8Dtype());
    p.pow2 = pt.getForcePow_2Scales();
    p.epsilon = pt.getAmaxEpsilon().convertToFloat();
    p.amaxScratchArg = scratchBase;
    if (p.givenAmaxArg < 0) // else the init kernel copies the given amax
      p.zeroArgs.push_back(scratchBase);
    p.globalAmaxArgs.push_back(scratchBase);
  } else if (auto mx = dyn_cast<MXFP8Attr>(q)) {
    Type fp8 = mx.getFp8Dtype();
    bool swz = mx.getOptimizeForGemm();
    if (mx.getWith_2dQuantization())
      p.twoD = 32;
    for (bool col : {false, true}) {
      StringRef prefix = col ? "columnwise" : "rowwise";
      Rep r = fp8BlockRep(prefix, fp8, 32, ScaleKind::E8M0);
      if (r.dataArg < 0)
        continue;
      r.xLayout = col;
      int64_t rows = col ? k : m, blocks = (col ? m : k) / 32;
      if (swz || !col) {
        r.scaleIndex = gLayout(roundUp(blocks, 4), swz);
      } else {
        // Compact column-wise: [roundup(M/32, 4), roundup(K, 128)] holding
        // G^T.
        r.scaleIndex = transposedLayout(roundUp(k, 128));
      }
      zeroIfPadded((prefix + "_scale_inv").str(), rows * blocks);
      p.reps.push_back(r);
    }
  } else if (auto blk = dyn_cast<Fp8BlockAttr>(q)) {
    Type fp8 = blk.getFp8Dtype();
    for (bool col : {false, true}) {
      StringRef prefix = col ? "columnwise" : "rowwise";
      Rep r = fp8BlockRep(prefix, fp8, 128, ScaleKind::F32Block);
      if (r.dataArg < 0)
        continue;
      r.pow2 = blk.getForcePow_2Scales();
      r.epsilon = blk.getAmaxEpsilon().convertToFloat();
      r.valueForInf = ref::maxFiniteOf(p.nominal);
      int64_t rows = col ? k : m, cols = col ? m : k;
      if (blk.getBlockScalingDim() == 2) {
        // [row block, column block] of the stored matrix, columns padded.
        p.twoD = 128;
        int64_t stored = 0;
        for (const InnerTensor &t : inner)
          if (t.name == prefix.str() + "_scale_inv")
            stored = t.shape.back();
        r.scaleIndex = [=](KernelEnv &env, Value zr, Value j) -> Value {
          return env.add(env.mul(env.div(zr, env.idx(128)), env.idx(stored)),
                         j);
        };
        zeroIfPadded((prefix + "_scale_inv").str(),
                     ceilDiv(rows, 128) * ceilDiv(cols, 128));
      } else {
        // GEMM_READY: [ceil(cols / 128), roundup(rows, 4)].
        r.scaleIndex = transposedLayout(roundUp(rows, 4));
        zeroIfPadded((prefix + "_scale_inv").str(), rows * ceilDiv(cols, 128));
      }
      p.reps.push_back(r);
    }
  } else if (auto nv = dyn_cast<NVFP4Attr>(q)) {
    bool swz = nv.getOptimizeForGemm();
    if (nv.getWith_2dQuantization())
      p.twoD = 16;
    p.rowScaled = nv.getRowScaledNvfp4();
    for (bool col : {false, true}) {
      StringRef prefix = col ? "columnwise" : "rowwise";
      int data = arg((prefix + "_data").str());
      if (data < 0)
        continue;
      Rep r;
      r.columnwise = col;
      r.block = 16;
      r.kind = ScaleKind::NVFP4;
      r.fp4 = true;
      r.format = SmallFloatFormat::e2m1();
      r.dataArg = data;
      r.scaleArg = arg((prefix + "_scale_inv").str());
      r.amaxArg = arg(col ? "amax_columnwise" : "amax_rowwise");
      r.rowScaled = p.rowScaled;
      r.rht = col && nv.getWithRht();
      r.stochastic = nv.getStochasticRounding();
      r.e4m3Max = nv.getNvfp4E4m3Max();
      r.fourOverSix = nv.getNvfp4Use_4over6();
      r.mse = nv.getNvfp4_4over6ErrMode() == "MSE";
      int64_t rows = col ? k : m, blocks = (col ? m : k) / 16;
      r.scaleIndex = gLayout(roundUp(blocks, 4), swz);
      zeroIfPadded((prefix + "_scale_inv").str(), rows * blocks);
      if (p.givenAmaxArg < 0) // else the init kernel copies the given amax
        p.zeroArgs.push_back(r.amaxArg);
      if (r.rht) {
        p.rhtAmaxArg = r.amaxArg;
        p.rhtSignMask = *nv.getColumnwiseRhtSignMask();
      } else if (!p.rowScaled)
        p.globalAmaxArgs.push_back(r.amaxArg);
      else if (col)
        p.colAmaxArg = r.amaxArg;
      else
        p.rowAmaxArg = r.amaxArg;
      p.reps.push_back(r);
    }
  }
  return p;
}
