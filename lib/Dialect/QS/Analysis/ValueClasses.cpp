//===- ValueClasses.cpp - quantized values that share one type ------------===//

#include "qs/Dialect/QS/Analysis/ValueClasses.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::qs;

QuantTensorType QuantizedValueClass::getType() const {
  return cast<QuantTensorType>(members.front().getType());
}

void QuantizedValueClass::setType(QuantTensorType type) const {
  for (Value member : members)
    member.setType(type);
}

bool mlir::qs::isRewritableProducer(Value value) {
  Operation *def = value.getDefiningOp();
  return def && isa<QuantizeOp, EmptyOp, UpdateUsageOp, GemmOp>(def) &&
         cast<OpResult>(value).getResultNumber() == 0 &&
         isa<QuantTensorType>(value.getType());
}

bool mlir::qs::isRewritableConsumer(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (isa<GemmOp>(owner))
    return use.getOperandNumber() < 2;
  return isa<DequantizeOp, UpdateUsageOp>(owner);
}

static bool isQuantized(Value value) {
  return isa<QuantTensorType>(value.getType());
}

QuantizedValueClass QuantizedValueClasses::getLocalClass(Value value) {
  QuantizedValueClass c;
  c.members.push_back(value);
  if (!isRewritableProducer(value))
    c.fixedMember = value;
  for (OpOperand &use : value.getUses()) {
    c.uses.push_back(&use);
    if (!c.pinningUse && !isRewritableConsumer(use))
      c.pinningUse = &use;
  }
  return c;
}

namespace {
/// Union-find over the quantized values of a root.
class UnionFind {
public:
  unsigned getOrInsert(Value v) {
    auto [it, inserted] = index.try_emplace(v, parent.size());
    if (inserted) {
      parent.push_back(parent.size());
      values.push_back(v);
    }
    return it->second;
  }
  unsigned find(unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  void unite(Value a, Value b) {
    unsigned ra = find(getOrInsert(a)), rb = find(getOrInsert(b));
    if (ra != rb)
      parent[std::max(ra, rb)] = std::min(ra, rb);
  }
  DenseMap<Value, unsigned> index;
  SmallVector<unsigned> parent;
  SmallVector<Value> values;
};
} // namespace

QuantizedValueClasses::QuantizedValueClasses(Operation *root) {
  UnionFind sets;
  DenseSet<OpOperand *> forwarding;
  DenseSet<Value> forwarded;
  auto link = [&](OpOperand &operand, Value input) {
    if (!isQuantized(operand.get()) || !isQuantized(input))
      return;
    sets.unite(operand.get(), input);
    forwarding.insert(&operand);
    forwarded.insert(input);
  };

  root->walk([&](Operation *op) {
    if (op != root)
      for (Value result : op->getResults())
        if (isQuantized(result))
          sets.getOrInsert(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isQuantized(arg))
            sets.getOrInsert(arg);

    if (auto branch = dyn_cast<BranchOpInterface>(op)) {
      for (auto [i, successor] : llvm::enumerate(op->getSuccessors())) {
        SuccessorOperands operands = branch.getSuccessorOperands(i);
        unsigned produced = operands.getProducedOperandCount();
        MutableOperandRange forwardedOperands = operands.getMutableForwardedOperands();
        for (unsigned k = 0, e = forwardedOperands.size(); k < e; ++k)
          link(forwardedOperands[k], successor->getArgument(produced + k));
      }
    }
    if (auto regionBranch = dyn_cast<RegionBranchOpInterface>(op)) {
      RegionBranchSuccessorMapping mapping;
      regionBranch.getSuccessorOperandInputMapping(mapping);
      for (auto &[operand, inputs] : mapping)
        for (Value input : inputs)
          link(*operand, input);
    }
  });

  // Number the classes in first-seen order, so passes are deterministic.
  DenseMap<unsigned, unsigned> rootToClass;
  for (auto [i, value] : llvm::enumerate(sets.values)) {
    unsigned rep = sets.find(i);
    auto [it, inserted] = rootToClass.try_emplace(rep, classes.size());
    if (inserted)
      classes.emplace_back();
    QuantizedValueClass &c = classes[it->second];
    classOf[value] = it->second;
    c.members.push_back(value);
    if (!c.fixedMember && !isRewritableProducer(value) &&
        !forwarded.contains(value))
      c.fixedMember = value;
  }
  for (QuantizedValueClass &c : classes)
    for (Value member : c.members)
      for (OpOperand &use : member.getUses()) {
        if (forwarding.contains(&use))
          continue;
        c.uses.push_back(&use);
        if (!c.pinningUse && !isRewritableConsumer(use))
          c.pinningUse = &use;
      }
}
