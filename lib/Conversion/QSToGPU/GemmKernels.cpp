//===- GemmKernels.cpp - GEMM kernels for sm_90a (TMA + wgmma) ------------===//
//
// One kernel computes D[m, n] = alpha * sum_k A[m, k] B[n, k] (+ bias[n])
// (+ C[m, n]) for per-tensor FP8, FP8 block, MXFP8 and NVFP4 operands in
// K-major order (te-formats.md §6; docs/GPU.md).
//
// Block: three warpgroups. Warpgroup 0 is the producer: one thread streams
// tiles of A (128 rows) and B (tileN rows) with TMA (cp.async.bulk.tensor,
// zero fill past the edges) into a ring of `stages` shared-memory stages,
// each guarded by a "full" mbarrier (transaction bytes) and an "empty"
// mbarrier (one arrival per consumer). Warpgroups 1 and 2 are consumers:
// each owns 64 rows of the 128-row tile and issues wgmma.mma_async into
// FP32 registers (per-tensor: straight; block-scaled: per scale block, then
// promoted; NVFP4: after converting the tile to f16 in shared memory), then
// applies the epilogue from its registers. setmaxnreg moves registers from
// the producer to the consumers. Sm90Block emits one role a method; the
// index arithmetic is shared with the CPU emulation (GemmCode.h,
// GemmEmulation.cpp), the plan and launch are GemmPlan.cpp's.
//
//===----------------------------------------------------------------------===//

#include "GemmSm90Block.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::gemm;

Value gemm::sharedBase(OpBuilder &b, Location loc) {
  auto kernels =
      b.getInsertionBlock()->getParentOp()->getParentOfType<gpu::GPUModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto arrayType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  if (!kernels.lookupSymbol(kSharedSymbol)) {
    OpBuilder gb(ctx);
    gb.setInsertionPointToStart(kernels.getBody());
    LLVM::GlobalOp::create(gb, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedSymbol, Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
  }
  Value ptr = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 3), kSharedSymbol);
  Value asInt = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), asInt);
}

GemmBlock::GemmBlock(KernelEnv &env, Ptx &ptx, bool tmaStore)
    : tmA(ptx.pointerOf(env.args[0])), tmB(ptx.pointerOf(env.args[1])),
      epilogueArgs(ValueRange(env.args).drop_front(2).drop_back(tmaStore)),
      base(sharedBase(env.b, env.loc)) {}

void BlockEmitter::readStagedBlocks(Value tm, Value tn, Value group, Value t,
                                    int64_t pass, Value first) {
  Type type = plan.stagedType(), i32 = b.getI32Type(), i16 = b.getI16Type();
  auto address = [&](Value offset) {
    return ptx.i32(env.add(block.base, env.add(first, swizzle(code, offset))));
  };
  // One nominal-typed value at shared address `at`.
  auto loadValue = [&](Value at) -> Value {
    bool wide = type.isF32();
    Value bits = ptx(wide ? i32 : i16, {at},
                     wide ? "ld.shared.b32 $0, [$1];" : "ld.shared.b16 $0, [$1];",
                     wide ? "=r,r" : "=h,r");
    return arith::BitcastOp::create(b, loc, type, bits);
  };
  code.stagedBlocks(
      tm, tn, group, t, block.epilogueArgs, pass,
      [&](Value offset) {
        // Four words: f32 values, or 16-bit pairs (the first in the low
        // half).
        Value v =
            ptx(LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                 {i32, i32, i32, i32}),
                {address(offset)}, "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];",
                "=r,=r,=r,=r,r");
        SmallVector<Value> values;
        for (int64_t w = 0; w < 4; ++w) {
          Value word = LLVM::ExtractValueOp::create(b, loc, v, w);
          if (type.isF32()) {
            values.push_back(arith::BitcastOp::create(b, loc, type, word));
            continue;
          }
          for (int64_t h = 0; h < 2; ++h) {
            Value bits = h ? arith::ShRUIOp::create(
                                 b, loc, word,
                                 arith::ConstantIntOp::create(b, loc, i32, 16))
                                 .getResult()
                           : word;
            values.push_back(arith::BitcastOp::create(
                b, loc, type, arith::TruncIOp::create(b, loc, i16, bits)));
          }
        }
        return values;
      },
      [&](Value offset) -> Value { return loadValue(address(offset)); },
      [&](Value offset) -> Value {
        // Every group's staging (stagesAcrossGroups).
        return loadValue(
            ptx.i32(env.add(block.base, env.add(env.idx(plan.stagingStart()),
                                                swizzle(code, offset)))));
      });
}

