//===- QuantizeKernels.cpp - tiled quantize kernels -----------------------===//
//
// The kernels of one quantize (init, amax passes, cast kernels) and the
// order they are launched in; the design is in QuantizePlan.h.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

static int64_t numElements(Value buf) {
  return cast<MemRefType>(buf.getType()).getNumElements();
}

/// Zeroes `zeroArgs`, copies the delayed amax state and given global amaxes
/// (TE's amax reduction) into the global amax buffers.
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
        env.ifThen(env.lt(at, env.idx(n)),
                   [&] { store1(env, zero, env.args[a], at); });
      });
    }
    // The grid's first thread copies the single-value state.
    auto firstThread = [&] {
      return env.land(
          arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                env.blockId, env.idx(0)),
          arith::CmpIOp::create(env.b, env.loc, arith::CmpIPredicate::eq,
                                env.threadId, env.idx(0)));
    };
    if (p.amaxStateOutArg >= 0) {
      env.ifThen(firstThread(), [&] {
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
    if (p.givenAmaxArg >= 0) {
      env.ifThen(firstThread(), [&] {
        Value given = load1(env, env.args[p.givenAmaxArg], env.idx(0));
        for (int a : p.globalAmaxArgs)
          store1(env, given, env.args[a], env.idx(0));
        if (p.rhtAmaxArg >= 0)
          store1(env, load1(env, env.args[p.givenAmaxArg], env.idx(1)),
                 env.args[p.rhtAmaxArg], env.idx(0));
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
  d.shared.push_back(
      MemRefType::get({d.threads}, Float32Type::get(p.nominal.getContext())));
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
        Value slot = env.absMaxAll(load1(env, slots, env.threadId),
                                   env.vectorToF32(loaded));
        store1(env, slot, slots, env.threadId);
      });
    });
  });
  d.phases.push_back([](KernelEnv &env) { env.stageWarpMax(env.shared[0]); });
  d.phases.push_back([p](KernelEnv &env) {
    SmallVector<Value> targets;
    for (int a : p.globalAmaxArgs)
      targets.push_back(env.args[a]);
    env.blockMaxToGlobal(env.shared[0], targets);
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
          Value amax = env.absMaxAll(
              env.f32(0.0f), readRow(env, t, smem, env.mul(row, env.idx(t.ld)),
                                     t.cols, p.nominal));
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
                amax, env.toF32(load1(
                          env, smem,
                          env.add(env.mul(env.idx(rr), env.idx(t.ld)), c))));
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
      Value gr0 =
          env.add(env.mul(tileRow, env.idx(t.rows)), env.mul(i, env.idx(16)));
      env.ifThen(env.land(env.lt(gc, env.idx(p.k)), env.lt(gr0, env.idx(p.m))),
                 [&] {
                   SmallVector<Value> xs = columnChunk(env, t, i, c);
                   Value slot = load1(env, env.shared[t.slots], env.threadId);
                   slot = env.absMax(slot, rhtAbsMax16(env, xs, p.rhtSignMask));
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
  d.phases.push_back([t, rowAmax](KernelEnv &env) {
    env.stageWarpMax(env.shared[t.slots]);
    if (rowAmax)
      env.stageWarpMax(env.shared[t.mults]);
  });
  d.phases.push_back([p, t, rowAmax](KernelEnv &env) {
    env.blockMaxToGlobal(env.shared[t.slots], {env.args[p.rhtAmaxArg]},
                         p.rhtAmaxIndex);
    if (rowAmax) {
      SmallVector<Value> targets;
      for (int a : p.globalAmaxArgs)
        targets.push_back(env.args[a]);
      env.blockMaxToGlobal(env.shared[t.mults], targets);
    }
  });
  return d;
}

/// The resident blocks a cast kernel asks for (`.minnctapersm`: ptxas then
/// keeps each thread at 65536 / (128 B) registers or fewer, rounded down to
/// a multiple of 8). Each number is the largest that ptxas 13.0 met with no
/// spills on sm_90a and sm_100a and at most ~1% more instructions in the
/// kernel's loops (16384^2 bf16), or what shared memory allows anyway;
/// performance.md has the tables. On the H200 the per-tensor casts ran
/// near DRAM speed at 32 registers (93-95% occupancy, ncu), MXFP8's
/// row-wise cast was occupancy-limited at 47 and FP8 1x128's column-wise
/// one at 56 (43%).
static int64_t residentBlocks(const Plan &p, const Tile &t,
                              ArrayRef<const Rep *> reps) {
  auto all = [&](auto pred) {
    return llvm::all_of(reps, [&](const Rep *r) { return pred(*r); });
  };
  bool sixteenBit = t.elemBytes == 2;
  // 4over6 from f32 input: 80 registers (ptxas takes 88-95 left to 4).
  auto fourOverSix = [](const Rep &r) {
    return r.kind == ScaleKind::NVFP4 && r.fourOverSix;
  };
  if (!sixteenBit)
    return all(fourOverSix) ? 6 : 4;
  // FP8 1 x 128 column-pair tiles (columnPairsPhase keeps 32 packed
  // registers): column-wise only 9 (56 registers; 72 at 7, the same
  // instructions; f16 input too since its values convert by cvt.f32.f16,
  // KernelEnv::toF32: the software decode spilled 14 bytes at 9), else 7
  // (72; with both usages 32 KiB of shared memory allow 6).
  bool bf16 = p.nominal.isBF16();
  if (t.swizzled)
    return reps.size() == 1 ? 9 : 7;
  // Per-tensor FP8 and MXFP8 (memory-bound; 1-D and 2-D MXFP8): a full
  // multiprocessor, 16 (32 registers); MXFP8 with both usages 12 (40:
  // with 32, sm_100a spills 8-12 bytes).
  if (all([](const Rep &r) {
        return r.kind == ScaleKind::PerTensor || r.kind == ScaleKind::E8M0;
      }))
    return reps.size() > 1 && reps.front()->kind == ScaleKind::E8M0 ? 12 : 16;
  // FP8 1 x 128 row-wise only: 12 (40 registers; 16 would spill). 128 x 128
  // blocks: 6 (64-80 registers; 35 KiB of shared memory allow 6, ptxas
  // took 95 for the "both" kernel left to 4: 5 blocks).
  if (all([](const Rep &r) { return r.kind == ScaleKind::F32Block; })) {
    if (p.twoD)
      return 6;
    return all([](const Rep &r) { return !r.columnwise; }) ? 12 : 4;
  }
  if (!all([](const Rep &r) { return r.kind == ScaleKind::NVFP4; }))
    return 4;
  // NVFP4 (the casts that are compute-bound on sm_90a): 8 (at most 64
  // registers; stochastic rounding, 4over6 and both usages take more
  // instructions with fewer). One representation rounded to nearest:
  // row-wise 10 (16x16; 1-D from bf16: f16 input spills 4 bytes at 10),
  // column-wise 9 (1-D, also with the RHT) or 12 (16x16), with the same
  // loops.
  // 16x16 with both usages, the column-wise codes transposed from the
  // row-wise ones (Tile::codesInPlace): 12 (40 registers, the same loop as
  // at 8, where ptxas took 51).
  const Rep &r = *reps.front();
  if (t.codesInPlace)
    return 12;
  // Stochastic rounding, one representation: 9 (55 registers; the loops
  // within 1% of 8's since its codes take 4 instructions, 2026-12-06).
  if (reps.size() == 1 && r.stochastic)
    return 9;
  if (reps.size() > 1 || r.stochastic || r.fourOverSix || r.rowScaled)
    return 8;
  if (!r.columnwise)
    return p.twoD || bf16 ? 10 : 8;
  return p.twoD ? 12 : 9;
}

static KernelDesc castKernel(const Plan &p, ArrayRef<const Rep *> reps,
                             bool writeScaleInv, StringRef name, bool reversed,
                             bool biasGrad = false) {
  KernelDesc d;
  d.name = name.str();
  Tile t = makeTile(p, reps);
  t.codesInPlace = derivesColumnCodes(p, reps);
  d.minBlocksPerSM = residentBlocks(p, t, reps);
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
    d.shared.push_back(
        MemRefType::get({(t.rows / p.twoD) * (t.cols / p.twoD)}, f32));
  }
  bool rhtTwoD =
      p.twoD && llvm::any_of(reps, [](const Rep *r) { return r->rht; });
  if (rhtTwoD) {
    t.rhtBlockAmax = d.shared.size();
    d.shared.push_back(
        MemRefType::get({(t.rows / p.twoD) * (t.cols / p.twoD)}, f32));
  }
  SmallVector<Rep> owned;
  const Rep *xLayout = nullptr;
  for (const Rep *r : reps) {
    owned.push_back(*r);
    if (r->xLayout)
      xLayout = r;
    // 2-D 4over6: both candidates' errors of every 1 x 16 segment.
    if (p.twoD && r->fourOverSix) {
      t.fosErrors[r->columnwise] = d.shared.size();
      d.shared.push_back(MemRefType::get({2 * t.rows * t.cols / 16}, f32));
    }
  }
  // 4over6: the per-thread table of a candidate's decoded values.
  if (llvm::any_of(owned, [](const Rep &r) { return r.fourOverSix; })) {
    t.fosBacks = d.shared.size();
    d.shared.push_back(MemRefType::get({8 * d.threads}, f32));
  }
  // Transposed column-wise codes staged for coalesced stores (rows padded
  // by 16 bytes: a warp's 16-byte stores of consecutive columns, rows
  // 16 + 4k words apart, hit distinct banks in each 8-thread phase).
  const Rep *staged = nullptr;
  for (const Rep &r : owned)
    if (!p.directStores && stagesColumnCodes(t, r))
      staged = &r;
  if (staged) {
    t.stageLd = stageRowBytes(t, *staged);
    t.colStage = d.shared.size();
    d.shared.push_back(MemRefType::get({t.cols * t.stageLd},
                                       IntegerType::get(f32.getContext(), 8)));
  }
  // Multipliers of the x-layout representation's blocks ([TR / B, TC]),
  // the last shared buffer.
  if (xLayout) {
    t.mults = d.shared.size();
    d.shared.push_back(
        MemRefType::get({t.rows / xLayout->block * t.cols}, f32));
  }
  d.phases.push_back([p, t](KernelEnv &env) { loadTilePhase(env, p, t); });
  // Before any phase writes codes over the tile (Tile::codesInPlace).
  if (biasGrad && p.biasGradArg >= 0)
    d.phases.push_back(
        [p, t](KernelEnv &env) { biasGradChunkPhase(env, p, t); });
  if (p.twoD) {
    d.phases.push_back([p, t](KernelEnv &env) { segmentAmaxPhase(env, p, t); });
    d.phases.push_back([p, t](KernelEnv &env) { blockAmaxPhase(env, p, t); });
  }
  if (rhtTwoD) {
    d.phases.push_back(
        [p, t](KernelEnv &env) { rhtSegmentAmaxPhase(env, p, t); });
    d.phases.push_back([t](KernelEnv &env) { rhtBlockAmaxPhase(env, t); });
  }
  if (p.twoD && llvm::any_of(owned, [](const Rep &r) { return r.fourOverSix; }))
    d.phases.push_back([p, t, owned](KernelEnv &env) {
      fourOverSixErrorPhase(env, p, t, owned);
    });
  d.phases.push_back([p, t, owned, writeScaleInv](KernelEnv &env) {
    // The tensor-wide scales first, before any store (quant::repScale).
    bool perTensor = writeScaleInv || llvm::any_of(owned, [](const Rep &r) {
                       return r.kind == ScaleKind::PerTensor;
                     });
    Value s = perTensor ? perTensorScale(env, p) : Value();
    SmallVector<Value> scales;
    for (const Rep &r : owned)
      scales.push_back(r.columnwise && t.codesInPlace ? Value()
                                                      : repScale(env, p, r, s));
    std::pair<Value, Value> rng = rngState(env, p);
    if (writeScaleInv)
      scaleInvPhase(env, p, s);
    for (auto [r, scale] : llvm::zip(owned, scales)) {
      if (!r.columnwise)
        rowwisePhase(env, p, t, r, scale, rng);
      else if (!t.codesInPlace)
        columnwisePhase(env, p, t, r, scale, rng);
    }
  });
  // The column-wise codes as the row-wise ones transposed.
  for (const Rep &r : owned)
    if (r.columnwise && t.codesInPlace)
      d.phases.push_back(
          [p, t, r](KernelEnv &env) { columnFromRowCodesPhase(env, p, t, r); });
  if (xLayout) {
    Rep r = *xLayout;
    d.phases.push_back(
        [p, t, r](KernelEnv &env) { xLayoutEncodePhase(env, p, t, r); });
  }
  if (staged) {
    Rep r = *staged;
    d.phases.push_back(
        [p, t, r](KernelEnv &env) { stagedColumnStorePhase(env, p, t, r); });
  }
  if (p.delayed) {
    d.phases.push_back(
        [t](KernelEnv &env) { env.stageWarpMax(env.shared[t.slots]); });
    d.phases.push_back([p, t](KernelEnv &env) {
      env.blockMaxToGlobal(env.shared[t.slots], {env.args[p.amaxStateOutArg]});
    });
  }
  return d;
}

bool gpuk::takesProducerAmax(QuantTensorType type, const TargetInfo &target) {
  bool delayed = type.getQuantizer().takesRecipeScale();
  Plan p = makePlan(type, target, delayed, delayed,
                    quantizeScratch(type, type.getContext()).size());
  return !p.globalAmaxArgs.empty() && !p.rowScaled && p.rhtAmaxArg < 0;
}

int64_t gpuk::producerBlockSize(QuantTensorType type,
                                const TargetInfo &target) {
  if (type.getQuantizer().takesRecipeScale())
    return 0;
  Plan p = makePlan(type, target, false, false,
                    quantizeScratch(type, type.getContext()).size());
  if (p.reps.empty() || p.twoD || !p.globalAmaxArgs.empty())
    return 0;
  // MXFP8: row-wise and/or column-wise (codes in x's layout) 1-D blocks.
  if (llvm::all_of(p.reps, [](const Rep &r) {
        return r.kind == ScaleKind::E8M0 && r.block == 32 &&
               (!r.columnwise || r.xLayout);
      }))
    return 32;
  // FP8 1x128: row-wise and/or column-wise (codes transposed, [N, M]).
  if (llvm::all_of(p.reps, [](const Rep &r) {
        return r.kind == ScaleKind::F32Block && r.block == 128 &&
               !r.xLayout;
      }))
    return 128;
  return 0;
}

void gpuk::emitQuantize(
    OpBuilder &b, Location loc, ModuleOp module, QuantTensorType type,
    const TargetInfo &target, Value x, Value scale, Value amaxIn, Value rng,
    ValueRange outs, ValueRange scratch, const EmitOptions &options,
    const std::function<void(OpBuilder &, ValueRange)> &fillAmax,
    const std::function<void(OpBuilder &, const ProducerBlockQuantizer &)>
        &produce,
    Value biasGradWorkspace) {
  Plan p = makePlan(type, target, static_cast<bool>(scale),
                    static_cast<bool>(amaxIn), scratch.size(),
                    static_cast<bool>(rng));
  p.directStores = options.directQuantizeStores;
  if (produce) {
    // producerBlockSize: a row-wise and/or a column-wise representation
    // (one format), whose buffers are outs (argument i + 1 of the plan is
    // outs[i]); the init kernel zeroes padded (swizzled) scale buffers,
    // then the producer quantizes.
    Plan init = p;
    for (int &a : init.zeroArgs)
      --a;
    if (!init.zeroArgs.empty())
      emitKernel(b, loc, module, initKernel(init, outs), outs, options);
    const Rep &first = p.reps.front();
    ProducerBlockQuantizer q;
    q.block = first.block;
    q.nominal = p.nominal;
    q.codeType = first.fp8Type;
    q.scaleFormat = first.kind == ScaleKind::E8M0 ? "E8M0" : "FP32";
    q.encode = [first](KernelEnv &env, ArrayRef<Value> values, Value mult) {
      return encodeScaled(env, first, values, mult);
    };
    for (const Rep &r : p.reps) {
      // z = x^T for a column-wise representation: its z row is x's column.
      auto scale = [p, r](KernelEnv &env, Value amax, Value zRow, Value zBlock,
                          Value scales) {
        return producerBlockScale(env, p, r, amax, zRow, zBlock, scales);
      };
      if (r.columnwise) {
        q.columnTransposed = !r.xLayout;
        q.columnData = outs[r.dataArg - 1];
        q.columnScales = outs[r.scaleArg - 1];
        q.columnScale = scale;
      } else {
        q.data = outs[r.dataArg - 1];
        q.scales = outs[r.scaleArg - 1];
        q.scale = scale;
      }
    }
    produce(b, q);
    return;
  }
  SmallVector<Value> args = {x};
  llvm::append_range(args, outs);
  if (scale)
    args.push_back(scale);
  if (amaxIn)
    args.push_back(amaxIn);
  if (rng)
    args.push_back(rng);
  llvm::append_range(args, scratch);
  if (biasGradWorkspace) {
    p.biasGradArg = args.size();
    args.push_back(biasGradWorkspace);
  }

  auto launch = [&](const KernelDesc &d) {
    emitKernel(b, loc, module, d, args, options);
  };
  if (!p.zeroArgs.empty() || p.amaxStateOutArg >= 0 || p.givenAmaxArg >= 0)
    launch(initKernel(p, args));
  if (fillAmax) {
    // The producer of x takes the global amax (takesProducerAmax).
    SmallVector<Value> amaxes;
    for (int a : p.globalAmaxArgs)
      amaxes.push_back(args[a]);
    fillAmax(b, amaxes);
  } else if (!p.globalAmaxArgs.empty() && p.rhtAmaxArg < 0 &&
             p.givenAmaxArg < 0) {
    launch(amaxKernel(p)); // with RHT, rhtAmaxKernel takes both amaxes
  }
  if (p.rowScaled)
    launch(rowAmaxKernel(p));
  if (p.rhtAmaxArg >= 0 && p.givenAmaxArg < 0)
    launch(rhtAmaxKernel(p));
  SmallVector<const Rep *> reps;
  for (const Rep &r : p.reps)
    reps.push_back(&r);
  Tile together = makeTile(p, reps);
  int64_t bytes = together.rows * together.ld * together.elemBytes;
  bool scaleInv = p.scaleInvArg >= 0;
  // Passes over x alternate direction (Tile::reversed): the amax kernels
  // run forward, so a cast kernel after one starts at x's end.
  bool amaxPass = ((!p.globalAmaxArgs.empty() || p.rhtAmaxArg >= 0) &&
                   p.givenAmaxArg < 0) ||
                  p.rowScaled;
  if (reps.size() < 2 || bytes <= 48 * 1024 || p.twoD) {
    launch(castKernel(p, reps, scaleInv, "qs_quantize", amaxPass,
                      /*biasGrad=*/true));
    return;
  }
  // A tile holding both representations' 1-D blocks would not fit in
  // static shared memory (f32 input with 128-long blocks): one kernel each
  // (a 2-D tile is the same for either; one kernel writes both).
  for (auto [i, r] : llvm::enumerate(reps))
    launch(castKernel(p, {r}, scaleInv && i == 0,
                      r->columnwise ? "qs_quantize_columnwise"
                                    : "qs_quantize_rowwise",
                      amaxPass != (i % 2 == 1), /*biasGrad=*/i == 0));
}

void gpuk::emitGlobalAmaxes(
    OpBuilder &b, Location loc, ModuleOp module, QuantTensorType type,
    const TargetInfo &target, Value x, Value out, const EmitOptions &options,
    const std::function<void(OpBuilder &, ValueRange)> &fillAmax) {
  // The quantize's own amax kernels, on x and out alone: out is zeroed,
  // then out[0] takes max |x| and, with RHT, out[1] max |RHT(x^T)| (one
  // read of x for both, whatever the usages).
  Plan p = makePlan(type, target, /*hasScale=*/false, /*hasAmaxIn=*/false,
                    /*numScratch=*/0);
  p.xArg = 0;
  p.zeroArgs = {1};
  p.globalAmaxArgs = {1};
  p.givenAmaxArg = p.amaxStateInArg = p.amaxStateOutArg = -1;
  SmallVector<Value> args = {x, out};
  emitKernel(b, loc, module, initKernel(p, args), args, options);
  std::optional<uint32_t> signMask =
      type.getQuantizer().getColumnwiseRhtSignMask();
  assert((!fillAmax || !signMask) &&
         "a producer takes max |x| alone, not max |RHT(x^T)|");
  if (fillAmax) {
    fillAmax(b, ValueRange{out});
  } else if (signMask) {
    p.rhtAmaxArg = 1;
    p.rhtAmaxIndex = 1;
    p.rhtSignMask = *signMask;
    emitKernel(b, loc, module, rhtAmaxKernel(p), args, options);
  } else {
    emitKernel(b, loc, module, amaxKernel(p), args, options);
  }
}
