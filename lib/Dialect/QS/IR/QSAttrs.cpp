//===- QSAttrs.cpp - quantizer attributes and their storage contract ------===//
//
// The storage contract of every TransformerEngine quantizer family
// (te-formats.md §2.b, §3.b, §4.b, §5.b): inner tensor names, order, shapes,
// element types and presence rules, shape rules, usage transitions and the
// non-tensor flatten metadata. This file is the only place that knows them.
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/IR/QSAttrs.h"
#include "qs/Dialect/QS/IR/QSDialect.h"
#include "qs/Dialect/QS/Utils/QuantizerMath.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::qs;

#define GET_ATTRDEF_CLASSES
#include "qs/Dialect/QS/IR/QSAttrs.cpp.inc"

void QSDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "qs/Dialect/QS/IR/QSAttrs.cpp.inc"
      >();
}

FailureOr<llvm::APFloat> mlir::qs::parseF32Parameter(AsmParser &parser) {
  llvm::APFloat value(0.0f);
  if (parser.parseFloat(llvm::APFloat::IEEEsingle(), value))
    return failure();
  return value;
}

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

using EmitErrorFn = function_ref<InFlightDiagnostic()>;

static LogicalResult verifyUsageFlags(EmitErrorFn emitError, bool rowwise,
                                      bool columnwise) {
  if (!rowwise && !columnwise)
    return emitError() << "at least one of rowwise and columnwise must be true";
  return success();
}

static LogicalResult verifyFp8Dtype(EmitErrorFn emitError, Type fp8Dtype) {
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(fp8Dtype))
    return emitError() << "fp8_dtype must be f8E4M3FN or f8E5M2, got "
                       << fp8Dtype;
  return success();
}

static LogicalResult verifyAmaxEpsilon(EmitErrorFn emitError,
                                       const llvm::APFloat &epsilon) {
  if (!epsilon.isFinite() || (epsilon.isNegative() && !epsilon.isZero()))
    return emitError() << "amax_epsilon must be finite and >= 0";
  return success();
}

/// Checks that the flattened M and last dimension K are multiples of `block`.
static LogicalResult verifyBlockDivisibility(EmitErrorFn emitError,
                                             StringRef format,
                                             ArrayRef<int64_t> shape,
                                             int64_t block) {
  Flat2D flat = flatten2D(shape);
  if (flat.k % block != 0)
    return emitError() << format << " needs the last dimension K to be a "
                       << "multiple of " << block << ", got K = " << flat.k;
  if (flat.m % block != 0)
    return emitError() << format << " needs the product of the leading "
                       << "dimensions M to be a multiple of " << block
                       << ", got M = " << flat.m;
  return success();
}

static SmallVector<int64_t, 4> shape1D(int64_t n) { return {n}; }

/// Builds the metadata dictionary shared by every family.
static SmallVector<NamedAttribute>
baseMetadata(QuantizerAttrInterface quantizer, StringRef elementKey,
             Type nominalType) {
  MLIRContext *ctx = quantizer.getContext();
  Builder b(ctx);
  return {
      b.getNamedAttr("cls", b.getStringAttr(quantizer.getStorageClassName())),
      b.getNamedAttr(elementKey, TypeAttr::get(quantizer.getElementFormat())),
      b.getNamedAttr("fake_dtype", TypeAttr::get(nominalType)),
      b.getNamedAttr("quantizer", quantizer)};
}

//===----------------------------------------------------------------------===//
// Per-tensor FP8 (Float8Quantizer, Float8CurrentScalingQuantizer)
//===----------------------------------------------------------------------===//

/// te-formats.md §2.b: `data` iff rowwise or the chip is not TN-only,
/// `transpose` iff columnwise and TN-only, `scale_inv` always.
static void getPerTensorInnerTensors(Type fp8Dtype, bool rowwise,
                                     bool columnwise, ArrayRef<int64_t> shape,
                                     const TargetInfo &target,
                                     SmallVectorImpl<InnerTensor> &result) {
  bool tnOnly = target.isTNOnly();
  if (rowwise || !tnOnly)
    result.push_back({"data", SmallVector<int64_t, 4>(shape), fp8Dtype,
                      tnOnly ? Usage::Rowwise : Usage::Both});
  if (columnwise && tnOnly)
    result.push_back(
        {"transpose", rotateLastToFront(shape), fp8Dtype, Usage::Columnwise});
  result.push_back({"scale_inv", shape1D(1),
                    Float32Type::get(fp8Dtype.getContext()), Usage::Both});
}

