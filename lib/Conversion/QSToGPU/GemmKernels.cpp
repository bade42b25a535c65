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

#include "GemmCode.h"
#include "GemmPtx.h"
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

namespace {
/// wgmma.mma_async instructions in one asm block, one per descriptor pair,
/// accumulating into `acc`, or with `fresh` into zeros (the first wgmma's
/// scale-d predicate is false, so acc's values are not read). FP8:
/// m64nNk32 .<A>.<B>; NVFP4 (converted): m64nNk16 .f16.f16, K-major. N is
/// the tile's width, or `n` (GemmPlan::mmaN: one chunk of a promoting
/// 128x256 tile). MXFP8 converted: m64nNk16 .f32.bf16.bf16; 16-bit
/// operands dequantized by a pre-pass (GemmPlan::sixteenBit): m64nNk16
/// .f32.<type>.<type>.
Value emitWgmmas(OpBuilder &b, Location loc, const GemmPlan &plan, Value acc,
                 ArrayRef<Value> descsA, ArrayRef<Value> descsB, bool fresh,
                 int64_t n = 0) {
  if (!n)
    n = plan.tileN;
  int64_t regs = n / 2;
  int64_t steps = descsA.size();
  std::string text = "{\n.reg .pred p, q;\nsetp.ne.b32 p, $" +
                     std::to_string(regs + 2 * steps) + ", 0;\n" +
                     "setp.ne.b32 q, $" + std::to_string(regs + 2 * steps + 1) +
                     ", 0;\n";
  std::string list = "{";
  for (int64_t r = 0; r < regs; ++r)
    list += (r ? ", $" : "$") + std::to_string(r);
  list += "}";
  bool sixteenBit = plan.converts() || plan.sixteenBit();
  std::string shape =
      plan.converts()
          ? llvm::formatv("m64n{0}k16.f32.{1}.{1}", n, plan.convertedType())
                .str()
      : plan.sixteenBit()
          ? llvm::formatv("m64n{0}k16.f32.{1}.{1}", n, plan.sixteenBitType)
                .str()
          : llvm::formatv("m64n{0}k32.f32.{1}.{2}", n, plan.typeA, plan.typeB)
                .str();
  // f16 and bf16 take transpose immediates (0: K-major); FP8 is K-major
  // only.
  StringRef trans = sixteenBit ? ", 0, 0" : "";
  for (int64_t j = 0; j < steps; ++j)
    text += llvm::formatv("wgmma.mma_async.sync.aligned.{0} {1}, ${2}, ${3}, "
                          "{4}, 1, 1{5};\n",
                          shape, list, regs + j, regs + steps + j,
                          j == 0 ? "p" : "q", trans)
                .str();
  text += "}";
  std::string constraints;
  for (int64_t r = 0; r < regs; ++r)
    constraints += "=f,";
  for (int64_t j = 0; j < 2 * steps; ++j)
    constraints += "l,";
  constraints += "r,r";
  for (int64_t r = 0; r < regs; ++r)
    constraints += "," + std::to_string(r);
  SmallVector<Value> operands(descsA.begin(), descsA.end());
  operands.append(descsB.begin(), descsB.end());
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), fresh ? 0 : 1));
  operands.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1));
  for (int64_t r = 0; r < regs; ++r)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  Ptx ptx{b, loc};
  return ptx(acc.getType(), operands, text, constraints);
}

/// FP8 k-steps [firstStep, firstStep + steps) of a stage (32 bytes of K
/// each) in one asm block (N: as emitWgmmas).
Value emitWgmmaStep(OpBuilder &b, Location loc, const GemmPlan &plan, Value acc,
                    Value descA, Value descB, GemmCode &code,
                    bool fresh = false, int64_t firstStep = 0,
                    int64_t steps = kKSteps, int64_t n = 0) {
  SmallVector<Value> descsA, descsB;
  for (int64_t j = 0; j < steps; ++j) {
    descsA.push_back(code.stepDescriptor(descA, firstStep + j));
    descsB.push_back(code.stepDescriptor(descB, firstStep + j));
  }
  return emitWgmmas(b, loc, plan, acc, descsA, descsB, fresh, n);
}

} // namespace

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

