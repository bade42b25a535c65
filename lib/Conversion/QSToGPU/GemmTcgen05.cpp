//===- GemmTcgen05.cpp - block-scaled GEMM kernel for sm_100a (tcgen05) ---===//
//
// D[m, n] = sum_k A[m, k] B[n, k] for MXFP8 and NVFP4 operands in K-major
// order on Blackwell: the tensor cores apply the block scales themselves
// (tcgen05.mma ... block_scale), reading them from tensor memory, and
// accumulate in tensor memory (te-formats.md §6; docs/GPU.md).
//
// Block: 128 threads, one 128 x 128 output tile. Warp 0 (one thread)
// streams 128-byte-swizzled tiles of A and B with TMA into a ring of
// stages; warp 2 gathers each k-tile's scale factors into the stage in
// cuBLAS's 128x4 order (from compact or GEMM-swizzled scales); warp 1
// allocates tensor memory and one of its threads copies the scale factors
// to tensor memory (tcgen05.cp) and issues the MMAs, freeing each stage with
// tcgen05.commit. Then all four warps read their 32 accumulator lanes
// (tcgen05.ld) and run the shared epilogue (GemmCode). Persistent blocks
// (256 threads) loop over their tiles in every role, with two accumulator
// buffers in tensor memory (one for block-scaled 128x256 tiles) and four
// more warps for the epilogue, so a tile's epilogue overlaps the next
// tile's MMAs (one buffer: its loads). Tcgen05Block emits one
// warp role a method; the index arithmetic is shared with the CPU
// emulation (Tcgen05Emulation.cpp).
//
//===----------------------------------------------------------------------===//

#include "GemmCode.h"
#include "GemmPtx.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

namespace {
/// The sm_100a block of emitTcgen05Body: one method per warp role.
class Tcgen05Block : BlockEmitter {
public:
  using BlockEmitter::BlockEmitter;
  void emit();

private:
  Value eq(Value a, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                 env.idx(c));
  }
  /// The i32 shared-memory address of a byte offset from the base.
  Value at(Value offset) { return ptx.i32(env.add(block.base, offset)); }
  bool scaled() const { return plan.sfChunks() > 0; }
  /// Thread 0 initializes the stages' full and empty barriers and the
  /// "accumulator done" barrier.
  void initBarriers();
  /// Producers (TMA, scale factors) wait until the MMAs of round - 1 are
  /// done with stage `s` of the unit's k-tile `kt`.
  void waitEmpty(Value kt, Value s);
  /// Producers: for each k-tile of the block's units (the unit's k-tile j
  /// is the block's k-tile ukt = tileStart + j, in stage ukt % stages),
  /// once its stage is free: `body(kt, s)`, kt the k-tile of K.
  void forEachFreeStage(const std::function<void(Value, Value)> &body);
  /// Warp 0, one thread: TMA of each k-tile's A and B tiles.
  void tmaWarp();
  /// Warp 1, one thread: scale factors to tensor memory (tcgen05.cp) and
  /// the MMAs of each k-tile; commits free the stages, then signal `done`.
  void mmaWarp();
  /// Warp 2: each k-tile's scale factors into the stage in cuBLAS's 128x4
  /// order (block-scaled kinds only).
  void scaleFactorWarp();
  /// All four warps (persistent: warps 4-7, for each of the block's
  /// tiles): tensor-memory lanes 32q..32q+31 of lane quarter q = warp % 4
  /// (their rows) to D.
  void epilogue();
  /// Runs `body(tileStart)` for each of the block's units (one, or a
  /// persistent block's), with tm and tn set.
  void forEachTile(const std::function<void(Value)> &body);
  /// The unit's place among the block's (GemmCode::unitIndex; 0 unless
  /// persistent): accumulator buffer and phase.
  Value unitIndex() { return code.unitIndex ? code.unitIndex : env.idx(0); }
  /// The accumulator buffer of unit index `u`: its full / empty barrier
  /// offsets.
  Value accFull(Value u), accEmpty(Value u);
  /// GemmPlan::tmaStore: each warp stages its rows' store chunks in its
  /// two buffers at the start of the (by now unused) stage ring, or
  /// (persistent) after it, and its lane 0 stores each with a TMA bulk
  /// tensor store.
  void stagedEpilogue(
      Value tmemLane,
      const std::function<std::function<Value(int64_t)>(int64_t)> &load);

