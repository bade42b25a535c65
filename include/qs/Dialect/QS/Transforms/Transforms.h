//===- Transforms.h - reusable pieces of the qs storage passes --*- C++ -*-===//
//
// The pattern sets, type converter and entry points behind the qs-* passes,
// for compilers that compose them into their own drivers.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_TRANSFORMS_TRANSFORMS_H
#define QS_DIALECT_QS_TRANSFORMS_TRANSFORMS_H

#include "qs/Dialect/QS/IR/QSTarget.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class RewritePatternSet;
namespace qs {

//===----------------------------------------------------------------------===//
// qs-expand-storage
//===----------------------------------------------------------------------===//

/// Patterns rewriting each proto-level op (qs.empty, qs.quantize,
/// qs.dequantize, qs.update_usage, qs.gemm) into allocations and
/// buffer-level ops joined by qs.assemble / qs.disassemble.
void populateExpandStoragePatterns(RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// qs-flatten-storage
//===----------------------------------------------------------------------===//

/// Converts `!qs.tensor` to its inner tensor types on one chip (1:N);
/// materializes with qs.assemble (N -> 1) and qs.disassemble (1 -> N).
class StorageTypeConverter : public TypeConverter {
public:
  explicit StorageTypeConverter(const TargetInfo &target);
  const TargetInfo &getTarget() const { return target; }

private:
  TargetInfo target;
};

/// 1:N conversion patterns: qs.assemble / qs.disassemble fold into their
/// operands, func.func signatures (every block, with qs.inner / qs.origin /
/// qs.type attributes), cf.br / cf.cond_br / cf.switch, arith.select. Add
/// upstream's call, return and SCF structural patterns next to them (the
/// pass does).
void populateFlattenStoragePatterns(const StorageTypeConverter &converter,
                                    RewritePatternSet &patterns);

/// Makes the ops the flatten patterns handle legal iff their types are.
void configureFlattenStorageTarget(const StorageTypeConverter &converter,
                                   ConversionTarget &target);

//===----------------------------------------------------------------------===//
// qs-infer-usage
//===----------------------------------------------------------------------===//

/// Runs usage inference on everything nested in `root` (see the pass
/// description). Verified IR always has a solution: it only narrows.
void inferUsage(Operation *root);

/// Local (control-flow-free) form for greedy drivers: rewrites the usage of
/// a qs.quantize / qs.empty / qs.update_usage result whose every use is a
/// qs.gemm, qs.dequantize or qs.update_usage operand, and removes
/// qs.update_usage ops that became no-ops.
void populateInferUsagePatterns(RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// qs-select-scale-layout
//===----------------------------------------------------------------------===//

/// Sets `optimize_for_gemm` on every MXFP8 / NVFP4 value feeding a qs.gemm
/// whose type may change (see the pass description).
void selectScaleLayout(Operation *root);

/// Local form for greedy drivers: sets `optimize_for_gemm` on a
/// qs.quantize / qs.empty result that feeds a qs.gemm and has only
/// qs.gemm / qs.dequantize uses.
void populateSelectScaleLayoutPatterns(RewritePatternSet &patterns);

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_TRANSFORMS_TRANSFORMS_H