namespace {
/// The sm_90a block (GemmPlan::threads(): a producer and two consumer
/// warpgroups) of emitGpuBody, one method a role.
class Sm90Block : BlockEmitter {
public:
  using BlockEmitter::BlockEmitter;
  void emit();

private:
  Value eq(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
  }
  Value ult(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a, c);
  }
  Value ugt(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, a, c);
  }
  Value uge(Value a, Value c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, a, c);
  }
  /// Thread 0 initializes the stages' full and empty barriers.
  void initBarriers();
  /// Both blocks of a multicast pair arrive and wait.
  void clusterBarrier();
  /// Producer warpgroup: gives registers away; one thread issues TMA.
  void producer();
  /// Consumer warpgroups: 64 rows each (ping-pong: whole tiles).
  void consumers();
  /// Consumer `consumer`'s k-loop and epilogue of tile (tm, tn).
  void consumerTile(Value tm, Value tn, Value tileStart);
  /// The k-loop of consumerTile: each k-tile summed (and, where the kernel
  /// promotes, promoted) within its iteration; returns the totals.
  Value kLoop(Value tm, Value tn, Value tileStart);
  /// GemmPlan::overlapsPromotion's k-loop: k-tile j's wgmmas in flight
  /// while k-tile j - 1 is promoted; returns the totals.
  Value overlappedKLoop(Value tm, Value tn, Value tileStart);
  /// The k-loop body of k-tile `kt` of K (the unit's k-tile `j`, the
  /// block's k-tile `it`, in stage `s`; MN-major operands: transposed into
  /// `buffer`): sums it into `total` (NVFP4: with the carried scale codes
  /// `codes`) and yields the next loop values.
  void fp4KTile(Value tm, Value tn, Value kt, Value s, Value total,
                ValueRange codes);
  /// GemmPlan::mxConverts: k-tile `kt` in stage `s` as two conversions of
  /// 64 elements of K (into buffers 0 and 1), each followed by its four
  /// bf16 wgmmas, with the carried scale codes `codes` (mxScaleCodes).
  void mxKTile(Value tm, Value tn, Value kt, Value s, Value total,
               ValueRange codes);
  /// converts(): the 16-bit wgmmas of the converted tiles in `buffer`
  /// summed into `total`, their group left in flight (wait_group 1, which
  /// completes the group before); returns the new totals.
  Value convertedWgmmas(Value buffer, Value total);
  /// `given`: the k-tile's prefetched scales per chunk, `nextScales` the
  /// next k-tile's values, yielded after the totals
  /// (GemmPlan::prefetchesScales; otherwise empty, the scales loaded here).
  void promotingKTile(Value tm, Value tn, Value kt, Value s, Value buffer,
                      Value total, ArrayRef<GemmCode::TileScales> given,
                      ValueRange nextScales);
  void fastKTile(Value j, Value it, Value s, Value buffer, Value total);
  /// GemmCode::promote of the partial sums `partials` (mmaRegs() fields)
  /// into chunk `chunk` of the totals `totals`; returns the new totals.
  Value promoteInto(GemmCode::TileScales &scales, Value partials, Value totals,
                    int64_t chunk) {
    Value after = totals;
    code.promote(
        scales,
        [&](int64_t r) {
          return LLVM::ExtractValueOp::create(b, loc, partials, r).getResult();
        },
        [&](int64_t r) {
          return LLVM::ExtractValueOp::create(b, loc, totals, r).getResult();
        },
        [&](int64_t r, Value v) {
          after = LLVM::InsertValueOp::create(b, loc, after, v, r);
        },
        chunk);
    return after;
  }
  /// qs.gemm_schedule = "pingpong": each consumer computes whole tiles
  /// (documented at the definition).
  void pingpongConsumer();
  /// 16-byte shared-memory accesses (four i32 words); stores at swizzled
  /// offsets.
  SmallVector<Value> load16(Value offset);
  Value load4(Value offset) {
    return ptx(b.getI32Type(), {ptx.i32(env.add(block.base, offset))},
               "ld.shared.b32 $0, [$1];", "=r,r");
  }
  void store16(Value offset, ArrayRef<Value> words);
  /// A consumer frees stage `stage` (one arrival where `cond`) on its
  /// block's empty barrier and, with multicast, on the other block's,
  /// whose producer wrote half of B into it.
  void freeStage(Value stage, Value cond);
  /// The epilogue of rows `half` * 64 .. of tile (tm, tn) from accumulator
  /// registers `acc` (in the reducing pass: from the planes): stored
  /// directly, or (GemmCode::stagesStores) staged, then stored by TMA
  /// and / or read back (staged blocks, a transposed FP8 output).
  void storeTile(Value tm, Value tn, Value half,
                 const std::function<Value(int64_t)> &acc);
  /// GemmPlan::outputTranspose: this thread's GemmCode::stagedCodes of
  /// store chunk `chunk`, staged at shared offset `buffer`
  /// (ld.shared.b32, ld.shared.v4.b32).
  void readStagedCodes(Value tm, Value tn, Value half, int64_t chunk,
                       Value buffer);
  /// The barrier of the staging buffers (storeTile): the consumer's own
  /// (named barrier 4 + consumer, 128 threads), or with
  /// GemmPlan::stagesAcrossGroups both consumers' (named barrier 1, 256
  /// threads: they read each other's rows; both run the same tiles and
  /// chunks, so their sequences of barrier 1 match).
  void stagingBarrier();
  /// `op` ("bar.sync" or "bar.arrive") on the named barrier `first` (consumer
  /// 0) or `first` + 1 (consumer 1) for `threads` threads (immediate ids:
  /// ptxas then reserves only those).
  void consumerBarrier(StringRef op, int64_t first, int64_t threads);

  Value tid, wg, t, zero;
  /// The block's rank in its pair (%cluster_ctarank for 2 x 1 x 1 clusters
  /// of a 1-D grid) and the other's.
  Value rank, peer;
  /// Consumers: wg - 1, and the type of their accumulator registers.
  Value consumer;
  Type accType;
};

