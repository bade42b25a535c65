//===- Builder.cpp - build functions of qs ops through the C API ----------===//

#include "qs-c/Builder.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "qs/Dialect/QS/IR/QSOps.h"
#include "qs/Dialect/QS/Utils/Elementwise.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::qs;

static func::FuncOp funcOf(MlirOperation op) {
  return cast<func::FuncOp>(unwrap(op));
}

/// A builder at the end of the function's entry block (before its
/// terminator, if finished).
static OpBuilder builderAtEnd(func::FuncOp func) {
  Block &block = func.getBody().front();
  OpBuilder b(func.getContext());
  if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
    b.setInsertionPoint(&block.back());
  else
    b.setInsertionPointToEnd(&block);
  return b;
}

/// Verifies a newly built op; erases it (and reports why) if it breaks a
/// rule.
template <typename OpT>
static OpT checked(OpT op) {
  if (succeeded(verify(op.getOperation())))
    return op;
  op->erase();
  return OpT();
}

static bool anyNull(std::initializer_list<MlirValue> values) {
  for (MlirValue v : values)
    if (mlirValueIsNull(v))
      return true;
  return false;
}

static MlirValue nullValue() { return MlirValue{nullptr}; }

/// True if every (non-null) value is defined inside `func`; otherwise reports
/// the first foreign one at `loc` (a value of another function or module
/// would make the IR invalid).
static bool definedIn(func::FuncOp func, ArrayRef<Value> values,
                      MlirLocation loc, StringRef op) {
  for (auto [i, value] : llvm::enumerate(values)) {
    Value v = value;
    if (!v)
      continue;
    Region *region = v.getParentRegion();
    if (region && func->isAncestor(region->getParentOp()))
      continue;
    emitError(unwrap(loc)) << "'" << op << "' operand #" << i
                           << " is not a value of @" << func.getSymName()
                           << "; values cannot cross functions or modules";
    return false;
  }
  return true;
}

/// Reports a C API misuse (a null operand) at `loc`.
static MlirValue nullOperand(MlirLocation loc, StringRef op) {
  emitError(unwrap(loc)) << "'" << op << "' got a null operand";
  return nullValue();
}

MlirOperation qsFuncCreate(MlirModule module, MlirStringRef name,
                           intptr_t numArgs, const MlirType *argTypes,
                           MlirLocation loc) {
  ModuleOp m = unwrap(module);
  StringRef symbol = unwrap(name);
  if (symbol.empty()) {
    emitError(unwrap(loc)) << "a function needs a name (a non-empty symbol)";
    return MlirOperation{nullptr};
  }
  if (m.lookupSymbol(symbol)) {
    emitError(unwrap(loc)) << "a symbol @" << symbol
                           << " already exists in the module";
    return MlirOperation{nullptr};
  }
  SmallVector<Type> inputs;
  for (intptr_t i = 0; i < numArgs; ++i)
    inputs.push_back(unwrap(argTypes[i]));
  OpBuilder b = OpBuilder::atBlockEnd(m.getBody());
  auto func = func::FuncOp::create(
      b, unwrap(loc), symbol, FunctionType::get(m.getContext(), inputs, {}));
  func.addEntryBlock();
  return wrap(func.getOperation());
}

MlirValue qsFuncGetArgument(MlirOperation func, intptr_t i) {
  func::FuncOp f = funcOf(func);
  if (i < 0 || i >= static_cast<intptr_t>(f.getNumArguments()))
    return nullValue();
  return wrap(f.getArgument(i));
}

MlirLogicalResult qsFuncFinish(MlirOperation func, intptr_t numResults,
                               const MlirValue *results, MlirLocation loc) {
  func::FuncOp f = funcOf(func);
  Block &block = f.getBody().front();
  if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>()) {
    emitError(unwrap(loc)) << "@" << f.getSymName() << " is already finished";
    return mlirLogicalResultFailure();
  }
  SmallVector<Value> values;
  for (intptr_t i = 0; i < numResults; ++i) {
    if (mlirValueIsNull(results[i])) {
      nullOperand(loc, "func.return");
      return mlirLogicalResultFailure();
    }
    values.push_back(unwrap(results[i]));
  }
  if (!definedIn(f, values, loc, "func.return"))
    return mlirLogicalResultFailure();
  OpBuilder b = OpBuilder::atBlockEnd(&block);
  func::ReturnOp::create(b, unwrap(loc), values);
  f.setType(FunctionType::get(f.getContext(), f.getArgumentTypes(),
                              ValueRange(values).getTypes()));
  return wrap(verify(f.getOperation()));
}