/// On chips that are not TN-only the single `data` buffer serves both GEMM
/// representations.
static Usage getPerTensorAvailableUsage(bool rowwise, bool columnwise,
                                        const TargetInfo &target) {
  if (!target.isTNOnly())
    return Usage::Both;
  return makeUsage(rowwise, columnwise);
}

/// The transpose is a byte transpose of `data` (shared scale): it can be
/// created on TN-only chips; `data` can never be recreated from it.
static bool canCreatePerTensorUsage(Usage missing, bool rowwise,
                                    bool columnwise, const TargetInfo &target) {
  Usage creatable = getPerTensorAvailableUsage(rowwise, columnwise, target);
  if (rowwise)
    creatable = creatable | Usage::Columnwise;
  return hasUsage(creatable, missing);
}

// --- #qs.fp8_delayed ---------------------------------------------------------

LogicalResult Fp8DelayedAttr::verify(EmitErrorFn emitError, Type fp8Dtype,
                                     bool rowwise, bool columnwise) {
  if (failed(verifyFp8Dtype(emitError, fp8Dtype)))
    return failure();
  return verifyUsageFlags(emitError, rowwise, columnwise);
}

StringRef Fp8DelayedAttr::getQuantizerClassName() const {
  return "Float8Quantizer";
}
StringRef Fp8DelayedAttr::getStorageClassName() const {
  return "Float8TensorStorage";
}
ScalingMode Fp8DelayedAttr::getScalingMode() const {
  return ScalingMode::DelayedTensor;
}
FloatType Fp8DelayedAttr::getElementFormat() const {
  return cast<FloatType>(getFp8Dtype());
}
QuantizerAttrInterface Fp8DelayedAttr::withUsage(bool rowwise,
                                                 bool columnwise) const {
  return get(getContext(), getFp8Dtype(), rowwise, columnwise);
}
LogicalResult Fp8DelayedAttr::verifyShape(ArrayRef<int64_t>, Type,
                                          EmitErrorFn) const {
  return success();
}
void Fp8DelayedAttr::getInnerTensors(
    ArrayRef<int64_t> shape, const TargetInfo &target,
    SmallVectorImpl<InnerTensor> &result) const {
  getPerTensorInnerTensors(getFp8Dtype(), getRowwise(), getColumnwise(), shape,
                           target, result);
}
Usage Fp8DelayedAttr::getAvailableUsage(const TargetInfo &target) const {
  return getPerTensorAvailableUsage(getRowwise(), getColumnwise(), target);
}
bool Fp8DelayedAttr::canCreateUsage(Usage missing,
                                    const TargetInfo &target) const {
  return canCreatePerTensorUsage(missing, getRowwise(), getColumnwise(),
                                 target);
}
DictionaryAttr Fp8DelayedAttr::getStorageMetadata(Type nominalType) const {
  return DictionaryAttr::get(getContext(),
                             baseMetadata(*this, "fp8_dtype", nominalType));
}
bool Fp8DelayedAttr::takesRecipeScale() const { return true; }
unsigned Fp8CurrentAttr::getNumGlobalAmaxes() const { return 1; }
// One global amax for both usages, or with RHT max |x| and max |RHT(x^T)|;
// row scales are one amax per row, which TE does not reduce across ranks
// (te-formats.md §5: row-scaled excludes amax reduction).
unsigned NVFP4Attr::getNumGlobalAmaxes() const {
  if (getRowScaledNvfp4())
    return 0;
  return getWithRht() ? 2 : 1;
}
bool NVFP4Attr::takesRngState() const { return getStochasticRounding(); }
std::optional<uint32_t> NVFP4Attr::getColumnwiseRhtSignMask() const {
  if (!getWithRht())
    return std::nullopt;
  return getWithRandomSignMask() ? kNvfp4RhtSignMask : 0u;
}

// --- #qs.fp8_current ---------------------------------------------------------

