//===- QuantizeKernels.cpp - tiled quantize kernels -----------------------===//
//
// One design for every family (te-formats.md §2-§5, numerics identical to
// the reference lowering): a kernel block owns a TR x TC tile of the 2-D
// input x [M, K], reads it once from global memory with vector loads into
// shared memory, then each thread owns whole scaling blocks of each
// representation:
//   row-wise    z = x,   blocks 1 x B of a tile row, codes stored row-major;
//   column-wise z = x^T, blocks B x 1 of a tile column, codes stored
//               transposed ([K, M]) or, for MXFP8, in x's layout.
// A thread computes its block's amax (reading shared memory), the scale by
// the family's rule, writes the scale at its place in the scale layout, and
// converts and stores its codes 16 at a time.
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "KernelBuilder.h"
#include "Kernels.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cfloat>

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;

namespace {
enum class ScaleKind { PerTensor, E8M0, F32Block, NVFP4 };

/// One representation written by the cast kernel.
struct Rep {
  bool columnwise = false; // z = x^T
  bool xLayout = false;    // column-wise codes kept in x's layout (MXFP8)
  int64_t block = 16;      // B
  ScaleKind kind = ScaleKind::PerTensor;
  bool fp4 = false;
  SmallFloatFormat format = SmallFloatFormat::e4m3();
  Type fp8Type;
  int dataArg = -1, scaleArg = -1, amaxArg = -1;
  /// Scale layout: (z row, block index along the z row) -> element index.
  std::function<Value(KernelEnv &, Value, Value)> scaleIndex;
  float fp8Max = 448.0f, epsilon = 0.0f, valueForInf = FLT_MAX;
  bool pow2 = false;
  /// NVFP4 row-scaled: the global amax is per z row (amaxArg is a vector).
  bool rowScaled = false;
  /// NVFP4 column-wise with RHT: z = bf16(RHT(x^T)), 16-row chunks.
  bool rht = false;
};

/// Everything the kernels of one quantize need; argument indices refer to
/// the launch's memref list.
struct Plan {
  int64_t m = 0, k = 0;
  Type nominal;
  SmallVector<Rep> reps;
  bool delayed = false, current = false;
  int xArg = 0, scaleOperandArg = -1, amaxStateInArg = -1,
      amaxStateOutArg = -1, scaleInvArg = -1, amaxScratchArg = -1;
  /// Buffers the init kernel zeroes (every element), and the amax buffers the
  /// amax kernel max-reduces into.
  SmallVector<int> zeroArgs, globalAmaxArgs;
  /// 2-D quantization: the side of the square blocks (0 for 1-D).
  int64_t twoD = 0;
  /// Row-scaled NVFP4: the per-row amax buffers of the row-wise and the
  /// column-wise representation (-1 if absent).
  bool rowScaled = false;
  int rowAmaxArg = -1, colAmaxArg = -1;
  /// RHT: the column-wise amax buffer (max |RHT(x^T)|), else -1.
  int rhtAmaxArg = -1;
  float fp8Max = 448.0f, epsilon = 0.0f;
  bool pow2 = false;
};
} // namespace

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
  Value inTile = env.add(env.mul(c, env.idx(16)),
                         env.add(env.mul(bb, env.idx(4)), e));
  return env.add(env.mul(tile, env.idx(512)), inTile);
}

