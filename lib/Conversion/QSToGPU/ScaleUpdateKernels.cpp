//===- ScaleUpdateKernels.cpp - delayed scaling's recipe step -------------===//
//
// qs.amax_and_scale_update on the GPU: one block per update, the updates of
// a block of IR in one kernel (TE's bulk launch). Each thread
// rolls a strided part of the amax history (element i of the result from
// element i + 1 of the input, the step's amax at L - 1, 0.0 at 0) and keeps
// the fmaxf of what it read; thread 0 combines the threads' maxima after
// the barrier and writes the new scale (ref::delayedScaleFromAmax, the
// reference's own scalar code). A maximum does not depend on the order, so
// the bits are the reference's.
//
//===----------------------------------------------------------------------===//

#include "../QSToLinalg/ReferenceBuilders.h"
#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

/// One block per update (TE's bulk kernel: one launch for all of a
/// recipe's tensors). Update u's arguments start at args[offsets[u]]:
/// updated history, updated scale, history, scale[, amax].
static KernelDesc scaleUpdateKernel(MLIRContext *ctx,
                                    ArrayRef<ScaleUpdate> updates) {
  KernelDesc d;
  d.name = "qs_amax_and_scale_update";
  d.gridSize = updates.size();
  int64_t threads = d.threads;
  SmallVector<ScaleUpdate> all(updates);
  SmallVector<int64_t> offsets;
  int64_t next = 0;
  bool anyMax = false;
  for (const ScaleUpdate &u : updates) {
    offsets.push_back(next);
    next += u.givenAmax ? 5 : 4;
    anyMax |= u.maxOfHistory;
  }
  if (anyMax)
    d.shared.push_back(MemRefType::get({threads}, Float32Type::get(ctx)));
  // The block's update: body(u, its first argument) in block u alone.
  auto forBlock =
      [=](KernelEnv &env,
          const std::function<void(const ScaleUpdate &, int64_t)> &body) {
        for (auto [u, update] : llvm::enumerate(all)) {
          auto run = [&, u = u, update = update] { body(update, offsets[u]); };
          if (all.size() == 1)
            run();
          else
            env.ifThen(arith::CmpIOp::create(env.b, env.loc,
                                             arith::CmpIPredicate::eq,
                                             env.blockId, env.idx(u)),
                       run);
        }
      };
  // The step's amax: the given one unless it is 0.0, else history[0].
  auto lastAmax = [](KernelEnv &env, const ScaleUpdate &u, int64_t a) {
    Value last = load1(env, env.args[a + 2], env.idx(0));
    if (!u.givenAmax)
      return last;
    return ref::delayedStepAmax(env.b, env.loc, last,
                                load1(env, env.args[a + 4], env.idx(0)));
  };
  d.phases.push_back([=](KernelEnv &env) {
    OpBuilder &b = env.b;
    Location loc = env.loc;
    env.forEachUnit(threads, [&](Value t) {
      forBlock(env, [&](const ScaleUpdate &u, int64_t a) {
        Value last = lastAmax(env, u, a);
        int64_t length = u.length;
        Value acc = env.loopReduce(
            ceilDiv(length, threads), env.f32(0.0f), [&](Value it, Value acc) {
              Value i = env.add(env.mul(it, env.idx(threads)), t);
              Value inside = env.lt(i, env.idx(length));
              Value older = env.lt(i, env.idx(length - 1));
              // history[i + 1] for i < L - 1 (an index past it reads
              // element 0 and is not used), the step's amax at L - 1.
              Value next = env.add(i, env.idx(1));
              Value at =
                  arith::SelectOp::create(b, loc, older, next, env.idx(0));
              Value v = arith::SelectOp::create(
                  b, loc, older, load1(env, env.args[a + 2], at), last);
              env.ifThen(inside, [&] {
                Value first = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::eq, i, env.idx(0));
                store1(env,
                       arith::SelectOp::create(b, loc, first, env.f32(0.0f), v),
                       env.args[a], i);
              });
              return arith::SelectOp::create(
                         b, loc, inside,
                         arith::MaxNumFOp::create(b, loc, acc, v), acc)
                  .getResult();
            });
        if (u.maxOfHistory)
          store1(env, acc, env.shared[0], t);
      });
    });
  });
  d.phases.push_back([=](KernelEnv &env) {
    env.forEachUnit(1, [&](Value) {
      forBlock(env, [&](const ScaleUpdate &u, int64_t a) {
        Value amax;
        if (u.maxOfHistory) {
          SmallVector<Value> parts;
          for (int64_t t = 0; t < threads; ++t)
            parts.push_back(load1(env, env.shared[0], env.idx(t)));
          amax = reduceTree(parts, [&](Value x, Value y) {
            return arith::MaxNumFOp::create(env.b, env.loc, x, y).getResult();
          });
        } else {
          amax = lastAmax(env, u, a);
        }
        Value previous = load1(env, env.args[a + 3], env.idx(0));
        store1(env,
               ref::delayedScaleFromAmax(env.b, env.loc, amax, previous,
                                         u.scaledMax),
               env.args[a + 1], env.idx(0));
      });
    });
  });
  return d;
}

void gpuk::emitAmaxAndScaleUpdates(OpBuilder &b, Location loc, ModuleOp module,
                                   ArrayRef<ScaleUpdate> updates,
                                   ValueRange args,
                                   const EmitOptions &options) {
  emitKernel(b, loc, module, scaleUpdateKernel(b.getContext(), updates), args,
             options);
}