  Value tm, tn, tid, warp, lane;
  /// The epilogue thread's lane quarter (warp, or warp - 4 when
  /// persistent).
  Value quarter;
  /// Shared-memory offsets of the "accumulator done" barrier and of the
  /// word tcgen05.alloc writes; the allocated tensor-memory address.
  Value done, slotOffset, tmem;
  std::string columns;
};

void Tcgen05Block::forEachTile(const std::function<void(Value)> &body) {
  // One unit: its tile, computed once at the start of the block (emit()),
  // as every role's.
  if (!plan.persistent()) {
    body(env.idx(0));
    return;
  }
  code.forEachTile(env.blockId, [&](Value tileM, Value tileN, Value start) {
    tm = tileM;
    tn = tileN;
    body(start);
  });
}

Value Tcgen05Block::accFull(Value u) {
  if (plan.accBuffers() == 1)
    return done;
  return env.add(env.idx(plan.accFullOffset(0)),
                 env.mul(env.rem(u, env.idx(plan.accBuffers())), env.idx(16)));
}

Value Tcgen05Block::accEmpty(Value u) {
  if (plan.accBuffers() == 1)
    return env.idx(plan.accEmptyOffset(0));
  return env.add(env.idx(plan.accEmptyOffset(0)),
                 env.mul(env.rem(u, env.idx(plan.accBuffers())), env.idx(8)));
}

void Tcgen05Block::emit() {
  if (!plan.persistent()) {
    code.beginUnit(env.blockId);
    std::tie(tm, tn) = code.tileOf(env.blockId);
  }
  tid = env.threadId;
  warp = env.div(tid, env.idx(32));
  lane = env.rem(tid, env.idx(32));
  done = env.idx(plan.doneBarrierOffset());
  slotOffset = env.idx(plan.tmemSlotOffset());
  columns = std::to_string(plan.tmemColumns());

  env.ifThen(eq(tid, 0), [&] { initBarriers(); });
  // Warp 1 owns the tensor memory: accumulators and scale-factor slots.
  env.ifThen(eq(warp, 1), [&] {
    ptx({at(slotOffset)},
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], " +
            columns +
            ";\n"
            "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
        "r");
  });
  ptx({}, "tcgen05.fence::before_thread_sync;", "");
  gpu::BarrierOp::create(b, loc);
  ptx({}, "tcgen05.fence::after_thread_sync;", "");
  tmem = arith::IndexCastUIOp::create(
      b, loc, b.getIndexType(),
      ptx(b.getI32Type(), {at(slotOffset)}, "ld.shared.b32 $0, [$1];", "=r,r"));

  env.ifThenElse(
      eq(warp, 0), [&] { tmaWarp(); },
      [&] {
        env.ifThenElse(
            eq(warp, 1), [&] { mmaWarp(); },
            [&] {
              // Per-tensor FP8 has no scale factors: warps 2 and 3 idle.
              if (!scaled())
                return;
              env.ifThen(eq(warp, 2), [&] { scaleFactorWarp(); });
            });
      });
  if (!plan.epilogueWarps()) {
    epilogue();
  } else {
    env.ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, warp,
                                     env.idx(4)),
               [&] { epilogue(); });
  }
  // Every warp is done with tensor memory: warp 1 frees it.
  ptx({}, "tcgen05.fence::before_thread_sync;", "");
  gpu::BarrierOp::create(b, loc);
  env.ifThen(eq(warp, 1), [&] {
    ptx({ptx.i32(tmem)},
        "tcgen05.fence::after_thread_sync;\n"
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, " +
            columns + ";",
        "r");
  });
}