/// Row-major G of `cols` padded columns, optionally swizzled.
static std::function<Value(KernelEnv &, Value, Value)>
gLayout(int64_t cols, bool swizzled) {
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

LogicalResult
gpuk::checkKernelSupport(QuantTensorType type,
                         function_ref<InFlightDiagnostic()> emitError) {
  Attribute q = type.getQuantizer();
  auto unsupported = [&](StringRef what) {
    return emitError() << "convert-qs-to-gpu: " << what
                       << " is not supported by the GPU kernels yet (the "
                          "reference lowering convert-qs-to-linalg has it)";
  };
  if (auto blk = dyn_cast<Fp8BlockAttr>(q);
      blk && blk.getBlockScalingDim() == 2 && type.getElementType().isF32())
    return unsupported("FP8 block scaling with 128x128 blocks of f32 input "
                       "(a 128x128 f32 tile exceeds 48 KiB of static shared "
                       "memory)");
  if (auto nv = dyn_cast<NVFP4Attr>(q)) {
    if (nv.getWithRht() && nv.getWith_2dQuantization())
      return unsupported("NVFP4 with both the random Hadamard transform and "
                         "2-D quantization");
    if (nv.getStochasticRounding())
      return unsupported("NVFP4 stochastic rounding");
  }
  return success();
}

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

/// Builds the plan; outs start at argument 1 (after x), then the optional
/// delayed scale and amax state, then scratch.
static Plan makePlan(QuantTensorType type, const TargetInfo &target,
                     bool hasScale, bool hasAmaxIn, unsigned numScratch) {
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
    p.amaxStateInArg = next++;
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
    for (auto [name, col] : {std::pair<StringRef, bool>{"data", false},
                             {"transpose", true}}) {
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
        zeroIfPadded((prefix + "_scale_inv").str(),
                     rows * ceilDiv(cols, 128));
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
      int64_t rows = col ? k : m, blocks = (col ? m : k) / 16;
      r.scaleIndex = gLayout(roundUp(blocks, 4), swz);
      zeroIfPadded((prefix + "_scale_inv").str(), rows * blocks);
      p.zeroArgs.push_back(r.amaxArg);
      if (r.rht)
        p.rhtAmaxArg = r.amaxArg;
      else if (!p.rowScaled)
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

//===----------------------------------------------------------------------===//
// Kernel pieces
//===----------------------------------------------------------------------===//

static Value load1(KernelEnv &env, Value buf, Value i) {
  return memref::LoadOp::create(env.b, env.loc, buf, ValueRange{i});
}
static void store1(KernelEnv &env, Value v, Value buf, Value i) {
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  if (v.getType() != elt)
    v = arith::BitcastOp::create(env.b, env.loc, elt, v);
  memref::StoreOp::create(env.b, env.loc, v, buf, ValueRange{i});
}

/// Stores i8 `bytes` at element `i` of `buf` (8-bit elements): one vector
/// store when `aligned`, else byte stores, each guarded by `i + n < limit`
/// when `limit` is set.
static void storeBytes(KernelEnv &env, ArrayRef<Value> bytes, Value buf,
                       Value i, bool aligned, std::optional<int64_t> limit) {
  OpBuilder &b = env.b;
  Type elt = cast<MemRefType>(buf.getType()).getElementType();
  int64_t n = bytes.size();
  if (aligned && !limit) {
    Value v = vector::FromElementsOp::create(
        b, env.loc, VectorType::get({n}, b.getI8Type()), bytes);
    if (!elt.isInteger(8))
      v = arith::BitcastOp::create(b, env.loc, VectorType::get({n}, elt), v);
    vector::StoreOp::create(b, env.loc, v, buf, ValueRange{i},
                            /*nontemporal=*/false, llvm::MaybeAlign(n));
    return;
  }
  for (int64_t t = 0; t < n; ++t) {
    Value at = env.add(i, env.idx(t));
    if (limit)
      env.ifThen(env.lt(at, env.idx(*limit)),
                 [&] { store1(env, bytes[t], buf, at); });
    else
      store1(env, bytes[t], buf, at);
  }
}

/// Encodes 16 (FP8) or 16 (FP4, packed into 8 bytes) f32 values.
static SmallVector<Value> encode(KernelEnv &env, const Rep &r,
                                 ArrayRef<Value> values) {
  SmallVector<Value> bytes;
  OpBuilder &b = env.b;
  Type i8 = b.getI8Type();
  for (size_t t = 0; t + 1 < values.size(); t += 2) {
    if (r.fp4 && env.gpu && env.hardwareMx) {
      // cvt.rn.satfinite.e2m1x2.f32 d, a, b: a in the upper nibble. TE's
      // conversion on Blackwell (te-formats.md e2m1_rn_sat); the software
      // path below gives the same codes for every finite input.
      bytes.push_back(NVVM::ConvertF32x2ToF4x2Op::create(
          b, env.loc, i8, values[t + 1], values[t], /*relu=*/false,
          b.getType<Float4E2M1FNType>()));
      continue;
    }
    if (r.fp4) {
      Value lo = emitEncodeF32(b, env.loc, values[t], r.format);
      Value hi = emitEncodeF32(b, env.loc, values[t + 1], r.format);
      Value shifted = arith::ShLIOp::create(
          b, env.loc, hi, arith::ConstantIntOp::create(b, env.loc, i8, 4));
      bytes.push_back(arith::OrIOp::create(b, env.loc, lo, shifted));
      continue;
    }
    auto [lo, hi] =
        env.encodeFp8Pair(values[t], values[t + 1], r.format, r.fp8Type);
    bytes.push_back(lo);
    bytes.push_back(hi);
  }
  return bytes;
}

/// The per-tensor scale (delayed: the operand; current: from the amax).
static Value perTensorScale(KernelEnv &env, const Plan &p) {
  Value zero = env.idx(0);
  if (p.delayed)
    return load1(env, env.args[p.scaleOperandArg], zero);
  Value amax = load1(env, env.args[p.amaxScratchArg], zero);
  return ref::computeScaleFromAmax(env.b, env.loc, amax, p.fp8Max, p.pow2,
                                   p.epsilon, FLT_MAX);
}

/// Computes the scale of one block from its amax, stores it, and returns
/// the multiplier applied to the block's values before conversion.
static Value blockScale(KernelEnv &env, const Plan &p, const Rep &r,
                        Value amax, Value zRow, Value zBlock,
                        Value tensorScale) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  switch (r.kind) {
  case ScaleKind::PerTensor:
    return tensorScale;
  case ScaleKind::E8M0: {
    Value pScaled =
        arith::MulFOp::create(b, loc, amax, env.f32(1.0f / r.fp8Max));
    // TE's float_to_e8m0: cvt.rp.satfinite.ue8m0x2.f32 on Blackwell (low
    // byte: the second operand); elsewhere the integer path, which the
    // spec gives the same result for every input, specials included.
    Value e;
    if (env.gpu && env.hardwareMx) {
      MLIRContext *ctx = b.getContext();
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          b, loc, b.getI16Type(), pScaled, pScaled,
          NVVM::FPRoundingModeAttr::get(ctx, NVVM::FPRoundingMode::RP),
          NVVM::SaturationModeAttr::get(ctx, NVVM::SaturationMode::SATFINITE),
          b.getBoolAttr(false), TypeAttr::get(b.getType<Float8E8M0FNUType>()));
      e = arith::TruncIOp::create(b, loc, b.getI8Type(), pair);
    } else {
      e = emitE8M0Ceil(b, loc, pScaled);
    }
    store1(env, e, env.args[r.scaleArg], r.scaleIndex(env, zRow, zBlock));
    return emitE8M0ReciprocalToF32(b, loc, e);
  }
  case ScaleKind::F32Block: {
    Value s = ref::computeScaleFromAmax(b, loc, amax, r.fp8Max, r.pow2,
                                        r.epsilon, r.valueForInf);
    Value inv = arith::DivFOp::create(b, loc, env.f32(1.0f), s);
    store1(env, inv, env.args[r.scaleArg], r.scaleIndex(env, zRow, zBlock));
    return s;
  }
  case ScaleKind::NVFP4: {
    Value g = load1(env, env.args[r.amaxArg], r.rowScaled ? zRow : env.idx(0));
    Value sEnc = ref::nvfp4GlobalEncodeScale(b, loc, g);
    Value factor = arith::MulFOp::create(b, loc, sEnc, env.f32(1.0f / 6.0f));
    Value v = arith::MulFOp::create(b, loc, amax, factor);
    v = arith::MinNumFOp::create(b, loc, v, env.f32(FLT_MAX));
    SmallFloatFormat e4m3 = SmallFloatFormat::e4m3();
    Value sf = emitEncodeF32(b, loc, v, e4m3);
    store1(env, sf, env.args[r.scaleArg], r.scaleIndex(env, zRow, zBlock));
    Value sDec = arith::DivFOp::create(b, loc, env.f32(1.0f), sEnc);
    Value prod = arith::MulFOp::create(
        b, loc, emitDecodeToF32(b, loc, sf, e4m3), sDec);
    Value inv = arith::DivFOp::create(b, loc, env.f32(1.0f), prod);
    return arith::MinNumFOp::create(b, loc, inv, env.f32(FLT_MAX));
  }
  }
  llvm_unreachable("scale kind");
}

namespace {
/// The cast kernel's tile geometry.
struct Tile {
  int64_t rows, cols, ld, vec, elemBytes;
  int64_t tilesPerRow, grid;
  /// Block b takes tile grid - 1 - b: a pass over x that follows another
  /// (the amax pass of current scaling / NVFP4, or the first of two cast
  /// kernels) starts where that one ended, whose data L2 still holds (50
  /// MB on H100/H200: all of a 4096 x 4096 bf16 input).
  bool reversed = false;
  /// Shared buffers besides the tile (index 0): delayed-scaling amax slots,
  /// x-layout multipliers, 2-D segment and block amaxes (-1 if absent).
  int slots = -1, mults = -1, segAmax = -1, blockAmax = -1;
};
} // namespace

/// (tile row, tile column) of the block's tile.
static std::pair<Value, Value> tileCoords(KernelEnv &env, const Tile &t) {
  Value tile = env.blockId;
  if (t.reversed)
    tile = arith::SubIOp::create(env.b, env.loc, env.idx(t.grid - 1), tile);
  return {env.div(tile, env.idx(t.tilesPerRow)),
          env.rem(tile, env.idx(t.tilesPerRow))};
}

static int64_t vectorWidth(int64_t k, int64_t elemBytes) {
  int64_t vec = 16 / elemBytes;
  while (vec > 1 && k % vec != 0)
    vec /= 2;
  return vec;
}

static Tile makeTile(const Plan &p, ArrayRef<const Rep *> reps) {
  Tile t;
  t.elemBytes = p.nominal.getIntOrFloatBitWidth() / 8;
  t.rows = 64;
  t.cols = 64;
  bool row = false, col = false;
  for (const Rep *r : reps) {
    if (r->columnwise) {
      col = true;
      t.rows = std::max(t.rows, r->block);
    } else {
      row = true;
      t.cols = std::max(t.cols, r->block);
    }
  }
  if (p.twoD) {
    t.rows = std::max<int64_t>(64, p.twoD);
    t.cols = std::max<int64_t>(64, p.twoD);
  }
  t.vec = vectorWidth(p.k, t.elemBytes);
  t.ld = t.cols + 16 / t.elemBytes;
  if (t.rows * t.ld * t.elemBytes > 48 * 1024) {
    // Single-representation kernels only (see emitQuantize).
    if (!col)
      t.rows = 32;
    if (!row)
      t.cols = 32;
    t.ld = t.cols + 16 / t.elemBytes;
  }
  t.tilesPerRow = ceilDiv(p.k, t.cols);
  t.grid = ceilDiv(p.m, t.rows) * t.tilesPerRow;
  return t;
}

/// Reads n consecutive tile elements from shared memory at `offset`
/// (a multiple of `vec`) as f32.
static SmallVector<Value> readRow(KernelEnv &env, const Tile &t, Value smem,
                                  Value offset, int64_t n, Type nominal) {
  SmallVector<Value> values;
  int64_t vec = std::min<int64_t>(t.vec, n);
  for (int64_t c = 0; c < n; c += vec) {
    Value at = env.add(offset, env.idx(c));
    if (vec == 1) {
      values.push_back(env.toF32(load1(env, smem, at)));
      continue;
    }
    Value v = vector::LoadOp::create(env.b, env.loc,
                                     VectorType::get({vec}, nominal), smem,
                                     ValueRange{at}, false,
                                     llvm::MaybeAlign(vec * t.elemBytes));
    for (int64_t e = 0; e < vec; ++e)
      values.push_back(env.toF32(
          vector::ExtractOp::create(env.b, env.loc, v, ArrayRef<int64_t>{e})));
  }
  return values;
}

/// Phase 1: the tile into shared memory (zeros outside the tensor); for
/// delayed scaling, the running amax of the thread into `slots`.
static void loadTilePhase(KernelEnv &env, const Plan &p, const Tile &t) {
  OpBuilder &b = env.b;
  Value x = env.args[p.xArg], smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perRow = t.cols / t.vec;
  VectorType vt = VectorType::get({t.vec}, p.nominal);
  if (p.delayed)
    store1(env, env.f32(0.0f), env.shared[t.slots], env.threadId);
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value r = env.div(u, env.idx(perRow));
    Value cv = env.rem(u, env.idx(perRow));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), r);
    Value gc = env.add(env.mul(tileCol, env.idx(t.cols)),
                       env.mul(cv, env.idx(t.vec)));
    Value inBounds =
        env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    Value dst = env.add(env.mul(r, env.idx(t.ld)), env.mul(cv, env.idx(t.vec)));
    auto ifOp = scf::IfOp::create(b, env.loc, vt, inBounds, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value src = env.add(env.mul(gr, env.idx(p.k)), gc);
      Value v = vector::LoadOp::create(b, env.loc, vt, x, ValueRange{src},
                                       false,
                                       llvm::MaybeAlign(t.vec * t.elemBytes));
      scf::YieldOp::create(b, env.loc, v);
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value zero = arith::ConstantOp::create(
          b, env.loc, vt, DenseElementsAttr::get(vt, b.getFloatAttr(p.nominal, 0.0)));
      scf::YieldOp::create(b, env.loc, zero);
    }
    Value v = ifOp.getResult(0);
    vector::StoreOp::create(b, env.loc, v, smem, ValueRange{dst}, false,
                            llvm::MaybeAlign(t.vec * t.elemBytes));
    if (p.delayed) {
      Value slot = load1(env, env.shared[t.slots], env.threadId);
      for (int64_t e = 0; e < t.vec; ++e)
        slot = env.absMax(slot, env.toF32(vector::ExtractOp::create(
                                    b, env.loc, v, ArrayRef<int64_t>{e})));
      store1(env, slot, env.shared[t.slots], env.threadId);
    }
  });
}

