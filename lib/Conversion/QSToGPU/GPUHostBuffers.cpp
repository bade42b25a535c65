//===- GPUHostBuffers.cpp - qs-gpu-host-buffers ----------------------------===//
//
// Host code of a GPU module only orchestrates: its buffers live in device
// memory. Allocation, deallocation and copies are rewritten to their gpu
// dialect forms; any other access of memref contents on the host is an
// error (the host cannot read device memory).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "qs/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSGPUHOSTBUFFERSPASS
#include "qs/Conversion/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;

/// Whether `v` is host memory: the buffer-deallocation pipeline's
/// bookkeeping for its run-time alias checks (a loop that yields fresh
/// buffers, say): arrays of index (pointers) and i1 (ownership) elements
/// that host code allocates, fills and passes to a private helper function
/// (`@dealloc_helper`). No kernel takes index or i1 buffers, and a public
/// function's arguments are device buffers, so an index or i1 memref is
/// host memory exactly when it comes (through casts) from an allocation
/// or is an argument of a private function.
static bool isHostMemory(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type ||
      !(type.getElementType().isIndex() || type.getElementType().isInteger(1)))
    return false;
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  if (isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(v.getDefiningOp()))
    return true;
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return false;
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return func && func.isPrivate();
}

/// Whether `op` reads or writes the contents of a memref in device memory.
static bool accessesDeviceMemory(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  for (const auto &e : list)
    if (isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
        e.getValue() && isa<MemRefType>(e.getValue().getType()) &&
        !isHostMemory(e.getValue()))
      return true;
  return false;
}

namespace {
struct QSGPUHostBuffersPass
    : public qs::impl::QSGPUHostBuffersPassBase<QSGPUHostBuffersPass> {
  /// Gives a launcher declaration its body: one gpu.launch_func.
  static void materializeLauncher(func::FuncOp f) {
    auto kernel = f->getAttrOfType<SymbolRefAttr>(qs::gpuk::kLaunchKernelAttr);
    int64_t grid = f->getAttrOfType<IntegerAttr>(qs::gpuk::kLaunchGridAttr).getInt();
    int64_t block =
        f->getAttrOfType<IntegerAttr>(qs::gpuk::kLaunchBlockAttr).getInt();
    Block *entry = f.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(entry);
    Location loc = f.getLoc();
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value g = arith::ConstantIndexOp::create(b, loc, grid);
    Value t = arith::ConstantIndexOp::create(b, loc, block);
    Value shared;
    if (auto bytes =
            f->getAttrOfType<IntegerAttr>(qs::gpuk::kLaunchSharedAttr))
      shared = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                            bytes.getInt());
    gpu::LaunchFuncOp::create(b, loc, kernel, gpu::KernelDim3{g, one, one},
                              gpu::KernelDim3{t, one, one}, shared,
                              entry->getArguments(), Type());
    func::ReturnOp::create(b, loc);
    f->removeAttr(qs::gpuk::kLaunchKernelAttr);
    f->removeAttr(qs::gpuk::kLaunchGridAttr);
    f->removeAttr(qs::gpuk::kLaunchBlockAttr);
    f->removeAttr(qs::gpuk::kLaunchSharedAttr);
  }

  void runOnOperation() override {
    for (auto f : getOperation().getOps<func::FuncOp>())
      if (f->hasAttr(qs::gpuk::kLaunchKernelAttr))
        materializeLauncher(f);
    SmallVector<Operation *> ops;
    bool bad = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op)) {
        // Host bookkeeping keeps its host allocation.
        Value memref =
            TypeSwitch<Operation *, Value>(op)
                .Case([](memref::AllocOp a) { return a.getMemref(); })
                .Case([](memref::DeallocOp d) { return d.getMemref(); })
                .Case([](memref::CopyOp c) { return c.getTarget(); });
        if (!isHostMemory(memref))
          ops.push_back(op);
      } else if (!isa<gpu::LaunchFuncOp, func::CallOp>(op) &&
                 accessesDeviceMemory(op)) {
        op->emitOpError()
            << "accesses buffer contents in host code, but with "
               "qs-nvptx-pipeline every buffer lives in device memory: only "
               "kernels may touch them (qs ops, and element-wise linalg ops "
               "through qs-elementwise-to-gpu)";
        bad = true;
      }
      return WalkResult::advance();
    });
    if (bad)
      return signalPassFailure();
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getType().hasStaticShape() ||
            !alloc.getType().getLayout().isIdentity()) {
          op->emitOpError() << "has a dynamic or strided type: "
                               "qs-gpu-host-buffers allocates static, "
                               "identity-layout device buffers only";
          return signalPassFailure();
        }
        auto gpuAlloc = gpu::AllocOp::create(
            b, loc, alloc.getType(), /*asyncToken=*/Type(), ValueRange{},
            ValueRange{}, ValueRange{}, /*hostShared=*/false);
        alloc.replaceAllUsesWith(gpuAlloc.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, Type(), ValueRange{},
                               dealloc.getMemref());
      } else {
        auto copy = cast<memref::CopyOp>(op);
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, copy.getTarget(),
                              copy.getSource());
      }
      op->erase();
    }
  }
};
} // namespace
