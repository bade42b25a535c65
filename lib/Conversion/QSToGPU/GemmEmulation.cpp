//===- GemmEmulation.cpp - GEMM kernels emulated on the CPU ---------------===//
//
// The GEMM kernel's tiling run on the CPU, per block: TMA copies write the
// same (swizzled) shared-memory image, a wgmma emulation decodes the
// kernel's own descriptors and accumulates into per-thread fragment
// registers kept in memory, and the promotion, NVFP4 conversion and
// epilogue are the GPU's code (GemmCode).
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {
/// Emulated TMA of k-tile `kt` of the operand's tile starting at row `row0`
/// (`tileRows` rows of M or N) from `global` into shared `dst`.
void emulateTma(GemmCode &code, Value smem, Value dst, Value global,
                const OperandPlan &op, Value row0, Value kt,
                int64_t tileRows) {
  KernelEnv &env = code.env;
  OpBuilder &b = env.b;
  Type i8 = b.getI8Type();
  const GemmPlan &plan = code.plan;
  // The box [rows, rowBytes] at (first, byte col0) of [totalRows, pitch].
  Value k0 = env.mul(kt, env.idx(op.mnMajor ? plan.kTileElems()
                                            : plan.rowBytes()));
  int64_t totalRows = op.mnMajor ? plan.k : op.rows;
  int64_t pitch = op.mnMajor ? op.rows : plan.pitch();
  Value first = op.mnMajor ? k0 : row0, col0 = op.mnMajor ? row0 : k0;
  int64_t rows = op.mnMajor ? plan.kTileElems() : tileRows;
  int64_t rowBytes = op.mnMajor ? tileRows : plan.rowBytes();
  // MN-major swizzled tiles: one box (atom) per 128 bytes of a row.
  int64_t box = op.mnMajor ? plan.mnBoxBytes(op, tileRows) : rowBytes;
  bool swizzled = plan.swizzledTile(op);
  env.loop(rows, [&](Value r) {
    env.loop(rowBytes, [&](Value c) {
      Value gr = env.add(first, r), gc = env.add(col0, c);
      Value inside =
          env.land(env.lt(gr, env.idx(totalRows)), env.lt(gc, env.idx(pitch)));
      auto ifOp = scf::IfOp::create(b, env.loc, TypeRange{i8}, inside, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value v = memref::LoadOp::create(
            b, env.loc, global, env.add(env.mul(gr, env.idx(pitch)), gc));
        if (v.getType() != i8)
          v = arith::BitcastOp::create(b, env.loc, i8, v);
        scf::YieldOp::create(b, env.loc, v);
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(
            b, env.loc,
            arith::ConstantIntOp::create(b, env.loc, i8, 0).getResult());
      }
      Value atom = env.mul(env.div(c, env.idx(box)), env.idx(rows * box));
      Value at = env.add(env.add(dst, atom),
                         env.add(env.mul(r, env.idx(box)),
                                 env.rem(c, env.idx(box))));
      if (swizzled)
        at = swizzle(code, at);
      memref::StoreOp::create(b, env.loc, ifOp.getResult(0), smem, at);
    });
  });
}
} // namespace

void gemm::emulateStageTma(GemmCode &code, Value smem, Value a, Value b,
                           Value tm, Value tn, Value kt, Value s,
                           ArrayRef<Value> pairColumns) {
  KernelEnv &env = code.env;
  const GemmPlan &plan = code.plan;
  emulateTma(code, smem, code.stageA(s), a, plan.a,
             env.mul(tm, env.idx(kTileM)), kt, kTileM);
  if (pairColumns.empty()) {
    emulateTma(code, smem, code.stageB(s), b, plan.b,
               env.mul(tn, env.idx(plan.tileN)), kt, plan.tileN);
    return;
  }
  int64_t half = plan.tileN / 2;
  for (auto [rank, column] : llvm::enumerate(pairColumns))
    emulateTma(
        code, smem,
        env.add(code.stageB(s), env.idx(rank * half * plan.rowBytes())), b,
        plan.b,
        env.add(env.mul(column, env.idx(plan.tileN)), env.idx(rank * half)), kt,
        half);
}