LogicalResult Fp8CurrentAttr::verify(EmitErrorFn emitError, Type fp8Dtype,
                                     bool rowwise, bool columnwise, bool,
                                     llvm::APFloat amaxEpsilon) {
  if (failed(verifyFp8Dtype(emitError, fp8Dtype)) ||
      failed(verifyUsageFlags(emitError, rowwise, columnwise)))
    return failure();
  return verifyAmaxEpsilon(emitError, amaxEpsilon);
}

StringRef Fp8CurrentAttr::getQuantizerClassName() const {
  return "Float8CurrentScalingQuantizer";
}
StringRef Fp8CurrentAttr::getStorageClassName() const {
  return "Float8TensorStorage";
}
ScalingMode Fp8CurrentAttr::getScalingMode() const {
  return ScalingMode::DelayedTensor;
}
FloatType Fp8CurrentAttr::getElementFormat() const {
  return cast<FloatType>(getFp8Dtype());
}
QuantizerAttrInterface Fp8CurrentAttr::withUsage(bool rowwise,
                                                 bool columnwise) const {
  return get(getContext(), getFp8Dtype(), rowwise, columnwise,
             getForcePow_2Scales(), getAmaxEpsilon());
}
LogicalResult Fp8CurrentAttr::verifyShape(ArrayRef<int64_t>, Type,
                                          EmitErrorFn) const {
  return success();
}
void Fp8CurrentAttr::getInnerTensors(
    ArrayRef<int64_t> shape, const TargetInfo &target,
    SmallVectorImpl<InnerTensor> &result) const {
  getPerTensorInnerTensors(getFp8Dtype(), getRowwise(), getColumnwise(), shape,
                           target, result);
}
Usage Fp8CurrentAttr::getAvailableUsage(const TargetInfo &target) const {
  return getPerTensorAvailableUsage(getRowwise(), getColumnwise(), target);
}
bool Fp8CurrentAttr::canCreateUsage(Usage missing,
                                    const TargetInfo &target) const {
  return canCreatePerTensorUsage(missing, getRowwise(), getColumnwise(),
                                 target);
}
DictionaryAttr Fp8CurrentAttr::getStorageMetadata(Type nominalType) const {
  return DictionaryAttr::get(getContext(),
                             baseMetadata(*this, "fp8_dtype", nominalType));
}

//===----------------------------------------------------------------------===//
// #qs.mxfp8 (MXFP8Quantizer), te-formats.md §3.b
//===----------------------------------------------------------------------===//

LogicalResult MXFP8Attr::verify(EmitErrorFn emitError, Type fp8Dtype,
                                bool rowwise, bool columnwise, bool, bool) {
  if (failed(verifyFp8Dtype(emitError, fp8Dtype)))
    return failure();
  return verifyUsageFlags(emitError, rowwise, columnwise);
}

StringRef MXFP8Attr::getQuantizerClassName() const { return "MXFP8Quantizer"; }
StringRef MXFP8Attr::getStorageClassName() const {
  return "MXFP8TensorStorage";
}
ScalingMode MXFP8Attr::getScalingMode() const { return ScalingMode::MXFP8_1D; }
FloatType MXFP8Attr::getElementFormat() const {
  return cast<FloatType>(getFp8Dtype());
}
QuantizerAttrInterface MXFP8Attr::withUsage(bool rowwise,
                                            bool columnwise) const {
  return get(getContext(), getFp8Dtype(), rowwise, columnwise,
             getWith_2dQuantization(), getOptimizeForGemm());
}
LogicalResult MXFP8Attr::verifyShape(ArrayRef<int64_t> shape, Type,
                                     EmitErrorFn emitError) const {
  return verifyBlockDivisibility(emitError, "MXFP8", shape, 32);
}
void MXFP8Attr::getInnerTensors(ArrayRef<int64_t> shape, const TargetInfo &,
                                SmallVectorImpl<InnerTensor> &result) const {
  auto [m, k] = flatten2D(shape);
  Type e8m0 = Float8E8M0FNUType::get(getContext());
  SmallVector<int64_t, 4> data(shape);
  if (getRowwise()) {
    result.push_back({"rowwise_data", data, getFp8Dtype(), Usage::Rowwise});
    result.push_back({"rowwise_scale_inv",
                      {roundUp(m, 128), roundUp(k / 32, 4)},
                      e8m0,
                      Usage::Rowwise});
  }
  if (getColumnwise()) {
    result.push_back(
        {"columnwise_data", data, getFp8Dtype(), Usage::Columnwise});
    result.push_back({"columnwise_scale_inv",
                      {roundUp(m / 32, 4), roundUp(k, 128)},
                      e8m0,
                      Usage::Columnwise});
  }
}
bool MXFP8Attr::canWriteGemmSwizzledScales() const { return true; }
bool MXFP8Attr::writesGemmSwizzledScales() const { return getOptimizeForGemm(); }
QuantizerAttrInterface MXFP8Attr::withGemmSwizzledScales(bool swizzled) const {
  return get(getContext(), getFp8Dtype(), getRowwise(), getColumnwise(),
             getWith_2dQuantization(), swizzled);
}
bool MXFP8Attr::canCreateUsage(Usage missing, const TargetInfo &target) const {
  // MXFP8 representations are independent quantizations: drop only.
  return hasUsage(getAvailableUsage(target), missing);
}
DictionaryAttr MXFP8Attr::getStorageMetadata(Type nominalType) const {
  SmallVector<NamedAttribute> entries =
      baseMetadata(*this, "fp8_dtype", nominalType);
  Builder b(getContext());
  entries.push_back(b.getNamedAttr("with_gemm_swizzled_scales",
                                   b.getBoolAttr(getOptimizeForGemm())));
  return DictionaryAttr::get(getContext(), entries);
}

