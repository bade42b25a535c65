//===- Elementwise.cpp - TE's activations as linalg ops
//--------------------===//

#include "qs/Dialect/QS/Utils/Elementwise.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::qs;

std::optional<ElementwiseKind> qs::parseElementwiseKind(StringRef name) {
  return llvm::StringSwitch<std::optional<ElementwiseKind>>(name)
      .Case("gelu", ElementwiseKind::Gelu)
      .Case("qgelu", ElementwiseKind::Qgelu)
      .Case("silu", ElementwiseKind::Silu)
      .Case("relu", ElementwiseKind::Relu)
      .Case("srelu", ElementwiseKind::Srelu)
      .Case("dgelu", ElementwiseKind::Dgelu)
      .Case("dqgelu", ElementwiseKind::Dqgelu)
      .Case("dsilu", ElementwiseKind::Dsilu)
      .Case("drelu", ElementwiseKind::Drelu)
      .Case("dsrelu", ElementwiseKind::Dsrelu)
      .Case("add", ElementwiseKind::Add)
      .Case("sub", ElementwiseKind::Sub)
      .Case("mul", ElementwiseKind::Mul)
      .Case("cast", ElementwiseKind::Cast)
      .Default(std::nullopt);
}

StringRef qs::elementwiseKindNames() {
  return "gelu, qgelu, silu, relu, srelu, dgelu, dqgelu, dsilu, drelu, "
         "dsrelu, add, sub, mul, cast";
}

unsigned qs::elementwiseArity(ElementwiseKind kind) {
  switch (kind) {
  case ElementwiseKind::Gelu:
  case ElementwiseKind::Qgelu:
  case ElementwiseKind::Silu:
  case ElementwiseKind::Relu:
  case ElementwiseKind::Srelu:
  case ElementwiseKind::Cast:
    return 1;
  default:
    return 2;
  }
}

namespace {
/// f32 arithmetic in the order it is written.
struct F32 {
  OpBuilder &b;
  Location loc;
  Value c(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value fmax(Value x, Value y) {
    return arith::MaxNumFOp::create(b, loc, x, y);
  }
  Value positive(Value x) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, c(0.0f));
  }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  /// 1.f / (1.f + expf(-x)).
  Value sigmoid(Value x) {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return div(c(1.0f), add(c(1.0f), e));
  }
  /// s * (1.f - s), s = sigmoid(x).
  Value dsigmoid(Value x) {
    Value s = sigmoid(x);
    return mul(s, sub(c(1.0f), s));
  }
};
} // namespace