Value gemm::emulatePrmt(KernelEnv &env, Value a, Value b, Value selector) {
  OpBuilder &builder = env.b;
  Location loc = env.loc;
  Type i32 = builder.getI32Type(), i64 = builder.getI64Type();
  auto c32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, i32, v).getResult();
  };
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(builder, loc, i64, v).getResult();
  };
  // The 8-byte pool {b, a}: a holds bytes 0-3.
  Value pool = arith::OrIOp::create(
      builder, loc, arith::ExtUIOp::create(builder, loc, i64, a),
      arith::ShLIOp::create(builder, loc,
                            arith::ExtUIOp::create(builder, loc, i64, b),
                            c64(32)));
  Value result = c32(0);
  for (int64_t i = 0; i < 4; ++i) {
    Value index = arith::AndIOp::create(
        builder, loc,
        arith::ShRUIOp::create(builder, loc, selector, c32(4 * i)), c32(7));
    Value byte = arith::TruncIOp::create(
        builder, loc, i32,
        arith::AndIOp::create(
            builder, loc,
            arith::ShRUIOp::create(
                builder, loc, pool,
                arith::ExtUIOp::create(
                    builder, loc, i64,
                    arith::MulIOp::create(builder, loc, index, c32(8)))),
            c64(0xFF)));
    result = arith::OrIOp::create(
        builder, loc, result,
        arith::ShLIOp::create(builder, loc, byte, c32(8 * i)));
  }
  return result;
}

void gemm::emulateStaging(GemmCode &code, Value staging, Value offset,
                          ArrayRef<Value> values) {
  KernelEnv &env = code.env;
  int64_t bytes = code.plan.stagedBytes();
  for (auto [e, v] : llvm::enumerate(values)) {
    Value at = swizzle(code, env.add(offset, env.idx(int64_t(e) * bytes)));
    memref::StoreOp::create(env.b, env.loc, v, staging,
                            env.div(at, env.idx(bytes)));
  }
}

Value gemm::emulateStagedWord(GemmCode &code, Value staging, Value offset) {
  KernelEnv &env = code.env;
  Type i32 = env.b.getI32Type();
  Value word;
  for (int64_t k = 0; k < 4; ++k) {
    Value at = swizzle(code, env.add(offset, env.idx(k)));
    Value code8 = arith::BitcastOp::create(
        env.b, env.loc, env.b.getI8Type(),
        memref::LoadOp::create(env.b, env.loc, staging, at));
    Value byte = arith::ExtUIOp::create(env.b, env.loc, i32, code8);
    if (k)
      byte = arith::ShLIOp::create(
          env.b, env.loc, byte,
          arith::ConstantIntOp::create(env.b, env.loc, i32, 8 * k));
    word = word ? arith::OrIOp::create(env.b, env.loc, word, byte).getResult()
                : byte;
  }
  return word;
}

void gemm::emulateStagedBlocks(GemmCode &code, Value staging, Value tm,
                               Value tn, Value group, ValueRange args,
                               int64_t pass, Value base) {
  KernelEnv &env = code.env;
  int64_t bytes = code.plan.stagedBytes();
  // The group's buffers start at byte `base` (a multiple of 1024: the
  // swizzle keeps it).
  auto at = [&](Value offset) {
    return env.div(swizzle(code, env.add(base, offset)), env.idx(bytes));
  };
  env.loop(code.plan.stagedReaders(), [&](Value t) {
    code.stagedBlocks(
        tm, tn, group, t, args, pass,
        [&](Value offset) {
          SmallVector<Value> values;
          for (int64_t e = 0; e < 16 / bytes; ++e)
            values.push_back(memref::LoadOp::create(
                env.b, env.loc, staging,
                at(env.add(offset, env.idx(e * bytes)))));
          return values;
        },
        [&](Value offset) -> Value {
          return memref::LoadOp::create(env.b, env.loc, staging, at(offset));
        },
        [&](Value offset) -> Value {
          return memref::LoadOp::create(
              env.b, env.loc, staging,
              env.div(swizzle(code, offset), env.idx(bytes)));
        });
  });
}

void gemm::emulateTmaStoreBox(GemmCode &code, Value staging, Value d,
                              std::pair<Value, Value> origin) {
  KernelEnv &env = code.env;
  const GemmPlan &plan = code.plan;
  int64_t bytes = plan.outBytes();
  Value row0 = origin.first, col0 = origin.second;
  env.loop(plan.storeBoxRows(), [&](Value r) {
    env.loop(plan.storeChunkCols(), [&](Value c) {
      Value row = env.add(row0, r), col = env.add(col0, c);
      env.ifThen(
          env.land(env.lt(row, env.idx(plan.m)), env.lt(col, env.idx(plan.n))),
          [&] {
            Value offset =
                env.add(env.mul(r, env.idx(128)), env.mul(c, env.idx(bytes)));
            Value at = env.div(swizzle(code, offset), env.idx(bytes));
            Value v = memref::LoadOp::create(env.b, env.loc, staging, at);
            memref::StoreOp::create(
                env.b, env.loc, v, d,
                env.add(env.mul(row, env.idx(plan.n)), col));
          });
    });
  });
}

