//===- QSTarget.h - target chip selection -----------------------*- C++ -*-===//
//
// The one piece of target dependence in the storage layouts: TE keeps a
// per-tensor FP8 `transpose` buffer only on TN-only GPUs. The chip is named by
// the discardable attribute `qs.chip = "sm_<major><minor>[a|f]"` on an
// enclosing operation (normally the module) and defaults to `sm_90a`.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_IR_QSTARGET_H
#define QS_DIALECT_QS_IR_QSTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir {
class Operation;
namespace qs {

/// A parsed chip name such as `sm_90a` (compute capability 9.0).
class TargetInfo {
public:
  /// The chip used when no `qs.chip` attribute is present.
  static constexpr llvm::StringLiteral kDefaultChip = "sm_90a";

  /// Parses `sm_<digits>[a|f]` with at least two digits (the last one is the
  /// minor version). Fails on anything else.
  static FailureOr<TargetInfo> parse(StringRef chip);
  /// The target of `sm_90a`.
  static TargetInfo getDefault();
  /// The target named by the nearest `qs.chip` attribute on `op` or one of
  /// its ancestors; the default target if none (or if it is malformed, which
  /// the dialect's attribute verifier reports).
  static TargetInfo lookup(Operation *op);

  StringRef getChip() const { return chip; }
  /// Compute capability times ten (`sm_90a` -> 90, `sm_100a` -> 100).
  unsigned getComputeCapability() const { return computeCapability; }
  /// TE's `nvte_is_non_tn_fp8_gemm_supported` negated: true unless
  /// 10.0 <= CC < 12.0 or CC >= 13.0.
  bool isTNOnly() const;

  /// Reports (at each op) every op inside `root` whose `qs.chip` differs
  /// from `root`'s target: the storage layouts of a module follow one chip.
  /// `what` begins the message, e.g. "qs-expand-storage expands".
  static LogicalResult verifyOneChip(Operation *root, StringRef what);

private:
  TargetInfo(StringRef chip, unsigned cc) : chip(chip.str()), computeCapability(cc) {}
  std::string chip;
  unsigned computeCapability;
};

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_IR_QSTARGET_H