void Tcgen05Block::initBarriers() {
  auto init = [&](Value barrier, int64_t count) {
    ptx({at(barrier), ptx.i32(env.idx(count))},
        "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
  };
  for (int64_t s = 0; s < plan.stages; ++s) {
    // Full: the TMA thread's expect_tx plus one arrival per lane of the
    // scale-factor warp (block-scaled); empty: one tcgen05.commit.
    init(code.fullBarrier(env.idx(s)), scaled() ? 1 + 32 : 1);
    init(code.emptyBarrier(env.idx(s)), 1);
  }
  init(done, 1);
  if (plan.epilogueWarps()) {
    // Buffer 1's full barrier; the buffers' empty barriers take one
    // arrival per epilogue thread.
    if (plan.accBuffers() == 2)
      init(env.idx(plan.accFullOffset(1)), 1);
    for (int64_t buffer = 0; buffer < plan.accBuffers(); ++buffer)
      init(env.idx(plan.accEmptyOffset(buffer)), kWarpgroup);
  }
  fenceBarriersAndPrefetchMaps();
}

void Tcgen05Block::waitEmpty(Value kt, Value s) {
  Value round = env.div(kt, env.idx(plan.stages));
  env.ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, kt,
                            env.idx(plan.stages)),
      [&] {
        ptx.wait(
            env.add(block.base, code.emptyBarrier(s)),
            code.band(arith::SubIOp::create(b, loc, round, env.idx(1)), 1));
      });
}

void Tcgen05Block::forEachFreeStage(
    const std::function<void(Value, Value)> &body) {
  forEachTile([&](Value tileStart) {
    code.forEachUnitKTile([&](Value j) {
      Value ukt = env.add(tileStart, j);
      Value s = env.rem(ukt, env.idx(plan.stages));
      waitEmpty(ukt, s);
      body(code.kTileOf(j), s);
    });
  });
}

void Tcgen05Block::tmaWarp() {
  env.ifThen(eq(lane, 0), [&] {
    forEachFreeStage([&](Value kt, Value s) {
      Value full = at(code.fullBarrier(s));
      ptx({full, ptx.i32(env.idx(plan.tileBytes()))},
          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r");
      // Coordinates {innermost, row}: K-major {k byte, tile row},
      // MN-major {tile row (byte), k row}, one box per 128-byte atom.
      auto load = [&](Value dst, Value map, const OperandPlan &op, Value row,
                      int64_t tileRows) {
        Value k = env.mul(
            kt, env.idx(op.mnMajor ? plan.kTileElems() : plan.rowBytes()));
        int64_t box = plan.mnBoxBytes(op, tileRows);
        for (int64_t t = 0; t < (op.mnMajor ? tileRows / box : 1); ++t) {
          Value x = op.mnMajor ? env.add(row, env.idx(t * box)) : k;
          Value y = op.mnMajor ? k : row;
          ptx({at(env.add(dst, env.idx(t * plan.mnAtomBytes()))), map,
               ptx.i32(x), ptx.i32(y), full},
              "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
              "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
              "r,l,r,r,r");
        }
      };
      load(code.stageA(s), block.tmA, plan.a, env.mul(tm, env.idx(kTileM)),
           kTileM);
      load(code.stageB(s), block.tmB, plan.b, env.mul(tn, env.idx(plan.tileN)),
           plan.tileN);
    });
  });
}

void Tcgen05Block::mmaWarp() {
  Value base = block.base;
  env.ifThen(eq(lane, 0), [&] {
    std::string kind = !scaled()    ? "f8f6f4"
                       : plan.fp4() ? "mxf4nvf4.block_scale.scale_vec::4X"
                                    : "mxf8f6f4.block_scale.scale_vec::1X";
    forEachTile([&](Value tileStart) {
      Value u = unitIndex();
      if (plan.epilogueWarps()) {
        // Unit u sums into buffer u % B (B buffers) once the epilogue warps
        // have read unit u - B's sums out of it.
        int64_t buffers = plan.accBuffers();
        env.ifThen(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, u,
                                         env.idx(buffers)),
                   [&] {
                     ptx.wait(
                         env.add(base, accEmpty(u)),
                         code.band(arith::SubIOp::create(
                                       b, loc, env.div(u, env.idx(buffers)),
                                       env.idx(1)),
                                   1));
                   });
        ptx({}, "tcgen05.fence::after_thread_sync;", "");
      }
      Value accumulator = env.add(tmem, code.accColumn());
      // The unit's k-tile kj, the block's k-tile ukt.
      code.forEachUnitKTile([&](Value kj) {
        Value ukt = env.add(tileStart, kj);
        Value s = env.rem(ukt, env.idx(plan.stages));
        Value parity = code.band(env.div(ukt, env.idx(plan.stages)), 1);
        ptx.wait(env.add(base, code.fullBarrier(s)), parity);
        ptx({}, "tcgen05.fence::after_thread_sync;", "");
        Value slot = s;
        for (int64_t op = 0; op < 2 && scaled(); ++op)
          for (int64_t c = 0; c < plan.sfChunks(); ++c)
            for (int64_t g = 0; g < plan.sfGroups(op); ++g)
              ptx({ptx.i32(env.add(tmem, code.sfColumn(slot, op, c, g))),
                   code.sfDescriptor(env.add(base, code.stageSf(s, op, c, g)))},
                  "tcgen05.cp.cta_group::1.32x128b.warpx4 [$0], $1;", "r,l");
        Value descA =
            code.ummaDescriptor(env.add(base, code.stageA(s)), plan.a);
        Value descB =
            code.ummaDescriptor(env.add(base, code.stageB(s)), plan.b);
        for (int64_t j = 0; j < kKSteps; ++j) {
          Tcgen05Instr instr = code.instr(j);
          // Scale-factor addresses: the chunk's columns, and (as the
          // instruction descriptor) the byte id in bits 30-31.
          auto sf = [&](int64_t op, unsigned id) {
            Value column = code.sfColumn(slot, op, plan.fp4() ? j : 0);
            return ptx.i32(
                env.add(env.add(tmem, column), env.idx(int64_t(id) << 30)));
          };
          Value accumulate = arith::ExtUIOp::create(
              b, loc, b.getI32Type(),
              j > 0 ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
                    : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                            kj, env.idx(0))
                          .getResult());
          SmallVector<Value> operands = {
              ptx.i32(accumulator), code.mmaStep(plan.a, descA, j),
              code.mmaStep(plan.b, descB, j),
              arith::ConstantIntOp::create(
                  b, loc, b.getI32Type(), static_cast<int32_t>(instr.encode())),
              accumulate};
          if (scaled()) {
            operands.push_back(sf(0, instr.sfIdA));
            operands.push_back(sf(1, instr.sfIdB));
          }
          ptx(operands,
              "{\n.reg .pred p;\nsetp.ne.b32 p, $4, 0;\n"
              "tcgen05.mma.cta_group::1.kind::" +
                  kind + " [$0], $1, $2, $3, " +
                  (scaled() ? "[$5], [$6], " : "") + "p;\n}",
              scaled() ? "r,l,l,r,r,r,r" : "r,l,l,r,r");
        }
        // The stage is free once these MMAs (and copies) are done.
        ptx({at(code.emptyBarrier(s))},
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one."
            "shared::cluster.b64 [$0];",
            "r");
      });
      // The unit's sums are complete once its MMAs are.
      ptx({at(accFull(u))},
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one."
          "shared::cluster.b64 [$0];",
          "r");
    });
  });
}