void gemm::emulateStore16(KernelEnv &env, Value smem, Value at,
                          ArrayRef<Value> words) {
  OpBuilder &b = env.b;
  for (auto [w, word] : llvm::enumerate(words))
    for (int64_t k = 0; k < 4; ++k)
      memref::StoreOp::create(
          b, env.loc,
          arith::TruncIOp::create(
              b, env.loc, b.getI8Type(),
              arith::ShRUIOp::create(
                  b, env.loc, word,
                  arith::ConstantIntOp::create(b, env.loc, b.getI32Type(),
                                               8 * k))),
          smem, env.add(at, env.idx(4 * w + k)));
}

namespace {

/// wgmma m64n<mmaN>k32 (FP8) or m64n<mmaN>k16 (f16, bf16): decodes the
/// descriptors like the hardware (start address, stride byte offset,
/// 128-byte swizzle) and adds the products into the fragment registers
/// `regs[t][r]` of one warpgroup: r in [chunk * mmaRegs(), (chunk + 1) *
/// mmaRegs()), whose columns, less chunk * mmaN(), are rows of the B tile
/// `descB` describes.
void emulateWgmma(GemmCode &code, Value smem, Value regs, Value regBase,
                  Value descA, Value descB, Type typeA, Type typeB,
                  int64_t chunk = 0) {
  KernelEnv &env = code.env;
  OpBuilder &b = env.b;
  Location loc = env.loc;
  auto field = [&](Value desc, int64_t shift) {
    Value v = arith::ShRUIOp::create(
        b, loc, desc,
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), shift));
    v = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
    return code.shl(code.band(v, 0x3FFF), 4);
  };
  Value startA = field(descA, 0), strideA = field(descA, 32);
  Value startB = field(descB, 0), strideB = field(descB, 32);
  // Converted tiles (NVFP4's f16, MXFP8's bf16) and 16-bit operands
  // (GemmPlan::sixteenBit): typeA == typeB.
  bool f16 = code.plan.converts() || code.plan.sixteenBit();
  int64_t elementBytes = f16 ? 2 : 1;
  auto element = [&](Value start, Value stride, Value row, Value kk,
                     Type type) -> Value {
    Value address = env.add(env.add(start, env.mul(code.shr(row, 3), stride)),
                            env.add(env.mul(code.band(row, 7), env.idx(128)),
                                    env.mul(kk, env.idx(elementBytes))));
    Value byte = memref::LoadOp::create(b, loc, smem, swizzle(code, address));
    if (!f16)
      return emitDecodeToF32(b, loc, byte, *SmallFloatFormat::get(type));
    // Little-endian f16 / bf16: both bytes lie in the same 16-byte chunk.
    Value high = memref::LoadOp::create(
        b, loc, smem, swizzle(code, env.add(address, env.idx(1))));
    Type i16 = b.getI16Type();
    Value bits = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i16, byte),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i16, high),
                              arith::ConstantIntOp::create(b, loc, i16, 8)));
    return env.toF32(arith::BitcastOp::create(b, loc, type, bits));
  };
  int64_t regsPerThread = code.plan.accRegs();
  int64_t firstReg = chunk * code.plan.mmaRegs();
  env.loop(kWarpgroup, [&](Value t) {
    env.loop(code.plan.mmaRegs(), [&](Value chunkReg) {
      Value r = env.add(chunkReg, env.idx(firstReg));
      Value row, col;
      std::tie(row, col) = code.fragment(t, r);
      col =
          arith::SubIOp::create(b, loc, col, env.idx(chunk * code.plan.mmaN()));
      Value sum = env.loopReduce(
          f16 ? 16 : 32, env.f32(0.0f), [&](Value kk, Value acc) {
            Value p = arith::MulFOp::create(
                b, loc, element(startA, strideA, row, kk, typeA),
                element(startB, strideB, col, kk, typeB));
            return arith::AddFOp::create(b, loc, acc, p).getResult();
          });
      Value at =
          env.add(env.add(regBase, env.mul(t, env.idx(regsPerThread))), r);
      Value old = memref::LoadOp::create(b, loc, regs, at);
      memref::StoreOp::create(b, loc, arith::AddFOp::create(b, loc, old, sum),
                              regs, at);
    });
  });
}

} // namespace

void gemm::emulateSplitKArrival(GemmCode &code,
                                const std::function<void()> &reduce) {
  KernelEnv &env = code.env;
  OpBuilder &b = env.b;
  Location loc = env.loc;
  Type i32 = b.getI32Type();
  Value counters = code.splitKCounters();
  Value before = memref::LoadOp::create(b, loc, counters, code.tile);
  Value last = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, before,
                                     code.arrivalsBeforeLast());
  Value after = arith::SelectOp::create(
      b, loc, last, arith::ConstantIntOp::create(b, loc, i32, 0),
      arith::AddIOp::create(b, loc, before,
                            arith::ConstantIntOp::create(b, loc, i32, 1)));
  memref::StoreOp::create(b, loc, after, counters, code.tile);
  env.ifThen(last, [&] {
    code.reducing = true;
    reduce();
    code.reducing = false;
  });
}