/// Stores the codes of 16 consecutive elements, starting at element `first`
/// of a z row that begins at element `rowStart` and has `rowLength`
/// elements: one 16-byte (FP8) or 8-byte (packed FP4) vector store when the
/// chunk lies inside the row and the row length keeps it aligned, else byte
/// stores of the elements inside the row.
static void storeChunk(KernelEnv &env, ArrayRef<Value> bytes, Value buf,
                       Value rowStart, Value first, int64_t rowLength,
                       bool fp4, bool alwaysInside) {
  auto vectorStore = [&] {
    Value at = env.add(rowStart, first);
    if (fp4)
      at = env.div(at, env.idx(2));
    storeBytes(env, bytes, buf, at, /*aligned=*/true, std::nullopt);
  };
  auto byteStores = [&] {
    for (int64_t e = 0; e < static_cast<int64_t>(bytes.size()); ++e) {
      Value element = env.add(first, env.idx(fp4 ? 2 * e : e));
      env.ifThen(env.lt(element, env.idx(rowLength)), [&] {
        Value at = env.add(rowStart, element);
        if (fp4)
          at = env.div(at, env.idx(2));
        store1(env, bytes[e], buf, at);
      });
    }
  };
  if (rowLength % 16 != 0) {
    // Unaligned rows: vector stores would be misaligned.
    byteStores();
    return;
  }
  if (alwaysInside) {
    vectorStore();
    return;
  }
  Value inside = arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::ule,
                                       env.add(first, env.idx(16)),
                                       env.idx(rowLength));
  env.ifThenElse(inside, vectorStore, byteStores);
}

