//===- BiasGradKernels.cpp - the bias-gradient kernels --------------------===//
//
// qs.bias_grad on the GPU, in the op's order of additions: the first kernel
// sums each chunk of kBiasGradChunkRows rows of a group of columns (one
// thread per chunk and group of up to 16 bytes of columns, consecutive
// threads on consecutive groups: every row load of a warp is contiguous)
// into an FP32 workspace [chunks, N]; the second sums the chunks of one
// column per thread, in chunk order, and rounds to the result type.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "QuantizePlan.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "qs/Dialect/QS/Utils/FloatEmulation.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"

using namespace mlir;
using namespace mlir::qs;
using namespace mlir::qs::gpuk;
using namespace mlir::qs::gpuk::quant;

int64_t gpuk::biasGradWorkspaceSize(int64_t m, int64_t n) {
  return ceilDiv(m, kBiasGradChunkRows) * n;
}

/// Chunk sums: unit u = chunk * groups + group; its thread adds the chunk's
/// rows of columns [group * vec, group * vec + vec) from +0.0 in row order.
/// Rows past M (the last chunk) add +0.0, which leaves a sum that started
/// at +0.0 unchanged, so every chunk is straight-line code of
/// kBiasGradChunkRows loads.
static KernelDesc chunkKernel(int64_t m, int64_t n, Type inType) {
  KernelDesc d;
  d.name = "qs_bias_grad_chunks";
  int64_t elemBytes = inType.getIntOrFloatBitWidth() / 8;
  int64_t vec = vectorWidth(n, elemBytes);
  int64_t groups = n / vec, chunks = ceilDiv(m, kBiasGradChunkRows);
  int64_t units = chunks * groups, perBlock = d.threads;
  d.gridSize = ceilDiv(units, perBlock);
  d.phases.push_back([=](KernelEnv &env) {
    OpBuilder &b = env.b;
    Location loc = env.loc;
    env.forEachUnit(perBlock, [&](Value u) {
      Value unit = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(unit, env.idx(units)), [&] {
        Value chunk = env.div(unit, env.idx(groups));
        Value col = env.mul(env.rem(unit, env.idx(groups)), env.idx(vec));
        Value first = env.mul(chunk, env.idx(kBiasGradChunkRows));
        SmallVector<Value> sums(vec, env.f32(0.0f));
        VectorType vt = VectorType::get({vec}, inType);
        for (int64_t r = 0; r < kBiasGradChunkRows; ++r) {
          Value row = env.add(first, env.idx(r));
          Value inside = env.lt(row, env.idx(m));
          // A row past M is never read: the last row's address instead.
          Value at =
              arith::SelectOp::create(b, loc, inside, row, env.idx(m - 1));
          Value loaded = vector::LoadOp::create(
              b, loc, vt, env.args[1],
              ValueRange{env.add(env.mul(at, env.idx(n)), col)}, false,
              llvm::MaybeAlign(vec * elemBytes));
          SmallVector<Value> values = env.vectorToF32(loaded);
          for (int64_t i = 0; i < vec; ++i) {
            Value v = m % kBiasGradChunkRows == 0
                          ? values[i]
                          : arith::SelectOp::create(b, loc, inside, values[i],
                                                    env.f32(0.0f))
                                .getResult();
            sums[i] = arith::AddFOp::create(b, loc, sums[i], v);
          }
        }
        Value out = vector::FromElementsOp::create(
            b, loc, VectorType::get({vec}, b.getF32Type()), sums);
        vector::StoreOp::create(
            b, loc, out, env.args[0],
            ValueRange{env.add(env.mul(chunk, env.idx(n)), col)}, false,
            llvm::MaybeAlign(std::min<int64_t>(vec * 4, 16)));
      });
    });
  });
  return d;
}

/// Column sums: thread per column, the chunks' sums added from +0.0 in
/// chunk order, rounded to the result type. The grid is one thread per
/// column (N threads: often less than a wave), so the kernel is latency
/// bound: each loop iteration issues the loads of kSumGroup chunks before
/// adding them in order (ptxas 13.0 keeps ~20 of them in flight at 30
/// registers, a sliding window; a plain loop got LLVM's unroll by 8 of
/// alternating loads and adds).
static constexpr int64_t kSumGroup = 64;

