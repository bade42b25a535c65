//===- UpdateUsageKernels.cpp - the update_usage kernel -------------------===//
//
// qs.update_usage on the GPU, for the representations TE derives exactly
// (te-formats.md §2, §4, §5; the reference: buildCreatedInnerTensors):
//   per-tensor FP8   transpose = data^T (bytes; the scale is shared),
//   FP8 128x128      column-wise data = row-wise data^T, column-wise scales
//                    = the row-wise tile scales transposed,
//   NVFP4 16x16      column-wise codes = row-wise codes^T (nibbles),
//                    column-wise scales = the row-wise tile scales
//                    transposed (in the layout the quantizer names), the
//                    global amax copied.
// One kernel: each block transposes a tile of 4 KiB of codes through
// shared memory (64 x 64 bytes; 4-bit codes: 64 rows x 128 codes, so that
// a thread has as many 16-byte loads in flight as for bytes) with reads
// and writes in 16-byte vectors where the row lengths allow, coalesced on
// both sides, and writes its share of the scale entries; the
// scale buffers are written in full (padding zero, as the quantize kernels
// and the reference leave it).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

namespace {
/// The codes' transpose: `rows` x `cols` codes of `bits` (8 or 4) bits,
/// row-major, packed low nibble first; the output is cols x rows. A tile
/// is kTileRows rows of tileCols() codes, 64 bytes each.
struct Transpose {
  int64_t rows, cols, bits;
  static constexpr int64_t kTileRows = 64;
  int64_t perByte() const { return 8 / bits; }
  int64_t tileCols() const { return 64 * perByte(); }
  int64_t inRowBytes() const { return cols / perByte(); }
  int64_t outRowBytes() const { return rows / perByte(); }
  /// Bytes of a tile row (input) and of a tile column (an output row).
  int64_t tileBytes() const { return tileCols() / perByte(); }
  int64_t outTileBytes() const { return kTileRows / perByte(); }
  /// Shared row stride: a tile row and 4 bytes (a word) more, so that the
  /// threads reading a tile column in the second phase spread over banks.
  int64_t ld() const { return tileBytes() + 4; }
  int64_t tilesAcross() const { return ceilDiv(cols, tileCols()); }
  int64_t tiles() const { return ceilDiv(rows, kTileRows) * tilesAcross(); }
};

/// The widest vector (bytes, at most 16) dividing both `a` and `b`.
int64_t widest(int64_t a, int64_t b) {
  int64_t v = 16;
  while (v > 1 && (a % v != 0 || b % v != 0))
    v /= 2;
  return v;
}

/// Scale entries of the created representation: every element of its
/// buffer, [storedRows, storedCols] in the layout's logical coordinates
/// (z row = `rowStep` x logical row, block j), written from the source
/// representation's entry at (z row j * block, block zRow / block), or
/// zero outside the valid [validRows, validBlocks].
struct ScaleCopy {
  Rep from, to;
  int64_t storedRows = 0, storedCols = 0, rowStep = 1, block = 16;
  int64_t validRows = 0, validBlocks = 0;
  int64_t entries() const { return storedRows * storedCols; }
};
} // namespace

/// The created entry at z row `zRow`, block `j`: the source entry at (z
/// row j * block, block zRow / block) where `valid`, else zero; as an
/// integer of the created buffer's element width (store1 bitcasts it).
static Value sourceEntry(KernelEnv &env, const ScaleCopy &s, Value valid,
                         Value zRow, Value j) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type elt =
      cast<MemRefType>(env.args[s.to.scaleArg].getType()).getElementType();
  Type bits = b.getIntegerType(elt.getIntOrFloatBitWidth());
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{bits}, valid,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value v = load1(env, env.args[s.from.scaleArg],
                  s.from.scaleIndex(env, env.mul(j, env.idx(s.block)),
                                    env.div(zRow, env.idx(s.block))));
  if (v.getType() != bits)
    v = arith::BitcastOp::create(b, loc, bits, v);
  scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, loc,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, 0)).getResult());
  return ifOp.getResult(0);
}

/// Whether the created NVFP4 scales are copied tile by tile: a thread per
/// z row of the tile (an x column) and the tile's four 16-row blocks,
/// when the buffer is exactly the tiles' cover (its padding, 128 z rows
/// and 4 blocks, is the tiles': 128 x columns and 64 x rows each).
static bool tileAlignedScales(const KernelEnv &env, const Transpose &t,
                              const ScaleCopy &s) {
  return s.block == 16 && s.rowStep == 1 && t.tileCols() == env.threads &&
         s.storedRows == t.tilesAcross() * t.tileCols() &&
         s.storedCols ==
             ceilDiv(t.rows, Transpose::kTileRows) * Transpose::kTileRows / 16;
}