void BlockEmitter::arriveAndReduce(Value leader, Value flag,
                                   const std::function<void()> &sync,
                                   const std::function<void()> &reduce) {
  Type i32 = b.getI32Type();
  ptx({}, "fence.acq_rel.gpu;", "");
  sync();
  Value flagAddress = ptx.i32(env.add(block.base, flag));
  env.ifThen(leader, [&] {
    Value counter =
        ptx.i64(env.add(memref::ExtractAlignedPointerAsIndexOp::create(
                            b, loc, code.splitKCounters()),
                        env.mul(code.tile, env.idx(4))));
    Value before = ptx(i32, {counter, ptx.i32(env.idx(1))},
                       "atom.acq_rel.gpu.add.u32 $0, [$1], $2;", "=r,l,r");
    Value last = arith::ExtUIOp::create(
        b, loc, i32,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, before,
                              code.arrivalsBeforeLast()));
    ptx({counter, last, flagAddress, ptx.i32(env.idx(0))},
        "{\n.reg .pred p;\nsetp.ne.b32 p, $1, 0;\n"
        "@p st.relaxed.gpu.u32 [$0], $3;\n"
        "st.shared.b32 [$2], $1;\n}",
        "l,r,r,r");
  });
  sync();
  Value last = ptx(i32, {flagAddress}, "ld.shared.b32 $0, [$1];", "=r,r");
  env.ifThen(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, last,
                            arith::ConstantIntOp::create(b, loc, i32, 0)),
      [&] {
        ptx({}, "fence.acq_rel.gpu;", "");
        code.reducing = true;
        reduce();
        code.reducing = false;
      });
}

/// A consumer's wait for the block's k-tile `it` (stage it % stages, round
/// it / stages, whose parity the full barrier's phase shows); returns the
/// stage.
Value gemm::waitForKTile(KernelEnv &env, const GemmPlan &plan, GemmCode &code,
                         Ptx &ptx, Value base, Value it) {
  Value s = env.rem(it, env.idx(plan.stages));
  Value parity = code.band(env.div(it, env.idx(plan.stages)), 1);
  ptx.wait(env.add(base, code.fullBarrier(s)), parity);
  return s;
}

/// The stage of the block's k-tile before `it`.
Value gemm::previousStage(KernelEnv &env, const GemmPlan &plan, Value it) {
  return env.rem(env.add(it, env.idx(plan.stages - 1)), env.idx(plan.stages));
}

void Sm90Block::emit() {
  tid = env.threadId;
  wg = env.div(tid, env.idx(kWarpgroup));
  t = env.rem(tid, env.idx(kWarpgroup));
  zero = env.idx(0);
  env.ifThen(eq(tid, zero), [&] { initBarriers(); });
  // Both blocks of a multicast pair have their barriers initialized before
  // either writes into the other's shared memory.
  if (plan.multicast())
    clusterBarrier();
  else
    gpu::BarrierOp::create(b, loc);
  rank = env.rem(env.blockId, env.idx(2));
  peer = arith::SubIOp::create(b, loc, env.idx(1), rank);
  env.ifThenElse(
      eq(wg, zero), [&] { producer(); }, [&] { consumers(); });
  // Neither block of a pair exits while the other may still arrive on its
  // barriers.
  if (plan.multicast())
    clusterBarrier();
}

