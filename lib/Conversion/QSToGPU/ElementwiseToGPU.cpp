//===- ElementwiseToGPU.cpp - qs-elementwise-to-gpu -----------------------===//
//
// Element-wise and reduction linalg ops on tensors (static shapes,
// projected-permutation indexing maps, a payload of arith and math ops)
// become GPU kernels, so that the activations, bias and residual adds and
// reductions between qs ops compile with qs-nvptx-pipeline, whose host code
// may not touch device buffers. One kernel per op. Element-wise: thread u
// of the 1-D grid computes V consecutive points of the innermost loop (V =
// 16 bytes of the narrowest operand that is contiguous along it), reading
// contiguous operands with one vector load each, operands broadcast along
// the innermost loop once, and others (transposed) element by element, and
// runs the op's own payload, cloned, once per point. Reductions: thread u
// owns a point of the parallel loops and runs the payload over the
// reduction loops in the CPU loops' order. Either way the arithmetic is
// the op's, so the results are the CPU's bit for bit where its ops are
// IEEE operations.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "Kernels.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "qs/Conversion/Passes.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSELEMENTWISETOGPUPASS
#include "qs/Conversion/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

/// Threads per block of an element-wise kernel.
static constexpr int64_t kThreads = 256;

/// Whether tensors of `type` may be kernel operands: the integer and float
/// types NVPTX loads, stores and computes with (i1 and index buffers are
/// the host's bookkeeping in qs-gpu-host-buffers; FP8 and FP4 have no
/// arithmetic lowering).
static bool isBufferElementType(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth());
  return isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type);
}

/// Whether a payload value may have `type`: a buffer element type, i1 or
/// index.
static bool isPayloadType(Type type) {
  return isBufferElementType(type) || type.isInteger(1) || type.isIndex();
}

/// One operand (or result) of the kernel: its flat buffer's position in the
/// kernel arguments and the stride of each loop dimension in it.
struct Access {
  int64_t arg = -1;
  SmallVector<int64_t> loopStrides;
  Type elementType;
};

/// The loop strides of an operand of `shape` read through projected
/// permutation `map` (constant-0 results broadcast).
static SmallVector<int64_t> loopStridesOf(AffineMap map,
                                          ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(map.getNumDims(), 0);
  int64_t stride = 1;
  for (int64_t j = static_cast<int64_t>(map.getNumResults()) - 1; j >= 0; --j) {
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResult(j)))
      strides[dim.getPosition()] += stride;
    stride *= shape[j];
  }
  return strides;
}

namespace {
/// An op the pass lowers, checked.
struct Elementwise {
  linalg::LinalgOp op;
  SmallVector<int64_t> ranges;
  int64_t points = 1;
  /// Points per thread along the innermost loop.
  int64_t width = 1;
  /// Whether some loop is a reduction (reductionKernel).
  bool reduction = false;
};
} // namespace