namespace {
/// The emulated sm_90a block of emitEmulatedBody: per output tile, each
/// k-tile's producer step and every consumer thread's steps in turn (no
/// waits needed), then every consumer thread's epilogue.
class Sm90Emulation {
public:
  Sm90Emulation(KernelEnv &env, const GemmPlan &plan, Type typeA, Type typeB)
      : env(env), plan(plan), b(env.b), loc(env.loc), code{env, plan},
        typeA(typeA), typeB(typeB) {}
  void emit();

private:
  /// One output tile: the producer's and both consumer warpgroups' steps
  /// (ping-pong: one consumer's two m64 halves; the same values).
  void tile(Value tm, Value tn, Value tileStart);
  /// The unit's k-tile `j` (the block's `it`, in stage `s`) of tile
  /// (tm, tn).
  void kTile(Value tm, Value tn, Value j, Value it,
             ArrayRef<Value> pairColumns);
  /// NVFP4: every consumer thread converts, then the f16 wgmmas (k-tile kt
  /// of K, the unit's j).
  void fp4KTile(Value tm, Value tn, Value j, Value kt, Value s);
  /// GemmPlan::mxConverts: per half k-tile, every consumer thread converts,
  /// then the bf16 wgmmas.
  void mxKTile(Value tm, Value tn, Value j, Value kt, Value s);
  /// converts(): both consumers' wgmmas of the converted tiles in buffer
  /// `buffer` (16-bit `type`, convertedK() elements of K).
  void convertedWgmmas(Value buffer, Type type);
  /// Thread t of `consumer`'s carried block-scale codes of k-tile j (the
  /// `count` codes `load(kt)` gives; before k-tile 0 it keeps k-tile 0's),
  /// and it keeps k-tile j + 1's, as the kernel carries them.
  SmallVector<Value>
  carriedCodes(Value j, Value consumer, Value t, int64_t count,
               const std::function<SmallVector<Value>(Value)> &load);
  /// The first of thread t of `consumer`'s kCodeSlots slots in fp4Codes.
  static constexpr int64_t kCodeSlots = 32;
  Value codeSlot(Value consumer, Value t) {
    return env.mul(env.add(env.mul(consumer, env.idx(kWarpgroup)), t),
                   env.idx(kCodeSlots));
  }
  /// Block scaling (and per-tensor FP8's split accumulator): each scale
  /// block of K (k-tile) into zeroed partial registers, then promoted
  /// (GemmPlan::prefetchesScales: with the scales each thread loaded in the
  /// previous k-tile, before the first k-tile 0's; it loads the next's).
  void promotingKTile(Value tm, Value tn, Value j, Value kt, Value s,
                      Value buffer, Value consumer);
  /// GemmPlan::prefetchesScales: the scales thread t of `consumer` carries
  /// into k-tile j (`shape`'s keys, chunk 0; `load(kb)` loads k-tile
  /// kb's): before k-tile 0 it keeps k-tile 0's, then it returns the kept
  /// values (their products computed) and keeps k-tile (j + 1)'s, as the
  /// kernel's loop does.
  GemmCode::TileScales
  carriedScales(const GemmCode::TileScales &shape, Value j, Value consumer,
                Value t, int64_t chunk,
                const std::function<GemmCode::TileScales(Value)> &load);
  /// GemmPlan::tmaStore: each consumer's store chunks, every thread's
  /// values written into a staging buffer at the kernel's swizzled
  /// offsets, then the TMA store of the 64 x 128-byte box read back from
  /// the same offsets, clipped at D's edges.
  void stagedEpilogue(Value tm, Value tn);
  /// Emulated 16- and 4-byte shared-memory accesses (little-endian words);
  /// stores at swizzled offsets.
  SmallVector<Value> load16(Value offset);
  Value load4(Value offset) { return loadWords(offset, 1)[0]; }
  /// `count` i32 words from a shared-memory offset.
  SmallVector<Value> loadWords(Value offset, int64_t count);
  void store16(Value offset, ArrayRef<Value> words) {
    emulateStore16(env, smem, swizzle(code, offset), words);
  }