void Sm90Block::initBarriers() {
  Value base = block.base;
  for (int64_t s = 0; s < plan.stages; ++s) {
    ptx({ptx.i32(env.add(base, code.fullBarrier(env.idx(s)))),
         ptx.i32(env.idx(1))},
        "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
    // The consumers that read a stage free it (ping-pong: one); with
    // multicast, those of both blocks of the pair (B's halves land in
    // both).
    ptx({ptx.i32(env.add(base, code.emptyBarrier(env.idx(s)))),
         ptx.i32(env.idx(plan.stageConsumers() * plan.cluster))},
        "mbarrier.init.shared::cta.b64 [$0], $1;", "r,r");
  }
  fenceBarriersAndPrefetchMaps();
}

void Sm90Block::clusterBarrier() {
  ptx({},
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;",
      "");
}

void Sm90Block::producer() {
  Value base = block.base;
  ptx({}, "setmaxnreg.dec.sync.aligned.u32 40;", "");
  env.ifThen(eq(t, zero), [&] {
    code.forEachTile(env.blockId, [&](Value tm, Value tn, Value tileStart) {
      code.forEachUnitKTile([&](Value j) {
        // The block's k-tile `it` (through all its units) uses stage
        // it % stages in round it / stages; k-tile kt of K.
        Value it = env.add(tileStart, j);
        Value kt = code.kTileOf(j);
        Value s = env.rem(it, env.idx(plan.stages));
        Value round = env.div(it, env.idx(plan.stages));
        env.ifThen(uge(it, env.idx(plan.stages)), [&] {
          Value parity =
              code.band(arith::SubIOp::create(b, loc, round, env.idx(1)), 1);
          ptx.wait(env.add(base, code.emptyBarrier(s)), parity);
        });
        Value full = ptx.i32(env.add(base, code.fullBarrier(s)));
        ptx({full, ptx.i32(env.idx(plan.tileBytes()))},
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r");
        // Coordinates {innermost, row}: K-major {k byte, tile row},
        // MN-major {tile row (byte), k row}.
        auto load = [&](Value dst, Value map, const OperandPlan &op,
                        Value row) {
          Value k = env.mul(kt, env.idx(op.mnMajor ? kTileK : plan.rowBytes()));
          Value x = op.mnMajor ? row : k, y = op.mnMajor ? k : row;
          ptx({ptx.i32(env.add(base, dst)), map, ptx.i32(x), ptx.i32(y), full},
              "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
              "complete_tx::bytes [$0], [$1, {$2, $3}], [$4];",
              "r,l,r,r,r");
        };
        load(code.stageA(s), block.tmA, plan.a, env.mul(tm, env.idx(kTileM)));
        if (!plan.multicast()) {
          load(code.stageB(s), block.tmB, plan.b,
               env.mul(tn, env.idx(plan.tileN)));
          return;
        }
        // This block's half of B (rows rank * tileN / 2 of the tile),
        // written into the same offset of both blocks' stage and completing
        // both blocks' full barriers.
        int64_t half = plan.tileN / 2;
        Value dst = env.add(code.stageB(s),
                            env.mul(rank, env.idx(half * plan.rowBytes())));
        Value row = env.add(env.mul(tn, env.idx(plan.tileN)),
                            env.mul(rank, env.idx(half)));
        Value k = env.mul(kt, env.idx(plan.rowBytes()));
        Value mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(), 3);
        ptx({ptx.i32(env.add(base, dst)), block.tmB, ptx.i32(k), ptx.i32(row),
             full, mask},
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
            "complete_tx::bytes.multicast::cluster [$0], [$1, {$2, "
            "$3}], [$4], $5;",
            "r,l,r,r,r,h");
      });
    });
  });
}

SmallVector<Value> Sm90Block::load16(Value offset) {
  Type i32 = b.getI32Type();
  auto words =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {i32, i32, i32, i32});
  Value v = ptx(words, {ptx.i32(env.add(block.base, offset))},
                "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,r");
  SmallVector<Value> result;
  for (int64_t w = 0; w < 4; ++w)
    result.push_back(LLVM::ExtractValueOp::create(b, loc, v, w));
  return result;
}

void Sm90Block::store16(Value offset, ArrayRef<Value> words) {
  SmallVector<Value> operands = {
      ptx.i32(env.add(block.base, swizzle(code, offset)))};
  operands.append(words.begin(), words.end());
  ptx(operands, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};", "r,r,r,r,r");
}

void Sm90Block::freeStage(Value stage, Value cond) {
  Value freed = env.add(block.base, code.emptyBarrier(stage));
  ptx.arriveIf(freed, cond);
  if (!plan.multicast())
    return;
  Value remote = ptx(b.getI32Type(), {ptx.i32(freed), ptx.i32(peer)},
                     "mapa.shared::cluster.u32 $0, $1, $2;", "=r,r,r");
  ptx.arriveIf(remote, cond, /*remote=*/true);
}

void Sm90Block::consumers() {
  ptx({}, "setmaxnreg.inc.sync.aligned.u32 232;", "");
  consumer = arith::SubIOp::create(b, loc, wg, env.idx(1));
  SmallVector<Type> fields(plan.accRegs(), b.getF32Type());
  accType = LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
  if (plan.pingpong)
    pingpongConsumer();
  else
    code.forEachTile(env.blockId, [&](Value tm, Value tn, Value tileStart) {
      consumerTile(tm, tn, tileStart);
    });
  // The last TMA stores are complete (their shared-memory reads and their
  // writes) before the block exits.
  if (plan.tmaStore)
    env.ifThen(eq(t, zero),
               [&] { ptx({}, "cp.async.bulk.wait_group 0;", ""); });
}