Value qs::buildElementwiseScalar(OpBuilder &b, Location loc,
                                 ElementwiseKind kind, ValueRange operands) {
  F32 f{b, loc};
  Value x = operands.back();
  // TE's math.h, formula by formula.
  auto act = [&]() -> Value {
    switch (kind) {
    case ElementwiseKind::Gelu:
      // cval * (0.5F + 0.5F * tanhf(cval * (0.79788456F + 0.03567741F *
      // cval * cval)))
      return f.mul(
          x, f.add(f.c(0.5f),
                   f.mul(f.c(0.5f),
                         f.tanh(f.mul(x, f.add(f.c(0.79788456f),
                                               f.mul(f.mul(f.c(0.03567741f), x),
                                                     x)))))));
    case ElementwiseKind::Dgelu: {
      // tanh_out = tanhf(0.79788456f * cval * (1.f + 0.044715f * cval *
      // cval)); 0.5f * cval * ((1.f - tanh_out * tanh_out) * (0.79788456f +
      // 0.1070322243f * cval * cval)) + 0.5f * (1.f + tanh_out)
      Value t =
          f.tanh(f.mul(f.mul(f.c(0.79788456f), x),
                       f.add(f.c(1.0f), f.mul(f.mul(f.c(0.044715f), x), x))));
      Value left = f.mul(f.mul(f.c(0.5f), x),
                         f.mul(f.sub(f.c(1.0f), f.mul(t, t)),
                               f.add(f.c(0.79788456f),
                                     f.mul(f.mul(f.c(0.1070322243f), x), x))));
      return f.add(left, f.mul(f.c(0.5f), f.add(f.c(1.0f), t)));
    }
    case ElementwiseKind::Qgelu:
      // cval * sigmoid(1.702f * cval)
      return f.mul(x, f.sigmoid(f.mul(f.c(1.702f), x)));
    case ElementwiseKind::Dqgelu: {
      // alpha * cval * dsigmoid(alpha * cval) + sigmoid(alpha * cval)
      Value ax = f.mul(f.c(1.702f), x);
      return f.add(f.mul(ax, f.dsigmoid(ax)), f.sigmoid(ax));
    }
    case ElementwiseKind::Silu:
      return f.mul(x, f.sigmoid(x));
    case ElementwiseKind::Dsilu:
      // cval * dsigmoid(cval) + sigmoid(cval)
      return f.add(f.mul(x, f.dsigmoid(x)), f.sigmoid(x));
    case ElementwiseKind::Relu:
      return f.fmax(x, f.c(0.0f));
    case ElementwiseKind::Drelu:
      return f.select(f.positive(x), f.c(1.0f), f.c(0.0f));
    case ElementwiseKind::Srelu:
      return f.select(f.positive(x), f.mul(x, x), f.c(0.0f));
    case ElementwiseKind::Dsrelu:
      return f.fmax(f.mul(f.c(2.0f), x), f.c(0.0f));
    case ElementwiseKind::Add:
      return f.add(operands[0], operands[1]);
    case ElementwiseKind::Sub:
      return f.sub(operands[0], operands[1]);
    case ElementwiseKind::Mul:
      return f.mul(operands[0], operands[1]);
    case ElementwiseKind::Cast:
      return x;
    }
    llvm_unreachable("unknown element-wise kind");
  };
  Value y = act();
  switch (kind) {
  case ElementwiseKind::Dgelu:
  case ElementwiseKind::Dqgelu:
  case ElementwiseKind::Dsilu:
  case ElementwiseKind::Drelu:
  case ElementwiseKind::Dsrelu:
    // TE's dact kernels: OP(x) * grad.
    return f.mul(y, operands[0]);
  default:
    return y;
  }
}

static bool isComputeFloat(Type t) {
  return isa<BFloat16Type, Float16Type, Float32Type>(t);
}

FailureOr<Value>
qs::buildElementwiseOp(OpBuilder &b, Location loc, ElementwiseKind kind,
                       ValueRange operands, RankedTensorType resultType,
                       llvm::function_ref<InFlightDiagnostic()> emitError) {
  unsigned arity = elementwiseArity(kind);
  if (operands.size() != arity) {
    // Tested by test/CAPI/qs-capi-test.c.
    emitError() << "takes " << arity << " tensor operand(s), got "
                << operands.size();
    return failure();
  }
  if (!resultType.hasStaticShape() ||
      !isComputeFloat(resultType.getElementType())) {
    // Tested by test/CAPI/qs-capi-test.c.
    emitError() << "result type must be a statically shaped tensor of bf16, "
                   "f16 or f32, got "
                << resultType;
    return failure();
  }
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (auto [i, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !isComputeFloat(type.getElementType())) {
      // Tested by test/CAPI/qs-capi-test.c.
      emitError() << "operand #" << i
                  << " must be a ranked tensor of bf16, f16 or f32, got "
                  << operand.getType();
      return failure();
    }
    if (type.getShape() == resultType.getShape()) {
      maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
      continue;
    }
    if (i == 1 && rank >= 1 && type.getRank() == 1 &&
        type.getDimSize(0) == resultType.getDimSize(rank - 1)) {
      maps.push_back(
          AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx));
      continue;
    }
    // Tested by test/CAPI/qs-capi-test.c.
    emitError() << "operand #" << i << " has shape " << type
                << "; operands have the result's shape (the second may be "
                   "1-D of its last dimension, broadcast over the rows): "
                << resultType;
    return failure();
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type f32 = b.getF32Type();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> wide;
        for (Value v : args.drop_back())
          wide.push_back(
              v.getType() == f32
                  ? v
                  : arith::ExtFOp::create(nb, nloc, f32, v).getResult());
        Value y = buildElementwiseScalar(nb, nloc, kind, wide);
        Type out = resultType.getElementType();
        if (out != f32)
          y = arith::TruncFOp::create(nb, nloc, out, y);
        linalg::YieldOp::create(nb, nloc, y);
      });
  return generic.getResult(0);
}