/// Checks `op` against the rules of the pass; on failure reports the first
/// rule it breaks (where `report`) and returns failure.
static FailureOr<Elementwise> check(linalg::LinalgOp op, bool report) {
  auto fail = [&](const Twine &why) -> FailureOr<Elementwise> {
    if (report)
      op->emitOpError() << "cannot become a GPU kernel (qs-nvptx-pipeline "
                           "runs every op on tensors on the GPU): "
                        << why;
    return failure();
  };
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    for (AffineExpr result : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(result);
          dim && iterators[dim.getPosition()] != utils::IteratorType::parallel)
        return fail("the indexing map of result #" +
                    Twine(init.getOperandNumber() - op.getNumDpsInputs()) +
                    " uses reduction loop d" + Twine(dim.getPosition()) +
                    " (a reduction's results are indexed by parallel loops)");
  }
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = operand.get().getType();
    if (!isa<TensorType>(type)) {
      if (!matchPattern(operand.get(), m_Constant()))
        return fail("scalar operand #" + Twine(operand.getOperandNumber()) +
                    " is not a constant; a kernel takes buffers only");
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return fail("operand #" + Twine(operand.getOperandNumber()) +
                  " is not a statically shaped tensor");
    if (!isBufferElementType(tensor.getElementType()))
      return fail("operand #" + Twine(operand.getOperandNumber()) +
                  " has element type '" +
                  llvm::formatv("{0}", tensor.getElementType()).str() +
                  "'; kernels take i8, i16, i32, i64, f16, bf16, f32 and f64 "
                  "elements");
    if (!op.getMatchingIndexingMap(&operand).isProjectedPermutation(
            /*allowZeroInResults=*/true))
      return fail("the indexing map of operand #" +
                  Twine(operand.getOperandNumber()) +
                  " is not a projected permutation (each index a loop "
                  "index or 0)");
  }
  Block *body = op.getBlock();
  for (Type type : body->getArgumentTypes())
    if (!isPayloadType(type))
      return fail("the payload has an argument of type '" +
                  llvm::formatv("{0}", type).str() + "'");
  for (Operation &inner : body->without_terminator()) {
    if (!isa<linalg::IndexOp>(inner) &&
        !isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return fail("the payload holds '" + inner.getName().getStringRef().str() +
                  "'; kernels run arith and math ops and linalg.index");
    for (Type type : inner.getResultTypes())
      if (!isPayloadType(type))
        return fail("the payload computes a value of type '" +
                    llvm::formatv("{0}", type).str() + "'");
    for (Value v : inner.getOperands())
      if (v.getParentBlock() != body && !matchPattern(v, m_Constant()))
        return fail("the payload uses a value defined outside the op that "
                    "is not a constant");
  }
  Elementwise e{op, op.getStaticLoopRanges(), 1, 1, false};
  for (int64_t r : e.ranges)
    e.points *= r;
  e.reduction = op.getNumReductionLoops() != 0;
  // The width: 16 bytes of the narrowest operand contiguous along the
  // innermost loop, dividing that loop's range (reductions: 1).
  if (!e.ranges.empty() && !e.reduction) {
    int64_t narrowest = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      auto tensor = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!tensor)
        continue;
      SmallVector<int64_t> strides =
          loopStridesOf(op.getMatchingIndexingMap(&operand), tensor.getShape());
      if (strides.back() != 1)
        continue;
      int64_t bytes = tensor.getElementType().getIntOrFloatBitWidth() / 8;
      narrowest = narrowest ? std::min(narrowest, bytes) : bytes;
    }
    if (narrowest) {
      e.width = 16 / narrowest;
      while (e.ranges.back() % e.width)
        e.width /= 2;
    }
  }
  return e;
}

/// The alignment of a thread's vector access of `width` elements of `a`
/// (at a multiple of `width`; buffers are 256-byte aligned): its bytes, at
/// most 16, on the GPU.
static llvm::MaybeAlign vectorAlign(const gpuk::KernelEnv &env, const Access &a,
                                    int64_t width) {
  int64_t bytes = width * a.elementType.getIntOrFloatBitWidth() / 8;
  return llvm::MaybeAlign(env.gpu ? std::min<int64_t>(bytes, 16) : 1);
}

/// Clones the payload of `op` at one point: `args` holds one value per
/// operand (null: a scalar constant, cloned, or an init the payload does
/// not read), `indices` the loop indices (linalg.index). Returns the
/// yielded values.
static SmallVector<Value> clonePayload(OpBuilder &b, linalg::LinalgOp op,
                                       ArrayRef<Value> args,
                                       ArrayRef<Value> indices) {
  Block *payload = op.getBlock();
  IRMapping map;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg) {
      map.map(payload->getArgument(i), arg);
      continue;
    }
    Value scalar = op->getOperand(i);
    if (!isa<TensorType>(scalar.getType()))
      map.map(payload->getArgument(i),
              b.clone(*scalar.getDefiningOp())->getResult(0));
  }
  for (Operation &inner : payload->without_terminator()) {
    for (Value operand : inner.getOperands())
      if (operand.getParentBlock() != payload && !map.contains(operand))
        map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), indices[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> results;
  for (Value v : cast<linalg::YieldOp>(payload->getTerminator()).getValues())
    results.push_back(map.lookupOrDefault(v));
  return results;
}