void Sm90Block::consumerBarrier(StringRef op, int64_t first, int64_t threads) {
  std::string tail = ", " + std::to_string(threads) + ";";
  env.ifThenElse(
      eq(consumer, zero),
      [&] { ptx({}, (op + " " + std::to_string(first) + tail).str(), ""); },
      [&] {
        ptx({}, (op + " " + std::to_string(first + 1) + tail).str(), "");
      });
}

void Sm90Block::stagingBarrier() {
  if (plan.stagesAcrossGroups())
    ptx({}, "bar.sync 1, 256;", "");
  else
    consumerBarrier("bar.sync", 4, kWarpgroup);
}

void Sm90Block::storeTile(Value tm, Value tn, Value half,
                          const std::function<Value(int64_t)> &acc) {
  if (!code.stagesStores()) {
    code.epilogue(tm, tn, half, t, block.epilogueArgs, acc);
    return;
  }
  // This consumer's two staging buffers (named barriers 4 and 5: its 128
  // threads). Before chunk c fills buffer c % 2, thread 0 waits until the
  // store of chunk c - 2 (c = 0: every earlier store, as a tile's chunk
  // count may be odd) has read it; after the fills, each thread's writes
  // are made visible to the async proxy and thread 0 issues the store.
  Value staging =
      env.add(env.idx(plan.stagingOffset()),
              env.mul(consumer, env.idx(2 * plan.stagingBufferBytes())));
  // Staged blocks (GemmPlan::stagesBlocks) instead: the consumer's threads
  // read each pass's chunks back (GemmCode::stagedBlocks) after a barrier.
  // One chunk per pass: every read of buffer c % 2 from chunk c - 2 is
  // done once all threads passed chunk c - 1's barrier, and of the
  // previous tile's chunks once all passed the barrier before chunk 0.
  // Two (1x128 blocks, both buffers): a barrier before each pass's fills.
  // A transposed FP8 output (GemmPlan::outputTranspose) likewise, one
  // chunk per pass, unless the TMA store writes the rows: then its
  // transpose is read after each chunk's TMA barrier.
  bool blocks =
      plan.stagesBlocks() || (plan.outputTranspose && !plan.tmaStore);
  int64_t group = plan.stagedChunkGroup();
  for (int64_t chunk = 0; chunk < plan.storeChunks(); ++chunk) {
    Value buffer =
        env.add(staging, env.idx((chunk % 2) * plan.stagingBufferBytes()));
    if (!blocks)
      env.ifThen(eq(t, zero), [&] {
        ptx({},
            chunk == 0 ? "cp.async.bulk.wait_group.read 0;"
                       : "cp.async.bulk.wait_group.read 1;",
            "");
      });
    if (!blocks || chunk == 0 || (group > 1 && chunk % group == 0))
      stagingBarrier();
    auto staged = [&](Value offset) {
      return ptx.i32(
          env.add(block.base, env.add(buffer, swizzle(code, offset))));
    };
    // 16-bit outputs: four pairs' words per stmatrix (GemmCode::stmatrixRow).
    SmallVector<Value, 4> words;
    code.stagedEpilogueChunk(
        tm, tn, half, t, block.epilogueArgs, chunk, acc,
        [&](int64_t g, Value offset, ArrayRef<Value> values) {
          if (values[0].getType().isF32()) {
            ptx({staged(offset), values[0], values[1]},
                "st.shared.v2.f32 [$0], {$1, $2};", "r,f,f");
            return;
          }
          Type i8 = b.getI8Type(), i16 = b.getI16Type();
          if (values[0].getType().getIntOrFloatBitWidth() == 8) {
            // A fused output quantizer's FP8 codes: the pair's two bytes,
            // the first at the lower address.
            auto byte = [&](Value v) {
              return arith::ExtUIOp::create(
                  b, loc, i16, arith::BitcastOp::create(b, loc, i8, v));
            };
            Value pair = arith::OrIOp::create(
                b, loc, byte(values[0]),
                arith::ShLIOp::create(
                    b, loc, byte(values[1]),
                    arith::ConstantIntOp::create(b, loc, i16, 8)));
            ptx({staged(offset), pair}, "st.shared.b16 [$0], $1;", "r,h");
            return;
          }
          // Two 16-bit values, the first in the low half.
          words.push_back(ptx.packHalves(values[0], values[1]));
          if (words.size() < 4)
            return;
          ptx({staged(code.stmatrixRow(t, g / 4)), words[0], words[1], words[2],
               words[3]},
              "stmatrix.sync.aligned.m8n8.x4.shared.b16 [$0], "
              "{$1, $2, $3, $4};",
              "r,r,r,r,r");
          words.clear();
        });
    if (blocks) {
      if ((chunk + 1) % group != 0)
        continue;
      // The pass's first chunk's buffer, and the others after it.
      Value first = env.add(staging, env.idx(((chunk + 1 - group) % 2) *
                                             plan.stagingBufferBytes()));
      stagingBarrier();
      if (plan.outputTranspose)
        readStagedCodes(tm, tn, half, chunk, buffer);
      else
        readStagedBlocks(tm, tn, half, t, chunk / group, first);
      continue;
    }
    ptx({}, "fence.proxy.async.shared::cta;", "");
    consumerBarrier("bar.sync", 4, kWarpgroup);
    env.ifThen(eq(t, zero), [&] {
      storeBox(tm, tn, half, chunk, ptx.i32(env.add(block.base, buffer)));
    });
    // The TMA store and these reads both only read the buffer; the next
    // fill of it waits for both (the barrier at chunk + 2's start).
    if (plan.outputTranspose)
      readStagedCodes(tm, tn, half, chunk, buffer);
  }
}

