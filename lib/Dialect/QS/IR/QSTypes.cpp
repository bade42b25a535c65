//===- QSTypes.cpp - the !qs.tensor type ----------------------------------===//

#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::qs;

#define GET_TYPEDEF_CLASSES
#include "qs/Dialect/QS/IR/QSTypes.cpp.inc"

void QSDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "qs/Dialect/QS/IR/QSTypes.cpp.inc"
      >();
}

// `<` 128x256xbf16 `,` #qs.mxfp8<...> `>`
Type QuantTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  SMLoc quantizerLoc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr) || parser.parseGreater())
    return {};
  auto quantizer = dyn_cast<QuantizerAttrInterface>(attr);
  if (!quantizer) {
    parser.emitError(quantizerLoc)
        << "expected a quantizer attribute (#qs.fp8_delayed, "
           "#qs.fp8_current, #qs.mxfp8, #qs.fp8_block or #qs.nvfp4), got "
        << attr;
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), shape, elementType, quantizer);
}

void QuantTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printDimensionList(getShape());
  printer << "x" << getElementType() << ", " << getQuantizer() << ">";
}

LogicalResult
QuantTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> shape, Type elementType,
                        QuantizerAttrInterface quantizer) {
  if (shape.empty())
    return emitError() << "!qs.tensor must have rank >= 1 (TE folds a 0-D "
                          "tensor to 1x1: write it as 1x1)";
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (ShapedType::isDynamic(size))
      return emitError() << "!qs.tensor needs a static shape, dimension " << i
                         << " is dynamic";
    if (size <= 0)
      return emitError() << "!qs.tensor dimension " << i
                         << " must be positive, got " << size;
  }
  // Keeps all layout arithmetic (products, padding) far from int64 overflow.
  constexpr int64_t kMaxElements = int64_t(1) << 48;
  int64_t elements = 1;
  for (int64_t size : shape)
    if (llvm::MulOverflow(elements, size, elements) || elements > kMaxElements)
      return emitError() << "!qs.tensor may hold at most 2^48 elements";
  if (!elementType.isBF16() && !elementType.isF16() && !elementType.isF32())
    return emitError() << "!qs.tensor nominal element type must be bf16, f16 "
                          "or f32, got "
                       << elementType;
  return quantizer.verifyShape(shape, elementType, emitError);
}

SmallVector<InnerTensor>
QuantTensorType::getInnerTensors(const TargetInfo &target) const {
  SmallVector<InnerTensor> result;
  getQuantizer().getInnerTensors(getShape(), target, result);
  return result;
}

SmallVector<Type> QuantTensorType::getInnerTypes(const TargetInfo &target) const {
  return llvm::map_to_vector(getInnerTensors(target),
                             [](const InnerTensor &t) -> Type {
                               return t.getType();
                             });
}

QuantTensorType QuantTensorType::withUsage(bool rowwise,
                                           bool columnwise) const {
  return get(getContext(), getShape(), getElementType(),
             getQuantizer().withUsage(rowwise, columnwise));
}

RankedTensorType QuantTensorType::getExpressedType() const {
  return RankedTensorType::get(getShape(), getElementType());
}

SmallVector<InnerTensor>
mlir::qs::getCreatedInnerTensors(QuantTensorType source, QuantTensorType result,
                                 const TargetInfo &target) {
  SmallVector<InnerTensor> have = source.getInnerTensors(target);
  SmallVector<InnerTensor> created;
  for (InnerTensor &t : result.getInnerTensors(target))
    if (llvm::none_of(have, [&](const InnerTensor &h) { return h.name == t.name; }))
      created.push_back(std::move(t));
  return created;
}
