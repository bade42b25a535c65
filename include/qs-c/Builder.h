/*===- qs-c/Builder.h - build functions of qs ops --------------------*- C -*-===*\
|*                                                                            *|
|* A small module-building surface: create a func.func with typed arguments,  *|
|* append qs ops to its body, and finish it with func.return. Every builder   *|
|* verifies the op it creates; on a violated rule it removes the op, reports  *|
|* the diagnostic to the context's handler and returns a null value. Ops go   *|
|* at the end of the entry block (before func.return once finished); every    *|
|* operand must be a value of that function, or the builder reports it.       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QS_C_BUILDER_H
#define QS_C_BUILDER_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Appends `func.func @name(argTypes)` with an entry block (and no results
/// yet) to the module body. Null if the name is taken.
MLIR_CAPI_EXPORTED MlirOperation qsFuncCreate(MlirModule module,
                                              MlirStringRef name,
                                              intptr_t numArgs,
                                              const MlirType *argTypes,
                                              MlirLocation loc);
MLIR_CAPI_EXPORTED MlirValue qsFuncGetArgument(MlirOperation func, intptr_t i);
/// Appends func.return of `results` and sets the function's result types.
MLIR_CAPI_EXPORTED MlirLogicalResult qsFuncFinish(MlirOperation func,
                                                  intptr_t numResults,
                                                  const MlirValue *results,
                                                  MlirLocation loc);

/// qs.empty of type `type`.
MLIR_CAPI_EXPORTED MlirValue qsBuildEmpty(MlirOperation func, MlirType type,
                                          MlirLocation loc);
/// qs.quantize; `scale` and `amax` (tensor<1xf32>) for delayed scaling,
/// which also returns the updated amax through `updatedAmax` (may be null
/// otherwise); `amax` alone for current scaling and NVFP4 (the given global
/// amaxes, as qsBuildAmax returns them: TE's amax reduction); `rng`
/// (tensor<2xi64>: seed, offset) only for NVFP4 with stochastic rounding.
/// Absent operands are null values.
MLIR_CAPI_EXPORTED MlirValue qsBuildQuantize(MlirOperation func,
                                             MlirValue input,
                                             MlirType resultType,
                                             MlirValue scale, MlirValue amax,
                                             MlirValue rng,
                                             MlirValue *updatedAmax,
                                             MlirLocation loc);
/// qs.amax: the global amaxes a qs.quantize of `input` into
/// `quantizedType` computes (tensor<1xf32>, or tensor<2xf32> for NVFP4 with
/// RHT); a diagnostic for quantizers without them.
MLIR_CAPI_EXPORTED MlirValue qsBuildAmax(MlirOperation func, MlirValue input,
                                         MlirType quantizedType,
                                         MlirLocation loc);
/// qs.bias_grad: the column sums of `input` (rows folded) rounded to the
/// element type of `resultType` (a 1-D ranked tensor of the input's last
/// dimension); a diagnostic otherwise.
MLIR_CAPI_EXPORTED MlirValue qsBuildBiasGrad(MlirOperation func,
                                             MlirValue input,
                                             MlirType resultType,
                                             MlirLocation loc);
/// An element-wise op between qs ops, built as a linalg.generic on tensors
/// (qs/Dialect/QS/Utils/Elementwise.h): `kind` is one of TE's activations
/// "gelu", "qgelu", "silu", "relu", "srelu" (one operand, x), their
/// backward "dgelu", "dqgelu", "dsilu", "drelu", "dsrelu" (two, dy and x:
/// dact(x) * dy), "add", "sub", "mul" (two) or "cast" (one), computed in
/// f32 by TE's formulas (transformer_engine/common/util/math.h) and
/// rounded to the element type of `resultType` (bf16, f16 or f32). The
/// first operand has the result's shape; a second the result's shape or,
/// broadcast over the rows, its last dimension alone. A diagnostic (and
/// null) where a rule is broken.
MLIR_CAPI_EXPORTED MlirValue qsBuildElementwise(
    MlirOperation func, MlirStringRef kind, intptr_t numOperands,
    const MlirValue *operands, MlirType resultType, MlirLocation loc);
/// qs.amax_and_scale_update: delayed scaling's recipe step for one tensor
/// on `history` (tensor<L x f32>, element 0 the step's amax) and `scale`
/// (tensor<1xf32>), with `amax` (tensor<1xf32>, TE's all-reduced amax; may
/// be null); `fp8Dtype` f8E4M3FN or f8E5M2 (null: f8E4M3FN), `margin` in
/// [-100, 100], `amaxComputeAlgo` "max" or "most_recent" (empty: "max").
/// Returns the rolled history and the new scale through `updatedScale`; a
/// diagnostic (and null) where a rule is broken.
MLIR_CAPI_EXPORTED MlirValue qsBuildAmaxAndScaleUpdate(
    MlirOperation func, MlirValue history, MlirValue scale, MlirValue amax,
    MlirType fp8Dtype, int64_t margin, MlirStringRef amaxComputeAlgo,
    MlirValue *updatedScale, MlirLocation loc);
MLIR_CAPI_EXPORTED MlirValue qsBuildDequantize(MlirOperation func,
                                               MlirValue input,
                                               MlirType resultType,
                                               MlirLocation loc);
MLIR_CAPI_EXPORTED MlirValue qsBuildUpdateUsage(MlirOperation func,
                                                MlirValue input,
                                                MlirType resultType,
                                                MlirLocation loc);
/// qs.gemm a, b; `bias` and `accumulate` may be null. `resultType` is a
/// ranked tensor or a !qs.tensor (an output quantizer); `scale` and `amax`
/// (tensor<1xf32>) only for a delayed-scaling result, which also returns the
/// updated amax through `updatedAmax` (may be null otherwise).
MLIR_CAPI_EXPORTED MlirValue qsBuildGemm(MlirOperation func, MlirValue a,
                                         MlirValue b, bool transposeA,
                                         bool transposeB, MlirValue bias,
                                         MlirValue accumulate,
                                         MlirType resultType, MlirValue scale,
                                         MlirValue amax,
                                         MlirValue *updatedAmax,
                                         MlirLocation loc);
/// Sets or clears `fast_accumulate` on the qs.gemm that defines `gemm`: the
/// tensor cores may sum in their own precision (TE's
/// use_split_accumulator=False; see qs.gemm). False (and a diagnostic) if
/// `gemm` is not the result of a qs.gemm.
MLIR_CAPI_EXPORTED bool qsGemmSetFastAccumulate(MlirValue gemm, bool fast,
                                                MlirLocation loc);
/// Sets one GEMM kernel option on the qs.gemm that defines `gemm`, as the
/// discardable attribute qs.gemm_<option> = value: "tile_n" (128, 192 or 256 :
/// i64), "persistent" (blocks of the persistent sm_90a kernels, >= 1 : i64),
/// "cluster" (1 or 2 : i64: pairs of blocks sharing B by TMA multicast) or
/// "schedule" ("cooperative" or "pingpong"), "epilogue" ("direct" or
/// "tma": D through shared memory and TMA stores), "split_k" (S : i64,
/// "auto" or "stream"), "split_k_reduce" ("kernel" or "fused"),
/// "scale_loads" ("ahead" or "in_tile": when the sm_90a FP8 block kernel
/// loads its scales) or "promotion" ("overlapped" or "in_tile": whether
/// the sm_90a kernels that promote do it while the next k-tile's wgmmas
/// run); see docs/GPU.md. The
/// dialect's rule for the attribute is checked at once: on a violation (or
/// another option name, or a value not defined by qs.gemm) it reports the
/// diagnostic, leaves the op unchanged and returns false.
MLIR_CAPI_EXPORTED bool qsGemmSetKernelOption(MlirValue gemm,
                                              MlirStringRef option,
                                              MlirAttribute value,
                                              MlirLocation loc);
/// Sets one quantize kernel option on the qs.quantize that defines
/// `quantized` (its first result), as the discardable attribute
/// qs.quantize_<option> = value: "stores" ("coalesced" or "direct": how the
/// GPU quantize kernels store codes; see docs/GPU.md). Checked as
/// qsGemmSetKernelOption checks: false and a diagnostic on a violation, an
/// unknown option or a value not defined by qs.quantize.
MLIR_CAPI_EXPORTED bool qsQuantizeSetKernelOption(MlirValue quantized,
                                                  MlirStringRef option,
                                                  MlirAttribute value,
                                                  MlirLocation loc);
MLIR_CAPI_EXPORTED MlirValue qsBuildAssemble(MlirOperation func,
                                             intptr_t numInputs,
                                             const MlirValue *inputs,
                                             MlirType resultType,
                                             MlirLocation loc);
/// qs.disassemble: writes the inner tensors to `outputs` (room for
/// `capacity` values) and returns their number, or -1 on error.
MLIR_CAPI_EXPORTED intptr_t qsBuildDisassemble(MlirOperation func,
                                               MlirValue input,
                                               intptr_t capacity,
                                               MlirValue *outputs,
                                               MlirLocation loc);

#ifdef __cplusplus
}
#endif

#endif // QS_C_BUILDER_H