/// NVFP4's RHT of one 16-element chunk of a column: z[j] = bf16(sum_r x[r]
/// R[r][j]), summed in f32 from +0 in order r = 0..15 (the reference's
/// order; the products x * (+-1/4) are exact, so a fused multiply-add gives
/// the same sums).
static SmallVector<Value> rht16(KernelEnv &env, ArrayRef<Value> x) {
  SmallVector<Value> z;
  SmallFloatFormat bf16 = SmallFloatFormat::bf16();
  for (int j = 0; j < 16; ++j) {
    Value sum = env.f32(0.0f);
    for (int r = 0; r < 16; ++r) {
      Value product = arith::MulFOp::create(env.b, env.loc, x[r],
                                            env.f32(ref::nvfp4RHTEntry(r, j)));
      sum = arith::AddFOp::create(env.b, env.loc, sum, product);
    }
    z.push_back(emitRoundToFormat(env.b, env.loc, sum, bf16));
  }
  return z;
}

/// Row-wise blocks (1 x B) of the tile.
static void rowwisePhase(KernelEnv &env, const Plan &p, const Tile &t,
                         const Rep &r) {
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perRow = t.cols / r.block;
  Value tensorScale =
      r.kind == ScaleKind::PerTensor ? perTensorScale(env, p) : Value();
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value row = env.div(u, env.idx(perRow));
    Value j = env.rem(u, env.idx(perRow));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
    Value gBlock = env.add(env.mul(tileCol, env.idx(perRow)), j);
    Value gc = env.mul(gBlock, env.idx(r.block));
    Value valid = env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    env.ifThen(valid, [&] {
      Value base = env.add(env.mul(row, env.idx(t.ld)),
                           env.mul(j, env.idx(r.block)));
      Value amax;
      if (p.twoD) {
        // The 2-D block's amax (blockAmaxPhase).
        Value bi = env.div(row, env.idx(p.twoD));
        amax = load1(env, env.shared[t.blockAmax],
                     env.add(env.mul(bi, env.idx(t.cols / p.twoD)), j));
      } else if (r.kind != ScaleKind::PerTensor) {
        // A loop over 16-element chunks (not unrolled here: a 128-long
        // block would otherwise keep 128 values live).
        int64_t chunk = std::min<int64_t>(16, r.block);
        amax = env.loopReduce(
            r.block / chunk, env.f32(0.0f), [&](Value i, Value acc) {
              Value at = env.add(base, env.mul(i, env.idx(chunk)));
              for (Value v : readRow(env, t, smem, at, chunk, p.nominal))
                acc = env.absMax(acc, v);
              return acc;
            });
      }
      Value mult = blockScale(env, p, r, amax, gr, gBlock, tensorScale);
      for (int64_t c = 0; c < r.block; c += 16) {
        SmallVector<Value> values =
            readRow(env, t, smem, env.add(base, env.idx(c)), 16, p.nominal);
        for (Value &v : values)
          v = arith::MulFOp::create(env.b, env.loc, v, mult);
        SmallVector<Value> bytes = encode(env, r, values);
        Value at = env.add(env.mul(gr, env.idx(p.k)), env.add(gc, env.idx(c)));
        if (r.fp4)
          at = env.div(at, env.idx(2));
        // z row `gr`, elements gc + c ...: whole 16-element chunks go out
        // with one vector store; a chunk crossing the row's end (partial
        // blocks of unaligned shapes) byte by byte.
        storeChunk(env, bytes, env.args[r.dataArg], env.mul(gr, env.idx(p.k)),
                   env.add(gc, env.idx(c)), p.k, r.fp4, p.k % r.block == 0);
      }
    });
  });
}