/// The tile's created scale entries: z row k = the thread's x column,
/// blocks j of the tile's x rows, each from the source entry at (x row 16
/// j, block k / 16), zero outside the valid region. A warp's loads touch
/// two source bytes per block row (16 threads share each), where the
/// buffer-order copy read every byte from its own 32-byte sector.
static void tileScaleCopy(KernelEnv &env, const Transpose &t,
                          const ScaleCopy &s, Value tileRow, Value tileCol) {
  Value k = env.add(env.mul(tileCol, env.idx(t.tileCols())), env.threadId);
  int64_t blocks = Transpose::kTileRows / 16;
  SmallVector<std::pair<Value, Value>> copies;
  for (int64_t jj = 0; jj < blocks; ++jj) {
    Value j = env.add(env.mul(tileRow, env.idx(blocks)), env.idx(jj));
    Value valid = env.land(env.lt(k, env.idx(s.validRows)),
                           env.lt(j, env.idx(s.validBlocks)));
    copies.push_back(
        {s.to.scaleIndex(env, k, j), sourceEntry(env, s, valid, k, j)});
  }
  // The loads all before the stores (see loadPhase).
  for (auto [at, value] : copies)
    store1(env, value, env.args[s.to.scaleArg], at);
}

/// Phase 1: the tile's source bytes into shared memory (zero outside the
/// tensor), and this block's share of the scale entries and the amax copy.
static void loadPhase(KernelEnv &env, const Transpose &t, int dataIn,
                      const std::optional<ScaleCopy> &scales, int64_t grid,
                      int amaxIn, int amaxOut) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value tileRow = env.div(env.blockId, env.idx(t.tilesAcross()));
  Value tileCol = env.rem(env.blockId, env.idx(t.tilesAcross()));
  Value smem = env.shared[0];
  int64_t vec = widest(t.inRowBytes(), t.tileBytes());
  int64_t perRow = t.tileBytes() / vec;
  Type i8 = b.getI8Type();
  env.forEachUnit(Transpose::kTileRows * perRow, [&](Value u) {
    Value r = env.div(u, env.idx(perRow));
    Value c = env.mul(env.rem(u, env.idx(perRow)), env.idx(vec));
    Value row = env.add(env.mul(tileRow, env.idx(Transpose::kTileRows)), r);
    Value byteCol = env.add(env.mul(tileCol, env.idx(t.tileBytes())), c);
    Value inside = env.land(env.lt(row, env.idx(t.rows)),
                            env.lt(byteCol, env.idx(t.inRowBytes())));
    Value to = env.add(env.mul(r, env.idx(t.ld())), c);
    auto vecType = VectorType::get({vec}, i8);
    env.ifThenElse(
        inside,
        [&] {
          Value from = env.add(env.mul(row, env.idx(t.inRowBytes())), byteCol);
          Value src = env.args[dataIn];
          Type elt = cast<MemRefType>(src.getType()).getElementType();
          Value v = vector::LoadOp::create(b, loc, VectorType::get({vec}, elt),
                                           src, ValueRange{from}, false,
                                           llvm::MaybeAlign(env.gpu ? vec : 1));
          if (elt != i8)
            v = vector::BitCastOp::create(b, loc, vecType, v);
          // Shared rows are 4-byte aligned (ld()).
          vector::StoreOp::create(b, loc, v, smem, ValueRange{to}, false,
                                  llvm::MaybeAlign(std::min<int64_t>(vec, 4)));
        },
        [&] {
          Value zero = arith::ConstantOp::create(
              b, loc, DenseElementsAttr::get(vecType, b.getI8IntegerAttr(0)));
          vector::StoreOp::create(b, loc, zero, smem, ValueRange{to}, false,
                                  llvm::MaybeAlign(std::min<int64_t>(vec, 4)));
        });
  });
  if (scales && tileAlignedScales(env, t, *scales)) {
    tileScaleCopy(env, t, *scales, tileRow, tileCol);
  } else if (scales) {
    const ScaleCopy &s = *scales;
    int64_t share = ceilDiv(s.entries(), grid);
    Value dst = env.args[s.to.scaleArg];
    // Unit u of this block's share, entry e of the created buffer: whether
    // it exists, its index there, and its value.
    struct Copy {
      Value exists, at, value;
    };
    auto copyOf = [&](Value u) {
      Value e = env.add(env.mul(env.blockId, env.idx(share)), u);
      Value exists = env.lt(e, env.idx(s.entries()));
      if (share % env.threads != 0)
        exists = env.land(env.lt(u, env.idx(share)), exists);
      Value lr = env.div(e, env.idx(s.storedCols));
      Value j = env.rem(e, env.idx(s.storedCols));
      Value zRow = env.mul(lr, env.idx(s.rowStep));
      Value valid =
          env.land(exists, env.land(env.lt(lr, env.idx(s.validRows)),
                                    env.lt(j, env.idx(s.validBlocks))));
      return Copy{exists, s.to.scaleIndex(env, zRow, j),
                  sourceEntry(env, s, valid, zRow, j)};
    };
    int64_t rounds = ceilDiv(share, env.threads);
    if (rounds <= 8) {
      // A thread's loads all before its stores: the compiler cannot tell
      // that a store does not alias a later load, so load-store pairs
      // would wait for one global round trip each, before the block's
      // barrier.
      SmallVector<Copy> copies;
      for (int64_t i = 0; i < rounds; ++i)
        copies.push_back(
            copyOf(env.add(env.idx(i * env.threads), env.threadId)));
      for (const Copy &c : copies)
        env.ifThen(c.exists, [&] { store1(env, c.value, dst, c.at); });
    } else {
      env.forEachUnit(share, [&](Value u) {
        Copy c = copyOf(u);
        env.ifThen(c.exists, [&] { store1(env, c.value, dst, c.at); });
      });
    }
  }
  if (amaxIn >= 0) {
    Value first =
        env.land(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       env.blockId, env.idx(0)),
                 arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       env.threadId, env.idx(0)));
    env.ifThen(first, [&] {
      store1(env, load1(env, env.args[amaxIn], env.idx(0)), env.args[amaxOut],
             env.idx(0));
    });
  }
}