void Tcgen05Block::scaleFactorWarp() {
  ValueRange epilogueArgs = block.epilogueArgs;
  forEachFreeStage([&](Value kt, Value s) {
    auto load = [&](StringRef op, Value scales, Value offset) {
      Value address =
          arith::AddIOp::create(b, loc, ptx.pointerOf(scales), ptx.i64(offset));
      return ptx(b.getI32Type(), {address}, (op + " $0, [$1];").str(), "=r,l");
    };
    code.gatherScales(
        tm, tn, lane, kt, s, epilogueArgs[0], epilogueArgs[1],
        [&](Value scales, Value offset) {
          return load("ld.global.nc.b32", scales, offset);
        },
        [&](Value scales, Value offset) {
          return load("ld.global.nc.u8", scales, offset);
        },
        [&](Value offset, ArrayRef<Value> words) {
          SmallVector<Value> operands = {at(offset)};
          operands.append(words.begin(), words.end());
          ptx(operands, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};",
              "r,r,r,r,r");
        });
    // Generic-proxy writes, visible to tcgen05.cp (async proxy).
    ptx({at(code.fullBarrier(s))},
        "fence.proxy.async.shared::cta;\n"
        "mbarrier.arrive.shared::cta.b64 _, [$0];",
        "r");
  });
}