/// Column-wise blocks (B x 1) of the tile.
static void columnwisePhase(KernelEnv &env, const Plan &p, const Tile &t,
                            const Rep &r) {
  Value smem = env.shared[0];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t perCol = t.rows / r.block;
  Value tensorScale =
      r.kind == ScaleKind::PerTensor ? perTensorScale(env, p) : Value();
  env.forEachUnit(t.cols * perCol, [&](Value u) {
    Value c = env.rem(u, env.idx(t.cols));
    Value i = env.div(u, env.idx(t.cols));
    Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
    Value gBlock = env.add(env.mul(tileRow, env.idx(perCol)), i);
    Value gr0 = env.mul(gBlock, env.idx(r.block));
    Value valid =
        env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m)));
    env.ifThen(valid, [&] {
      auto element = [&](int64_t rr) {
        Value at = env.add(
            env.mul(env.add(env.mul(i, env.idx(r.block)), env.idx(rr)),
                    env.idx(t.ld)),
            c);
        return env.toF32(load1(env, smem, at));
      };
      SmallVector<Value> transformed;
      if (r.rht) {
        SmallVector<Value> xs;
        for (int64_t rr = 0; rr < 16; ++rr)
          xs.push_back(element(rr));
        transformed = rht16(env, xs);
      }
      auto value = [&](int64_t rr) {
        return r.rht ? transformed[rr] : element(rr);
      };
      Value amax;
      if (p.twoD) {
        Value bj = env.div(c, env.idx(p.twoD));
        amax = load1(env, env.shared[t.blockAmax],
                     env.add(env.mul(i, env.idx(t.cols / p.twoD)), bj));
      } else if (r.kind != ScaleKind::PerTensor && r.rht) {
        amax = env.f32(0.0f);
        for (int64_t rr = 0; rr < r.block; ++rr)
          amax = env.absMax(amax, value(rr));
      } else if (r.kind != ScaleKind::PerTensor) {
        // A loop over 16-row chunks (see rowwisePhase).
        int64_t chunk = std::min<int64_t>(16, r.block);
        amax = env.loopReduce(
            r.block / chunk, env.f32(0.0f), [&](Value ci, Value acc) {
              for (int64_t rr = 0; rr < chunk; ++rr) {
                Value row = env.add(
                    env.mul(i, env.idx(r.block)),
                    env.add(env.mul(ci, env.idx(chunk)), env.idx(rr)));
                acc = env.absMax(
                    acc, env.toF32(load1(
                             env, smem,
                             env.add(env.mul(row, env.idx(t.ld)), c))));
              }
              return acc;
            });
      }
      Value mult = blockScale(env, p, r, amax, gc, gBlock, tensorScale);
      if (r.xLayout) {
        // Codes in x's layout are written row by row by xLayoutEncodePhase.
        store1(env, mult, env.shared[t.mults],
               env.add(env.mul(i, env.idx(t.cols)), c));
        return;
      }
      for (int64_t c0 = 0; c0 < r.block; c0 += 16) {
        SmallVector<Value> values;
        for (int64_t rr = 0; rr < 16; ++rr)
          values.push_back(
              arith::MulFOp::create(env.b, env.loc, value(c0 + rr), mult));
        SmallVector<Value> bytes = encode(env, r, values);
        // Transposed: z[gc, gr0 + c0 ...] at gc * M + gr0 + c0.
        storeChunk(env, bytes, env.args[r.dataArg], env.mul(gc, env.idx(p.m)),
                   env.add(gr0, env.idx(c0)), p.m, r.fp4, p.m % r.block == 0);
      }
    });
  });
}

/// Column-wise codes kept in x's layout (MXFP8): after columnwisePhase left
/// each block's multiplier in shared memory, each thread converts 16
/// consecutive elements of a tile row and stores them with one 16-byte store.
static void xLayoutEncodePhase(KernelEnv &env, const Plan &p, const Tile &t,
                               const Rep &r) {
  Value smem = env.shared[0], mults = env.shared[t.mults];
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  int64_t groups = t.cols / 16;
  env.forEachUnit(t.rows * groups, [&](Value u) {
    Value row = env.div(u, env.idx(groups));
    Value g = env.rem(u, env.idx(groups));
    Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
    Value gc = env.add(env.mul(tileCol, env.idx(t.cols)),
                       env.mul(g, env.idx(16)));
    Value valid = env.land(env.lt(gr, env.idx(p.m)), env.lt(gc, env.idx(p.k)));
    env.ifThen(valid, [&] {
      SmallVector<Value> values = readRow(
          env, t, smem,
          env.add(env.mul(row, env.idx(t.ld)), env.mul(g, env.idx(16))), 16,
          p.nominal);
      Value multRow = env.mul(env.div(row, env.idx(r.block)), env.idx(t.cols));
      for (auto [e, v] : llvm::enumerate(values)) {
        Value m = load1(env, mults,
                        env.add(multRow, env.add(env.mul(g, env.idx(16)),
                                                 env.idx(e))));
        v = arith::MulFOp::create(env.b, env.loc, v, m);
      }
      SmallVector<Value> bytes = encode(env, r, values);
      storeBytes(env, bytes, env.args[r.dataArg],
                 env.add(env.mul(gr, env.idx(p.k)), gc),
                 /*aligned=*/p.k % 16 == 0, std::nullopt);
    });
  });
}

/// 2-D quantization, step 1: the amax of every 1 x B row segment of the
/// tile.
static void segmentAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  int64_t perRow = t.cols / p.twoD;
  env.forEachUnit(t.rows * perRow, [&](Value u) {
    Value row = env.div(u, env.idx(perRow));
    Value j = env.rem(u, env.idx(perRow));
    Value amax = env.f32(0.0f);
    Value base = env.add(env.mul(row, env.idx(t.ld)),
                         env.mul(j, env.idx(p.twoD)));
    for (Value v : readRow(env, t, env.shared[0], base, p.twoD, p.nominal))
      amax = env.absMax(amax, v);
    store1(env, amax, env.shared[t.segAmax], u);
  });
}

/// 2-D quantization, step 2: the amax of every B x B block (elements
/// outside the tensor are zeros in the tile).
static void blockAmaxPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  int64_t perRow = t.cols / p.twoD;
  env.forEachUnit((t.rows / p.twoD) * perRow, [&](Value u) {
    Value bi = env.div(u, env.idx(perRow));
    Value bj = env.rem(u, env.idx(perRow));
    Value amax = env.f32(0.0f);
    for (int64_t rr = 0; rr < p.twoD; ++rr) {
      Value row = env.add(env.mul(bi, env.idx(p.twoD)), env.idx(rr));
      amax = arith::MaxNumFOp::create(
          env.b, env.loc, amax,
          load1(env, env.shared[t.segAmax],
                env.add(env.mul(row, env.idx(perRow)), bj)));
    }
    store1(env, amax, env.shared[t.blockAmax], u);
  });
}

/// Block 0, thread 0 writes the per-tensor scale_inv.
static void scaleInvPhase(KernelEnv &env, const Plan &p) {
  Value first = env.land(
      arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                            env.blockId, env.idx(0)),
      arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                            env.threadId, env.idx(0)));
  env.ifThen(first, [&] {
    Value s = perTensorScale(env, p);
    store1(env, arith::DivFOp::create(env.b, env.loc, env.f32(1.0f), s),
           env.args[p.scaleInvArg], env.idx(0));
  });
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

static int64_t numElements(Value buf) {
  return cast<MemRefType>(buf.getType()).getNumElements();
}