/// Phase 2: the tile's columns from shared memory as rows of the output,
/// `vec` bytes per thread (pairs of nibbles from consecutive source rows
/// for 4-bit codes).
static void storePhase(KernelEnv &env, const Transpose &t, int dataOut) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value tileRow = env.div(env.blockId, env.idx(t.tilesAcross()));
  Value tileCol = env.rem(env.blockId, env.idx(t.tilesAcross()));
  Value smem = env.shared[0];
  int64_t outTileBytes = t.outTileBytes();
  int64_t vec = widest(t.outRowBytes(), outTileBytes);
  int64_t groups = outTileBytes / vec;
  Type i8 = b.getI8Type();
  // Unit u: group u % groups of tile column u / groups, so that consecutive
  // threads write consecutive bytes of an output row.
  env.forEachUnit(t.tileCols() * groups, [&](Value u) {
    Value c = env.div(u, env.idx(groups));
    Value g = env.rem(u, env.idx(groups));
    Value outRow = env.add(env.mul(tileCol, env.idx(t.tileCols())), c);
    Value outByte = env.add(env.mul(tileRow, env.idx(outTileBytes)),
                            env.mul(g, env.idx(vec)));
    Value inside = env.land(env.lt(outRow, env.idx(t.cols)),
                            env.lt(outByte, env.idx(t.outRowBytes())));
    env.ifThen(inside, [&] {
      // Tile column c sits in byte c / perByte of each shared row.
      Value cByte = env.div(c, env.idx(t.perByte()));
      Value shift;
      if (t.bits == 4)
        shift = arith::IndexCastOp::create(
            b, loc, i8, env.mul(env.rem(c, env.idx(2)), env.idx(4)));
      SmallVector<Value> bytes;
      for (int64_t e = 0; e < vec; ++e) {
        Value r0 = env.add(env.mul(g, env.idx(vec * t.perByte())),
                           env.idx(e * t.perByte()));
        auto code = [&](Value r) {
          Value v =
              load1(env, smem, env.add(env.mul(r, env.idx(t.ld())), cByte));
          if (t.bits == 8)
            return v;
          Value nibble = arith::ShRUIOp::create(b, loc, v, shift);
          return arith::AndIOp::create(
                     b, loc, nibble,
                     arith::ConstantIntOp::create(b, loc, i8, 0xF))
              .getResult();
        };
        Value byte = code(r0);
        if (t.bits == 4) {
          Value hi = arith::ShLIOp::create(
              b, loc, code(env.add(r0, env.idx(1))),
              arith::ConstantIntOp::create(b, loc, i8, 4));
          byte = arith::OrIOp::create(b, loc, byte, hi);
        }
        bytes.push_back(byte);
      }
      Value dst = env.args[dataOut];
      Type elt = cast<MemRefType>(dst.getType()).getElementType();
      Value v = vector::FromElementsOp::create(
          b, loc, VectorType::get({vec}, i8), bytes);
      if (elt != i8)
        v = vector::BitCastOp::create(b, loc, VectorType::get({vec}, elt), v);
      Value at = env.add(env.mul(outRow, env.idx(t.outRowBytes())), outByte);
      vector::StoreOp::create(b, loc, v, dst, ValueRange{at}, false,
                              llvm::MaybeAlign(env.gpu ? vec : 1));
    });
  });
}