void Tcgen05Block::epilogue() {
  // Lane quarter q (warp w, or w - 4 in persistent blocks) reads
  // tensor-memory lanes 32q..32q+31 (its rows), 32 columns at a time.
  quarter = plan.epilogueWarps()
                ? arith::SubIOp::create(b, loc, warp, env.idx(4)).getResult()
                : warp;
  Value tmemLane = env.add(env.mul(quarter, env.idx(32)), lane);
  Value laneBase = env.add(tmem, code.shl(env.mul(quarter, env.idx(32)), 16));
  Type i32 = b.getI32Type();
  auto words = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                SmallVector<Type>(32, i32));
  std::string list, constraints;
  for (int64_t r = 0; r < 32; ++r) {
    list += (r ? ", $" : "$") + std::to_string(r);
    constraints += "=r,";
  }
  constraints += "r";
  forEachTile([&](Value tileStart) {
    // Unit u's sums are in buffer u % B (B accumulator buffers) once its
    // MMAs are done (phase u / B of the buffer's full barrier).
    Value u = unitIndex();
    ptx.wait(env.add(block.base, accFull(u)),
             code.band(env.div(u, env.idx(plan.accBuffers())), 1));
    ptx({}, "tcgen05.fence::after_thread_sync;", "");
    Value bufferBase = env.add(laneBase, code.accColumn());
    auto load = [&](int64_t chunk) {
      Value values =
          ptx(words, {ptx.i32(env.add(bufferBase, env.idx(32 * chunk)))},
              "tcgen05.ld.sync.aligned.32x32b.x32.b32 {" + list +
                  "}, [$32];\ntcgen05.wait::ld.sync.aligned;",
              constraints);
      OpBuilder &builder = b;
      Location at = loc;
      return std::function<Value(int64_t)>([&builder, at, values](int64_t r) {
        return LLVM::ExtractValueOp::create(builder, at, values, r).getResult();
      });
    };
    // The unit's values to D (staged or direct), or to its plane; the
    // reducing pass (no `load`) sums the planes.
    auto store = [&](bool fromTmem) {
      std::function<std::function<Value(int64_t)>(int64_t)> loader;
      if (fromTmem)
        loader = load;
      if (code.stagesStores())
        stagedEpilogue(tmemLane, loader);
      else
        code.tmemEpilogue(block.epilogueArgs, tm, tn, tmemLane, loader);
    };
    // Persistent: this thread has read the buffer (each tcgen05.ld was
    // waited for), which unit u + B may now overwrite.
    auto release = [&] {
      if (plan.epilogueWarps())
        ptx({at(accEmpty(u))},
            "tcgen05.fence::before_thread_sync;\n"
            "mbarrier.arrive.shared::cta.b64 _, [$0];",
            "r");
    };
    // Fused split-K and shared stream-K tiles: the epilogue's 128 threads
    // stored the plane; the first arrives (named barrier 1 where warps 0-3
    // run other roles).
    auto arrive = [&] {
      arriveAndReduce(
          eq(tmemLane, 0), env.idx(plan.lastUnitFlagOffset()),
          [&] {
            if (plan.epilogueWarps())
              ptx({}, "bar.sync 1, 128;", "");
            else
              gpu::BarrierOp::create(b, loc);
          },
          [&] { store(false); });
    };
    if (plan.streamsK()) {
      // A segment sharing its tile stores its plane, frees the buffer
      // (the sums of the planes read none of it) and arrives; one that
      // computed its tile whole stores D.
      code.finishSegment(
          env.blockId, [&] { store(true); },
          [&] {
            release();
            arrive();
          },
          [&] {
            store(true);
            release();
          });
    } else if (plan.fusesReduction()) {
      // Fused split-K: the plane stored, the buffer is free (as for a
      // shared stream-K tile).
      store(true);
      release();
      arrive();
    } else {
      store(true);
      release();
    }
  });
  // Persistent TMA stores (whole tiles, or the reducing passes of fused
  // split-K and stream-K): every one is complete before the block exits.
  if (plan.tmaStore && plan.persistent())
    env.ifThen(eq(lane, 0),
               [&] { ptx({}, "cp.async.bulk.wait_group 0;", ""); });
}
} // namespace