  KernelEnv &env;
  const GemmPlan &plan;
  OpBuilder &b;
  Location loc;
  GemmCode code;
  Type typeA, typeB;
  // args: a, b, sa, sb, [bias], [c], d
  ValueRange epilogueArgs;
  /// The shared-memory image; the consumers' accumulator registers (FP32
  /// totals), their partial sums (promoting kernels), NVFP4's carried
  /// scale codes (eight per consumer thread) and prefetched block scales
  /// (GemmPlan::kPrefetchedScales per consumer thread), all in memory.
  Value smem, regs, partial, fp4Codes, prefetched;
  Value base;
};

void Sm90Emulation::emit() {
  epilogueArgs = ValueRange(env.args).drop_front(2);
  int64_t regCount = kConsumers * kWarpgroup * plan.accRegs();
  smem = memref::AllocOp::create(
      b, loc, MemRefType::get({plan.sharedBytes()}, b.getI8Type()));
  regs = memref::AllocOp::create(b, loc,
                                 MemRefType::get({regCount}, b.getF32Type()));
  fp4Codes = plan.converts()
                 ? memref::AllocOp::create(
                       b, loc,
                       MemRefType::get({kConsumers * kWarpgroup * kCodeSlots},
                                       b.getI8Type()))
                       .getResult()
                 : Value();
  prefetched = plan.prefetchesScales()
                   ? memref::AllocOp::create(
                         b, loc,
                         MemRefType::get({kConsumers * kWarpgroup *
                                          GemmPlan::kPrefetchedScales},
                                         b.getF32Type()))
                         .getResult()
                   : Value();
  partial = plan.promotes()
                ? memref::AllocOp::create(
                      b, loc, MemRefType::get({regCount}, b.getF32Type()))
                      .getResult()
                : Value();
  base = env.idx(0);
  auto body = [&](Value tm, Value tn, Value tileStart) {
    tile(tm, tn, tileStart);
  };
  if (plan.pingpong)
    // Consumer c's tiles: the block's iterations c, c + 2, ...
    env.loop(kConsumers, [&](Value consumer) {
      code.forEachTile(env.blockId, body, consumer, 2);
    });
  else
    code.forEachTile(env.blockId, body);
  // Buffer deallocation frees `regs` and `smem` (and the tensor maps).
}

void Sm90Emulation::tile(Value tm, Value tn, Value tileStart) {
  // Multicast pairs: B's halves come from the tile columns of the pair's
  // two blocks in this iteration.
  SmallVector<Value, 2> pairColumns;
  if (plan.multicast())
    for (int64_t rank = 0; rank < 2; ++rank)
      pairColumns.push_back(
          code.tileOf(code.pairTile(env.blockId, tileStart, rank)).second);
  int64_t regCount = kConsumers * kWarpgroup * plan.accRegs();
  env.loop(regCount, [&](Value r) {
    memref::StoreOp::create(b, loc, env.f32(0.0f), regs, r);
  });
  code.forEachUnitKTile(
      [&](Value j) { kTile(tm, tn, j, env.add(tileStart, j), pairColumns); });
  auto store = [&] {
    if (code.stagesStores()) {
      stagedEpilogue(tm, tn);
      return;
    }
    env.loop(kConsumers, [&](Value consumer) {
      env.loop(kWarpgroup, [&](Value t) {
        Value regBase =
            env.mul(env.add(env.mul(consumer, env.idx(kWarpgroup)), t),
                    env.idx(plan.accRegs()));
        code.epilogue(tm, tn, consumer, t, epilogueArgs, [&](int64_t r) {
          return memref::LoadOp::create(b, loc, regs,
                                        env.add(regBase, env.idx(r)))
              .getResult();
        });
      });
    });
  };
  auto arrive = [&] {
    emulateSplitKArrival(code, [&] {
      if (code.stagesStores()) {
        stagedEpilogue(tm, tn);
        return;
      }
      env.loop(kConsumers, [&](Value consumer) {
        env.loop(kWarpgroup, [&](Value t) {
          code.epilogue(tm, tn, consumer, t, epilogueArgs,
                        [](int64_t) { return Value(); });
        });
      });
    });
  };
  if (plan.streamsK()) {
    // A stream-K segment sharing its tile stores its plane and arrives.
    code.finishSegment(env.blockId, store, arrive, store);
    return;
  }
  store();
  if (plan.fusesReduction())
    arrive();
}

SmallVector<Value> Sm90Emulation::load16(Value offset) {
  return loadWords(offset, 4);
}

SmallVector<Value> Sm90Emulation::loadWords(Value offset, int64_t count) {
  SmallVector<Value> words;
  for (int64_t w = 0; w < count; ++w) {
    Value word;
    for (int64_t k = 0; k < 4; ++k) {
      Value byte = arith::ExtUIOp::create(
          b, loc, b.getI32Type(),
          memref::LoadOp::create(b, loc, smem,
                                 env.add(offset, env.idx(4 * w + k))));
      byte = arith::ShLIOp::create(
          b, loc, byte,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), 8 * k));
      word = word ? arith::OrIOp::create(b, loc, word, byte).getResult() : byte;
    }
    words.push_back(word);
  }
  return words;
}

