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
// in 16-byte vectors where the row lengths allow, coalesced on both sides,
// and writes its share of the scale entries. Bytes leave in 16-byte
// vectors of a tile column; nibbles as 32-bit words of 8 x 8 nibble
// transposes (storeWordsPhase). NVFP4's scales go in 512-entry jobs of
// whole words and sectors (ScaleJobs); FP8 128x128's few in buffer order.
// The scale buffers are written in full (padding zero, as the quantize
// kernels and the reference leave it).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
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
  /// The created scales are in the cuBLAS 128 x 4 tiles (ScaleJobs' order).
  bool swizzled = false;
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

/// The created NVFP4 scales in jobs of 512 entries (128 words, a word per
/// thread): Kz (`zRows`) consecutive z rows x J (`blocks`) consecutive
/// blocks, Kz J = 512, each
/// job's entries taken from the 32 source entries S[j][b] (2-D block
/// scales: row-wise entry (x row 16 j, block b), column-wise entries (z row
/// 16 b + i, block j) for i < 16) that a warp stages in shared memory in the
/// load phase, so that the stores are whole words in whole sectors: 4
/// consecutive blocks of a z row are 4 consecutive bytes in both layouts
/// (compact: row-major with storedCols % 4 == 0; swizzled: the 128 x 4
/// tiles' e). The layout only decides which words a warp writes together:
/// compact jobs are 16 z rows x 32 blocks (a warp: 4 z rows x 32 bytes),
/// swizzled ones a 128 x 4 tile (512 consecutive bytes). Job q = blockId +
/// r grid, r < rounds: the grid is the data tiles' (as many as jobs at
/// tile-aligned sizes; small tensors' padding gives compact jobs up to 8
/// per block). The byte-per-thread copy this replaces wrote 4 single bytes
/// per thread and tile, 32 sectors per warp store: 16.7 M L2 requests for
/// the 16 MiB of column-wise scales of a 16384^2 tensor.
struct ScaleJobs {
  int64_t zRows = 0, blocks = 0, across = 0, jobs = 0, rounds = 0;
  static constexpr int64_t kEntries = 512, kStaged = 32;
};

static std::optional<ScaleJobs> scaleJobs(const ScaleCopy &s, int64_t grid,
                                          int64_t threads) {
  // validRows % 16 == 0: a staged entry is valid for all 16 z rows that
  // take it (storeScaleJobs).
  if (s.block != 16 || s.rowStep != 1 || s.storedRows % 128 != 0 ||
      s.storedCols % 4 != 0 || s.validRows % 16 != 0 ||
      threads * 4 != ScaleJobs::kEntries)
    return std::nullopt;
  ScaleJobs j;
  j.zRows = s.swizzled ? 128 : 16;
  j.blocks = ScaleJobs::kEntries / j.zRows;
  j.across = ceilDiv(s.storedCols, j.blocks);
  j.jobs = s.storedRows / j.zRows * j.across;
  j.rounds = ceilDiv(j.jobs, grid);
  if (j.rounds > 8)
    return std::nullopt;
  return j;
}

/// Load phase of the scale jobs: threads 0-31 stage the 32 source entries
/// of each of the block's jobs, S[j0 + jj][b0 + bb] at staged[32 r + bb J +
/// jj] (zero outside the valid region: the source's padding is never read).
static void stageScaleJobs(KernelEnv &env, const ScaleCopy &s,
                           const ScaleJobs &jobs, int64_t grid) {
  Value staged = env.shared[1];
  Value lane = env.threadId;
  Value lanes =
      env.lt(lane, env.idx(ScaleJobs::kStaged)); // a warp's worth of threads
  for (int64_t r = 0; r < jobs.rounds; ++r) {
    Value q = env.add(env.blockId, env.idx(r * grid));
    env.ifThen(env.land(lanes, env.lt(q, env.idx(jobs.jobs))), [&] {
      Value zg = env.div(q, env.idx(jobs.across));
      Value jg = env.rem(q, env.idx(jobs.across));
      Value bb = env.div(lane, env.idx(jobs.blocks));
      Value jj = env.rem(lane, env.idx(jobs.blocks));
      Value zRow = env.mul(env.add(env.mul(zg, env.idx(jobs.zRows / 16)), bb),
                           env.idx(16));
      Value j = env.add(env.mul(jg, env.idx(jobs.blocks)), jj);
      Value valid = env.land(env.lt(zRow, env.idx(s.validRows)),
                             env.lt(j, env.idx(s.validBlocks)));
      store1(env, sourceEntry(env, s, valid, zRow, j), staged,
             env.add(env.idx(r * ScaleJobs::kStaged),
                     env.add(env.mul(bb, env.idx(jobs.blocks)), jj)));
    });
  }
}