/// A consumer's wait for the block's k-tile `it` (stage it % stages, round
/// it / stages, whose parity the full barrier's phase shows); returns the
/// stage.
Value waitForKTile(KernelEnv &env, const GemmPlan &plan, GemmCode &code,
                   Ptx &ptx, Value base, Value it) {
  Value s = env.rem(it, env.idx(plan.stages));
  Value parity = code.band(env.div(it, env.idx(plan.stages)), 1);
  ptx.wait(env.add(base, code.fullBarrier(s)), parity);
  return s;
}

/// The stage of the block's k-tile before `it`.
Value previousStage(KernelEnv &env, const GemmPlan &plan, Value it) {
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

Value Sm90Block::kLoop(Value tm, Value tn, Value tileStart) {
  ValueRange epilogueArgs = block.epilogueArgs;
  int64_t kTiles = plan.kTilesPerUnit();
  Value acc = LLVM::ZeroOp::create(b, loc, accType);
  SmallVector<Value> carried{acc};
  // NVFP4, MXFP8 converted: the block-scale codes of the first k-tile;
  // each k-tile loads the next one's (GemmCode::fp4ScaleCodes,
  // mxScaleCodes).
  if (plan.fp4())
    llvm::append_range(carried,
                       code.fp4ScaleCodes(tm, tn, consumer, t,
                                          code.kTileOf(env.idx(0)),
                                          epilogueArgs[0], epilogueArgs[1]));
  else if (plan.mxConverts)
    llvm::append_range(carried,
                       code.mxScaleCodes(tm, tn, consumer, t,
                                         code.kTileOf(env.idx(0)),
                                         epilogueArgs[0], epilogueArgs[1]));
  // Prefetched block scales (GemmPlan::prefetchesScales): k-tile 0's, one
  // set per chunk; each k-tile loads the next one's before it waits for
  // its stage.
  SmallVector<GemmCode::TileScales> firstScales;
  if (plan.prefetchesScales())
    for (int64_t chunk = 0; chunk < plan.mmaChunks(); ++chunk) {
      firstScales.push_back(
          code.loadScales(tm, tn, consumer, t, code.kTileOf(env.idx(0)),
                          epilogueArgs[0], epilogueArgs[1], chunk));
      llvm::append_range(carried, GemmCode::scaleValues(firstScales.back()));
    }
  auto forOp = scf::ForOp::create(b, loc, env.idx(0), code.unitKTiles(),
                                  env.idx(1), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    // The unit's k-tile j: the block's k-tile `it`, k-tile kt of K.
    Value j = forOp.getInductionVar();
    Value it = env.add(tileStart, j);
    Value kt = code.kTileOf(j);
    // This k-tile's prefetched scales and the next one's loads (past the
    // last k-tile: the last block's, unused).
    SmallVector<GemmCode::TileScales> scales;
    SmallVector<Value> nextScales;
    ValueRange carriedScales = forOp.getRegionIterArgs().drop_front(1);
    for (auto [chunk, shape] : llvm::enumerate(firstScales)) {
      size_t count = shape.a.size() + shape.b.size();
      scales.push_back(
          GemmCode::withScaleValues(shape, carriedScales.take_front(count)));
      carriedScales = carriedScales.drop_front(count);
      // Their products first: the loads below may then reuse the carried
      // values' registers (GemmCode::multiplyScales).
      code.multiplyScales(scales.back());
      llvm::append_range(
          nextScales,
          GemmCode::scaleValues(code.loadScales(
              tm, tn, consumer, t, env.add(kt, env.idx(1)), epilogueArgs[0],
              epilogueArgs[1], static_cast<int64_t>(chunk))));
    }
    Value s = waitForKTile(env, plan, code, ptx, block.base, it);
    Value total = forOp.getRegionIterArgs()[0];
    Value buffer = code.transposeBuffer(it);
    if (plan.transposes()) {
      // MN-major operands: copy this stage's tiles transposed into buffer
      // it % 2 once both consumers are past the wgmmas that read it (those
      // of k-tile it - 2). Per-tensor FP8 with fast_accumulate (one group
      // in flight): each consumer's wait_group 1 at the end of it - 1
      // completed its it - 2, and the barrier makes it both; with one
      // buffer, wait for it - 1 as well. Promoting consumers (block-scaled,
      // split accumulator) wait for every group within the k-tile: with
      // two buffers, both passed the barrier after the copy of it - 1 only
      // once they had finished it - 2, so no barrier is needed first.
      if (!plan.promotes() && plan.transposeBuffers() == 1)
        ptx({}, "wgmma.wait_group.sync.aligned 0;", "");
      if (!plan.promotes() || plan.transposeBuffers() == 1)
        ptx({}, "bar.sync 1, 256;", "");
      code.transposeTiles(
          env.add(env.mul(consumer, env.idx(kWarpgroup)), t), s, buffer,
          [&](Value offset) { return load16(offset); },
          [&](Value offset, ArrayRef<Value> words) { store16(offset, words); });
      // The generic-proxy writes, visible to wgmma (async proxy).
      ptx({}, "fence.proxy.async.shared::cta;", "");
      ptx({}, "bar.sync 1, 256;", "");
    }
    if (plan.fp4())
      fp4KTile(tm, tn, kt, s, total, forOp.getRegionIterArgs().drop_front(1));
    else if (plan.mxConverts)
      mxKTile(tm, tn, kt, s, total, forOp.getRegionIterArgs().drop_front(1));
    else if (plan.promotes())
      promotingKTile(tm, tn, kt, s, buffer, total, scales, nextScales);
    else
      fastKTile(j, it, s, buffer, total);
  }
  ptx({}, "wgmma.wait_group.sync.aligned 0;", "");
  // Persistent fast-accumulating kernels free the tile's last stage here
  // (the others free each stage in the k-loop; without persistence nothing
  // waits for it), so the producer streams the next tile while this one's
  // epilogue runs.
  if (plan.persistent() && !plan.promotes() && !plan.converts()) {
    Value lastJ =
        code.kCount
            ? arith::SubIOp::create(b, loc, code.kCount, env.idx(1)).getResult()
            : env.idx(kTiles - 1);
    Value last = env.rem(env.add(tileStart, lastJ), env.idx(plan.stages));
    freeStage(last, eq(t, zero));
  }
  return forOp.getResult(0);
}

Value Sm90Block::overlappedKLoop(Value tm, Value tn, Value tileStart) {
  // The totals and, with prefetched scales, the next k-tile's loaded
  // scales (carried from run to run) and the products of the last issued
  // k-tile's (within a run).
  struct State {
    Value total;
    SmallVector<Value> products, next;
  };
  ValueRange epilogueArgs = block.epilogueArgs;
  bool prefetch = plan.prefetchesScales();
  SmallVector<Type> partialFields(plan.mmaRegs(), b.getF32Type());
  auto partialType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), partialFields);
  auto scalesOf = [&](Value kt) {
    return code.loadScales(tm, tn, consumer, t, kt, epilogueArgs[0],
                           epilogueArgs[1]);
  };
  // The keys of the prefetched scales and of their products.
  GemmCode::TileScales shape;
  State state;
  state.total = LLVM::ZeroOp::create(b, loc, accType);
  if (prefetch) {
    shape = scalesOf(code.kTileOf(env.idx(0)));
    state.next = GemmCode::scaleValues(shape);
    code.multiplyScales(shape);
  }
  // A k-tile's wgmma groups, in the order the in-tile promotion sums
  // them: rounds of `perRound` scale blocks (MXFP8: two 32-blocks; one
  // 128-block otherwise), each round's chunks in turn.
  int64_t chunks = plan.mmaChunks(), groups = kTileK / plan.blockK();
  int64_t perRound = plan.overlappedGroups(), rounds = groups / perRound;
  struct Group {
    int64_t round, chunk;
  };
  SmallVector<Group> order;
  for (int64_t round = 0; round < rounds; ++round)
    for (int64_t chunk = 0; chunk < chunks; ++chunk)
      order.push_back({round, chunk});
  // Group `g` of unit k-tile j (the first: its scales' products and the
  // next k-tile's loads where prefetched, and the wait for its stage): its
  // wgmmas into fresh partial sets, one per scale block of the round.
  auto issue = [&](Value j, Group g, State &st) {
    Value kt = code.kTileOf(j);
    Value it = env.add(tileStart, j);
    Value s;
    if (g.round == 0 && g.chunk == 0) {
      if (prefetch) {
        GemmCode::TileScales scales = GemmCode::withScaleValues(shape, st.next);
        code.multiplyScales(scales);
        st.products = GemmCode::productValues(scales);
        st.next = GemmCode::scaleValues(scalesOf(env.add(kt, env.idx(1))));
      }
      s = waitForKTile(env, plan, code, ptx, block.base, it);
    } else {
      s = env.rem(it, env.idx(plan.stages));
    }
    Value buffer = code.transposeBuffer(it);
    ptx({}, "wgmma.fence.sync.aligned;", "");
    SmallVector<Value> partials;
    for (int64_t q = 0; q < perRound; ++q)
      partials.push_back(emitWgmmaStep(
          b, loc, plan, LLVM::UndefOp::create(b, loc, partialType),
          code.descA(block.base, s, buffer, consumer),
          code.descB(block.base, s, buffer, g.chunk), code, /*fresh=*/true,
          (g.round * perRound + q) * plan.stepsPerGroup(), plan.stepsPerGroup(),
          plan.mmaN()));
    ptx({}, "wgmma.commit_group.sync.aligned;", "");
    return partials;
  };
  // Group `g` of unit k-tile j's partial sums (`pending`, with `products`)
  // into the totals once at most `inFlight` wgmma groups (the next one)
  // are pending; after a k-tile's last group its stage is free.
  auto retire = [&](Value j, Group g, ArrayRef<Value> pending, State &st,
                    int64_t inFlight, ArrayRef<Value> products) {
    SmallVector<GemmCode::TileScales> scales;
    for (int64_t q = 0; q < perRound; ++q)
      scales.push_back(
          prefetch ? GemmCode::withProductValues(shape, products)
                   : code.loadScales(
                         tm, tn, consumer, t,
                         env.add(env.mul(code.kTileOf(j), env.idx(groups)),
                                 env.idx(g.round * perRound + q)),
                         epilogueArgs[0], epilogueArgs[1], g.chunk));
    ptx({}, ("wgmma.wait_group.sync.aligned " + Twine(inFlight) + ";").str(),
        "");
    if (g.round == rounds - 1 && g.chunk == chunks - 1)
      freeStage(env.rem(env.add(tileStart, j), env.idx(plan.stages)),
                eq(t, zero));
    for (int64_t q = 0; q < perRound; ++q)
      st.total = promoteInto(scales[q], pending[q], st.total, g.chunk);
  };
  // Runs of `count` k-tiles from unit k-tile j0 (count <= 1: one), each
  // wgmma group issued before the previous one is promoted; after the
  // run's last group the consumer waits for all of them (no group in
  // flight across a loop's back edge: ptxas, not tracking which wait
  // completes a group carried around a loop, would serialize every wgmma).
  auto run = [&](Value j0, int64_t count, ValueRange values) {
    State st;
    st.total = values[0];
    st.next.assign(values.begin() + 1, values.end());
    Value pendingJ;
    Group pendingGroup{0, 0};
    SmallVector<Value> pending, pendingProducts;
    for (int64_t u = 0; u < std::max<int64_t>(count, 1); ++u) {
      Value j = env.add(j0, env.idx(u));
      for (Group g : order) {
        SmallVector<Value> partials = issue(j, g, st);
        if (pendingJ)
          retire(pendingJ, pendingGroup, pending, st, 1, pendingProducts);
        pending = partials;
        pendingJ = j;
        pendingGroup = g;
        pendingProducts = st.products;
      }
    }
    retire(pendingJ, pendingGroup, pending, st, 0, pendingProducts);
    SmallVector<Value> yielded{st.total};
    llvm::append_range(yielded, st.next);
    scf::YieldOp::create(b, loc, yielded);
  };
  SmallVector<Value> carried{state.total};
  llvm::append_range(carried, state.next);
  Value n = code.unitKTiles();
  int64_t length = plan.overlappedRun();
  Value runs = env.div(n, env.idx(length));
  auto runLoop =
      scf::ForOp::create(b, loc, env.idx(0), runs, env.idx(1), carried);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(runLoop.getBody());
    run(env.mul(runLoop.getInductionVar(), env.idx(length)), length,
        runLoop.getRegionIterArgs());
  }
  // The k-tiles after the last whole run, one at a time.
  auto restLoop = scf::ForOp::create(b, loc, env.mul(runs, env.idx(length)), n,
                                     env.idx(1), runLoop.getResults());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(restLoop.getBody());
    run(restLoop.getInductionVar(), 1, restLoop.getRegionIterArgs());
  }
  return restLoop.getResult(0);
}