void Sm90Emulation::stagedEpilogue(Value tm, Value tn) {
  // Staged blocks: the chunks of a read-back pass in buffers 0, 1, ...;
  // with GemmPlan::stagesAcrossGroups each consumer's pair of buffers
  // (consumer c's from byte c * 2 * stagingBufferBytes() on), every
  // consumer's pass staged before any reads back (the GPU's 256-thread
  // barrier).
  int64_t bytes = plan.stagedBytes(), group = plan.stagedChunkGroup();
  bool across = plan.stagesAcrossGroups();
  Value staging = memref::AllocOp::create(
      b, loc,
      MemRefType::get({(across ? kConsumers * 2 : group) *
                       plan.stagingBufferBytes() / bytes},
                      plan.stagedType()));
  auto base = [&](Value consumer) {
    return across ? env.mul(consumer, env.idx(2 * plan.stagingBufferBytes()))
                  : env.idx(0);
  };
  auto stage = [&](Value consumer, int64_t chunk) {
    env.loop(kWarpgroup, [&](Value t) {
      Value regBase =
          env.mul(env.add(env.mul(consumer, env.idx(kWarpgroup)), t),
                  env.idx(plan.accRegs()));
      code.stagedEpilogueChunk(
          tm, tn, consumer, t, epilogueArgs, chunk,
          [&](int64_t r) {
            return memref::LoadOp::create(b, loc, regs,
                                          env.add(regBase, env.idx(r)))
                .getResult();
          },
          [&](int64_t g, Value offset, ArrayRef<Value> values) {
            // 16-bit: stmatrix q = g / 4 puts this thread's word of
            // matrix g % 4 at the row whose address lane 8 (g % 4) +
            // lane / 4 of its warp supplies, at byte 4 (lane % 4).
            if (bytes == 2) {
              Value lane = code.band(t, 31);
              Value source =
                  env.add(code.band(t, ~int64_t(31)),
                          env.add(env.idx(8 * (g % 4)), code.shr(lane, 2)));
              offset = env.add(code.stmatrixRow(source, g / 4),
                               code.shl(code.band(lane, 3), 2));
            }
            emulateStaging(
                code, staging,
                env.add(env.add(offset, base(consumer)),
                        env.idx((chunk % group) * plan.stagingBufferBytes())),
                values);
          });
    });
  };
  if (across) {
    for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
      env.loop(kConsumers, [&](Value consumer) { stage(consumer, chunk); });
      if ((chunk + 1) % group != 0)
        continue;
      env.loop(kConsumers, [&](Value consumer) {
        emulateStagedBlocks(code, staging, tm, tn, consumer, epilogueArgs,
                            chunk / group, base(consumer));
      });
    }
    return;
  }
  env.loop(kConsumers, [&](Value consumer) {
    for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
      stage(consumer, chunk);
      if (plan.stagesBlocks()) {
        if ((chunk + 1) % group != 0)
          continue;
        // Each thread's blocks, read back from the staged values.
        emulateStagedBlocks(code, staging, tm, tn, consumer, epilogueArgs,
                            chunk / group, env.idx(0));
        continue;
      }
      // A transposed FP8 output: each thread's rows (without the TMA
      // store) and transposed columns, read back from the staged codes.
      if (plan.outputTranspose)
        env.loop(kWarpgroup, [&](Value t) {
          auto word = [&](Value offset) {
            return emulateStagedWord(code, staging, offset);
          };
          code.stagedCodes(tm, tn, consumer, t, epilogueArgs, chunk, word,
                           [&](Value offset) {
                             SmallVector<Value> words;
                             for (int64_t w = 0; w < 4; ++w)
                               words.push_back(word(
                                   env.add(offset, env.idx(4 * w))));
                             return words;
                           });
        });
      if (!plan.tmaStore)
        continue;
      // The box of the consumer's rows and the chunk's columns.
      emulateTmaStoreBox(code, staging, code.outputD(epilogueArgs),
                         code.storeBox(tm, tn, consumer, chunk));
    }
  });
}

