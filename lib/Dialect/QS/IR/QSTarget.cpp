//===- QSTarget.cpp - target chip selection -------------------------------===//

#include "qs/Dialect/QS/IR/QSTarget.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::qs;

FailureOr<TargetInfo> TargetInfo::parse(StringRef chip) {
  StringRef rest = chip;
  if (!rest.consume_front("sm_"))
    return failure();
  if (rest.ends_with("a") || rest.ends_with("f"))
    rest = rest.drop_back();
  if (rest.size() < 2 || rest.size() > 4 || !llvm::all_of(rest, llvm::isDigit))
    return failure();
  unsigned cc = 0;
  if (rest.getAsInteger(10, cc))
    return failure();
  return TargetInfo(chip, cc);
}

TargetInfo TargetInfo::getDefault() { return *parse(kDefaultChip); }

TargetInfo TargetInfo::lookup(Operation *op) {
  for (; op; op = op->getParentOp()) {
    auto chip = op->getAttrOfType<StringAttr>(QSDialect::getChipAttrName());
    if (!chip)
      continue;
    if (FailureOr<TargetInfo> target = parse(chip.getValue()); succeeded(target))
      return *target;
    break;
  }
  return getDefault();
}

LogicalResult TargetInfo::verifyOneChip(Operation *root, StringRef what) {
  std::string chip = lookup(root).getChip().str();
  bool ok = true;
  root->walk([&](Operation *op) {
    auto named = op->getAttrOfType<StringAttr>(QSDialect::getChipAttrName());
    if (op == root || !named || named.getValue() == chip)
      return;
    op->emitError() << what
                    << " one chip per module (the storage layouts follow it): "
                       "this op selects "
                    << named << " inside a module for " << chip;
    ok = false;
  });
  return success(ok);
}

bool TargetInfo::isTNOnly() const {
  bool nonTN = (computeCapability >= 100 && computeCapability < 120) ||
               computeCapability >= 130;
  return !nonTN;
}