void Sm90Block::fp4KTile(Value tm, Value tn, Value kt, Value s, Value total,
                         ValueRange codes) {
  // Double-buffered f16 tiles: k-tile kt converts into buffer kt % 2 while
  // the wgmmas of kt - 1 (one group in flight) read the other. Both
  // consumers are past the wait_group 1 of the previous k-tile, so the
  // wgmmas of kt - 2, which read this buffer, are complete (named barrier
  // 1: the 256 consumer threads).
  // The next k-tile's scale codes (past the last k-tile: the last block's,
  // unused), loaded while this one converts.
  SmallVector<Value> nextCodes =
      code.fp4ScaleCodes(tm, tn, consumer, t, env.add(kt, env.idx(1)),
                         block.epilogueArgs[0], block.epilogueArgs[1]);
  ptx({}, "bar.sync 1, 256;", "");
  code.convertFp4(
      consumer, t, kt, s, SmallVector<Value>(codes),
      [&](Value offset) { return load16(offset); },
      [&](Value offset, ArrayRef<Value> words) { store16(offset, words); });
  // The generic-proxy writes, visible to wgmma (async proxy), and complete
  // in both consumers; the packed stage can be refilled.
  ptx({}, "fence.proxy.async.shared::cta;", "");
  ptx({}, "bar.sync 1, 256;", "");
  freeStage(s, eq(t, zero));
  // Leave this k-tile's group in flight while the next converts.
  SmallVector<Value> yielded{convertedWgmmas(code.band(kt, 1), total)};
  yielded.append(nextCodes);
  scf::YieldOp::create(b, loc, yielded);
}