/// Store phase of the scale jobs: thread t writes word t of each job, the
/// job's z row kk and blocks 4 jq ... 4 jq + 3 (swizzled: the tile's c = t /
/// 4, bb = t % 4, so kk = 32 bb + c; compact: kk = t / (J / 4), jq = t % (J
/// / 4)). Zero outside the valid region comes from the staged entries:
/// validRows (x columns) is a multiple of 16 (NVFP4Attr::verifyShape), so
/// z rows 16 b ... 16 b + 15 are valid together.
static void storeScaleJobs(KernelEnv &env, const ScaleCopy &s,
                           const ScaleJobs &jobs, int64_t grid) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value t = env.threadId;
  Value kk, jq;
  if (s.swizzled) {
    kk = env.add(env.mul(env.rem(t, env.idx(4)), env.idx(32)),
                 env.div(t, env.idx(4)));
    jq = env.idx(0);
  } else {
    kk = env.div(t, env.idx(jobs.blocks / 4));
    jq = env.rem(t, env.idx(jobs.blocks / 4));
  }
  Value inStage =
      env.add(env.mul(env.div(kk, env.idx(16)), env.idx(jobs.blocks)),
              env.mul(jq, env.idx(4)));
  Value dst = env.args[s.to.scaleArg];
  Type elt = cast<MemRefType>(dst.getType()).getElementType();
  VectorType bytes = VectorType::get({4}, b.getI8Type());
  for (int64_t r = 0; r < jobs.rounds; ++r) {
    Value q = env.add(env.blockId, env.idx(r * grid));
    Value zg = env.div(q, env.idx(jobs.across));
    Value jg = env.rem(q, env.idx(jobs.across));
    Value k = env.add(env.mul(zg, env.idx(jobs.zRows)), kk);
    Value j =
        env.add(env.mul(jg, env.idx(jobs.blocks)), env.mul(jq, env.idx(4)));
    Value exists = env.land(env.lt(q, env.idx(jobs.jobs)),
                            env.lt(j, env.idx(s.storedCols)));
    env.ifThen(exists, [&] {
      Value w = vector::LoadOp::create(
          b, loc, bytes, env.shared[1],
          ValueRange{env.add(env.idx(r * ScaleJobs::kStaged), inStage)}, false,
          llvm::MaybeAlign(4));
      if (elt != b.getI8Type())
        w = vector::BitCastOp::create(b, loc, VectorType::get({4}, elt), w);
      vector::StoreOp::create(b, loc, w, dst,
                              ValueRange{s.to.scaleIndex(env, k, j)}, false,
                              llvm::MaybeAlign(env.gpu ? 4 : 1));
    });
  }
}

