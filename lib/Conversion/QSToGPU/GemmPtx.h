//===- GemmPtx.h - inline PTX for the GEMM kernels --------------*- C++ -*-===//
//
// Private to the QSToGPU library: the inline-asm helper and the dynamic
// shared-memory base shared by the sm_90a (wgmma) and sm_100a (tcgen05)
// GEMM kernels.
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_GEMMPTX_H
#define QS_LIB_CONVERSION_QSTOGPU_GEMMPTX_H

#include "GemmCode.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace qs {
namespace gpuk {
namespace gemm {

struct Ptx {
  OpBuilder &b;
  Location loc;

  /// Inline PTX with side effects; `$N` names operand N.
  Value operator()(Type result, ValueRange operands, StringRef text,
                   StringRef constraints) {
    auto op = LLVM::InlineAsmOp::create(
        b, loc, result ? TypeRange{result} : TypeRange{}, operands,
        b.getStringAttr(text), b.getStringAttr(constraints), b.getUnitAttr(),
        UnitAttr(),
        LLVM::TailCallKindAttr::get(b.getContext(),
                                    LLVM::tailcallkind::TailCallKind::None),
        LLVM::AsmDialectAttr(), ArrayAttr());
    return result ? op.getResult(0) : Value();
  }
  void operator()(ValueRange operands, StringRef text, StringRef constraints) {
    (*this)(Type(), operands, text, constraints);
  }
  Value i32(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), index);
  }
  Value i64(Value index) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  }
  /// Two 16-bit values (bf16 or f16) as one i32, `lo` in the low half (the
  /// order of a 32-bit store of the pair). Where both are arith.truncf
  /// results of f32 values (roundOutput on the GPU: one cvt.rn each), the
  /// pair is truncated as a vector<2xf32> instead, which NVPTX lowers to
  /// one packed cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32 (the same RNE
  /// rounding) in place of two conversions and the shift and or.
  Value packHalves(Value lo, Value hi) {
    Type half = lo.getType(), i32 = b.getI32Type();
    auto truncLo = lo.getDefiningOp<arith::TruncFOp>();
    auto truncHi = hi.getDefiningOp<arith::TruncFOp>();
    if (truncLo && truncHi && truncLo.getIn().getType().isF32() &&
        truncHi.getIn().getType().isF32() && !truncLo.getRoundingmodeAttr() &&
        !truncHi.getRoundingmodeAttr()) {
      Value pair = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()),
          ValueRange{truncLo.getIn(), truncHi.getIn()});
      Value halves = arith::TruncFOp::create(
          b, loc, VectorType::get({2}, half), pair);
      Value word = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, i32), halves);
      return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
    }
    auto bits = [&](Value v) {
      return arith::ExtUIOp::create(
          b, loc, i32, arith::BitcastOp::create(b, loc, b.getI16Type(), v));
    };
    return arith::OrIOp::create(
        b, loc, bits(lo),
        arith::ShLIOp::create(b, loc, bits(hi),
                              arith::ConstantIntOp::create(b, loc, i32, 16)));
  }
  Value pointerOf(Value memref) {
    return i64(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  }
  /// One arrival on the mbarrier at `barrier` by the threads where `cond`
  /// (i1) holds, predicated inside the asm (no branch around it next to the
  /// consumers' `.aligned` wgmma instructions): a shared::cta address, or
  /// with `remote` a shared::cluster address of another block's barrier
  /// (from mapa). Both arrive with mbarrier.arrive's default semantics
  /// (release at CTA scope), as CUTLASS's ClusterBarrier::arrive(cta_id,
  /// pred) does: what a consumer orders before freeing a stage is its own
  /// block's reads of it (wgmma, completed by wgmma.wait_group). An
  /// explicit `.release.cluster` costs MEMBAR.ALL.CTA + MEMBAR.ALL.GPU +
  /// ERRBAR + CGAERRBAR before the arrive in SASS (ptxas 13.0, sm_90a):
  /// once per k-tile, it halved the multicast pairs' throughput on the H200
  /// (test/NVPTX/gemm-multicast-sass.test).
  void arriveIf(Value barrier, Value cond, bool remote = false) {
    Value barrierI32 = barrier.getType().isInteger(32) ? barrier : i32(barrier);
    (*this)({barrierI32, arith::ExtUIOp::create(b, loc, b.getI32Type(), cond)},
            std::string("{\n.reg .pred p;\nsetp.ne.b32 p, $1, 0;\n@p ") +
                (remote ? "mbarrier.arrive.shared::cluster.b64"
                        : "mbarrier.arrive.shared::cta.b64") +
                " _, [$0];\n}",
            "r,r");
  }
  void wait(Value barrier, Value parity) {
    (*this)({i32(barrier), i32(parity)},
            "{\n.reg .pred p;\nLAB_WAIT:\n"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [$0], $1;\n"
            "@p bra DONE;\nbra LAB_WAIT;\nDONE:\n}",
            "r,r");
  }
};

