//===- Kernels.h - quantize/dequantize kernel emission ----------*- C++ -*-===//
//
// Private to the QSToGPU library: the per-op entry points used by the
// convert-qs-to-gpu pass. Buffers are passed as 1-D memrefs (the row-major
// elements of each inner tensor).
//
//===----------------------------------------------------------------------===//

#ifndef QS_LIB_CONVERSION_QSTOGPU_KERNELS_H
#define QS_LIB_CONVERSION_QSTOGPU_KERNELS_H

#include "qs/Dialect/QS/IR/QSTarget.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace qs {
namespace gpuk {

struct EmitOptions {
  /// GPU kernels (else the CPU emulation).
  bool gpu = true;
  /// Use cvt.rn.satfinite.e4m3x2/e5m2x2 (sm_89+).
  bool hardwareFp8 = true;
};

/// Whether the kernels support quantizing/dequantizing `type`; if not,
/// reports why through `emitError`.
LogicalResult checkKernelSupport(QuantTensorType type,
                                 function_ref<InFlightDiagnostic()> emitError);

/// Scratch buffers the quantize kernels of `type` need (memref types), to be
/// allocated by the caller and passed to emitQuantize.
SmallVector<MemRefType> quantizeScratch(QuantTensorType type, MLIRContext *ctx);

/// Emits the kernels and launches for one quantize: `x` the input, `scale`
/// the delayed-scaling scale (memref<1xf32>, else null), `amaxIn` the
/// delayed amax state (else null), `outs` the inner tensors in interface
/// order followed, for delayed scaling, by the updated amax state.
void emitQuantize(OpBuilder &b, Location loc, ModuleOp module,
                  QuantTensorType type, const TargetInfo &target, Value x,
                  Value scale, Value amaxIn, ValueRange outs,
                  ValueRange scratch, const EmitOptions &options);

/// Emits the kernel and launch for one dequantize of `inner` (interface
/// order) into `out` (1-D, the logical elements).
void emitDequantize(OpBuilder &b, Location loc, ModuleOp module,
                    QuantTensorType type, const TargetInfo &target,
                    ValueRange inner, Value out, const EmitOptions &options);

} // namespace gpuk
} // namespace qs
} // namespace mlir

#endif // QS_LIB_CONVERSION_QSTOGPU_KERNELS_H