void Sm90Emulation::kTile(Value tm, Value tn, Value j, Value it,
                          ArrayRef<Value> pairColumns) {
  Value kt = code.kTileOf(j);
  // The producer's step, then each consumer's (no waits needed).
  Value s = env.rem(it, env.idx(plan.stages));
  Value buffer = code.transposeBuffer(it);
  emulateStageTma(code, smem, env.args[0], env.args[1], tm, tn, kt, s,
                  pairColumns);
  if (plan.transposes()) {
    // MN-major operands: every consumer thread's transposing copy.
    env.loop(kConsumers * kWarpgroup, [&](Value thread) {
      code.transposeTiles(
          thread, s, buffer, [&](Value offset) { return load16(offset); },
          [&](Value offset, ArrayRef<Value> words) { store16(offset, words); });
    });
  }
  if (plan.fp4()) {
    fp4KTile(tm, tn, j, kt, s);
    return;
  }
  if (plan.mxConverts) {
    mxKTile(tm, tn, j, kt, s);
    return;
  }
  env.loop(kConsumers, [&](Value consumer) {
    if (plan.promotes()) {
      promotingKTile(tm, tn, j, kt, s, buffer, consumer);
      return;
    }
    Value descA = code.descA(base, s, buffer, consumer);
    Value descB = code.descB(base, s, buffer);
    Value regBase = env.mul(consumer, env.idx(kWarpgroup * plan.accRegs()));
    for (int64_t j = 0; j < kKSteps; ++j)
      emulateWgmma(code, smem, regs, regBase, code.stepDescriptor(descA, j),
                   code.stepDescriptor(descB, j), typeA, typeB);
  });
}

void Sm90Emulation::fp4KTile(Value tm, Value tn, Value j, Value kt, Value s) {
  // Every consumer thread converts its half-rows with the scale codes it
  // loaded in the previous k-tile (before the first: k-tile 0's) and loads
  // the next k-tile's, as the kernel carries them; then the wgmmas.
  env.loop(kConsumers, [&](Value consumer) {
    env.loop(kWarpgroup, [&](Value t) {
      SmallVector<Value> codes = carriedCodes(j, consumer, t, 8, [&](Value kt) {
        return code.fp4ScaleCodes(tm, tn, consumer, t, kt, epilogueArgs[0],
                                  epilogueArgs[1]);
      });
      code.convertFp4(
          consumer, t, kt, s, codes,
          [&](Value offset) { return load16(offset); },
          [&](Value offset, ArrayRef<Value> words) { store16(offset, words); });
    });
  });
  convertedWgmmas(code.band(kt, 1), b.getF16Type());
}

void Sm90Emulation::convertedWgmmas(Value buffer, Type type) {
  env.loop(kConsumers, [&](Value consumer) {
    Value regBase = env.mul(consumer, env.idx(kWarpgroup * plan.accRegs()));
    for (int64_t step = 0; step < plan.convertedK() / 16; ++step)
      emulateWgmma(code, smem, regs, regBase,
                   code.f16DescA(base, buffer, consumer, step),
                   code.f16DescB(base, buffer, step), type, type);
  });
}

SmallVector<Value> Sm90Emulation::carriedCodes(
    Value j, Value consumer, Value t, int64_t count,
    const std::function<SmallVector<Value>(Value)> &load) {
  Value slot = codeSlot(consumer, t);
  // The slots hold bytes (MXFP8's codes come zero-extended to i32).
  auto keep = [&](ArrayRef<Value> codes) {
    for (auto [q, c] : llvm::enumerate(codes)) {
      Value byte =
          c.getType().isInteger(8)
              ? c
              : arith::TruncIOp::create(b, loc, b.getI8Type(), c).getResult();
      memref::StoreOp::create(b, loc, byte, fp4Codes,
                              env.add(slot, env.idx(q)));
    }
  };
  Value kt = code.kTileOf(j);
  env.ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, j, env.idx(0)),
      [&] { keep(load(kt)); });
  SmallVector<Value> codes;
  for (int64_t q = 0; q < count; ++q)
    codes.push_back(
        memref::LoadOp::create(b, loc, fp4Codes, env.add(slot, env.idx(q))));
  keep(load(env.add(kt, env.idx(1))));
  return codes;
}

void Sm90Emulation::mxKTile(Value tm, Value tn, Value j, Value kt, Value s) {
  // Per consumer thread, code slots 0 .. n - 1 hold the codes carried into
  // the next k-tile, n .. 2n - 1 this k-tile's (n: 4 to 16,
  // GemmCode::mxCodes).
  int64_t n = GemmCode::mxCodes(plan.a) + GemmCode::mxCodes(plan.b);
  env.loop(kConsumers, [&](Value consumer) {
    env.loop(kWarpgroup, [&](Value t) {
      SmallVector<Value> codes = carriedCodes(j, consumer, t, n, [&](Value kt) {
        return code.mxScaleCodes(tm, tn, consumer, t, kt, epilogueArgs[0],
                                 epilogueArgs[1]);
      });
      for (auto [q, c] : llvm::enumerate(codes))
        memref::StoreOp::create(b, loc, c, fp4Codes,
                                env.add(codeSlot(consumer, t), env.idx(n + q)));
    });
  });
  for (int64_t h = 0; h < 2; ++h) {
    Value buffer = env.idx(h);
    env.loop(kConsumers, [&](Value consumer) {
      env.loop(kWarpgroup, [&](Value t) {
        SmallVector<Value> codes;
        for (int64_t q = 0; q < n; ++q)
          codes.push_back(memref::LoadOp::create(
              b, loc, fp4Codes,
              env.add(codeSlot(consumer, t), env.idx(n + q))));
        code.convertMx(
            consumer, t, s, h, buffer, codes,
            [&](Value offset) { return load4(offset); },
            [&](Value offset) { return load16(offset); },
            [&](Value offset, ArrayRef<Value> words) {
              store16(offset, words);
            });
      });
    });
    convertedWgmmas(buffer, b.getBF16Type());
  }
}

