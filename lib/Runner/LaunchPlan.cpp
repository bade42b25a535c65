//===- LaunchPlan.cpp - the kernel launches of a compiled function --------===//

#include "qs/Runner/LaunchPlan.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::qs;

/// The buffer a memref value is a view of.
static Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto c = dyn_cast<memref::CollapseShapeOp>(def))
      v = c.getSrc();
    else if (auto e = dyn_cast<memref::ExpandShapeOp>(def))
      v = e.getSrc();
    else if (auto c = dyn_cast<memref::CastOp>(def))
      v = c.getSource();
    else
      break;
  }
  return v;
}

static int64_t bytesOf(Type type) {
  auto m = cast<MemRefType>(type);
  return m.getNumElements() * m.getElementTypeBitWidth() / 8;
}

/// The memref whose aligned pointer an i64 host value is.
static Value pointerSource(Value v) {
  if (auto cast = v.getDefiningOp<arith::IndexCastUIOp>())
    v = cast.getIn();
  else if (auto cast = v.getDefiningOp<arith::IndexCastOp>())
    v = cast.getIn();
  if (auto extract = v.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>())
    return extract.getSource();
  return {};
}

/// A host call qsCudaEncodeTensorMap2D(map, global, rows, cols, boxRows,
/// boxCols, swizzle) (the GEMM kernels' TMA descriptors) as a plan step.
static LogicalResult
addTensorMap(func::CallOp call, LaunchPlan &plan,
             llvm::function_ref<unsigned(Value)> bufferIndex) {
  Value map = pointerSource(call.getOperand(0));
  Value global = pointerSource(call.getOperand(1));
  LaunchPlan::Step step;
  step.isTensorMap = true;
  for (unsigned i = 2; i < 7; ++i) {
    std::optional<int64_t> v = getConstantIntValue(call.getOperand(i));
    if (!v)
      return call.emitError()
             << "launch plan: tensor map with a non-constant shape";
    step.tensorMap[i - 2] = *v;
  }
  if (!map || !global)
    return call.emitError()
           << "launch plan: tensor map of something other than a buffer";
  step.dst = bufferIndex(map);
  step.src = bufferIndex(global);
  plan.steps.push_back(step);
  return success();
}

FailureOr<LaunchPlan>
mlir::qs::compileLaunchPlan(ModuleOp module, StringRef function,
                            const NVPTXPipelineOptions &options) {
  MLIRContext *ctx = module.getContext();
  PassManager host(ctx);
  buildNVPTXHostPipeline(host, options);
  if (failed(host.run(module)))
    return failure();
  auto f = module.lookupSymbol<func::FuncOp>(function);
  if (!f)
    return module.emitError() << "no function @" << function;
  LaunchPlan plan;
  plan.chip = options.chip;
  llvm::DenseMap<Value, unsigned> bufferOf;
  auto bufferIndex = [&](Value v) -> unsigned {
    v = rootOf(v);
    auto it = bufferOf.find(v);
    if (it != bufferOf.end())
      return it->second;
    LaunchPlan::Buffer b;
    b.bytes = bytesOf(v.getType());
    if (auto arg = dyn_cast<BlockArgument>(v))
      b.argument = arg.getArgNumber();
    plan.buffers.push_back(b);
    return bufferOf[v] = plan.buffers.size() - 1;
  };
  for (BlockArgument arg : f.getArguments())
    bufferIndex(arg);
  bool bad = false;
  // A plan is one straight sequence of launches and copies: a loop or a
  // branch (a loop carrying a quantized value, say) would be replayed once.
  // Tested by test/Tools/export-cuda-plan.mlir.
  f.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == f || !op->getNumRegions())
      return WalkResult::advance();
    op->emitError() << "launch plan: '" << op->getName()
                    << "' is control flow, which a plan (one straight "
                       "sequence of launches and copies) cannot replay; "
                       "qs-run --device=cuda runs it";
    bad = true;
    return WalkResult::interrupt();
  });
  if (bad)
    return failure();
  f.walk([&](Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call.getCallee() == "qsCudaEncodeTensorMap2D") {
        if (failed(addTensorMap(call, plan, bufferIndex)))
          bad = true;
        return;
      }
      auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
      gpu::LaunchFuncOp launch;
      if (callee)
        callee.walk([&](gpu::LaunchFuncOp l) { launch = l; });
      if (!launch) {
        // Tested by test/Tools/export-cuda-plan.mlir.
        call.emitError() << "launch plan: a call that is not a kernel launch";
        bad = true;
        return;
      }
      LaunchPlan::Step step;
      step.kernel = launch.getKernelName().str();
      step.grid = getConstantIntValue(launch.getGridSizeX()).value_or(0);
      step.block = getConstantIntValue(launch.getBlockSizeX()).value_or(0);
      if (Value shared = launch.getDynamicSharedMemorySize())
        step.sharedBytes = getConstantIntValue(shared).value_or(0);
      for (Value a : call.getOperands())
        step.args.push_back(bufferIndex(a));
      plan.steps.push_back(step);
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      LaunchPlan::Step step;
      step.isCopy = true;
      step.dst = bufferIndex(copy.getDst());
      step.src = bufferIndex(copy.getSrc());
      step.bytes = bytesOf(copy.getSrc().getType());
      plan.steps.push_back(step);
    }
  });
  if (bad)
    return failure();

  PassManager lower(ctx);
  buildNVPTXLoweringPipeline(lower, options);
  if (failed(lower.run(module)))
    return failure();
  module.walk([&](gpu::BinaryOp binary) {
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    plan.binary = object.getObject().getValue().str();
    switch (object.getFormat()) {
    case gpu::CompilationTarget::Assembly:
      plan.format = "isa";
      plan.binary.push_back('\0');
      break;
    case gpu::CompilationTarget::Binary:
      plan.format = "bin";
      break;
    default:
      plan.format = "fatbin";
      break;
    }
  });
  return plan;
}

std::string LaunchPlan::toJSON() const {
  llvm::json::Array bufs, stepList;
  for (const Buffer &b : buffers)
    bufs.push_back(llvm::json::Object{{"bytes", b.bytes}, {"argument", b.argument}});
  for (const Step &s : steps) {
    if (s.isTensorMap) {
      stepList.push_back(llvm::json::Object{
          {"tensormap",
           llvm::json::Object{{"map", s.dst},
                              {"global", s.src},
                              {"rows", s.tensorMap[0]},
                              {"cols", s.tensorMap[1]},
                              {"box_rows", s.tensorMap[2]},
                              {"box_cols", s.tensorMap[3]},
                              {"swizzle", s.tensorMap[4]}}}});
      continue;
    }
    if (s.isCopy) {
      stepList.push_back(llvm::json::Object{
          {"copy", llvm::json::Object{{"dst", s.dst}, {"src", s.src}, {"bytes", s.bytes}}}});
      continue;
    }
    llvm::json::Array args;
    for (unsigned a : s.args)
      args.push_back(a);
    stepList.push_back(llvm::json::Object{{"kernel", s.kernel},
                                          {"grid", s.grid},
                                          {"block", s.block},
                                          {"shared", s.sharedBytes},
                                          {"args", std::move(args)}});
  }
  llvm::json::Object root{{"chip", chip},
                          {"format", format},
                          {"buffers", std::move(bufs)},
                          {"steps", std::move(stepList)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)));
  return text;
}
