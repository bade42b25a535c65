//===- QSDialect.cpp - qs dialect -----------------------------------------===//

#include "qs/Dialect/QS/IR/QSDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include <array>

using namespace mlir;
using namespace mlir::qs;

#include "qs/Dialect/QS/IR/QSDialect.cpp.inc"

void QSDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "qs/Dialect/QS/IR/QSOps.cpp.inc"
      >();
}

/// The rule of each discardable attribute on operations: whether a value
/// satisfies it, and how the error message states it.
namespace {
struct AttributeRule {
  StringRef name;
  /// Null: the value must be one of the strings `choices` (two or three),
  /// and the message says so before `rule`.
  bool (*accepts)(Attribute);
  StringRef rule;
  SmallVector<StringRef, 3> choices = {};
};
} // namespace

/// An i64 of at least 1 (qs.gemm_persistent, qs.gemm_split_k's numbers).
static bool isPositiveI64(Attribute a) {
  auto value = dyn_cast<IntegerAttr>(a);
  return value && value.getType().isInteger(64) && value.getInt() >= 1;
}

LogicalResult QSDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  static const AttributeRule rules[] = {
      {getChipAttrName(),
       [](Attribute a) {
         auto chip = dyn_cast<StringAttr>(a);
         return chip && succeeded(TargetInfo::parse(chip.getValue()));
       },
       "a string naming an NVIDIA chip as sm_<major><minor>[a|f], e.g. "
       "\"sm_90a\" or \"sm_100a\""},
      {getGemmTileNAttrName(),
       [](Attribute a) {
         auto value = dyn_cast<IntegerAttr>(a);
         return value && (value.getInt() == 128 || value.getInt() == 192 ||
                          value.getInt() == 256);
       },
       "the integer 128, 192 or 256 (the GEMM kernels' tile width in N)"},
      {getGemmPersistentAttrName(), isPositiveI64,
       "an i64 of at least 1 (the number of blocks of the persistent GEMM "
       "kernels)"},
      {getGemmClusterAttrName(),
       [](Attribute a) {
         auto value = dyn_cast<IntegerAttr>(a);
         return value && value.getType().isInteger(64) &&
                (value.getInt() == 1 || value.getInt() == 2);
       },
       "the i64 1 or 2 (blocks per GEMM cluster sharing B by TMA multicast)"},
      {getGemmScheduleAttrName(),
       nullptr,
       "(how the GEMM kernel's consumer warpgroups share the output "
       "tiles)",
       {"cooperative", "pingpong"}},
      {getGemmEpilogueAttrName(),
       nullptr,
       "(how the GEMM kernels store their output)",
       {"direct", "tma"}},
      {getGemmScaleLoadsAttrName(),
       nullptr,
       "(when the GEMM kernels load block scales: a k-tile ahead, or in "
       "the k-tile that uses them)",
       {"ahead", "in_tile"}},
      {getGemmPromotionAttrName(),
       nullptr,
       "(when the GEMM kernels promote a k-tile's partial sums: while the "
       "next k-tile's wgmmas run, or within the k-tile)",
       {"overlapped", "in_tile"}},
      {getGemmMxScalingAttrName(),
       nullptr,
       "(how the sm_90a GEMM kernel applies MXFP8 block scales: FP8 wgmma "
       "promoted per 32-block, codes times scales converted to bf16 in the "
       "kernel, or dequantized to bf16 by pre-pass kernels)",
       {"promote", "convert", "dequantize"}},
      {getQuantizeStoresAttrName(),
       nullptr,
       "(how the quantize kernels store codes)",
       {"coalesced", "direct"}},
      {getGemmSplitKAttrName(),
       [](Attribute a) {
         auto value = dyn_cast<StringAttr>(a);
         return isPositiveI64(a) || (value && (value.getValue() == "auto" ||
                                               value.getValue() == "stream"));
       },
       "an i64 of at least 1 (the number of ranges of K the GEMM kernels "
       "split each output tile's sum into), the string \"auto\" (the "
       "kernels' cost model picks it) or the string \"stream\" (stream-K: "
       "persistent blocks share the last tiles' k-tiles evenly)"},
      {getGemmSplitKReduceAttrName(),
       nullptr,
       "(who sums split-K's partial results: a second kernel, or each "
       "tile's last work unit)",
       {"kernel", "fused"}},
  };
  for (const AttributeRule &rule : rules) {
    if (attr.getName() != rule.name)
      continue;
    if (!rule.accepts) {
      auto value = dyn_cast<StringAttr>(attr.getValue());
      if (value && llvm::is_contained(rule.choices, value.getValue()))
        return success();
      InFlightDiagnostic diag = op->emitError();
      diag << "'" << rule.name << "' must be "
           << (rule.choices.size() == 2 ? "the string" : "one of the strings");
      for (auto [i, choice] : llvm::enumerate(rule.choices))
        diag << (i == 0                         ? " \""
                 : i + 1 == rule.choices.size() ? "\" or \""
                                                : "\", \"")
             << choice;
      return diag << "\" " << rule.rule << ", got " << attr.getValue();
    }
    if (rule.accepts(attr.getValue()))
      return success();
    return op->emitError() << "'" << rule.name << "' must be " << rule.rule
                           << ", got " << attr.getValue();
  }
  return op->emitError() << "unknown qs dialect attribute '"
                         << attr.getName().getValue() << "'";
}

/// Checks one of the qs.inner / qs.origin / qs.type argument or result
/// attributes of qs-flatten-storage.
static LogicalResult verifyFlattenedValueAttribute(Operation *op,
                                                   NamedAttribute attr,
                                                   StringRef where) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  if (name == QSDialect::getInnerAttrName()) {
    if (!isa<StringAttr>(value))
      return op->emitError() << "'" << name << "' on " << where
                             << " must name an inner tensor (a string), got "
                             << value;
    return success();
  }
  if (name == QSDialect::getOriginAttrName()) {
    auto index = dyn_cast<IntegerAttr>(value);
    if (!index || !index.getType().isInteger(64) || index.getInt() < 0)
      return op->emitError() << "'" << name << "' on " << where
                             << " must be a non-negative i64 index, got "
                             << value;
    return success();
  }
  if (name == QSDialect::getTypeAttrName()) {
    auto type = dyn_cast<TypeAttr>(value);
    if (!type || !isa<QuantTensorType>(type.getValue()))
      return op->emitError() << "'" << name << "' on " << where
                             << " must be a !qs.tensor type, got " << value;
    return success();
  }
  return op->emitError() << "unknown qs dialect attribute '" << name
                         << "' on " << where;
}

LogicalResult QSDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                  unsigned,
                                                  NamedAttribute attr) {
  return verifyFlattenedValueAttribute(op, attr, "an argument");
}

LogicalResult QSDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                     unsigned,
                                                     NamedAttribute attr) {
  return verifyFlattenedValueAttribute(op, attr, "a result");
}