/// Phase 1: the tile's source bytes into shared memory (zero outside the
/// tensor), and this block's share of the scale entries and the amax copy.
static void loadPhase(KernelEnv &env, const Transpose &t, int dataIn,
                      const std::optional<ScaleCopy> &scales,
                      const std::optional<ScaleJobs> &jobs, int64_t grid,
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
  if (jobs) {
    stageScaleJobs(env, *scales, *jobs, grid);
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

/// Whether phase 2 moves words (storeWordsPhase): always for 4-bit codes
/// (NVFP4: rows and columns multiples of 16), for bytes where rows and
/// columns are multiples of 4 (every 4 x 4 byte block of a tile lies inside
/// or outside the tensor together, and output rows hold whole words).
static bool storesWords(const Transpose &t) {
  return t.bits == 4 || (t.rows % 4 == 0 && t.cols % 4 == 0);
}

/// Phase 2 in words: with n = 32 / bits codes per word (4 bytes, 8
/// nibbles), unit u takes row group g (tile rows n g ... n g + n - 1) of
/// word column w (tile columns n w ... n w + n - 1): n 32-bit shared loads,
/// an n x n transpose (KernelEnv::transposeBytes4x4 / transposeNibbles8x8),
/// and one 32-bit store into each of the n output rows (bytes 4 g ... 4 g +
/// 3 of the tile's output row). g = u % 8 + 8 (u / 128), w = (u / 8) % 16:
/// a warp's store covers 8 consecutive words of 4 output rows (whole
/// sectors), and its loads hit 32 distinct banks for bytes (rows 4 apart
/// at the 17-word row stride); for nibbles rows 8 g + i of the warp's 8
/// groups meet in 16 banks (rows 32 apart share one): a 2-way conflict.
/// Against the byte path, which loads every output byte from shared
/// memory (twice for nibbles, with shifts): per thread at 16384^2 (sm_90a)
/// NVFP4 360 -> 141 SASS instructions, FP8 106 -> 82 (30 -> 23 registers).
static void storeWordsPhase(KernelEnv &env, const Transpose &t, int dataOut,
                            Value tileRow, Value tileCol) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value smem = env.shared[0];
  int64_t n = 32 / t.bits, groups = Transpose::kTileRows / n,
          wordCols = t.tileBytes() / 4;
  Value dst = env.args[dataOut];
  Type elt = cast<MemRefType>(dst.getType()).getElementType();
  env.forEachUnit(wordCols * groups, [&](Value u) {
    Value g = env.add(env.rem(u, env.idx(8)),
                      env.mul(env.div(u, env.idx(8 * wordCols)), env.idx(8)));
    Value w = env.rem(env.div(u, env.idx(8)), env.idx(wordCols));
    Value outByte = env.add(env.mul(tileRow, env.idx(t.outTileBytes())),
                            env.mul(g, env.idx(4)));
    Value outRow0 = env.add(env.mul(tileCol, env.idx(t.tileCols())),
                            env.mul(w, env.idx(n)));
    Value inside = env.land(env.lt(outByte, env.idx(t.outRowBytes())),
                            env.lt(outRow0, env.idx(t.cols)));
    env.ifThen(inside, [&] {
      SmallVector<Value> rows;
      for (int64_t i = 0; i < n; ++i) {
        Value at = env.add(env.mul(env.add(env.mul(g, env.idx(n)), env.idx(i)),
                                   env.idx(t.ld())),
                           env.mul(w, env.idx(4)));
        rows.push_back(env.loadWord(smem, at));
      }
      SmallVector<Value> columns = t.bits == 4 ? env.transposeNibbles8x8(rows)
                                               : env.transposeBytes4x4(rows);
      for (int64_t e = 0; e < n; ++e) {
        Value v = vector::BroadcastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), columns[e]);
        v = vector::BitCastOp::create(b, loc, VectorType::get({4}, elt), v);
        Value at = env.add(
            env.mul(env.add(outRow0, env.idx(e)), env.idx(t.outRowBytes())),
            outByte);
        vector::StoreOp::create(b, loc, v, dst, ValueRange{at}, false,
                                llvm::MaybeAlign(env.gpu ? 4 : 1));
      }
    });
  });
}

/// Phase 2: the block's share of the created scales (ScaleJobs), and the
/// tile's columns from shared memory as rows of the output: in words
/// (storeWordsPhase) where storesWords says, else bytes, `vec` per thread.
static void storePhase(KernelEnv &env, const Transpose &t, int dataOut,
                       const std::optional<ScaleCopy> &scales,
                       const std::optional<ScaleJobs> &jobs, int64_t grid) {
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Value tileRow = env.div(env.blockId, env.idx(t.tilesAcross()));
  Value tileCol = env.rem(env.blockId, env.idx(t.tilesAcross()));
  if (jobs)
    storeScaleJobs(env, *scales, *jobs, grid);
  if (storesWords(t)) {
    storeWordsPhase(env, t, dataOut, tileRow, tileCol);
    return;
  }
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
      SmallVector<Value> bytes;
      for (int64_t e = 0; e < vec; ++e) {
        Value r = env.add(env.mul(g, env.idx(vec)), env.idx(e));
        bytes.push_back(
            load1(env, smem, env.add(env.mul(r, env.idx(t.ld())), c)));
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
      s.swizzled = cast<NVFP4Attr>(resultQ).getOptimizeForGemm();
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
  std::optional<ScaleJobs> jobs;
  if (scales)
    jobs = scaleJobs(*scales, grid, d.threads);
  if (jobs)
    d.shared.push_back(
        MemRefType::get({jobs->rounds * ScaleJobs::kStaged}, b.getI8Type()));
  d.phases.push_back([=](KernelEnv &env) {
    loadPhase(env, t, dataIn, scales, jobs, grid, amaxIn, amaxOut);
  });
  d.phases.push_back(
      [=](KernelEnv &env) { storePhase(env, t, dataOut, scales, jobs, grid); });
  emitKernel(b, loc, module, d, args, options);
}