GemmCode::TileScales Sm90Emulation::carriedScales(
    const GemmCode::TileScales &shape, Value j, Value consumer, Value t,
    int64_t chunk, const std::function<GemmCode::TileScales(Value)> &load) {
  size_t count = shape.a.size() + shape.b.size();
  assert(chunk == 0 &&
         count <= static_cast<size_t>(GemmPlan::kPrefetchedScales) &&
         "one chunk's scales carried");
  Value slot = env.mul(env.add(env.mul(consumer, env.idx(kWarpgroup)), t),
                       env.idx(GemmPlan::kPrefetchedScales));
  auto keep = [&](const GemmCode::TileScales &scales) {
    for (auto [q, v] : llvm::enumerate(GemmCode::scaleValues(scales)))
      memref::StoreOp::create(b, loc, v, prefetched, env.add(slot, env.idx(q)));
  };
  Value kt = code.kTileOf(j);
  env.ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, j, env.idx(0)),
      [&] { keep(load(kt)); });
  SmallVector<Value> values;
  for (size_t q = 0; q < count; ++q)
    values.push_back(
        memref::LoadOp::create(b, loc, prefetched, env.add(slot, env.idx(q))));
  GemmCode::TileScales carried = GemmCode::withScaleValues(shape, values);
  code.multiplyScales(carried);
  keep(load(env.add(kt, env.idx(1))));
  return carried;
}

void Sm90Emulation::promotingKTile(Value tm, Value tn, Value j, Value kt,
                                   Value s, Value buffer, Value consumer) {
  // A 128x256 tile's 128-column chunks in turn, each with its own
  // descriptor of B. Each k-tile is promoted at once: the kernel that
  // overlaps the promotion with the next k-tile's wgmmas (GemmPlan::
  // overlapsPromotion) adds the same partial sums, times the same scales,
  // in the same order.
  Value descA = code.descA(base, s, buffer, consumer);
  Value regBase = env.mul(consumer, env.idx(kWarpgroup * plan.accRegs()));
  int64_t groups = kTileK / plan.blockK();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t chunk = 0; chunk < plan.mmaChunks(); ++chunk) {
      Value chunkB = code.descB(base, s, buffer, chunk);
      env.loop(kWarpgroup * plan.accRegs(), [&](Value r) {
        memref::StoreOp::create(b, loc, env.f32(0.0f), partial,
                                env.add(regBase, r));
      });
      for (int64_t j = 0; j < plan.stepsPerGroup(); ++j) {
        int64_t step = g * plan.stepsPerGroup() + j;
        emulateWgmma(code, smem, partial, regBase,
                     code.stepDescriptor(descA, step),
                     code.stepDescriptor(chunkB, step), typeA, typeB, chunk);
      }
      Value kb = env.add(env.mul(kt, env.idx(groups)), env.idx(g));
      env.loop(kWarpgroup, [&](Value t) {
        Value at = env.add(regBase, env.mul(t, env.idx(plan.accRegs())));
        auto load = [&](Value buffer, int64_t r) {
          return memref::LoadOp::create(b, loc, buffer, env.add(at, env.idx(r)))
              .getResult();
        };
        GemmCode::TileScales scales = code.loadScales(
            tm, tn, consumer, t, kb, epilogueArgs[0], epilogueArgs[1], chunk);
        if (plan.prefetchesScales())
          scales = carriedScales(scales, j, consumer, t, chunk, [&](Value at) {
            return code.loadScales(tm, tn, consumer, t, at, epilogueArgs[0],
                                   epilogueArgs[1], chunk);
          });
        int64_t first = chunk * plan.mmaRegs();
        code.promote(
            scales, [&](int64_t r) { return load(partial, first + r); },
            [&](int64_t r) { return load(regs, r); },
            [&](int64_t r, Value v) {
              memref::StoreOp::create(b, loc, v, regs, env.add(at, env.idx(r)));
            },
            chunk);
      });
    }
  }
}
} // namespace

void gemm::emitEmulatedBody(KernelEnv &env, const GemmPlan &plan, Type typeA,
                            Type typeB) {
  Sm90Emulation(env, plan, typeA, typeB).emit();
}
