//===- GemmKLoops.cpp - sm_90a GEMM k-loops and k-tiles ------------------===//
//
// The consumers' k-loops of the sm_90a GEMM block (Sm90Block, declared in
// GemmSm90Block.h): the k-loop that sums (and promotes) each k-tile within
// its iteration, the overlapped k-loop (GemmPlan::overlapsPromotion), and
// one method per k-tile kind: fast (per-tensor FP8, 16-bit operands),
// promoting (split accumulator, FP8 block, MXFP8 promoted), NVFP4
// converted to f16 and MXFP8 converted to bf16; plus the wgmma.mma_async
// emitters they share with the ping-pong consumer.
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

/// wgmma.mma_async instructions in one asm block, one per descriptor pair,
/// accumulating into `acc`, or with `fresh` into zeros (the first wgmma's
/// scale-d predicate is false, so acc's values are not read). FP8:
/// m64nNk32 .<A>.<B>; NVFP4 (converted): m64nNk16 .f16.f16, K-major. N is
/// the tile's width, or `n` (GemmPlan::mmaN: one chunk of a promoting
/// 128x256 tile). MXFP8 converted: m64nNk16 .f32.bf16.bf16; 16-bit
/// operands dequantized by a pre-pass (GemmPlan::sixteenBit): m64nNk16
/// .f32.<type>.<type>.
Value gemm::emitWgmmas(OpBuilder &b, Location loc, const GemmPlan &plan,
                       Value acc, ArrayRef<Value> descsA,
                       ArrayRef<Value> descsB, bool fresh, int64_t n) {
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
Value gemm::emitWgmmaStep(OpBuilder &b, Location loc, const GemmPlan &plan,
                          Value acc, Value descA, Value descB, GemmCode &code,
                          bool fresh, int64_t firstStep, int64_t steps,
                          int64_t n) {
  SmallVector<Value> descsA, descsB;
  for (int64_t j = 0; j < steps; ++j) {
    descsA.push_back(code.stepDescriptor(descA, firstStep + j));
    descsB.push_back(code.stepDescriptor(descB, firstStep + j));
  }
  return emitWgmmas(b, loc, plan, acc, descsA, descsB, fresh, n);
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