/// The flat offset of the point with loop indices `indices` in `a` (null
/// indices: loops `a` does not depend on).
static Value offsetAt(gpuk::KernelEnv &env, const Access &a,
                      ArrayRef<Value> indices) {
  Value at = env.idx(0);
  for (auto [d, stride] : llvm::enumerate(a.loopStrides))
    if (stride)
      at = env.add(at, env.mul(indices[d], env.idx(stride)));
  return at;
}

/// `linear` split into the indices of loops `dims` (the last fastest) of
/// ranges `ranges`, written into `indices`.
static void delinearize(gpuk::KernelEnv &env, Value linear,
                        ArrayRef<int64_t> dims, ArrayRef<int64_t> ranges,
                        SmallVectorImpl<Value> &indices) {
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    int64_t d = dims[k];
    if (ranges[d] == 1) {
      indices[d] = env.idx(0);
      continue;
    }
    indices[d] = k == 0 ? linear : env.rem(linear, env.idx(ranges[d]));
    if (k)
      linear = env.div(linear, env.idx(ranges[d]));
  }
}

/// Runs `body(unit)` in each thread for its unit, blockId * kThreads +
/// threadId, where that is below `units`.
static void forOwnUnit(gpuk::KernelEnv &env, int64_t units,
                       llvm::function_ref<void(Value)> body) {
  env.forEachUnit(kThreads, [&](Value t) {
    Value unit = env.add(env.mul(env.blockId, env.idx(kThreads)), t);
    if (units % kThreads == 0)
      body(unit);
    else
      env.ifThen(env.lt(unit, env.idx(units)), [&] { body(unit); });
  });
}

/// The kernel of `e`: arguments are the flat buffers of `accesses` (inputs,
/// inits the payload reads, results), in order.
static gpuk::KernelDesc elementwiseKernel(const Elementwise &e,
                                          ArrayRef<Access> inputs,
                                          ArrayRef<Access> outputs) {
  gpuk::KernelDesc d;
  d.name = "qs_elementwise";
  d.threads = kThreads;
  int64_t units = e.points / e.width;
  d.gridSize = (units + kThreads - 1) / kThreads;
  Operation *linalgOp = e.op;
  SmallVector<int64_t> ranges = e.ranges;
  int64_t width = e.width;
  SmallVector<Access> ins(inputs), outs(outputs);
  d.phases.push_back([=](gpuk::KernelEnv &env) {
    OpBuilder &b = env.b;
    Location loc = env.loc;
    forOwnUnit(env, units, [&](Value unit) {
      // The loop indices of the unit's first point.
      int64_t rank = ranges.size();
      SmallVector<Value> first(rank);
      SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      delinearize(env, env.mul(unit, env.idx(width)), all, ranges, first);
      auto offsetOf = [&](const Access &a) { return offsetAt(env, a, first); };
      auto innerStride = [&](const Access &a) {
        return rank ? a.loopStrides.back() : 0;
      };
      // Each point's value of every tensor operand.
      auto load = [&](const Access &a) {
        SmallVector<Value> values;
        Value buf = env.args[a.arg];
        Value at = offsetOf(a);
        int64_t stride = innerStride(a);
        if (width > 1 && stride == 1) {
          Value vec = vector::LoadOp::create(
              b, loc, VectorType::get({width}, a.elementType), buf,
              ValueRange{at}, false, vectorAlign(env, a, width));
          for (int64_t v = 0; v < width; ++v)
            values.push_back(
                vector::ExtractOp::create(b, loc, vec, ArrayRef<int64_t>{v}));
          return values;
        }
        Value once;
        for (int64_t v = 0; v < width; ++v) {
          if (stride == 0 && once) {
            values.push_back(once);
            continue;
          }
          Value value = memref::LoadOp::create(
              b, loc, buf,
              ValueRange{v ? env.add(at, env.idx(v * stride)) : at});
          once = value;
          values.push_back(value);
        }
        return values;
      };
      SmallVector<SmallVector<Value>> inputValues;
      for (const Access &a : ins)
        inputValues.push_back(a.arg >= 0 ? load(a) : SmallVector<Value>());
      SmallVector<SmallVector<Value>> results(outs.size());
      auto op = cast<linalg::LinalgOp>(linalgOp);
      for (int64_t v = 0; v < width; ++v) {
        SmallVector<Value> args;
        for (const SmallVector<Value> &values : inputValues)
          args.push_back(values.empty() ? Value() : values[v]);
        SmallVector<Value> indices(first);
        if (v)
          indices.back() = env.add(indices.back(), env.idx(v));
        for (auto [o, value] :
             llvm::enumerate(clonePayload(b, op, args, indices)))
          results[o].push_back(value);
      }
      for (auto [o, a] : llvm::enumerate(outs)) {
        Value buf = env.args[a.arg];
        Value at = offsetOf(a);
        int64_t stride = innerStride(a);
        if (width > 1 && stride == 1) {
          Value vec = vector::FromElementsOp::create(
              b, loc, VectorType::get({width}, a.elementType), results[o]);
          vector::StoreOp::create(b, loc, vec, buf, ValueRange{at}, false,
                                  vectorAlign(env, a, width));
          continue;
        }
        for (int64_t v = 0; v < width; ++v)
          memref::StoreOp::create(
              b, loc, results[o][v], buf,
              ValueRange{v ? env.add(at, env.idx(v * stride)) : at});
      }
    });
  });
  return d;
}