/// Zeroes `zeroArgs` and copies the delayed amax state.
static KernelDesc initKernel(const Plan &p, ValueRange args) {
  KernelDesc d;
  d.name = "qs_quantize_init";
  int64_t perBlock = d.threads * 16, largest = 1;
  for (int a : p.zeroArgs)
    largest = std::max(largest, numElements(args[a]));
  d.gridSize = ceilDiv(largest, perBlock);
  d.phases.push_back([p, perBlock, args](KernelEnv &env) {
    for (int a : p.zeroArgs) {
      int64_t n = numElements(args[a]);
      Type elt = cast<MemRefType>(args[a].getType()).getElementType();
      // All-zero bits (E8M0 has no zero value; its 0x00 is 2^-127).
      Type bits = env.b.getIntegerType(elt.getIntOrFloatBitWidth());
      Value zero = arith::ConstantOp::create(env.b, env.loc,
                                             env.b.getIntegerAttr(bits, 0));
      env.forEachUnit(perBlock, [&](Value u) {
        Value at = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
        env.ifThen(env.lt(at, env.idx(n)), [&] {
          store1(env, zero, env.args[a], at);
        });
      });
    }
    if (p.amaxStateOutArg >= 0) {
      Value first = env.land(
          arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                env.blockId, env.idx(0)),
          arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                env.threadId, env.idx(0)));
      env.ifThen(first, [&] {
        // max(state, amax) with amax >= +0 equals max(state', amax) for
        // state' = state if state > 0 else +0 (NaN too: maxnum ignores it),
        // and state' is what the unsigned-integer atomic max can combine.
        Value old = load1(env, env.args[p.amaxStateInArg], env.idx(0));
        Value positive = arith::CmpFOp::create(
            env.b, env.loc, arith::CmpFPredicate::OGT, old, env.f32(0.0f));
        old = arith::SelectOp::create(env.b, env.loc, positive, old,
                                      env.f32(0.0f));
        store1(env, old, env.args[p.amaxStateOutArg], env.idx(0));
      });
    }
  });
  return d;
}

/// max |x| into every buffer of `globalAmaxArgs`.
static KernelDesc amaxKernel(const Plan &p) {
  KernelDesc d;
  d.name = "qs_quantize_amax";
  int64_t elemBytes = p.nominal.getIntOrFloatBitWidth() / 8;
  int64_t vec = vectorWidth(p.k, elemBytes);
  int64_t vectors = p.m * p.k / vec, perThread = 8;
  int64_t perBlock = d.threads * perThread;
  d.gridSize = ceilDiv(vectors, perBlock);
  d.shared.push_back(MemRefType::get({d.threads}, Float32Type::get(
                                                      p.nominal.getContext())));
  d.phases.push_back([p, vec, vectors, perBlock](KernelEnv &env) {
    Value slots = env.shared[0];
    store1(env, env.f32(0.0f), slots, env.threadId);
    VectorType vt = VectorType::get({vec}, p.nominal);
    env.forEachUnit(perBlock, [&](Value u) {
      Value v = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(v, env.idx(vectors)), [&] {
        Value loaded = vector::LoadOp::create(
            env.b, env.loc, vt, env.args[p.xArg],
            ValueRange{env.mul(v, env.idx(vec))}, false,
            llvm::MaybeAlign(vec * p.nominal.getIntOrFloatBitWidth() / 8));
        Value slot = load1(env, slots, env.threadId);
        for (int64_t e = 0; e < vec; ++e)
          slot = env.absMax(slot, env.toF32(vector::ExtractOp::create(
                                      env.b, env.loc, loaded,
                                      ArrayRef<int64_t>{e})));
        store1(env, slot, slots, env.threadId);
      });
    });
  });
  d.phases.push_back([p](KernelEnv &env) {
    Value slot = load1(env, env.shared[0], env.threadId);
    for (int a : p.globalAmaxArgs)
      env.atomicMaxToGlobal(slot, env.args[a]);
  });
  return d;
}

/// A kernel over the tiles of x whose first phase loads the tile into
/// shared buffer 0; `t` gets its geometry.
static KernelDesc tileKernel(const Plan &p, StringRef name, Tile &t) {
  KernelDesc d;
  d.name = name.str();
  t = makeTile(p, {});
  d.gridSize = t.grid;
  d.shared.push_back(MemRefType::get({t.rows * t.ld}, p.nominal));
  d.phases.push_back([p, t](KernelEnv &env) { loadTilePhase(env, p, t); });
  return d;
}

/// Row-scaled NVFP4: max |x| of every row (row-wise representation) and
/// every column (column-wise: rows of x^T), one atomic per row/column and
/// tile.
static KernelDesc rowAmaxKernel(const Plan &p) {
  Tile t;
  KernelDesc d = tileKernel(p, "qs_quantize_row_amax", t);
  d.phases.push_back([p, t](KernelEnv &env) {
    Value tileRow, tileCol;
    std::tie(tileRow, tileCol) = tileCoords(env, t);
    Value smem = env.shared[0];
    if (p.rowAmaxArg >= 0)
      env.forEachUnit(t.rows, [&](Value row) {
        Value gr = env.add(env.mul(tileRow, env.idx(t.rows)), row);
        env.ifThen(env.lt(gr, env.idx(p.m)), [&] {
          Value amax = env.f32(0.0f);
          for (Value v : readRow(env, t, smem, env.mul(row, env.idx(t.ld)),
                                 t.cols, p.nominal))
            amax = env.absMax(amax, v);
          env.atomicMaxAt(amax, env.args[p.rowAmaxArg], gr);
        });
      });
    if (p.colAmaxArg >= 0)
      env.forEachUnit(t.cols, [&](Value c) {
        Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
        env.ifThen(env.lt(gc, env.idx(p.k)), [&] {
          Value amax = env.f32(0.0f);
          for (int64_t rr = 0; rr < t.rows; ++rr)
            amax = env.absMax(
                amax, env.toF32(load1(env, smem,
                                      env.add(env.mul(env.idx(rr),
                                                      env.idx(t.ld)),
                                              c))));
          env.atomicMaxAt(amax, env.args[p.colAmaxArg], gc);
        });
      });
  });
  return d;
}