//===----------------------------------------------------------------------===//
// #qs.fp8_block (Float8BlockQuantizer), te-formats.md §4.b
//===----------------------------------------------------------------------===//

LogicalResult Fp8BlockAttr::verify(EmitErrorFn emitError, Type fp8Dtype,
                                   bool rowwise, bool columnwise,
                                   int64_t blockScalingDim, bool,
                                   llvm::APFloat amaxEpsilon) {
  if (failed(verifyFp8Dtype(emitError, fp8Dtype)) ||
      failed(verifyUsageFlags(emitError, rowwise, columnwise)) ||
      failed(verifyAmaxEpsilon(emitError, amaxEpsilon)))
    return failure();
  if (blockScalingDim != 1 && blockScalingDim != 2)
    return emitError() << "block_scaling_dim must be 1 (1x128 blocks) or 2 "
                          "(128x128 tiles), got "
                       << blockScalingDim;
  return success();
}

StringRef Fp8BlockAttr::getQuantizerClassName() const {
  return "Float8BlockQuantizer";
}
StringRef Fp8BlockAttr::getStorageClassName() const {
  return "Float8BlockwiseQTensorStorage";
}
ScalingMode Fp8BlockAttr::getScalingMode() const {
  return getBlockScalingDim() == 1 ? ScalingMode::Block1D
                                   : ScalingMode::Block2D;
}
FloatType Fp8BlockAttr::getElementFormat() const {
  return cast<FloatType>(getFp8Dtype());
}
QuantizerAttrInterface Fp8BlockAttr::withUsage(bool rowwise,
                                               bool columnwise) const {
  return get(getContext(), getFp8Dtype(), rowwise, columnwise,
             getBlockScalingDim(), getForcePow_2Scales(), getAmaxEpsilon());
}
LogicalResult Fp8BlockAttr::verifyShape(ArrayRef<int64_t>, Type,
                                        EmitErrorFn) const {
  // Edge blocks are partial: no divisibility rule (te-formats.md §4.a).
  return success();
}
void Fp8BlockAttr::getInnerTensors(ArrayRef<int64_t> shape, const TargetInfo &,
                                   SmallVectorImpl<InnerTensor> &result) const {
  auto [m, k] = flatten2D(shape);
  Type f32 = Float32Type::get(getContext());
  bool is1D = getBlockScalingDim() == 1;
  if (getRowwise()) {
    result.push_back({"rowwise_data", SmallVector<int64_t, 4>(shape),
                      getFp8Dtype(), Usage::Rowwise});
    SmallVector<int64_t, 4> scale =
        is1D ? SmallVector<int64_t, 4>{ceilDiv(k, 128), roundUp(m, 4)}
             : SmallVector<int64_t, 4>{ceilDiv(m, 128),
                                       roundUp(ceilDiv(k, 128), 4)};
    result.push_back({"rowwise_scale_inv", scale, f32, Usage::Rowwise});
  }
  if (getColumnwise()) {
    result.push_back({"columnwise_data", rotateLastToFront(shape),
                      getFp8Dtype(), Usage::Columnwise});
    SmallVector<int64_t, 4> scale =
        is1D ? SmallVector<int64_t, 4>{ceilDiv(m, 128), roundUp(k, 4)}
             : SmallVector<int64_t, 4>{ceilDiv(k, 128),
                                       roundUp(ceilDiv(m, 128), 4)};
    result.push_back({"columnwise_scale_inv", scale, f32, Usage::Columnwise});
  }
}
bool Fp8BlockAttr::canCreateUsage(Usage missing,
                                  const TargetInfo &target) const {
  // 128x128 tiles: column-wise data and scales are transposes of the
  // row-wise ones. 1x128 blocks differ per direction: drop only.
  Usage creatable = getAvailableUsage(target);
  if (getBlockScalingDim() == 2 && getRowwise())
    creatable = creatable | Usage::Columnwise;
  return hasUsage(creatable, missing);
}
DictionaryAttr Fp8BlockAttr::getStorageMetadata(Type nominalType) const {
  SmallVector<NamedAttribute> entries =
      baseMetadata(*this, "fp8_dtype", nominalType);
  Builder b(getContext());
  entries.push_back(b.getNamedAttr("is_2D_scaled",
                                   b.getBoolAttr(getBlockScalingDim() == 2)));
  return DictionaryAttr::get(getContext(), entries);
}