/// The kernel of reduction `e`: thread u owns the u-th point of the
/// parallel loops (the last fastest), starts from the inits' values there
/// and runs the payload over the reduction loops in order, the last
/// fastest, carrying the results: the order of qs-cpu-pipeline's loops, so
/// the same bits whatever the payload. Arguments as elementwiseKernel's;
/// every init is read.
static gpuk::KernelDesc reductionKernel(const Elementwise &e,
                                        ArrayRef<Access> inputs,
                                        ArrayRef<Access> outputs) {
  gpuk::KernelDesc d;
  d.name = "qs_reduction";
  d.threads = kThreads;
  Operation *linalgOp = e.op;
  auto op = cast<linalg::LinalgOp>(linalgOp);
  SmallVector<int64_t> parallel, reduced;
  int64_t units = 1, steps = 1;
  for (auto [dim, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::parallel) {
      parallel.push_back(dim);
      units *= e.ranges[dim];
    } else {
      reduced.push_back(dim);
      steps *= e.ranges[dim];
    }
  }
  d.gridSize = (units + kThreads - 1) / kThreads;
  SmallVector<int64_t> ranges = e.ranges;
  int64_t numInputs = op.getNumDpsInputs();
  SmallVector<Access> ins(inputs), outs(outputs);
  d.phases.push_back([=](gpuk::KernelEnv &env) {
    OpBuilder &b = env.b;
    Location loc = env.loc;
    auto op = cast<linalg::LinalgOp>(linalgOp);
    forOwnUnit(env, units, [&](Value unit) {
      SmallVector<Value> indices(ranges.size());
      delinearize(env, unit, parallel, ranges, indices);
      SmallVector<Value> inits;
      for (int64_t o = 0; o < static_cast<int64_t>(outs.size()); ++o) {
        const Access &init = ins[numInputs + o];
        inits.push_back(
            memref::LoadOp::create(b, loc, env.args[init.arg],
                                   ValueRange{offsetAt(env, init, indices)}));
      }
      auto loop = scf::ForOp::create(
          b, loc, env.idx(0), env.idx(steps), env.idx(1), inits,
          [&](OpBuilder &lb, Location, Value step, ValueRange carried) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(lb.getInsertionBlock(), lb.getInsertionPoint());
            SmallVector<Value> point(indices);
            delinearize(env, step, reduced, ranges, point);
            SmallVector<Value> args;
            for (int64_t i = 0; i < numInputs; ++i)
              args.push_back(ins[i].arg < 0
                                 ? Value()
                                 : memref::LoadOp::create(
                                       b, loc, env.args[ins[i].arg],
                                       ValueRange{offsetAt(env, ins[i], point)})
                                       .getResult());
            llvm::append_range(args, carried);
            scf::YieldOp::create(b, loc, clonePayload(b, op, args, point));
          });
      for (auto [o, a] : llvm::enumerate(outs))
        memref::StoreOp::create(b, loc, loop.getResult(o), env.args[a.arg],
                                ValueRange{offsetAt(env, a, indices)});
    });
  });
  return d;
}