/// NVFP4 with RHT: max |RHT(x^T)| (the column-wise representation's
/// global amax) into its amax buffer, and, from the same read, max |x| into
/// the row-wise representation's (replacing amaxKernel).
static KernelDesc rhtAmaxKernel(const Plan &p) {
  Tile t;
  KernelDesc d = tileKernel(p, "qs_quantize_rht_amax", t);
  Type f32 = Float32Type::get(p.nominal.getContext());
  t.slots = d.shared.size();
  d.shared.push_back(MemRefType::get({d.threads}, f32));
  // Per-thread max |x| for the row-wise amax (the `mults` index is free in
  // this kernel).
  bool rowAmax = !p.globalAmaxArgs.empty();
  if (rowAmax) {
    t.mults = d.shared.size();
    d.shared.push_back(MemRefType::get({d.threads}, f32));
  }
  d.phases.push_back([p, t, rowAmax](KernelEnv &env) {
    Value tileRow, tileCol;
    std::tie(tileRow, tileCol) = tileCoords(env, t);
    store1(env, env.f32(0.0f), env.shared[t.slots], env.threadId);
    if (rowAmax)
      store1(env, env.f32(0.0f), env.shared[t.mults], env.threadId);
    env.forEachUnit(t.cols * (t.rows / 16), [&](Value u) {
      Value c = env.rem(u, env.idx(t.cols));
      Value i = env.div(u, env.idx(t.cols));
      Value gc = env.add(env.mul(tileCol, env.idx(t.cols)), c);
      Value gr0 = env.add(env.mul(tileRow, env.idx(t.rows)),
                          env.mul(i, env.idx(16)));
      env.ifThen(env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m))),
                 [&] {
        SmallVector<Value> xs;
        for (int64_t rr = 0; rr < 16; ++rr)
          xs.push_back(env.toF32(load1(
              env, env.shared[0],
              env.add(env.mul(env.add(env.mul(i, env.idx(16)), env.idx(rr)),
                              env.idx(t.ld)),
                      c))));
        Value slot = load1(env, env.shared[t.slots], env.threadId);
        for (Value z : rht16(env, xs))
          slot = env.absMax(slot, z);
        store1(env, slot, env.shared[t.slots], env.threadId);
        if (rowAmax) {
          Value xmax = load1(env, env.shared[t.mults], env.threadId);
          for (Value x : xs)
            xmax = env.absMax(xmax, x);
          store1(env, xmax, env.shared[t.mults], env.threadId);
        }
      });
    });
  });
  d.phases.push_back([p, t, rowAmax](KernelEnv &env) {
    env.atomicMaxToGlobal(load1(env, env.shared[t.slots], env.threadId),
                          env.args[p.rhtAmaxArg]);
    if (rowAmax) {
      Value xmax = load1(env, env.shared[t.mults], env.threadId);
      for (int a : p.globalAmaxArgs)
        env.atomicMaxToGlobal(xmax, env.args[a]);
    }
  });
  return d;
}

static KernelDesc castKernel(const Plan &p, ArrayRef<const Rep *> reps,
                             bool writeScaleInv, StringRef name,
                             bool reversed) {
  KernelDesc d;
  d.name = name.str();
  // At least 4 resident blocks (512 threads) per multiprocessor: bounds
  // registers at 128 per thread (the 128-long blocks otherwise take ~170).
  d.minBlocksPerSM = 4;
  Tile t = makeTile(p, reps);
  t.reversed = reversed;
  d.gridSize = t.grid;
  Type f32 = Float32Type::get(p.nominal.getContext());
  d.shared.push_back(MemRefType::get({t.rows * t.ld}, p.nominal));
  if (p.delayed) {
    t.slots = d.shared.size();
    d.shared.push_back(MemRefType::get({d.threads}, f32));
  }
  if (p.twoD) {
    t.segAmax = d.shared.size();
    d.shared.push_back(MemRefType::get({t.rows * (t.cols / p.twoD)}, f32));
    t.blockAmax = d.shared.size();
    d.shared.push_back(MemRefType::get(
        {(t.rows / p.twoD) * (t.cols / p.twoD)}, f32));
  }
  SmallVector<Rep> owned;
  const Rep *xLayout = nullptr;
  for (const Rep *r : reps) {
    owned.push_back(*r);
    if (r->xLayout)
      xLayout = r;
  }
  // Multipliers of the x-layout representation's blocks ([TR / B, TC]),
  // the last shared buffer.
  if (xLayout) {
    t.mults = d.shared.size();
    d.shared.push_back(
        MemRefType::get({t.rows / xLayout->block * t.cols}, f32));
  }
  d.phases.push_back([p, t](KernelEnv &env) { loadTilePhase(env, p, t); });
  if (p.twoD) {
    d.phases.push_back([p, t](KernelEnv &env) { segmentAmaxPhase(env, p, t); });
    d.phases.push_back([p, t](KernelEnv &env) { blockAmaxPhase(env, p, t); });
  }
  d.phases.push_back([p, t, owned, writeScaleInv](KernelEnv &env) {
    if (writeScaleInv)
      scaleInvPhase(env, p);
    for (const Rep &r : owned) {
      if (r.columnwise)
        columnwisePhase(env, p, t, r);
      else
        rowwisePhase(env, p, t, r);
    }
    if (p.delayed) {
      Value slot = load1(env, env.shared[t.slots], env.threadId);
      env.atomicMaxToGlobal(slot, env.args[p.amaxStateOutArg]);
    }
  });
  if (xLayout) {
    Rep r = *xLayout;
    d.phases.push_back(
        [p, t, r](KernelEnv &env) { xLayoutEncodePhase(env, p, t, r); });
  }
  return d;
}

void gpuk::emitQuantize(OpBuilder &b, Location loc, ModuleOp module,
                        QuantTensorType type, const TargetInfo &target,
                        Value x, Value scale, Value amaxIn, ValueRange outs,
                        ValueRange scratch, const EmitOptions &options) {
  Plan p = makePlan(type, target, static_cast<bool>(scale),
                    static_cast<bool>(amaxIn), scratch.size());
  SmallVector<Value> args = {x};
  llvm::append_range(args, outs);
  if (scale)
    args.push_back(scale);
  if (amaxIn)
    args.push_back(amaxIn);
  llvm::append_range(args, scratch);

  auto launch = [&](const KernelDesc &d) {
    emitKernel(b, loc, module, d, args, options);
  };
  if (!p.zeroArgs.empty() || p.amaxStateOutArg >= 0)
    launch(initKernel(p, args));
  if (!p.globalAmaxArgs.empty() && p.rhtAmaxArg < 0)
    launch(amaxKernel(p)); // with RHT, rhtAmaxKernel takes both amaxes
  if (p.rowScaled)
    launch(rowAmaxKernel(p));
  if (p.rhtAmaxArg >= 0)
    launch(rhtAmaxKernel(p));
  SmallVector<const Rep *> reps;
  for (const Rep &r : p.reps)
    reps.push_back(&r);
  Tile together = makeTile(p, reps);
  int64_t bytes = together.rows * together.ld * together.elemBytes;
  bool scaleInv = p.scaleInvArg >= 0;
  // Passes over x alternate direction (Tile::reversed): the amax kernels
  // run forward, so a cast kernel after one starts at x's end.
  bool amaxPass = !p.globalAmaxArgs.empty() || p.rowScaled || p.rhtAmaxArg >= 0;
  if (reps.size() < 2 || bytes <= 48 * 1024) {
    launch(castKernel(p, reps, scaleInv, "qs_quantize", amaxPass));
    return;
  }
  // A tile holding both representations' blocks would not fit in static
  // shared memory (f32 input with 128-long blocks): one kernel each.
  for (auto [i, r] : llvm::enumerate(reps))
    launch(castKernel(p, {r}, scaleInv && i == 0,
                      r->columnwise ? "qs_quantize_columnwise"
                                    : "qs_quantize_rowwise",
                      amaxPass != (i % 2 == 1)));
}

