//===- OrderConstantGlobals.cpp - deterministic constant globals ----------===//
//
// Implements `qs-order-constant-globals`: the private constant memref.globals
// one-shot bufferization creates (in an order that varies from run to run
// in MLIR 22.1.8) are sorted by type and initial value, moved to the front
// of their module and renamed in that order.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "qs/Dialect/QS/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::qs {
#define GEN_PASS_DEF_QSORDERCONSTANTGLOBALSPASS
#include "qs/Dialect/QS/Transforms/Passes.h.inc"
} // namespace mlir::qs

using namespace mlir;
using namespace mlir::qs;

/// `__constant_<shape>x<element>` (`__constant_xf32` for rank 0), the
/// name bufferization gives a constant of `type` before any suffix.
static std::string baseName(MemRefType type) {
  std::string name = "__constant_";
  llvm::raw_string_ostream os(name);
  for (int64_t d : type.getShape())
    os << d << "x";
  if (type.getRank() == 0)
    os << "x";
  os << type.getElementType();
  return name;
}

/// Sorts, moves to the front and renames the private constant globals
/// directly in `module`.
static void orderConstantGlobals(ModuleOp module) {
  struct Entry {
    memref::GlobalOp global;
    std::string key;
  };
  SmallVector<Entry> entries;
  for (auto global : module.getBody()->getOps<memref::GlobalOp>()) {
    if (!global.getConstant() || !global.isPrivate() ||
        !global.getInitialValue())
      continue;
    Entry e{global, {}};
    llvm::raw_string_ostream os(e.key);
    os << global.getType() << " = " << *global.getInitialValue();
    entries.push_back(std::move(e));
  }
  if (entries.empty())
    return;
  // Bufferization makes one global per distinct value and type: the keys
  // differ.
  llvm::sort(entries,
             [](const Entry &a, const Entry &b) { return a.key < b.key; });
  // Names the other symbols of the module hold.
  llvm::StringSet<> taken;
  for (Operation &op : *module.getBody())
    if (auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      taken.insert(name.getValue());
  for (Entry &e : entries)
    taken.erase(e.global.getSymName());
  // Temporary names first, so that no rename meets a name still in use.
  auto rename = [&](memref::GlobalOp global, StringRef name) {
    StringAttr attr = StringAttr::get(module.getContext(), name);
    if (failed(SymbolTable::replaceAllSymbolUses(global, attr, module)))
      return false;
    SymbolTable::setSymbolName(global, attr);
    return true;
  };
  for (auto [i, e] : llvm::enumerate(entries))
    if (!rename(e.global, "__qs_ordering_constant_" + std::to_string(i)))
      return; // an unknown use: keep what bufferization made
  llvm::StringMap<unsigned> perBase;
  for (Entry &e : entries) {
    std::string base = baseName(e.global.getType());
    unsigned &n = perBase[base];
    std::string name;
    do {
      name = n == 0 ? base : base + "_" + std::to_string(n);
      ++n;
    } while (taken.contains(name));
    taken.insert(name);
    rename(e.global, name);
  }
  Block *body = module.getBody();
  for (Entry &e : llvm::reverse(entries))
    e.global->moveBefore(body, body->begin());
}

namespace {
struct QSOrderConstantGlobalsPass final
    : qs::impl::QSOrderConstantGlobalsPassBase<QSOrderConstantGlobalsPass> {
  void runOnOperation() override {
    getOperation()->walk([](ModuleOp module) { orderConstantGlobals(module); });
  }
};
} // namespace