void Sm90Block::readStagedCodes(Value tm, Value tn, Value half,
                                int64_t chunk, Value buffer) {
  Type i32 = b.getI32Type();
  auto address = [&](Value offset) {
    return ptx.i32(
        env.add(block.base, env.add(buffer, swizzle(code, offset))));
  };
  code.stagedCodes(
      tm, tn, half, t, block.epilogueArgs, chunk,
      [&](Value offset) -> Value {
        return ptx(i32, {address(offset)}, "ld.shared.b32 $0, [$1];", "=r,r");
      },
      [&](Value offset) {
        Value v = ptx(
            LLVM::LLVMStructType::getLiteral(b.getContext(),
                                             {i32, i32, i32, i32}),
            {address(offset)}, "ld.shared.v4.b32 {$0, $1, $2, $3}, [$4];",
            "=r,=r,=r,=r,r");
        SmallVector<Value> words;
        for (int64_t w = 0; w < 4; ++w)
          words.push_back(LLVM::ExtractValueOp::create(b, loc, v, w));
        return words;
      });
}

void Sm90Block::consumerTile(Value tm, Value tn, Value tileStart) {
  Value result = plan.overlapsPromotion() ? overlappedKLoop(tm, tn, tileStart)
                                          : kLoop(tm, tn, tileStart);
  auto registers = [&](int64_t r) {
    return LLVM::ExtractValueOp::create(b, loc, result, r).getResult();
  };
  // Fused split-K, and stream-K segments sharing their tile: both
  // consumers (named barrier 1) arrive; the leader is consumer 0's thread
  // 0.
  auto arrive = [&] {
    arriveAndReduce(
        eq(env.add(env.mul(consumer, env.idx(kWarpgroup)), t), zero),
        env.idx(plan.lastUnitFlagOffset()),
        [&] { ptx({}, "bar.sync 1, 256;", ""); },
        [&] { storeTile(tm, tn, consumer, [](int64_t) { return Value(); }); });
  };
  if (plan.streamsK()) {
    // A segment sharing its tile stores its plane and arrives; one that
    // computed its tile whole stores D.
    code.finishSegment(
        env.blockId,
        [&] {
          code.epilogue(tm, tn, consumer, t, block.epilogueArgs, registers);
        },
        arrive, [&] { storeTile(tm, tn, consumer, registers); });
    return;
  }
  storeTile(tm, tn, consumer, registers);
  if (plan.fusesReduction())
    arrive();
}