//===----------------------------------------------------------------------===//
// Dequantize
//===----------------------------------------------------------------------===//

/// The code (i8, FP8 byte or E2M1 nibble) of element (r, c) of the logical
/// [M, K] tensor in representation `rep`.
static Value loadCode(KernelEnv &env, const Plan &p, const Rep &r, Value row,
                      Value col) {
  OpBuilder &b = env.b;
  Value at;
  if (!r.columnwise || r.xLayout)
    at = env.add(env.mul(row, env.idx(p.k)), col);
  else
    at = env.add(env.mul(col, env.idx(p.m)), row);
  Value buf = env.args[r.dataArg];
  if (!r.fp4) {
    Value v = load1(env, buf, at);
    return arith::BitcastOp::create(b, env.loc, b.getI8Type(), v);
  }
  Value byte = load1(env, buf, env.div(at, env.idx(2)));
  Value odd = arith::IndexCastOp::create(b, env.loc, b.getI8Type(),
                                         env.rem(at, env.idx(2)));
  Value shift = arith::MulIOp::create(
      b, env.loc, odd, arith::ConstantIntOp::create(b, env.loc, b.getI8Type(), 4));
  Value nibble = arith::ShRUIOp::create(b, env.loc, byte, shift);
  return arith::AndIOp::create(
      b, env.loc, nibble,
      arith::ConstantIntOp::create(b, env.loc, b.getI8Type(), 0xF));
}

/// The f32 value of element (r, c).
static Value dequantizeElement(KernelEnv &env, const Plan &p, const Rep &r,
                               Value row, Value col) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value q = emitDecodeToF32(b, loc, loadCode(env, p, r, row, col), r.format);
  Value zRow = r.columnwise ? col : row, zCol = r.columnwise ? row : col;
  Value factor;
  switch (r.kind) {
  case ScaleKind::PerTensor:
    factor = load1(env, env.args[p.scaleInvArg], env.idx(0));
    break;
  case ScaleKind::E8M0: {
    Value e = load1(env, env.args[r.scaleArg],
                    r.scaleIndex(env, zRow, env.div(zCol, env.idx(32))));
    factor = emitE8M0ToF32(b, loc,
                           arith::BitcastOp::create(b, loc, b.getI8Type(), e));
    break;
  }
  case ScaleKind::F32Block:
    factor = load1(env, env.args[r.scaleArg],
                   r.scaleIndex(env, zRow, env.div(zCol, env.idx(128))));
    break;
  case ScaleKind::NVFP4: {
    Value sf = load1(env, env.args[r.scaleArg],
                     r.scaleIndex(env, zRow, env.div(zCol, env.idx(16))));
    sf = emitDecodeToF32(b, loc,
                         arith::BitcastOp::create(b, loc, b.getI8Type(), sf),
                         SmallFloatFormat::e4m3());
    Value g = load1(env, env.args[r.amaxArg], r.rowScaled ? zRow : env.idx(0));
    factor = arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, sf, g),
                                   env.f32(1.0f / 2688.0f));
    break;
  }
  }
  return arith::MulFOp::create(b, loc, q, factor);
}

void gpuk::emitDequantize(OpBuilder &b, Location loc, ModuleOp module,
                          QuantTensorType type, const TargetInfo &target,
                          ValueRange inner, Value out,
                          const EmitOptions &options) {
  Plan p = makePlan(type, target, false, false, 0);
  SmallVector<Value> args = {out};
  llvm::append_range(args, inner);
  // The representation the reference reads: row-wise when present.
  const Rep *rep = &p.reps.front();
  for (const Rep &r : p.reps)
    if (!r.columnwise) {
      rep = &r;
      break;
    }
  Rep r = *rep;
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  int64_t chunks = ceilDiv(p.k, 16), units = p.m * chunks;
  KernelDesc d;
  d.name = "qs_dequantize";
  int64_t perBlock = d.threads * 4;
  d.gridSize = ceilDiv(units, perBlock);
  bool vectorStore = p.k % 16 == 0;
  int64_t outBytes = outType.getIntOrFloatBitWidth() / 8;
  d.phases.push_back([=](KernelEnv &env) {
    env.forEachUnit(perBlock, [&](Value u) {
      Value unit = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(unit, env.idx(units)), [&] {
        Value row = env.div(unit, env.idx(chunks));
        Value c0 = env.mul(env.rem(unit, env.idx(chunks)), env.idx(16));
        SmallVector<Value> values;
        for (int64_t e = 0; e < 16; ++e) {
          Value col = env.add(c0, env.idx(e));
          if (vectorStore) {
            values.push_back(
                env.fromF32(dequantizeElement(env, p, r, row, col), outType));
            continue;
          }
          env.ifThen(env.lt(col, env.idx(p.k)), [&] {
            Value v =
                env.fromF32(dequantizeElement(env, p, r, row, col), outType);
            store1(env, v, env.args[0],
                   env.add(env.mul(row, env.idx(p.k)), col));
          });
        }
        if (!vectorStore)
          return;
        Value vec = vector::FromElementsOp::create(
            env.b, env.loc, VectorType::get({16}, outType), values);
        vector::StoreOp::create(
            env.b, env.loc, vec, env.args[0],
            ValueRange{env.add(env.mul(row, env.idx(p.k)), c0)}, false,
            llvm::MaybeAlign(std::min<int64_t>(16 * outBytes, 16)));
      });
    });
  });
  emitKernel(b, loc, module, d, args, options);
}