MlirValue qsBuildEmpty(MlirOperation func, MlirType type, MlirLocation loc) {
  auto resultType = dyn_cast<QuantTensorType>(unwrap(type));
  if (!resultType) {
    emitError(unwrap(loc)) << "'qs.empty' builds a !qs.tensor, got "
                           << unwrap(type);
    return nullValue();
  }
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(EmptyOp::create(b, unwrap(loc), resultType));
  return op ? wrap(op.getResult()) : nullValue();
}

/// The !qs.tensor result type of a builder, or a diagnostic.
static QuantTensorType quantizedResult(MlirType type, MlirLocation loc,
                                       StringRef op) {
  auto result = dyn_cast<QuantTensorType>(unwrap(type));
  if (!result)
    emitError(unwrap(loc)) << "'" << op << "' produces a !qs.tensor, got "
                           << unwrap(type);
  return result;
}

static RankedTensorType tensorResult(MlirType type, MlirLocation loc,
                                     StringRef op) {
  auto result = dyn_cast<RankedTensorType>(unwrap(type));
  if (!result)
    emitError(unwrap(loc)) << "'" << op << "' produces a ranked tensor, got "
                           << unwrap(type);
  return result;
}

MlirValue qsBuildQuantize(MlirOperation func, MlirValue input,
                          MlirType resultType, MlirValue scale, MlirValue amax,
                          MlirValue rng, MlirValue *updatedAmax,
                          MlirLocation loc) {
  if (anyNull({input}))
    return nullOperand(loc, "qs.quantize");
  QuantTensorType type = quantizedResult(resultType, loc, "qs.quantize");
  if (!type)
    return nullValue();
  Value s = mlirValueIsNull(scale) ? Value() : unwrap(scale);
  Value a = mlirValueIsNull(amax) ? Value() : unwrap(amax);
  Value r = mlirValueIsNull(rng) ? Value() : unwrap(rng);
  // Delayed scaling returns the updated amax state; current scaling's
  // amax is a given global amax, and nothing is returned for it.
  Type updatedType =
      a && type.getQuantizer().takesRecipeScale() ? a.getType() : Type();
  if (!definedIn(funcOf(func), {unwrap(input), s, a, r}, loc, "qs.quantize"))
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(QuantizeOp::create(b, unwrap(loc), type, updatedType,
                                       unwrap(input), s, a, r));
  if (!op)
    return nullValue();
  if (updatedAmax)
    *updatedAmax = op.getUpdatedAmax() ? wrap(op.getUpdatedAmax()) : nullValue();
  return wrap(op.getResult());
}

MlirValue qsBuildAmax(MlirOperation func, MlirValue input,
                      MlirType quantizedType, MlirLocation loc) {
  if (anyNull({input}))
    return nullOperand(loc, "qs.amax");
  auto type = dyn_cast<QuantTensorType>(unwrap(quantizedType));
  if (!type) {
    emitError(unwrap(loc)) << "'qs.amax' takes the !qs.tensor type a "
                              "quantize would produce, got "
                           << unwrap(quantizedType);
    return nullValue();
  }
  if (!definedIn(funcOf(func), {unwrap(input)}, loc, "qs.amax"))
    return nullValue();
  // One amax where the quantizer has none: the verifier says why not.
  int64_t count = std::max(1u, type.getQuantizer().getNumGlobalAmaxes());
  auto resultType =
      RankedTensorType::get({count}, Float32Type::get(type.getContext()));
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(AmaxOp::create(b, unwrap(loc), resultType, unwrap(input),
                                   TypeAttr::get(type)));
  return op ? wrap(op.getResult()) : nullValue();
}

