//===- GemmSm90Block.h - the sm_90a GEMM block ------------------*- C++ -*-===//
//
// Private to the QSToGPU library: the block of the sm_90a GEMM kernel
// (Sm90Block: barriers, producer, consumers, epilogue) and the wgmma and
// stage helpers its k-loops use. The roles are in GemmKernels.cpp, the
// k-loops and the k-tile kinds (fast, promoting, NVFP4 and MXFP8
// converted) in GemmKLoops.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMSM90BLOCK_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMSM90BLOCK_H

#include "GemmCode.h"
#include "GemmPtx.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include <functional>

namespace mlir {
namespace qs {
namespace gpuk {
namespace gemm {

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
                 int64_t n = 0);

/// FP8 k-steps [firstStep, firstStep + steps) of a stage (32 bytes of K
/// each) in one asm block (N: as emitWgmmas).
Value emitWgmmaStep(OpBuilder &b, Location loc, const GemmPlan &plan, Value acc,
                    Value descA, Value descB, GemmCode &code,
                    bool fresh = false, int64_t firstStep = 0,
                    int64_t steps = kKSteps, int64_t n = 0);

/// A consumer's wait for the block's k-tile `it` (stage it % stages, round
/// it / stages, whose parity the full barrier's phase shows); returns the
/// stage.
Value waitForKTile(KernelEnv &env, const GemmPlan &plan, GemmCode &code,
                   Ptx &ptx, Value base, Value it);

/// The stage of the block's k-tile before `it`.
Value previousStage(KernelEnv &env, const GemmPlan &plan, Value it);

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

} // namespace gemm
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_GEMMSM90BLOCK_H