//===----------------------------------------------------------------------===//
// #qs.nvfp4 (NVFP4Quantizer), te-formats.md §5.b
//===----------------------------------------------------------------------===//

LogicalResult NVFP4Attr::verify(EmitErrorFn emitError, bool rowwise,
                                bool columnwise, bool withRht,
                                bool withPostRhtAmax, bool with2dQuantization,
                                bool stochasticRounding, bool rowScaledNvfp4,
                                bool, bool, bool use4over6, int64_t e4m3Max,
                                StringRef errMode) {
  if (failed(verifyUsageFlags(emitError, rowwise, columnwise)))
    return failure();
  if (e4m3Max != 448 && e4m3Max != 256)
    return emitError() << "nvfp4_e4m3_max must be 448 or 256, got " << e4m3Max;
  if (e4m3Max != 448 && !use4over6)
    return emitError() << "nvfp4_e4m3_max = " << e4m3Max
                       << " requires nvfp4_use_4over6 = true (TE uses 448 "
                          "without 4over6)";
  if (errMode != "MAE" && errMode != "MSE")
    return emitError() << "nvfp4_4over6_err_mode must be \"MAE\" or \"MSE\", "
                          "got \""
                       << errMode << "\"";
  if (use4over6 && (withRht || stochasticRounding))
    return emitError() << "nvfp4_use_4over6 excludes with_rht and "
                          "stochastic_rounding (TE's 4over6 kernels have "
                          "neither)";
  if (withRht && !withPostRhtAmax)
    return emitError() << "with_rht requires with_post_rht_amax = true (TE "
                          "computes the column-wise amax after the RHT)";
  if (rowScaledNvfp4 && (withRht || with2dQuantization || stochasticRounding))
    return emitError() << "row_scaled_nvfp4 excludes with_rht, "
                          "with_2d_quantization and stochastic_rounding";
  return success();
}