/// The !qs.tensor operand of a single-operand builder, or a diagnostic.
static TypedValue<QuantTensorType>
quantizedOperand(MlirOperation func, MlirValue input, MlirLocation loc,
                 StringRef op) {
  if (anyNull({input})) {
    nullOperand(loc, op);
    return {};
  }
  auto source = dyn_cast<TypedValue<QuantTensorType>>(unwrap(input));
  if (!source) {
    emitError(unwrap(loc)) << "'" << op << "' takes a !qs.tensor, got "
                           << unwrap(input).getType();
    return {};
  }
  if (!definedIn(funcOf(func), {source}, loc, op))
    return {};
  return source;
}

MlirValue qsBuildDequantize(MlirOperation func, MlirValue input,
                            MlirType resultType, MlirLocation loc) {
  RankedTensorType type = tensorResult(resultType, loc, "qs.dequantize");
  auto source = type ? quantizedOperand(func, input, loc, "qs.dequantize")
                     : TypedValue<QuantTensorType>();
  if (!source)
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(DequantizeOp::create(b, unwrap(loc), type, source));
  return op ? wrap(op.getResult()) : nullValue();
}

MlirValue qsBuildBiasGrad(MlirOperation func, MlirValue input,
                          MlirType resultType, MlirLocation loc) {
  if (anyNull({input}))
    return nullOperand(loc, "qs.bias_grad");
  RankedTensorType type = tensorResult(resultType, loc, "qs.bias_grad");
  if (!type)
    return nullValue();
  if (!isa<RankedTensorType>(unwrap(input).getType())) {
    emitError(unwrap(loc))
        << "'qs.bias_grad' takes a high-precision ranked tensor, got "
        << unwrap(input).getType();
    return nullValue();
  }
  if (!definedIn(funcOf(func), {unwrap(input)}, loc, "qs.bias_grad"))
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(BiasGradOp::create(b, unwrap(loc), type, unwrap(input)));
  return op ? wrap(op.getResult()) : nullValue();
}

MlirValue qsBuildAmaxAndScaleUpdate(MlirOperation func, MlirValue history,
                                    MlirValue scale, MlirValue amax,
                                    MlirType fp8Dtype, int64_t margin,
                                    MlirStringRef amaxComputeAlgo,
                                    MlirValue *updatedScale, MlirLocation loc) {
  if (anyNull({history, scale}))
    return nullOperand(loc, "qs.amax_and_scale_update");
  Value a = mlirValueIsNull(amax) ? Value() : unwrap(amax);
  if (!definedIn(funcOf(func), {unwrap(history), unwrap(scale), a}, loc,
                 "qs.amax_and_scale_update"))
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  TypeAttr dtype =
      mlirTypeIsNull(fp8Dtype) ? TypeAttr() : TypeAttr::get(unwrap(fp8Dtype));
  StringRef algo = unwrap(amaxComputeAlgo);
  auto op = checked(AmaxAndScaleUpdateOp::create(
      b, unwrap(loc), unwrap(history).getType(), unwrap(scale).getType(),
      unwrap(history), unwrap(scale), a, dtype, b.getI64IntegerAttr(margin),
      b.getStringAttr(algo.empty() ? "max" : algo)));
  if (!op)
    return nullValue();
  if (updatedScale)
    *updatedScale = wrap(op.getUpdatedScale());
  return wrap(op.getUpdatedHistory());
}

MlirValue qsBuildElementwise(MlirOperation func, MlirStringRef kind,
                             intptr_t numOperands, const MlirValue *operands,
                             MlirType resultType, MlirLocation loc) {
  StringRef name = unwrap(kind);
  std::optional<ElementwiseKind> parsed = parseElementwiseKind(name);
  if (!parsed) {
    emitError(unwrap(loc)) << "unknown element-wise op '" << name
                           << "'; one of: " << elementwiseKindNames();
    return nullValue();
  }
  SmallVector<Value> values;
  for (intptr_t i = 0; i < numOperands; ++i) {
    if (mlirValueIsNull(operands[i]))
      return nullOperand(loc, name);
    values.push_back(unwrap(operands[i]));
  }
  RankedTensorType type = tensorResult(resultType, loc, name);
  if (!type || !definedIn(funcOf(func), values, loc, name))
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  FailureOr<Value> result =
      buildElementwiseOp(b, unwrap(loc), *parsed, values, type, [&] {
        return emitError(unwrap(loc)) << "'" << name << "' ";
      });
  return succeeded(result) ? wrap(*result) : nullValue();
}