Value Sm90Block::convertedWgmmas(Value buffer, Value total) {
  ptx({}, "wgmma.fence.sync.aligned;", "");
  SmallVector<Value> descsA, descsB;
  for (int64_t j = 0; j < plan.convertedK() / 16; ++j) {
    descsA.push_back(code.f16DescA(block.base, buffer, consumer, j));
    descsB.push_back(code.f16DescB(block.base, buffer, j));
  }
  Value next = emitWgmmas(b, loc, plan, total, descsA, descsB,
                          /*fresh=*/false);
  ptx({},
      "wgmma.commit_group.sync.aligned;\n"
      "wgmma.wait_group.sync.aligned 1;",
      "");
  return next;
}

void Sm90Block::mxKTile(Value tm, Value tn, Value kt, Value s, Value total,
                        ValueRange codes) {
  // The next k-tile's scale codes (past the last k-tile: the last block's,
  // unused), loaded while this one converts.
  SmallVector<Value> nextCodes =
      code.mxScaleCodes(tm, tn, consumer, t, env.add(kt, env.idx(1)),
                        block.epilogueArgs[0], block.epilogueArgs[1]);
  Value next = total;
  for (int64_t h = 0; h < 2; ++h) {
    // Conversion 2 kt + h goes into buffer h while the wgmmas of the
    // previous one (one group in flight) read the other; both consumers
    // are past the wait_group 1 that completed the group of conversion
    // 2 kt + h - 2, the last reader of this buffer (named barrier 1).
    Value buffer = env.idx(h);
    ptx({}, "bar.sync 1, 256;", "");
    code.convertMx(
        consumer, t, s, h, buffer, llvm::to_vector(codes),
        [&](Value offset) { return load4(offset); },
        [&](Value offset) { return load16(offset); },
        [&](Value offset, ArrayRef<Value> words) { store16(offset, words); });
    // The generic-proxy writes, visible to wgmma (async proxy), and
    // complete in both consumers; after the second half the stage can be
    // refilled.
    ptx({}, "fence.proxy.async.shared::cta;", "");
    ptx({}, "bar.sync 1, 256;", "");
    if (h == 1)
      freeStage(s, eq(t, zero));
    next = convertedWgmmas(buffer, next);
  }
  SmallVector<Value> yielded{next};
  yielded.append(nextCodes);
  scf::YieldOp::create(b, loc, yielded);
}

