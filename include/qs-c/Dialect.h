/*===- qs-c/Dialect.h - C API of the qs dialect ---------------------*- C -*-===*\
|*                                                                            *|
|* Registration, the quantizer attributes, the !qs.tensor type and its inner  *|
|* tensors. Functions that construct return a null handle (test with          *|
|* mlirAttributeIsNull / mlirTypeIsNull) when the parameters break a rule;    *|
|* the reason goes to the context's diagnostic handler.                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QS_C_DIALECT_H
#define QS_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(QuantStorage, qs);

/// Adds the qs dialect, its reference-lowering interfaces and every upstream
/// dialect with its interface implementations to `registry`.
MLIR_CAPI_EXPORTED void qsRegisterAllDialects(MlirDialectRegistry registry);

//===----------------------------------------------------------------------===//
// Quantizer attributes
//===----------------------------------------------------------------------===//

/// Whether `attr` is a quantizer (any of the five families).
MLIR_CAPI_EXPORTED bool qsAttributeIsAQuantizer(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsAttributeIsAFp8Delayed(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsAttributeIsAFp8Current(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsAttributeIsAMXFP8(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsAttributeIsAFp8Block(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsAttributeIsANVFP4(MlirAttribute attr);

/// #qs.fp8_delayed (TE Float8Quantizer). `fp8Dtype` is f8E4M3FN or f8E5M2.
MLIR_CAPI_EXPORTED MlirAttribute qsFp8DelayedAttrGet(MlirContext ctx,
                                                     MlirType fp8Dtype,
                                                     bool rowwise,
                                                     bool columnwise);
/// #qs.fp8_current (TE Float8CurrentScalingQuantizer).
MLIR_CAPI_EXPORTED MlirAttribute qsFp8CurrentAttrGet(
    MlirContext ctx, MlirType fp8Dtype, bool rowwise, bool columnwise,
    bool forcePow2Scales, float amaxEpsilon);
/// #qs.mxfp8 (TE MXFP8Quantizer).
MLIR_CAPI_EXPORTED MlirAttribute qsMXFP8AttrGet(MlirContext ctx,
                                                MlirType fp8Dtype, bool rowwise,
                                                bool columnwise,
                                                bool with2dQuantization,
                                                bool optimizeForGemm);
/// #qs.fp8_block (TE Float8BlockQuantizer).
MLIR_CAPI_EXPORTED MlirAttribute qsFp8BlockAttrGet(
    MlirContext ctx, MlirType fp8Dtype, bool rowwise, bool columnwise,
    int64_t blockScalingDim, bool forcePow2Scales, float amaxEpsilon);
/// #qs.nvfp4 (TE NVFP4Quantizer; TE's defaults: `withRandomSignMask` true,
/// `use4over6` false, `e4m3Max` 448, `errMode` "MAE").
MLIR_CAPI_EXPORTED MlirAttribute qsNVFP4AttrGet(
    MlirContext ctx, bool rowwise, bool columnwise, bool withRht,
    bool withPostRhtAmax, bool with2dQuantization, bool stochasticRounding,
    bool rowScaledNvfp4, bool optimizeForGemm, bool withRandomSignMask,
    bool use4over6, int64_t e4m3Max, MlirStringRef errMode);

/// Parameters shared by every quantizer.
MLIR_CAPI_EXPORTED bool qsQuantizerGetRowwise(MlirAttribute quantizer);
MLIR_CAPI_EXPORTED bool qsQuantizerGetColumnwise(MlirAttribute quantizer);
/// The element format of the quantized data (f8E4M3FN, f8E5M2, f4E2M1FN).
MLIR_CAPI_EXPORTED MlirType qsQuantizerGetElementFormat(MlirAttribute quantizer);
/// The TE class name ("MXFP8Quantizer").
MLIR_CAPI_EXPORTED MlirStringRef qsQuantizerGetClassName(MlirAttribute quantizer);
/// The quantizer with other usage flags (null if both are false).
MLIR_CAPI_EXPORTED MlirAttribute qsQuantizerWithUsage(MlirAttribute quantizer,
                                                      bool rowwise,
                                                      bool columnwise);

/// Family parameters (the attribute must be of the family).
MLIR_CAPI_EXPORTED bool qsFp8CurrentAttrGetForcePow2Scales(MlirAttribute attr);
MLIR_CAPI_EXPORTED float qsFp8CurrentAttrGetAmaxEpsilon(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsMXFP8AttrGetWith2dQuantization(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsMXFP8AttrGetOptimizeForGemm(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t qsFp8BlockAttrGetBlockScalingDim(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsFp8BlockAttrGetForcePow2Scales(MlirAttribute attr);
MLIR_CAPI_EXPORTED float qsFp8BlockAttrGetAmaxEpsilon(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetWithRht(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetWithPostRhtAmax(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetWith2dQuantization(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetStochasticRounding(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetRowScaledNvfp4(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetOptimizeForGemm(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetWithRandomSignMask(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool qsNVFP4AttrGetUse4over6(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t qsNVFP4AttrGetE4m3Max(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirStringRef
qsNVFP4AttrGet4over6ErrMode(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// !qs.tensor
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool qsTypeIsATensor(MlirType type);
/// !qs.tensor<shape x elementType, quantizer>; null (with a diagnostic) if the
/// shape, element type or quantizer break a rule.
MLIR_CAPI_EXPORTED MlirType qsTensorTypeGet(MlirContext ctx, intptr_t rank,
                                            const int64_t *shape,
                                            MlirType elementType,
                                            MlirAttribute quantizer);
MLIR_CAPI_EXPORTED intptr_t qsTensorTypeGetRank(MlirType type);
MLIR_CAPI_EXPORTED int64_t qsTensorTypeGetDimSize(MlirType type, intptr_t dim);
MLIR_CAPI_EXPORTED MlirType qsTensorTypeGetElementType(MlirType type);
MLIR_CAPI_EXPORTED MlirAttribute qsTensorTypeGetQuantizer(MlirType type);
/// The builtin tensor of the logical shape and nominal element type.
MLIR_CAPI_EXPORTED MlirType qsTensorTypeGetExpressedType(MlirType type);

/// Whether `chip` names a chip ("sm_90a", "sm_100a", ...).
MLIR_CAPI_EXPORTED bool qsChipIsValid(MlirStringRef chip);
/// The inner tensors of `type` on `chip` (empty string: the default, sm_90a)
/// in interface order: their number, names and builtin tensor types. An
/// invalid chip gives 0 inner tensors.
MLIR_CAPI_EXPORTED intptr_t qsTensorTypeGetNumInnerTensors(MlirType type,
                                                           MlirStringRef chip);
MLIR_CAPI_EXPORTED MlirStringRef
qsTensorTypeGetInnerTensorName(MlirType type, MlirStringRef chip, intptr_t i);
MLIR_CAPI_EXPORTED MlirType
qsTensorTypeGetInnerTensorType(MlirType type, MlirStringRef chip, intptr_t i);
/// The non-tensor flatten context of TE (storage class, element format,
/// fake_dtype, quantizer, family extras) as a dictionary attribute.
MLIR_CAPI_EXPORTED MlirAttribute qsTensorTypeGetStorageMetadata(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // QS_C_DIALECT_H