void Tcgen05Block::stagedEpilogue(
    Value tmemLane,
    const std::function<std::function<Value(int64_t)>(int64_t)> &load) {
  // Lane quarter q's buffers: bytes [q 8 KiB, (q + 1) 8 KiB) of the ring,
  // which no TMA load or MMA reads once `done` has completed (the ring
  // holds at least two stages of 24 KiB), or (persistent: the ring feeds
  // the next units) of the staging area after it. Before chunk c fills
  // buffer c % 2, lane 0 waits until the store of chunk c - 2 has read it
  // (persistent: also the previous units' last two chunks, so from the
  // first chunk on: the tile's chunk count is even); after the fills each
  // thread's writes are made visible to the async proxy and lane 0 issues
  // the store of the warp's 32 rows x 128 bytes.
  // Staged blocks (GemmPlan::stagesBlocks: column-wise MXFP8) instead:
  // after each chunk's fills the warp's lanes read its blocks back
  // (readStagedBlocks); every read of buffer c % 2 from chunk c - 2 is
  // done once all lanes passed chunk c - 1's bar.warp.sync (a tile's
  // chunk count is even: the next unit's chunk 0 likewise). Column-wise
  // FP8 1x128 blocks (GemmPlan::stagesAcrossGroups: a column's 128 rows
  // are all four warps'): a pass is both buffers (128 16-bit columns),
  // and the four warps meet at named barrier 1 (128 threads) before each
  // pass's fills (every read of the previous pass, this unit's or the
  // previous one's, is done) and after them (every warp's rows staged).
  const int64_t kBuffer = plan.stagingBufferBytes();
  bool blocks = plan.stagesBlocks(), across = plan.stagesAcrossGroups();
  int64_t group = plan.stagedChunkGroup();
  Value lead = eq(lane, 0);
  Value buffers = env.add(env.idx(plan.persistent() ? plan.stagingOffset() : 0),
                          env.mul(quarter, env.idx(2 * kBuffer)));
  Type i32 = b.getI32Type();
  auto bits = [&](Value v) -> Value {
    if (v.getType().isF32())
      return arith::BitcastOp::create(b, loc, i32, v);
    Type bitsType = b.getIntegerType(v.getType().getIntOrFloatBitWidth());
    return arith::ExtUIOp::create(
        b, loc, i32, arith::BitcastOp::create(b, loc, bitsType, v));
  };
  for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
    Value buffer = env.add(buffers, env.idx((chunk % 2) * kBuffer));
    if (!blocks && (chunk >= 2 || plan.persistent())) {
      env.ifThen(lead,
                 [&] { ptx({}, "cp.async.bulk.wait_group.read 1;", ""); });
      ptx({}, "bar.warp.sync -1;", "");
    }
    if (across && chunk % group == 0)
      ptx({}, "bar.sync 1, 128;", "");
    code.tmemStagedChunk(
        block.epilogueArgs, tm, tn, tmemLane, chunk, load,
        [&](Value offset, ArrayRef<Value> values) {
          // 16 bytes: four f32, eight 16-bit values or sixteen FP8 codes
          // of a fused output quantizer (each word's first value in its
          // low bits).
          SmallVector<Value> operands = {
              at(env.add(buffer, swizzle(code, offset)))};
          int64_t per = values.size() / 4;
          int64_t width = 32 / per;
          for (int64_t w = 0; w < 4; ++w) {
            if (per == 2) {
              operands.push_back(
                  ptx.packHalves(values[2 * w], values[2 * w + 1]));
              continue;
            }
            Value word = bits(values[w * per]);
            for (int64_t e = 1; e < per; ++e)
              word = arith::OrIOp::create(
                  b, loc, word,
                  arith::ShLIOp::create(
                      b, loc, bits(values[w * per + e]),
                      arith::ConstantIntOp::create(b, loc, i32, e * width)));
            operands.push_back(word);
          }
          ptx(operands, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};",
              "r,r,r,r,r");
        });
    if (blocks) {
      if ((chunk + 1) % group != 0)
        continue;
      ptx({}, across ? "bar.sync 1, 128;" : "bar.warp.sync -1;", "");
      // The pass's first chunk's buffer (the others after it).
      Value first =
          env.add(buffers, env.idx(((chunk + 1 - group) % 2) * kBuffer));
      readStagedBlocks(tm, tn, quarter, lane, chunk / group, first);
      continue;
    }
    ptx({},
        "fence.proxy.async.shared::cta;\n"
        "bar.warp.sync -1;",
        "");
    env.ifThen(lead, [&] { storeBox(tm, tn, quarter, chunk, at(buffer)); });
  }
  // The warp's stores are complete before the block exits (persistent:
  // after its last unit, epilogue()).
  if (!plan.persistent() && !blocks)
    env.ifThen(lead, [&] { ptx({}, "cp.async.bulk.wait_group 0;", ""); });
}

void gemm::emitTcgen05Body(KernelEnv &env, const GemmPlan &plan) {
  Tcgen05Block(env, plan).emit();
}
