//===- Dialect.cpp - C API of the qs dialect ------------------------------===//

#include "qs-c/Dialect.h"
#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/IR/QSTypes.h"
#include "qs/InitAll.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::qs;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(QuantStorage, qs, qs::QSDialect)

void qsRegisterAllDialects(MlirDialectRegistry registry) {
  registerAllQSDialects(*unwrap(registry));
}

//===----------------------------------------------------------------------===//
// Quantizer attributes
//===----------------------------------------------------------------------===//

bool qsAttributeIsAQuantizer(MlirAttribute attr) {
  return isa<QuantizerAttrInterface>(unwrap(attr));
}
bool qsAttributeIsAFp8Delayed(MlirAttribute attr) {
  return isa<Fp8DelayedAttr>(unwrap(attr));
}
bool qsAttributeIsAFp8Current(MlirAttribute attr) {
  return isa<Fp8CurrentAttr>(unwrap(attr));
}
bool qsAttributeIsAMXFP8(MlirAttribute attr) {
  return isa<MXFP8Attr>(unwrap(attr));
}
bool qsAttributeIsAFp8Block(MlirAttribute attr) {
  return isa<Fp8BlockAttr>(unwrap(attr));
}
bool qsAttributeIsANVFP4(MlirAttribute attr) {
  return isa<NVFP4Attr>(unwrap(attr));
}

/// Diagnostics of a getChecked at an unknown location of `ctx`.
static auto emitter(MLIRContext *ctx) {
  return [ctx] { return emitError(UnknownLoc::get(ctx)); };
}

MlirAttribute qsFp8DelayedAttrGet(MlirContext ctx, MlirType fp8Dtype,
                                  bool rowwise, bool columnwise) {
  MLIRContext *c = unwrap(ctx);
  return wrap(Fp8DelayedAttr::getChecked(emitter(c), c, unwrap(fp8Dtype),
                                         rowwise, columnwise));
}

MlirAttribute qsFp8CurrentAttrGet(MlirContext ctx, MlirType fp8Dtype,
                                  bool rowwise, bool columnwise,
                                  bool forcePow2Scales, float amaxEpsilon) {
  MLIRContext *c = unwrap(ctx);
  return wrap(Fp8CurrentAttr::getChecked(emitter(c), c, unwrap(fp8Dtype),
                                         rowwise, columnwise, forcePow2Scales,
                                         llvm::APFloat(amaxEpsilon)));
}

MlirAttribute qsMXFP8AttrGet(MlirContext ctx, MlirType fp8Dtype, bool rowwise,
                             bool columnwise, bool with2dQuantization,
                             bool optimizeForGemm) {
  MLIRContext *c = unwrap(ctx);
  return wrap(MXFP8Attr::getChecked(emitter(c), c, unwrap(fp8Dtype), rowwise,
                                    columnwise, with2dQuantization,
                                    optimizeForGemm));
}

MlirAttribute qsFp8BlockAttrGet(MlirContext ctx, MlirType fp8Dtype,
                                bool rowwise, bool columnwise,
                                int64_t blockScalingDim, bool forcePow2Scales,
                                float amaxEpsilon) {
  MLIRContext *c = unwrap(ctx);
  return wrap(Fp8BlockAttr::getChecked(
      emitter(c), c, unwrap(fp8Dtype), rowwise, columnwise, blockScalingDim,
      forcePow2Scales, llvm::APFloat(amaxEpsilon)));
}

MlirAttribute qsNVFP4AttrGet(MlirContext ctx, bool rowwise, bool columnwise,
                             bool withRht, bool withPostRhtAmax,
                             bool with2dQuantization, bool stochasticRounding,
                             bool rowScaledNvfp4, bool optimizeForGemm,
                             bool withRandomSignMask, bool use4over6,
                             int64_t e4m3Max, MlirStringRef errMode) {
  MLIRContext *c = unwrap(ctx);
  return wrap(NVFP4Attr::getChecked(
      emitter(c), c, rowwise, columnwise, withRht, withPostRhtAmax,
      with2dQuantization, stochasticRounding, rowScaledNvfp4, optimizeForGemm,
      withRandomSignMask, use4over6, e4m3Max, unwrap(errMode)));
}

static QuantizerAttrInterface quantizerOf(MlirAttribute attr) {
  return cast<QuantizerAttrInterface>(unwrap(attr));
}

bool qsQuantizerGetRowwise(MlirAttribute q) {
  return quantizerOf(q).getRowwise();
}
bool qsQuantizerGetColumnwise(MlirAttribute q) {
  return quantizerOf(q).getColumnwise();
}
MlirType qsQuantizerGetElementFormat(MlirAttribute q) {
  return wrap(quantizerOf(q).getElementFormat());
}
MlirStringRef qsQuantizerGetClassName(MlirAttribute q) {
  return wrap(quantizerOf(q).getQuantizerClassName());
}
MlirAttribute qsQuantizerWithUsage(MlirAttribute q, bool rowwise,
                                   bool columnwise) {
  if (!rowwise && !columnwise) {
    emitError(UnknownLoc::get(unwrap(q).getContext()))
        << "at least one of rowwise and columnwise must be true";
    return MlirAttribute{nullptr};
  }
  return wrap(quantizerOf(q).withUsage(rowwise, columnwise));
}