MlirValue qsBuildUpdateUsage(MlirOperation func, MlirValue input,
                             MlirType resultType, MlirLocation loc) {
  QuantTensorType type = quantizedResult(resultType, loc, "qs.update_usage");
  auto source = type ? quantizedOperand(func, input, loc, "qs.update_usage")
                     : TypedValue<QuantTensorType>();
  if (!source)
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(UpdateUsageOp::create(b, unwrap(loc), type, source));
  return op ? wrap(op.getResult()) : nullValue();
}

MlirValue qsBuildGemm(MlirOperation func, MlirValue a, MlirValue b,
                      bool transposeA, bool transposeB, MlirValue bias,
                      MlirValue accumulate, MlirType resultType,
                      MlirValue scale, MlirValue amax, MlirValue *updatedAmax,
                      MlirLocation loc) {
  if (anyNull({a, b}))
    return nullOperand(loc, "qs.gemm");
  Type type = unwrap(resultType);
  if (!isa<RankedTensorType, QuantTensorType>(type)) {
    emitError(unwrap(loc)) << "'qs.gemm' produces a ranked tensor or a "
                              "!qs.tensor (an output quantizer), got "
                           << type;
    return nullValue();
  }
  auto qa = dyn_cast<TypedValue<QuantTensorType>>(unwrap(a));
  auto qb = dyn_cast<TypedValue<QuantTensorType>>(unwrap(b));
  if (!qa || !qb) {
    emitError(unwrap(loc)) << "'qs.gemm' operands must be !qs.tensor values";
    return nullValue();
  }
  Value biasValue = mlirValueIsNull(bias) ? Value() : unwrap(bias);
  Value accValue = mlirValueIsNull(accumulate) ? Value() : unwrap(accumulate);
  Value s = mlirValueIsNull(scale) ? Value() : unwrap(scale);
  Value am = mlirValueIsNull(amax) ? Value() : unwrap(amax);
  if (!definedIn(funcOf(func), {qa, qb, biasValue, accValue, s, am}, loc,
                 "qs.gemm"))
    return nullValue();
  OpBuilder builder = builderAtEnd(funcOf(func));
  Type amaxType = am ? am.getType() : Type();
  auto op = checked(GemmOp::create(builder, unwrap(loc), type, amaxType, qa, qb,
                                   biasValue, accValue, s, am, transposeA,
                                   transposeB));
  if (!op)
    return nullValue();
  if (updatedAmax)
    *updatedAmax =
        op.getUpdatedAmax() ? wrap(op.getUpdatedAmax()) : nullValue();
  return wrap(op.getResult());
}

static GemmOp definingGemm(MlirValue gemm, MlirLocation loc, StringRef what) {
  auto op =
      mlirValueIsNull(gemm) ? GemmOp() : unwrap(gemm).getDefiningOp<GemmOp>();
  if (!op)
    emitError(unwrap(loc)) << what << " to the result of a 'qs.gemm'";
  return op;
}

bool qsGemmSetFastAccumulate(MlirValue gemm, bool fast, MlirLocation loc) {
  GemmOp op = definingGemm(gemm, loc, "fast_accumulate applies");
  if (!op)
    return false;
  op.setFastAccumulate(fast);
  return true;
}

/// Sets kernel option `option` of `kind` ("GEMM", "quantize") on `op` as
/// the attribute `attrName` (empty: an unknown option; `known` lists the
/// kind's options), checked by the dialect's rule first.
static bool setKernelOption(Operation *op, StringRef kind, StringRef option,
                            StringRef attrName, StringRef known,
                            MlirAttribute value, MlirLocation loc) {
  if (attrName.empty()) {
    emitError(unwrap(loc)) << "unknown " << kind << " kernel option '" << option
                           << "' (" << known << ")";
    return false;
  }
  if (mlirAttributeIsNull(value)) {
    emitError(unwrap(loc)) << kind << " kernel option '" << option
                           << "' got a null attribute";
    return false;
  }
  MLIRContext *ctx = op->getContext();
  NamedAttribute attr(StringAttr::get(ctx, attrName), unwrap(value));
  if (failed(ctx->getLoadedDialect<QSDialect>()->verifyOperationAttribute(
          op, attr)))
    return false;
  op->setAttr(attr.getName(), attr.getValue());
  return true;
}