StringRef NVFP4Attr::getQuantizerClassName() const { return "NVFP4Quantizer"; }
StringRef NVFP4Attr::getStorageClassName() const {
  return "NVFP4TensorStorage";
}
ScalingMode NVFP4Attr::getScalingMode() const { return ScalingMode::NVFP4_1D; }
FloatType NVFP4Attr::getElementFormat() const {
  return Float4E2M1FNType::get(getContext());
}
QuantizerAttrInterface NVFP4Attr::withUsage(bool rowwise,
                                            bool columnwise) const {
  return get(getContext(), rowwise, columnwise, getWithRht(),
             getWithPostRhtAmax(), getWith_2dQuantization(),
             getStochasticRounding(), getRowScaledNvfp4(), getOptimizeForGemm(),
             getWithRandomSignMask(), getNvfp4Use_4over6(), getNvfp4E4m3Max(),
             getNvfp4_4over6ErrMode());
}
LogicalResult NVFP4Attr::verifyShape(ArrayRef<int64_t> shape, Type nominalType,
                                     EmitErrorFn emitError) const {
  if (getWithRht() && !nominalType.isBF16())
    return emitError() << "NVFP4 with_rht requires a bf16 nominal element "
                          "type (TE's RHT kernels take bf16), got "
                       << nominalType;
  return verifyBlockDivisibility(emitError, "NVFP4", shape, 16);
}
void NVFP4Attr::getInnerTensors(ArrayRef<int64_t> shape, const TargetInfo &,
                                SmallVectorImpl<InnerTensor> &result) const {
  auto [m, k] = flatten2D(shape);
  MLIRContext *ctx = getContext();
  Type packed = IntegerType::get(ctx, 8);
  Type e4m3 = Float8E4M3FNType::get(ctx);
  Type f32 = Float32Type::get(ctx);
  bool rowScaled = getRowScaledNvfp4();
  if (getRowwise()) {
    SmallVector<int64_t, 4> data(shape);
    data.back() /= 2;
    result.push_back({"rowwise_data", data, packed, Usage::Rowwise});
    result.push_back({"rowwise_scale_inv",
                      {roundUp(m, 128), roundUp(k / 16, 4)},
                      e4m3,
                      Usage::Rowwise});
  }
  if (getColumnwise()) {
    result.push_back({"columnwise_data", {k, m / 2}, packed, Usage::Columnwise});
    result.push_back({"columnwise_scale_inv",
                      {roundUp(k, 128), roundUp(m / 16, 4)},
                      e4m3,
                      Usage::Columnwise});
  }
  if (getRowwise())
    result.push_back(
        {"amax_rowwise", shape1D(rowScaled ? m : 1), f32, Usage::Rowwise});
  if (getColumnwise())
    result.push_back({"amax_columnwise", shape1D(rowScaled ? k : 1), f32,
                      Usage::Columnwise});
}
bool NVFP4Attr::canCreateUsage(Usage missing, const TargetInfo &target) const {
  // 16x16 tiles without RHT: column-wise is a nibble transpose of row-wise.
  Usage creatable = getAvailableUsage(target);
  if (getWith_2dQuantization() && !getWithRht() && getRowwise())
    creatable = creatable | Usage::Columnwise;
  return hasUsage(creatable, missing);
}
bool NVFP4Attr::canWriteGemmSwizzledScales() const { return true; }
bool NVFP4Attr::writesGemmSwizzledScales() const { return getOptimizeForGemm(); }
QuantizerAttrInterface NVFP4Attr::withGemmSwizzledScales(bool swizzled) const {
  return get(getContext(), getRowwise(), getColumnwise(), getWithRht(),
             getWithPostRhtAmax(), getWith_2dQuantization(),
             getStochasticRounding(), getRowScaledNvfp4(), swizzled,
             getWithRandomSignMask(), getNvfp4Use_4over6(), getNvfp4E4m3Max(),
             getNvfp4_4over6ErrMode());
}
bool NVFP4Attr::canDequantizeColumnwise() const { return false; }
bool NVFP4Attr::supportsGemmOutputType(Type outputType) const {
  return !outputType.isF16();
}
DictionaryAttr NVFP4Attr::getStorageMetadata(Type nominalType) const {
  SmallVector<NamedAttribute> entries =
      baseMetadata(*this, "fp4_dtype", nominalType);
  Builder b(getContext());
  entries.push_back(b.getNamedAttr("with_gemm_swizzled_scales",
                                   b.getBoolAttr(getOptimizeForGemm())));
  entries.push_back(b.getNamedAttr("row_scaled_nvfp4",
                                   b.getBoolAttr(getRowScaledNvfp4())));
  entries.push_back(
      b.getNamedAttr("nvfp4_use_4over6", b.getBoolAttr(getNvfp4Use_4over6())));
  entries.push_back(
      b.getNamedAttr("nvfp4_e4m3_max", b.getI64IntegerAttr(getNvfp4E4m3Max())));
  return DictionaryAttr::get(getContext(), entries);
}