bool qsFp8CurrentAttrGetForcePow2Scales(MlirAttribute attr) {
  return cast<Fp8CurrentAttr>(unwrap(attr)).getForcePow_2Scales();
}
float qsFp8CurrentAttrGetAmaxEpsilon(MlirAttribute attr) {
  return cast<Fp8CurrentAttr>(unwrap(attr)).getAmaxEpsilon().convertToFloat();
}
bool qsMXFP8AttrGetWith2dQuantization(MlirAttribute attr) {
  return cast<MXFP8Attr>(unwrap(attr)).getWith_2dQuantization();
}
bool qsMXFP8AttrGetOptimizeForGemm(MlirAttribute attr) {
  return cast<MXFP8Attr>(unwrap(attr)).getOptimizeForGemm();
}
int64_t qsFp8BlockAttrGetBlockScalingDim(MlirAttribute attr) {
  return cast<Fp8BlockAttr>(unwrap(attr)).getBlockScalingDim();
}
bool qsFp8BlockAttrGetForcePow2Scales(MlirAttribute attr) {
  return cast<Fp8BlockAttr>(unwrap(attr)).getForcePow_2Scales();
}
float qsFp8BlockAttrGetAmaxEpsilon(MlirAttribute attr) {
  return cast<Fp8BlockAttr>(unwrap(attr)).getAmaxEpsilon().convertToFloat();
}
bool qsNVFP4AttrGetWithRht(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getWithRht();
}
bool qsNVFP4AttrGetWithPostRhtAmax(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getWithPostRhtAmax();
}
bool qsNVFP4AttrGetWith2dQuantization(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getWith_2dQuantization();
}
bool qsNVFP4AttrGetStochasticRounding(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getStochasticRounding();
}
bool qsNVFP4AttrGetRowScaledNvfp4(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getRowScaledNvfp4();
}
bool qsNVFP4AttrGetOptimizeForGemm(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getOptimizeForGemm();
}
bool qsNVFP4AttrGetWithRandomSignMask(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getWithRandomSignMask();
}
bool qsNVFP4AttrGetUse4over6(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getNvfp4Use_4over6();
}
int64_t qsNVFP4AttrGetE4m3Max(MlirAttribute attr) {
  return cast<NVFP4Attr>(unwrap(attr)).getNvfp4E4m3Max();
}
MlirStringRef qsNVFP4AttrGet4over6ErrMode(MlirAttribute attr) {
  return wrap(cast<NVFP4Attr>(unwrap(attr)).getNvfp4_4over6ErrMode());
}

//===----------------------------------------------------------------------===//
// !qs.tensor
//===----------------------------------------------------------------------===//

bool qsTypeIsATensor(MlirType type) {
  return isa<QuantTensorType>(unwrap(type));
}

MlirType qsTensorTypeGet(MlirContext ctx, intptr_t rank, const int64_t *shape,
                         MlirType elementType, MlirAttribute quantizer) {
  MLIRContext *c = unwrap(ctx);
  auto q = dyn_cast_or_null<QuantizerAttrInterface>(unwrap(quantizer));
  if (!q) {
    emitError(UnknownLoc::get(c))
        << "!qs.tensor needs a quantizer attribute, got " << unwrap(quantizer);
    return MlirType{nullptr};
  }
  return wrap(QuantTensorType::getChecked(
      emitter(c), c, ArrayRef<int64_t>(shape, rank), unwrap(elementType), q));
}

static QuantTensorType tensorOf(MlirType type) {
  return cast<QuantTensorType>(unwrap(type));
}

intptr_t qsTensorTypeGetRank(MlirType type) { return tensorOf(type).getRank(); }
int64_t qsTensorTypeGetDimSize(MlirType type, intptr_t dim) {
  return tensorOf(type).getShape()[dim];
}
MlirType qsTensorTypeGetElementType(MlirType type) {
  return wrap(tensorOf(type).getElementType());
}
MlirAttribute qsTensorTypeGetQuantizer(MlirType type) {
  return wrap(tensorOf(type).getQuantizer());
}
MlirType qsTensorTypeGetExpressedType(MlirType type) {
  return wrap(tensorOf(type).getExpressedType());
}

bool qsChipIsValid(MlirStringRef chip) {
  return succeeded(TargetInfo::parse(unwrap(chip)));
}

static FailureOr<TargetInfo> targetOf(MlirStringRef chip) {
  if (chip.length == 0)
    return TargetInfo::getDefault();
  return TargetInfo::parse(unwrap(chip));
}

intptr_t qsTensorTypeGetNumInnerTensors(MlirType type, MlirStringRef chip) {
  FailureOr<TargetInfo> target = targetOf(chip);
  if (failed(target))
    return 0;
  return tensorOf(type).getInnerTensors(*target).size();
}

MlirStringRef qsTensorTypeGetInnerTensorName(MlirType type, MlirStringRef chip,
                                             intptr_t i) {
  FailureOr<TargetInfo> target = targetOf(chip);
  if (failed(target))
    return MlirStringRef{nullptr, 0};
  // Names are string literals of the interface implementations.
  return wrap(tensorOf(type).getInnerTensors(*target)[i].name);
}

MlirType qsTensorTypeGetInnerTensorType(MlirType type, MlirStringRef chip,
                                        intptr_t i) {
  FailureOr<TargetInfo> target = targetOf(chip);
  if (failed(target))
    return MlirType{nullptr};
  return wrap(tensorOf(type).getInnerTensors(*target)[i].getType());
}

MlirAttribute qsTensorTypeGetStorageMetadata(MlirType type) {
  QuantTensorType t = tensorOf(type);
  return wrap(t.getQuantizer().getStorageMetadata(t.getElementType()));
}