/// The 1-D view of a static identity-layout memref.
static Value flatView(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  if (type.getRank() == 0)
    return memref::ExpandShapeOp::create(
        b, loc, MemRefType::get({1}, type.getElementType()), memref,
        ArrayRef<ReassociationIndices>{});
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    all[0].push_back(i);
  return memref::CollapseShapeOp::create(b, loc, memref, all);
}

/// Replaces `e.op` by its kernel's launch on fresh result buffers.
static void lower(const Elementwise &e, ModuleOp module,
                  const gpuk::EmitOptions &options) {
  linalg::LinalgOp op = e.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> args;
  SmallVector<Access> ins, outs;
  Block *payload = op.getBlock();
  auto bufferOf = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    return flatView(b, loc,
                    bufferization::ToBufferOp::create(
                        b, loc,
                        MemRefType::get(type.getShape(), type.getElementType()),
                        tensor, /*readOnly=*/true));
  };
  auto accessOf = [&](OpOperand &operand) {
    auto type = cast<RankedTensorType>(operand.get().getType());
    return Access{
        static_cast<int64_t>(args.size()),
        loopStridesOf(op.getMatchingIndexingMap(&operand), type.getShape()),
        type.getElementType()};
  };
  // Inputs, then the inits whose payload arguments are read (as inputs).
  for (OpOperand &operand : op->getOpOperands()) {
    bool init = op.isDpsInit(&operand);
    if (!isa<RankedTensorType>(operand.get().getType()) ||
        (init && !e.reduction &&
         payload->getArgument(operand.getOperandNumber()).use_empty())) {
      ins.push_back(Access());
      continue;
    }
    ins.push_back(accessOf(operand));
    args.push_back(bufferOf(operand.get()));
  }
  SmallVector<Value> allocs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = cast<RankedTensorType>(init.get().getType());
    Value alloc = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
    allocs.push_back(alloc);
    outs.push_back(accessOf(init));
    args.push_back(flatView(b, loc, alloc));
  }
  // A reduction over no points still writes its inits.
  int64_t parallelPoints = 1;
  for (auto [range, iterator] : llvm::zip(e.ranges, op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      parallelPoints *= range;
  if (e.reduction && parallelPoints)
    gpuk::emitKernel(b, loc, module, reductionKernel(e, ins, outs), args,
                     options);
  else if (e.points)
    gpuk::emitKernel(b, loc, module, elementwiseKernel(e, ins, outs), args,
                     options);
  SmallVector<Value> results;
  for (auto [result, alloc] : llvm::zip(op->getResults(), allocs))
    results.push_back(bufferization::ToTensorOp::create(
        b, loc, result.getType(), alloc, /*restrict=*/true,
        /*writable=*/true));
  op->replaceAllUsesWith(results);
  op->erase();
}

namespace {
struct QSElementwiseToGPUPass
    : public qs::impl::QSElementwiseToGPUPassBase<QSElementwiseToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<linalg::LinalgOp> ops;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureTensorSemantics())
          ops.push_back(linalgOp);
      return WalkResult::advance();
    });
    gpuk::EmitOptions options;
    options.gpu = !emulate;
    bool failedAny = false;
    for (linalg::LinalgOp op : ops) {
      FailureOr<Elementwise> e = check(op, /*report=*/!emulate);
      if (failed(e)) {
        failedAny |= !emulate;
        continue;
      }
      lower(*e, op->getParentOfType<ModuleOp>(), options);
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