void gpuk::emitUpdateUsage(OpBuilder &b, Location loc, ModuleOp module,
                           QuantTensorType source, QuantTensorType result,
                           const TargetInfo &target, ValueRange inputs,
                           ValueRange outs, const EmitOptions &options) {
  // The launch's arguments as a quantize of both representations lays
  // them out (makePlan): a placeholder for x, then the inner tensors of
  // source and result together (the result may drop the row-wise one it
  // is made from), each the source's buffer of that name or a created one.
  llvm::StringMap<Value> byName;
  for (auto [t, v] : llvm::zip_equal(source.getInnerTensors(target), inputs))
    byName[t.name] = v;
  SmallVector<InnerTensor> created =
      getCreatedInnerTensors(source, result, target);
  for (auto [t, v] : llvm::zip_equal(created, outs))
    byName[t.name] = v;
  QuantizerAttrInterface sourceQ = source.getQuantizer();
  QuantizerAttrInterface resultQ = result.getQuantizer();
  QuantTensorType both =
      result.withUsage(sourceQ.getRowwise() || resultQ.getRowwise(),
                       sourceQ.getColumnwise() || resultQ.getColumnwise());
  // Argument i + 1 is inner[i].
  SmallVector<InnerTensor> inner = both.getInnerTensors(target);
  SmallVector<Value> args = {inputs.front()};
  llvm::SmallDenseSet<int> createdArgs;
  for (const InnerTensor &t : inner) {
    args.push_back(byName.lookup(t.name));
    if (llvm::any_of(created,
                     [&](const InnerTensor &c) { return c.name == t.name; }))
      createdArgs.insert(args.size() - 1);
  }
  Plan p = makePlan(both, target, false, false, 0);
  // The created representation reads the other one.
  const Rep *from = nullptr, *to = nullptr;
  for (const Rep &r : p.reps)
    (createdArgs.contains(r.dataArg) ? to : from) = &r;
  assert(from && to && "update_usage_buffers creates one representation");

  Transpose t{p.m, p.k, to->fp4 ? 4 : 8};
  std::optional<ScaleCopy> scales;
  int amaxIn = -1, amaxOut = -1;
  if (to->kind == ScaleKind::F32Block || to->kind == ScaleKind::NVFP4) {
    ScaleCopy s;
    s.from = *from;
    s.to = *to;
    s.block = to->kind == ScaleKind::NVFP4 ? 16 : 128;
    const InnerTensor &stored = inner[to->scaleArg - 1];
    s.storedRows = stored.shape.front();
    s.storedCols = stored.shape.back();
    if (to->kind == ScaleKind::NVFP4) {
      // Rows of G^T: one per column of x; blocks: 16 rows of x each.
      s.rowStep = 1;
      s.validRows = p.k;
      s.validBlocks = p.m / 16;
      amaxIn = from->amaxArg;
      amaxOut = to->amaxArg;
    } else {
      // [column tile, row tile] of x, the layout's z row a tile's first.
      s.rowStep = 128;
      s.validRows = ceilDiv(p.k, 128);
      s.validBlocks = ceilDiv(p.m, 128);
    }
    scales = s;
  }

  KernelDesc d;
  d.name = "qs_update_usage";
  d.gridSize = t.tiles();
  d.shared.push_back(
      MemRefType::get({Transpose::kTileRows * t.ld()}, b.getI8Type()));
  int dataIn = from->dataArg, dataOut = to->dataArg;
  int64_t grid = d.gridSize;
  d.phases.push_back([=](KernelEnv &env) {
    loadPhase(env, t, dataIn, scales, grid, amaxIn, amaxOut);
  });
  d.phases.push_back([=](KernelEnv &env) { storePhase(env, t, dataOut); });
  emitKernel(b, loc, module, d, args, options);
}