/// The shared-memory window address of the block's dynamic shared memory
/// (an extern array aligned to 1024 bytes, as the 128-byte swizzle needs).
Value sharedBase(OpBuilder &b, Location loc);

/// Where both GEMM kernel bodies start (args: tmA, tmB, then the
/// epilogue's): the tensor maps' addresses, the epilogue's arguments and
/// the shared base.
struct GemmBlock {
  Value tmA, tmB;
  ValueRange epilogueArgs;
  Value base;
  /// `tmaStore`: D's tensor map, the last argument, is not the
  /// epilogue's.
  GemmBlock(KernelEnv &env, Ptx &ptx, bool tmaStore);
};

/// What the emitters of both kernel bodies (GemmSm90Block.h's Sm90Block,
/// GemmTcgen05.cpp's Tcgen05Block) start from: the environment and plan,
/// the shared index code, the inline-PTX helper and the block's arguments.
struct BlockEmitter {
  BlockEmitter(KernelEnv &env, const GemmPlan &plan)
      : env(env), plan(plan), b(env.b),
        loc(env.loc), code{env, plan}, ptx{b, loc},
        block(env, ptx, plan.tmaStore) {}

  KernelEnv &env;
  const GemmPlan &plan;
  OpBuilder &b;
  Location loc;
  GemmCode code;
  Ptx ptx;
  // args: tmA, tmB, sa, sb, [amaxA, amaxB], [bias], [c], d[, workspace][,
  // tmD]
  GemmBlock block;

  /// GemmPlan::fusesReduction(), once the unit's plane is stored: every
  /// storing thread fences its stores (fence.acq_rel.gpu) and meets the
  /// others in `sync` (a barrier of exactly those threads); thread
  /// `leader` then counts the unit done on its tile's counter
  /// (atom.add.acq_rel.gpu), zeroes it if the unit is the tile's last, and
  /// tells the others through the shared word at offset `flag`; after a
  /// second `sync`, the last unit's threads fence again and run `reduce`
  /// (GemmCode::reducing set). Deadlock-free: no unit waits for another.
  void arriveAndReduce(Value leader, Value flag,
                       const std::function<void()> &sync,
                       const std::function<void()> &reduce);

  /// GemmPlan::stagesBlocks, once read-back pass `pass` of staging group
  /// `group` (a consumer, or a tcgen05 warp) is staged from shared offset
  /// `first` on (its buffers one after another): reader `t`'s
  /// GemmCode::stagedBlocks, 16 bytes at a time with ld.shared.v4.b32 and
  /// single values (column-wise blocks) with ld.shared.b16 / .b32.
  void readStagedBlocks(Value tm, Value tn, Value group, Value t, int64_t pass,
                        Value first);

  /// GemmPlan::tmaStore, one thread: the TMA store of box row group
  /// `group`'s store chunk `chunk` of tile (tm, tn) (GemmCode::storeBox)
  /// from the staging buffer at shared address `staged` (D's tensor map is
  /// the last argument: a byte matrix, so the column is in bytes), then
  /// the commit of its bulk group.
  void storeBox(Value tm, Value tn, Value group, int64_t chunk, Value staged) {
    auto [row, col] = code.storeBox(tm, tn, group, chunk);
    ptx({ptx.pointerOf(env.args.back()),
         ptx.i32(env.mul(col, env.idx(plan.outBytes()))), ptx.i32(row),
         staged},
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
        "[$0, {$1, $2}], [$3];\n"
        "cp.async.bulk.commit_group;",
        "l,r,r,r");
  }

  /// After thread 0's mbarrier.init: the barriers made visible to the
  /// cluster and the async proxy, and the tensor maps prefetched (D's,
  /// the last argument, with GemmPlan::tmaStore).
  void fenceBarriersAndPrefetchMaps() {
    ptx({},
        "fence.mbarrier_init.release.cluster;\n"
        "fence.proxy.async.shared::cta;",
        "");
    ptx({block.tmA}, "prefetch.tensormap [$0];", "l");
    ptx({block.tmB}, "prefetch.tensormap [$0];", "l");
    if (plan.tmaStore)
      ptx({ptx.pointerOf(env.args.back())}, "prefetch.tensormap [$0];", "l");
  }
};

} // namespace gemm
} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_GEMMPTX_H