static KernelDesc sumKernel(int64_t m, int64_t n, Type outType) {
  KernelDesc d;
  d.name = "qs_bias_grad";
  int64_t chunks = ceilDiv(m, kBiasGradChunkRows), perBlock = d.threads;
  int64_t groups = chunks / kSumGroup, rest = chunks % kSumGroup;
  d.gridSize = ceilDiv(n, perBlock);
  d.phases.push_back([=](KernelEnv &env) {
    env.forEachUnit(perBlock, [&](Value u) {
      Value col = env.add(env.mul(env.blockId, env.idx(perBlock)), u);
      env.ifThen(env.lt(col, env.idx(n)), [&] {
        // The sums of chunks [first, first + count) added to acc in order.
        auto addChunks = [&](Value first, int64_t count, Value acc) {
          SmallVector<Value> parts;
          for (int64_t i = 0; i < count; ++i)
            parts.push_back(load1(
                env, env.args[1],
                env.add(env.mul(env.add(first, env.idx(i)), env.idx(n)), col)));
          for (Value part : parts)
            acc = arith::AddFOp::create(env.b, env.loc, acc, part);
          return acc;
        };
        Value sum = env.f32(0.0f);
        if (groups > 0)
          sum = env.loopReduce(groups, sum, [&](Value g, Value acc) {
            return addChunks(env.mul(g, env.idx(kSumGroup)), kSumGroup, acc);
          });
        if (rest > 0)
          sum = addChunks(env.idx(groups * kSumGroup), rest, sum);
        // Any NaN as the reference's (GPU and CPU additions write
        // different NaN bits).
        sum = emitCanonicalNaN(env.b, env.loc, sum);
        store1(env, env.fromF32(sum, outType), env.args[0], col);
      });
    });
  });
  return d;
}

void quant::biasGradChunkPhase(KernelEnv &env, const Plan &p, const Tile &t) {
  assert(t.rows % kBiasGradChunkRows == 0 && "tiles hold whole chunks");
  int64_t tileChunks = t.rows / kBiasGradChunkRows;
  int64_t chunks = ceilDiv(p.m, kBiasGradChunkRows);
  Value tileRow, tileCol;
  std::tie(tileRow, tileCol) = tileCoords(env, t);
  env.forEachUnit(tileChunks * t.cols, [&](Value u) {
    Value local = env.div(u, env.idx(t.cols));
    Value c = env.rem(u, env.idx(t.cols));
    Value chunk = env.add(env.mul(tileRow, env.idx(tileChunks)), local);
    Value col = env.add(env.mul(tileCol, env.idx(t.cols)), c);
    env.ifThen(
        env.land(env.lt(chunk, env.idx(chunks)), env.lt(col, env.idx(p.k))),
        [&] {
          Value first = env.mul(local, env.idx(kBiasGradChunkRows));
          Value sum = env.f32(0.0f);
          for (int64_t r = 0; r < kBiasGradChunkRows; ++r) {
            Value v = load1(env, env.shared[0],
                            tileOffset(env, t, env.add(first, env.idx(r)), c));
            sum = arith::AddFOp::create(env.b, env.loc, sum, env.toF32(v));
          }
          store1(env, sum, env.args[p.biasGradArg],
                 env.add(env.mul(chunk, env.idx(p.k)), col));
        });
  });
}

void gpuk::emitBiasGradSums(OpBuilder &b, Location loc, ModuleOp module,
                            int64_t m, int64_t n, Value workspace, Value out,
                            const EmitOptions &options) {
  Type outType = cast<MemRefType>(out.getType()).getElementType();
  emitKernel(b, loc, module, sumKernel(m, n, outType), {out, workspace},
             options);
}

void gpuk::emitBiasGrad(OpBuilder &b, Location loc, ModuleOp module, Value x,
                        int64_t m, int64_t n, Value workspace, Value out,
                        const EmitOptions &options) {
  Type inType = cast<MemRefType>(x.getType()).getElementType();
  emitKernel(b, loc, module, chunkKernel(m, n, inType), {workspace, x},
             options);
  emitBiasGradSums(b, loc, module, m, n, workspace, out, options);
}