/// Ping-pong consumer `consumer` (per-tensor FP8, persistent, 128 x 128
/// tiles): the block's tiles of iterations consumer, consumer + 2, ...,
/// each whole: rows [0, 64) and [64, 128) in two accumulators, one wgmma
/// group per k-tile (one in flight: the previous k-tile's stage is freed
/// after wait_group 1, the tile's last after wait_group 0), then the
/// epilogue of both halves while the other consumer's wgmmas run.
///
/// Order: a consumer waits on the full barriers of its tile only once the
/// other has passed all those of the previous tile (named barrier 2 + c:
/// consumer c's bar.sync meets the other's bar.arrive after its k-loop).
/// Without it a consumer that skips the other's rounds of a stage could
/// wait for round r while the stage's full barrier is still in round r - 1
/// or r - 2: try_wait.parity tells only adjacent phases apart, so the wait
/// would pass on the other consumer's data (unittests/GemmProtocolTest.cpp
/// finds it).
void Sm90Block::pingpongConsumer() {
  Value base = block.base;
  Value first = eq(t, zero);
  int64_t kTiles = plan.kTilesPerUnit();
  // `op` ("bar.sync" or "bar.arrive") on named barrier 2 + c, c this
  // consumer (`own`) or the other (immediate ids: ptxas then reserves
  // only those).
  Value isFirst = eq(consumer, zero);
  auto named = [&](StringRef op, bool own) {
    env.ifThenElse(
        isFirst,
        [&] { ptx({}, (op + (own ? " 2, 256;" : " 3, 256;")).str(), ""); },
        [&] { ptx({}, (op + (own ? " 3, 256;" : " 2, 256;")).str(), ""); });
  };
  code.forEachTile(
      env.blockId,
      [&](Value tm, Value tn, Value tileStart) {
        Value iteration = env.div(tileStart, env.idx(kTiles));
        env.ifThen(uge(iteration, env.idx(1)),
                   [&] { named("bar.sync", /*own=*/true); });
        Value fresh = LLVM::ZeroOp::create(b, loc, accType);
        auto forOp = scf::ForOp::create(b, loc, zero, env.idx(kTiles),
                                        env.idx(1), ValueRange{fresh, fresh});
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(forOp.getBody());
          Value kt = forOp.getInductionVar();
          Value it = env.add(tileStart, kt);
          Value s = waitForKTile(env, plan, code, ptx, base, it);
          ptx({}, "wgmma.fence.sync.aligned;", "");
          SmallVector<Value, 2> next;
          for (int64_t half = 0; half < 2; ++half)
            next.push_back(
                emitWgmmaStep(b, loc, plan, forOp.getRegionIterArgs()[half],
                              code.descA(base, s, zero, env.idx(half)),
                              code.descB(base, s, zero), code));
          ptx({},
              "wgmma.commit_group.sync.aligned;\n"
              "wgmma.wait_group.sync.aligned 1;",
              "");
          freeStage(previousStage(env, plan, it),
                    env.land(first, ugt(kt, zero)));
          scf::YieldOp::create(b, loc, next);
        }
        // The other consumer's next tile may wait on its stages now (if the
        // block has a next iteration).
        Value nextTile =
            env.add(env.blockId, env.mul(env.add(iteration, env.idx(1)),
                                         env.idx(plan.blocks())));
        env.ifThen(ult(nextTile, env.idx(plan.units())),
                   [&] { named("bar.arrive", /*own=*/false); });
        ptx({}, "wgmma.wait_group.sync.aligned 0;", "");
        Value last = env.rem(env.add(tileStart, env.idx(kTiles - 1)),
                             env.idx(plan.stages));
        freeStage(last, first);
        for (int64_t half = 0; half < 2; ++half) {
          Value acc = forOp.getResult(half);
          storeTile(tm, tn, env.idx(half), [&](int64_t r) {
            return LLVM::ExtractValueOp::create(b, loc, acc, r).getResult();
          });
        }
        // Fused split-K: this consumer's 128 threads (named barrier 4 + c)
        // arrive, with their own flag word.
        if (plan.fusesReduction())
          arriveAndReduce(
              first,
              env.add(env.idx(plan.lastUnitFlagOffset()),
                      env.mul(consumer, env.idx(4))),
              [&] { consumerBarrier("bar.sync", 4, kWarpgroup); },
              [&] {
                for (int64_t half = 0; half < 2; ++half)
                  storeTile(tm, tn, env.idx(half),
                            [](int64_t) { return Value(); });
              });
      },
      consumer, 2);
}

void gemm::emitGpuBody(KernelEnv &env, const GemmPlan &plan) {
  Sm90Block(env, plan).emit();
}