bool qsGemmSetKernelOption(MlirValue gemm, MlirStringRef option,
                           MlirAttribute value, MlirLocation loc) {
  GemmOp op = definingGemm(gemm, loc, "GEMM kernel options apply");
  if (!op)
    return false;
  StringRef name = unwrap(option);
  StringRef attrName =
      llvm::StringSwitch<StringRef>(name)
          .Case("tile_n", QSDialect::getGemmTileNAttrName())
          .Case("persistent", QSDialect::getGemmPersistentAttrName())
          .Case("cluster", QSDialect::getGemmClusterAttrName())
          .Case("schedule", QSDialect::getGemmScheduleAttrName())
          .Case("epilogue", QSDialect::getGemmEpilogueAttrName())
          .Case("split_k", QSDialect::getGemmSplitKAttrName())
          .Case("split_k_reduce", QSDialect::getGemmSplitKReduceAttrName())
          .Case("scale_loads", QSDialect::getGemmScaleLoadsAttrName())
          .Case("promotion", QSDialect::getGemmPromotionAttrName())
          .Case("mx_scaling", QSDialect::getGemmMxScalingAttrName())
          .Default("");
  return setKernelOption(op, "GEMM", name, attrName,
                         "tile_n, persistent, cluster, schedule, epilogue, "
                         "split_k, split_k_reduce, scale_loads, promotion, "
                         "mx_scaling",
                         value, loc);
}

bool qsQuantizeSetKernelOption(MlirValue quantized, MlirStringRef option,
                               MlirAttribute value, MlirLocation loc) {
  auto op = mlirValueIsNull(quantized)
                ? QuantizeOp()
                : unwrap(quantized).getDefiningOp<QuantizeOp>();
  if (!op) {
    emitError(unwrap(loc))
        << "quantize kernel options apply to the result of a 'qs.quantize'";
    return false;
  }
  StringRef name = unwrap(option);
  StringRef attrName =
      name == "stores" ? QSDialect::getQuantizeStoresAttrName() : StringRef();
  return setKernelOption(op, "quantize", name, attrName, "stores", value, loc);
}

MlirValue qsBuildAssemble(MlirOperation func, intptr_t numInputs,
                          const MlirValue *inputs, MlirType resultType,
                          MlirLocation loc) {
  QuantTensorType type = quantizedResult(resultType, loc, "qs.assemble");
  if (!type)
    return nullValue();
  SmallVector<Value> values;
  for (intptr_t i = 0; i < numInputs; ++i) {
    if (mlirValueIsNull(inputs[i]))
      return nullOperand(loc, "qs.assemble");
    values.push_back(unwrap(inputs[i]));
  }
  if (!definedIn(funcOf(func), values, loc, "qs.assemble"))
    return nullValue();
  OpBuilder b = builderAtEnd(funcOf(func));
  auto op = checked(AssembleOp::create(b, unwrap(loc), type, values));
  return op ? wrap(op.getResult()) : nullValue();
}

intptr_t qsBuildDisassemble(MlirOperation func, MlirValue input,
                            intptr_t capacity, MlirValue *outputs,
                            MlirLocation loc) {
  auto source = quantizedOperand(func, input, loc, "qs.disassemble");
  if (!source)
    return -1;
  func::FuncOp f = funcOf(func);
  SmallVector<Type> types =
      source.getType().getInnerTypes(TargetInfo::lookup(f));
  if (static_cast<intptr_t>(types.size()) > capacity) {
    emitError(unwrap(loc)) << "'qs.disassemble' has " << types.size()
                           << " results, room for " << capacity;
    return -1;
  }
  OpBuilder b = builderAtEnd(f);
  auto op = checked(DisassembleOp::create(b, unwrap(loc), types, source));
  if (!op)
    return -1;
  for (auto [i, r] : llvm::enumerate(op.getResults()))
    outputs[i] = wrap(r);
  return types.size();
}