void Sm90Block::promotingKTile(Value tm, Value tn, Value kt, Value s,
                               Value buffer, Value total,
                               ArrayRef<GemmCode::TileScales> given,
                               ValueRange nextScales) {
  Value base = block.base;
  // Each scale block of K (per-tensor: each k-tile) on its own (fresh
  // accumulators), then promoted; `groupsPerRound` blocks between two
  // waits; a 128x256 tile's two 128-column chunks in turn
  // (GemmPlan::mmaN).
  int64_t groups = kTileK / plan.blockK();
  int64_t perRound = plan.groupsPerRound();
  int64_t chunks = plan.mmaChunks();
  SmallVector<Type> partialFields(plan.mmaRegs(), b.getF32Type());
  auto partialType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), partialFields);
  Value next = total;
  for (int64_t round = 0; round < groups / perRound; ++round) {
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      bool first = round == 0 && chunk == 0;
      if (first)
        ptx({}, "wgmma.fence.sync.aligned;", "");
      SmallVector<GemmCode::TileScales> scales;
      if (!given.empty()) // one group per k-tile
        scales.push_back(given[chunk]);
      else
        for (int64_t g = 0; g < perRound; ++g) {
          Value kb = env.add(env.mul(kt, env.idx(groups)),
                             env.idx(round * perRound + g));
          scales.push_back(code.loadScales(tm, tn, consumer, t, kb,
                                           block.epilogueArgs[0],
                                           block.epilogueArgs[1], chunk));
        }
      if (!first)
        ptx({}, "wgmma.fence.sync.aligned;", "");
      SmallVector<Value> partials;
      for (int64_t g = 0; g < perRound; ++g) {
        Value fresh = LLVM::UndefOp::create(b, loc, partialType);
        int64_t firstStep = (round * perRound + g) * plan.stepsPerGroup();
        partials.push_back(emitWgmmaStep(
            b, loc, plan, fresh, code.descA(base, s, buffer, consumer),
            code.descB(base, s, buffer, chunk), code,
            /*fresh=*/true, firstStep, plan.stepsPerGroup(), plan.mmaN()));
      }
      ptx({},
          "wgmma.commit_group.sync.aligned;\n"
          "wgmma.wait_group.sync.aligned 0;",
          "");
      if (round == groups / perRound - 1 && chunk == chunks - 1)
        freeStage(s, eq(t, zero));
      for (int64_t g = 0; g < perRound; ++g)
        next = promoteInto(scales[g], partials[g], next, chunk);
    }
  }
  SmallVector<Value> yielded{next};
  llvm::append_range(yielded, nextScales);
  scf::YieldOp::create(b, loc, yielded);
}

void Sm90Block::fastKTile(Value j, Value it, Value s, Value buffer,
                          Value total) {
  Value base = block.base;
  ptx({}, "wgmma.fence.sync.aligned;", "");
  Value next =
      emitWgmmaStep(b, loc, plan, total, code.descA(base, s, buffer, consumer),
                    code.descB(base, s, buffer), code);
  // One group stays in flight: wait for the previous stage's wgmmas, then
  // free that stage (one arrival per consumer).
  ptx({},
      "wgmma.commit_group.sync.aligned;\n"
      "wgmma.wait_group.sync.aligned 1;",
      "");
  Value previous = previousStage(env, plan, it);
  freeStage(previous, env.land(eq(t, zero), ugt(j, zero)));
  scf::YieldOp::create(b, loc, next);
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
} // namespace

void gemm::emitGpuBody(KernelEnv &env, const GemmPlan &plan) {
  Sm90Block(env, plan).emit();
}
