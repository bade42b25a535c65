/*===- qs-capi-test.c - the qs C API used from C --------------------------===*\
|*                                                                            *|
|* Proves that the C API is self-contained C: registers the dialects, builds  *|
|* quantizers and !qs.tensor types, lists inner tensors, builds a function of *|
|* qs ops, runs the storage pipeline, executes on the CPU. Output is          *|
|* FileChecked by capi.test.                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mlir-c/Dialect/Func.h"
#include "qs-c/Builder.h"
#include "qs-c/Dialect.h"
#include "qs-c/Passes.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void printToStderr(MlirStringRef s, void *user) {
  (void)user;
  fwrite(s.data, 1, s.length, stderr);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *user) {
  (void)user;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(d, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static void printInner(MlirType type, const char *chip) {
  intptr_t n = qsTensorTypeGetNumInnerTensors(type, str(chip));
  fprintf(stderr, "%s: %ld inner tensors\n", chip[0] ? chip : "default", (long)n);
  for (intptr_t i = 0; i < n; ++i) {
    MlirStringRef name = qsTensorTypeGetInnerTensorName(type, str(chip), i);
    fprintf(stderr, "  %.*s : ", (int)name.length, name.data);
    mlirTypePrint(qsTensorTypeGetInnerTensorType(type, str(chip), i), printToStderr, NULL);
    fprintf(stderr, "\n");
  }
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  qsRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  qsRegisterPasses();

  /* Quantizers and their parameters. */
  MlirType e4m3 = mlirFloat8E4M3FNTypeGet(ctx);
  MlirAttribute mx = qsMXFP8AttrGet(ctx, e4m3, true, false, false, true);
  // CHECK: mxfp8: #qs.mxfp8<columnwise = false, optimize_for_gemm = true> MXFP8Quantizer rowwise=1 columnwise=0 gemm=1
  fprintf(stderr, "mxfp8: ");
  mlirAttributePrint(mx, printToStderr, NULL);
  MlirStringRef cls = qsQuantizerGetClassName(mx);
  fprintf(stderr, " %.*s rowwise=%d columnwise=%d gemm=%d\n", (int)cls.length, cls.data,
          qsQuantizerGetRowwise(mx), qsQuantizerGetColumnwise(mx),
          qsMXFP8AttrGetOptimizeForGemm(mx));
  MlirAttribute block = qsFp8BlockAttrGet(ctx, e4m3, true, true, 1, true, 0.0f);
  // CHECK: block dim 1 pow2 1 eps 0
  fprintf(stderr, "block dim %ld pow2 %d eps %g\n", (long)qsFp8BlockAttrGetBlockScalingDim(block),
          qsFp8BlockAttrGetForcePow2Scales(block), qsFp8BlockAttrGetAmaxEpsilon(block));
  MlirAttribute nv =
      qsNVFP4AttrGet(ctx, true, true, true, true, false, false, false, false,
                     true, false, 448, mlirStringRefCreateFromCString("MAE"));
  // CHECK: nvfp4 rht 1 is nvfp4 1 is mxfp8 0
  fprintf(stderr, "nvfp4 rht %d is nvfp4 %d is mxfp8 %d\n", qsNVFP4AttrGetWithRht(nv),
          qsAttributeIsANVFP4(nv), qsAttributeIsAMXFP8(nv));

  /* A rule violation: a null attribute and a diagnostic. */
  // CHECK: diagnostic: with_rht requires with_post_rht_amax = true
  // CHECK: invalid nvfp4 is null: 1
  MlirAttribute bad =
      qsNVFP4AttrGet(ctx, true, true, true, false, false, false, false, false,
                     true, false, 448, mlirStringRefCreateFromCString("MAE"));
  fprintf(stderr, "invalid nvfp4 is null: %d\n", mlirAttributeIsNull(bad));

  /* 4over6 with the 256 bound and the MSE error. */
  MlirAttribute fos =
      qsNVFP4AttrGet(ctx, true, true, false, false, false, false, false, false,
                     true, true, 256, mlirStringRefCreateFromCString("MSE"));
  MlirStringRef mode = qsNVFP4AttrGet4over6ErrMode(fos);
  // CHECK: 4over6 1 e4m3_max 256 err_mode MSE
  fprintf(stderr, "4over6 %d e4m3_max %ld err_mode %.*s\n",
          qsNVFP4AttrGetUse4over6(fos), (long)qsNVFP4AttrGetE4m3Max(fos),
          (int)mode.length, mode.data);
  // CHECK: diagnostic: nvfp4_e4m3_max = 256 requires nvfp4_use_4over6 = true
  // CHECK: 256 without 4over6 is null: 1
  fprintf(stderr, "256 without 4over6 is null: %d\n",
          mlirAttributeIsNull(qsNVFP4AttrGet(
              ctx, true, true, false, false, false, false, false, false, true,
              false, 256, mlirStringRefCreateFromCString("MAE"))));

  /* Types and inner tensors. */
  int64_t shape[] = {2, 64, 256};
  MlirType bf16 = mlirBF16TypeGet(ctx);
  MlirType nvType = qsTensorTypeGet(ctx, 3, shape, bf16, nv);
  // CHECK: default: 6 inner tensors
  // CHECK-NEXT:   rowwise_data : tensor<2x64x128xi8>
  // CHECK-NEXT:   rowwise_scale_inv : tensor<128x16xf8E4M3FN>
  // CHECK-NEXT:   columnwise_data : tensor<256x64xi8>
  // CHECK-NEXT:   columnwise_scale_inv : tensor<256x8xf8E4M3FN>
  // CHECK-NEXT:   amax_rowwise : tensor<1xf32>
  // CHECK-NEXT:   amax_columnwise : tensor<1xf32>
  printInner(nvType, "");
  MlirAttribute cur = qsFp8CurrentAttrGet(ctx, e4m3, true, true, false, 0.0f);
  int64_t s2[] = {4, 8};
  MlirType curType = qsTensorTypeGet(ctx, 2, s2, bf16, cur);
  // CHECK: sm_90a: 3 inner tensors
  // CHECK: sm_100a: 2 inner tensors
  printInner(curType, "sm_90a");
  printInner(curType, "sm_100a");
  // CHECK: diagnostic: MXFP8 needs the last dimension K to be a multiple of 32, got K = 8
  // CHECK: bad type is null: 1
  fprintf(stderr, "bad type is null: %d\n",
          mlirTypeIsNull(qsTensorTypeGet(ctx, 2, s2, bf16, mx)));
  // CHECK: metadata: {cls = "Float8TensorStorage"
  fprintf(stderr, "metadata: ");
  mlirAttributePrint(qsTensorTypeGetStorageMetadata(curType), printToStderr, NULL);
  fprintf(stderr, "\n");

  /* Build a function: quantize x with current scaling, dequantize it. */
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirModule module = mlirModuleCreateEmpty(loc);
  MlirType xType = qsTensorTypeGetExpressedType(curType);
  MlirOperation fn = qsFuncCreate(module, str("roundtrip"), 1, &xType, loc);
  MlirValue x = qsFuncGetArgument(fn, 0);
  MlirValue q = qsBuildQuantize(fn, x, curType, (MlirValue){NULL}, (MlirValue){NULL}, (MlirValue){NULL}, NULL, loc);
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType outType = mlirRankedTensorTypeGet(2, s2, f32, mlirAttributeGetNull());
  MlirValue d = qsBuildDequantize(fn, q, outType, loc);
  MlirValue results[2] = {q, d};
  // CHECK: finished: 1
  fprintf(stderr, "finished: %d\n", mlirLogicalResultIsSuccess(qsFuncFinish(fn, 2, results, loc)));
  // NVFP4 stochastic rounding takes the rng state (tensor<2xi64>) as an
  // operand; without it the builder reports the rule.
  // CHECK: "qs.quantize"(%arg0, %arg1) <{operandSegmentSizes = array<i32: 1, 0, 0, 1>}> : (tensor<32x64xbf16>, tensor<2xi64>)
  MlirAttribute sr =
      qsNVFP4AttrGet(ctx, true, false, false, false, false, true, false, false,
                     true, false, 448, mlirStringRefCreateFromCString("MAE"));
  int64_t s5[] = {32, 64}, s6[] = {2};
  MlirType srType = qsTensorTypeGet(ctx, 2, s5, bf16, sr);
  MlirType srArgs[2] = {qsTensorTypeGetExpressedType(srType),
                        mlirRankedTensorTypeGet(1, s6, mlirIntegerTypeGet(ctx, 64),
                                                mlirAttributeGetNull())};
  MlirOperation fnSr = qsFuncCreate(module, str("stochastic"), 2, srArgs, loc);
  MlirValue srQ = qsBuildQuantize(fnSr, qsFuncGetArgument(fnSr, 0), srType, (MlirValue){NULL},
                                  (MlirValue){NULL}, qsFuncGetArgument(fnSr, 1), NULL, loc);
  mlirOperationPrint(mlirOpResultGetOwner(srQ), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: diagnostic: 'qs.quantize' op with stochastic rounding (#qs.nvfp4 stochastic_rounding) needs an rng(...) operand
  // CHECK: no rng state is null: 1
  fprintf(stderr, "no rng state is null: %d\n",
          mlirValueIsNull(qsBuildQuantize(fnSr, qsFuncGetArgument(fnSr, 0), srType,
                                          (MlirValue){NULL}, (MlirValue){NULL},
                                          (MlirValue){NULL}, NULL, loc)));
  // qs.amax: the quantize's global amaxes, a tensor<1xf32> here (NVFP4
  // without RHT); a quantizer without them gets the dialect's diagnostic.
  // CHECK: amax type: tensor<1xf32>
  MlirValue amax = qsBuildAmax(fnSr, qsFuncGetArgument(fnSr, 0), srType, loc);
  fprintf(stderr, "amax type: ");
  mlirTypePrint(mlirValueGetType(amax), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirOperationDestroy(mlirOpResultGetOwner(amax));
  // CHECK: diagnostic: 'qs.amax' op returns the global amaxes only where tensor-wide amaxes scale the whole tensor
  // CHECK: amax of mxfp8 is null: 1
  fprintf(stderr, "amax of mxfp8 is null: %d\n",
          mlirValueIsNull(qsBuildAmax(
              fnSr, qsFuncGetArgument(fnSr, 0),
              qsTensorTypeGet(ctx, 2, s5, bf16, mx), loc)));
  // CHECK: diagnostic: 'qs.amax' takes the !qs.tensor type a quantize would produce, got 'f32'
  qsBuildAmax(fnSr, qsFuncGetArgument(fnSr, 0), f32, loc);
  // qs.bias_grad: the column sums of a high-precision tensor, 1-D of its
  // last dimension; a quantized operand is refused.
  // CHECK: bias_grad type: tensor<64xf32>
  int64_t s64[] = {64};
  MlirType dbType = mlirRankedTensorTypeGet(1, s64, f32, mlirAttributeGetNull());
  MlirValue db = qsBuildBiasGrad(fnSr, qsFuncGetArgument(fnSr, 0), dbType, loc);
  fprintf(stderr, "bias_grad type: ");
  mlirTypePrint(mlirValueGetType(db), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirOperationDestroy(mlirOpResultGetOwner(db));
  // CHECK: diagnostic: 'qs.bias_grad' takes a high-precision ranked tensor, got '!qs.tensor<32x64xbf16, #qs.nvfp4
  // CHECK: bias_grad of a quantized tensor is null: 1
  fprintf(stderr, "bias_grad of a quantized tensor is null: %d\n",
          mlirValueIsNull(qsBuildBiasGrad(fnSr, srQ, dbType, loc)));
  // Element-wise ops between qs ops (a linalg.generic on tensors): TE's
  // GELU in f32 rounded to bf16, a bias add broadcast over the rows; each
  // rule a diagnostic.
  // CHECK: gelu: linalg.generic -> tensor<32x64xbf16>
  // CHECK: bias add: linalg.generic -> tensor<32x64xf32>
  MlirValue ewArgs[2] = {qsFuncGetArgument(fnSr, 0), qsFuncGetArgument(fnSr, 1)};
  MlirType rowsType = qsTensorTypeGetExpressedType(srType);
  MlirValue gelu = qsBuildElementwise(fnSr, str("gelu"), 1, ewArgs, rowsType, loc);
  MlirValue biasAdd[2] = {gelu, qsBuildBiasGrad(fnSr, ewArgs[0], dbType, loc)};
  MlirValue sum = qsBuildElementwise(fnSr, str("add"), 2, biasAdd,
                                     mlirRankedTensorTypeGet(2, s5, f32, mlirAttributeGetNull()),
                                     loc);
  MlirValue built[2] = {gelu, sum};
  const char *what[2] = {"gelu", "bias add"};
  for (int i = 0; i < 2; ++i) {
    MlirStringRef op = mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(built[i])));
    fprintf(stderr, "%s: %.*s -> ", what[i], (int)op.length, op.data);
    mlirTypePrint(mlirValueGetType(built[i]), printToStderr, NULL);
    fprintf(stderr, "\n");
  }
  // CHECK: diagnostic: unknown element-wise op 'tanh'; one of: gelu, qgelu, silu, relu, srelu, dgelu, dqgelu, dsilu, drelu, dsrelu, add, sub, mul, cast
  // CHECK: diagnostic: 'gelu' takes 1 tensor operand(s), got 2
  // CHECK: diagnostic: 'add' operand #1 must be a ranked tensor of bf16, f16 or f32, got 'tensor<2xi64>'
  // CHECK: diagnostic: 'relu' operand #0 has shape 'tensor<32x64xbf16>'; operands have the result's shape (the second may be 1-D of its last dimension, broadcast over the rows): 'tensor<4x4xf32>'
  // CHECK: diagnostic: 'relu' result type must be a statically shaped tensor of bf16, f16 or f32, got 'tensor<32x64xi64>'
  // CHECK: diagnostic: 'cast' produces a ranked tensor, got 'f32'
  // CHECK: rejected element-wise ops: 1 1 1 1 1 1
  int64_t s4x4ew[] = {4, 4};
  fprintf(stderr, "rejected element-wise ops: %d %d %d %d %d %d\n",
          mlirValueIsNull(qsBuildElementwise(fnSr, str("tanh"), 1, ewArgs, rowsType, loc)),
          mlirValueIsNull(qsBuildElementwise(fnSr, str("gelu"), 2, ewArgs, rowsType, loc)),
          mlirValueIsNull(qsBuildElementwise(fnSr, str("add"), 2, ewArgs, rowsType, loc)),
          mlirValueIsNull(qsBuildElementwise(
              fnSr, str("relu"), 1, ewArgs,
              mlirRankedTensorTypeGet(2, s4x4ew, f32, mlirAttributeGetNull()), loc)),
          mlirValueIsNull(qsBuildElementwise(
              fnSr, str("relu"), 1, ewArgs,
              mlirRankedTensorTypeGet(2, s5, mlirIntegerTypeGet(ctx, 64), mlirAttributeGetNull()),
              loc)),
          mlirValueIsNull(qsBuildElementwise(fnSr, str("cast"), 1, ewArgs, f32, loc)));
  // qs.amax_and_scale_update: delayed scaling's recipe step; the defaults
  // (E4M3, margin 0, "max") elided, and each rule a diagnostic.
  // CHECK: "qs.amax_and_scale_update"(%arg0, %arg1, %arg1) <{amax_compute_algo = "most_recent", fp8_dtype = f8E5M2, margin = 1 : i64}> : (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<16xf32>, tensor<1xf32>)
  // CHECK: updated scale type: tensor<1xf32>
  int64_t s16[] = {16}, s1[] = {1}, s4x4[] = {4, 4};
  MlirType recipeArgs[3] = {
      mlirRankedTensorTypeGet(1, s16, f32, mlirAttributeGetNull()),
      mlirRankedTensorTypeGet(1, s1, f32, mlirAttributeGetNull()),
      mlirRankedTensorTypeGet(2, s4x4, f32, mlirAttributeGetNull())};
  MlirOperation fnRecipe = qsFuncCreate(module, str("recipe"), 3, recipeArgs, loc);
  MlirValue hist = qsFuncGetArgument(fnRecipe, 0), sc = qsFuncGetArgument(fnRecipe, 1);
  MlirValue newScale = {NULL};
  MlirValue newHist = qsBuildAmaxAndScaleUpdate(
      fnRecipe, hist, sc, sc, mlirFloat8E5M2TypeGet(ctx), 1, str("most_recent"), &newScale, loc);
  mlirOperationPrint(mlirOpResultGetOwner(newHist), printToStderr, NULL);
  fprintf(stderr, "\nupdated scale type: ");
  mlirTypePrint(mlirValueGetType(newScale), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: "qs.amax_and_scale_update"(%arg0, %arg1) <{amax_compute_algo = "max", margin = 0 : i64}> : (tensor<16xf32>, tensor<1xf32>) -> (tensor<16xf32>, tensor<1xf32>)
  MlirValue plain = qsBuildAmaxAndScaleUpdate(fnRecipe, hist, sc, (MlirValue){NULL},
                                              (MlirType){NULL}, 0, str(""), NULL, loc);
  mlirOperationPrint(mlirOpResultGetOwner(plain), printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirOperationDestroy(mlirOpResultGetOwner(plain));
  // CHECK: diagnostic: 'qs.amax_and_scale_update' op margin must be in [-100, 100] (fp8_max * 2^-margin an exact, normal f32), got 200
  // CHECK: diagnostic: 'qs.amax_and_scale_update' op amax_compute_algo must be "max" or "most_recent" (TE's DelayedScaling), got "mean"
  // CHECK: diagnostic: 'qs.amax_and_scale_update' op operand #0 must be 1-D f32 tensor, but got 'tensor<4x4xf32>'
  // CHECK: rejected scale updates: 1 1 1
  fprintf(stderr, "rejected scale updates: %d %d %d\n",
          mlirValueIsNull(qsBuildAmaxAndScaleUpdate(fnRecipe, hist, sc, (MlirValue){NULL},
                                                    (MlirType){NULL}, 200, str(""), NULL, loc)),
          mlirValueIsNull(qsBuildAmaxAndScaleUpdate(fnRecipe, hist, sc, (MlirValue){NULL},
                                                    (MlirType){NULL}, 0, str("mean"), NULL, loc)),
          mlirValueIsNull(qsBuildAmaxAndScaleUpdate(fnRecipe, qsFuncGetArgument(fnRecipe, 2), sc,
                                                    (MlirValue){NULL}, (MlirType){NULL}, 0,
                                                    str(""), NULL, loc)));
  MlirValue recipeResults[2] = {newHist, newScale};
  // CHECK: recipe finished: 1
  fprintf(stderr, "recipe finished: %d\n",
          mlirLogicalResultIsSuccess(qsFuncFinish(fnRecipe, 2, recipeResults, loc)));
  // The quantize kernel option: qs.quantize_stores on the qs.quantize,
  // checked by the dialect's rule at once.
  // CHECK: quantize option: 1
  // CHECK: "qs.quantize"{{.*}} {qs.quantize_stores = "direct"}
  fprintf(stderr, "quantize option: %d\n",
          qsQuantizeSetKernelOption(srQ, str("stores"), mlirStringAttrGet(ctx, str("direct")), loc));
  mlirOperationPrint(mlirOpResultGetOwner(srQ), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: diagnostic: 'qs.quantize_stores' must be the string "coalesced" or "direct" (how the quantize kernels store codes), got "staged"
  // CHECK: diagnostic: unknown quantize kernel option 'order' (stores)
  // CHECK: diagnostic: quantize kernel options apply to the result of a 'qs.quantize'
  // CHECK: rejected quantize options: 0 0 0
  fprintf(stderr, "rejected quantize options: %d %d %d\n",
          qsQuantizeSetKernelOption(srQ, str("stores"), mlirStringAttrGet(ctx, str("staged")), loc),
          qsQuantizeSetKernelOption(srQ, str("order"), mlirStringAttrGet(ctx, str("direct")), loc),
          qsQuantizeSetKernelOption(qsFuncGetArgument(fnSr, 0), str("stores"),
                                    mlirStringAttrGet(ctx, str("direct")), loc));
  qsFuncFinish(fnSr, 1, &srQ, loc);
  // A GEMM whose operand lacks the usage it needs is rejected, op removed.
  // CHECK: diagnostic: 'qs.gemm' op contraction sizes differ
  // CHECK: bad gemm is null: 1
  MlirOperation fn2 = qsFuncCreate(module, str("bad"), 1, &curType, loc);
  MlirValue a = qsFuncGetArgument(fn2, 0);
  int64_t s3[] = {4, 4};
  MlirValue g = qsBuildGemm(fn2, a, a, false, false, (MlirValue){NULL}, (MlirValue){NULL},
                            mlirRankedTensorTypeGet(2, s3, f32, mlirAttributeGetNull()),
                            (MlirValue){NULL}, (MlirValue){NULL}, NULL, loc);
  fprintf(stderr, "bad gemm is null: %d\n", mlirValueIsNull(g));
  // GEMM kernel options: set as qs.gemm_<option> = value : i64 on a valid
  // GEMM, checked by the dialect's rule at once.
  int64_t s4[] = {4, 4};
  MlirValue gemm = qsBuildGemm(fn2, a, a, false, true, (MlirValue){NULL}, (MlirValue){NULL},
                               mlirRankedTensorTypeGet(2, s4, f32, mlirAttributeGetNull()),
                               (MlirValue){NULL}, (MlirValue){NULL}, NULL, loc);
  // CHECK: gemm options: 1 1 1 1 1 1 1
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  fprintf(stderr, "gemm options: %d %d %d %d %d %d %d\n",
          qsGemmSetKernelOption(gemm, str("cluster"), mlirIntegerAttrGet(i64, 2), loc),
          qsGemmSetKernelOption(gemm, str("persistent"), mlirIntegerAttrGet(i64, 132), loc),
          qsGemmSetKernelOption(gemm, str("schedule"), mlirStringAttrGet(ctx, str("pingpong")), loc),
          qsGemmSetKernelOption(gemm, str("epilogue"), mlirStringAttrGet(ctx, str("tma")), loc),
          qsGemmSetKernelOption(gemm, str("scale_loads"), mlirStringAttrGet(ctx, str("in_tile")), loc),
          qsGemmSetKernelOption(gemm, str("promotion"), mlirStringAttrGet(ctx, str("in_tile")), loc),
          qsGemmSetKernelOption(gemm, str("mx_scaling"), mlirStringAttrGet(ctx, str("promote")), loc));
  // fast_accumulate (an inherent unit attribute of qs.gemm).
  // CHECK: fast_accumulate: 1
  fprintf(stderr, "fast_accumulate: %d\n", qsGemmSetFastAccumulate(gemm, true, loc));
  // CHECK: "qs.gemm"{{.*}} <{fast_accumulate, {{.*}}transpose_b}> {qs.gemm_cluster = 2 : i64, qs.gemm_epilogue = "tma", qs.gemm_mx_scaling = "promote", qs.gemm_persistent = 132 : i64, qs.gemm_promotion = "in_tile", qs.gemm_scale_loads = "in_tile", qs.gemm_schedule = "pingpong"}
  mlirOperationPrint(mlirOpResultGetOwner(gemm), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: diagnostic: fast_accumulate applies to the result of a 'qs.gemm'
  // CHECK: fast_accumulate on a non-GEMM: 0
  fprintf(stderr, "fast_accumulate on a non-GEMM: %d\n", qsGemmSetFastAccumulate(a, true, loc));
  // CHECK: diagnostic: 'qs.gemm_persistent' must be an i64 of at least 1 (the number of blocks of the persistent GEMM kernels), got 0 : i64
  // CHECK: diagnostic: 'qs.gemm_schedule' must be the string "cooperative" or "pingpong" (how the GEMM kernel's consumer warpgroups share the output tiles), got 2 : i64
  // CHECK: diagnostic: 'qs.gemm_epilogue' must be the string "direct" or "tma" (how the GEMM kernels store their output), got "stmatrix"
  // CHECK: diagnostic: unknown GEMM kernel option 'stages' (tile_n, persistent, cluster, schedule, epilogue, split_k, split_k_reduce, scale_loads, promotion, mx_scaling)
  // CHECK: diagnostic: GEMM kernel options apply to the result of a 'qs.gemm'
  // CHECK: diagnostic: GEMM kernel option 'cluster' got a null attribute
  // CHECK: rejected options: 0 0 0 0 0 0
  fprintf(stderr, "rejected options: %d %d %d %d %d %d\n",
          qsGemmSetKernelOption(gemm, str("persistent"), mlirIntegerAttrGet(i64, 0), loc),
          qsGemmSetKernelOption(gemm, str("schedule"), mlirIntegerAttrGet(i64, 2), loc),
          qsGemmSetKernelOption(gemm, str("epilogue"), mlirStringAttrGet(ctx, str("stmatrix")), loc),
          qsGemmSetKernelOption(gemm, str("stages"), mlirIntegerAttrGet(i64, 4), loc),
          qsGemmSetKernelOption(a, str("cluster"), mlirIntegerAttrGet(i64, 2), loc),
          qsGemmSetKernelOption(gemm, str("cluster"), mlirAttributeGetNull(), loc));
  mlirOperationDestroy(mlirOpResultGetOwner(gemm));
  // An output quantizer: a !qs.tensor result type.
  // CHECK: quantized result: !qs.tensor<4x4xbf16, #qs.fp8_current> updated amax null: 1
  MlirValue updated = {NULL};
  MlirValue qgemm = qsBuildGemm(fn2, a, a, false, true, (MlirValue){NULL}, (MlirValue){NULL},
                                qsTensorTypeGet(ctx, 2, s4, bf16, cur), (MlirValue){NULL},
                                (MlirValue){NULL}, &updated, loc);
  fprintf(stderr, "quantized result: ");
  mlirTypePrint(mlirValueGetType(qgemm), printToStderr, NULL);
  fprintf(stderr, " updated amax null: %d\n", mlirValueIsNull(updated));
  mlirOperationDestroy(mlirOpResultGetOwner(qgemm));
  // CHECK: diagnostic: 'qs.gemm' produces a ranked tensor or a !qs.tensor (an output quantizer), got 'f32'
  qsBuildGemm(fn2, a, a, false, true, (MlirValue){NULL}, (MlirValue){NULL}, f32,
              (MlirValue){NULL}, (MlirValue){NULL}, NULL, loc);
  // A value of another function is reported, not wired in.
  // CHECK: diagnostic: 'qs.dequantize' operand #0 is not a value of @bad; values cannot cross functions or modules
  // CHECK: foreign operand is null: 1
  fprintf(stderr, "foreign operand is null: %d\n",
          mlirValueIsNull(qsBuildDequantize(fn2, q, outType, loc)));
  qsFuncFinish(fn2, 0, NULL, loc);

  /* Misuse of the builders is reported, never a crash. */
  // CHECK: diagnostic: 'qs.dequantize' got a null operand
  qsBuildDequantize(fn2, (MlirValue){NULL}, outType, loc);
  // CHECK: diagnostic: 'qs.empty' builds a !qs.tensor, got 'tensor<4x8xf32>'
  qsBuildEmpty(fn2, outType, loc);
  // CHECK: diagnostic: 'qs.quantize' produces a !qs.tensor, got 'tensor<4x8xf32>'
  qsBuildQuantize(fn2, a, outType, (MlirValue){NULL}, (MlirValue){NULL}, (MlirValue){NULL}, NULL, loc);
  // CHECK: diagnostic: 'qs.dequantize' produces a ranked tensor, got '!qs.tensor<4x8xbf16, #qs.fp8_current>'
  qsBuildDequantize(fn2, a, curType, loc);
  // CHECK: diagnostic: 'qs.update_usage' takes a !qs.tensor, got 'tensor<4x8xbf16>'
  qsBuildUpdateUsage(fn2, x, curType, loc);
  // CHECK: diagnostic: 'qs.disassemble' has 3 results, room for 1
  MlirValue one[1];
  fprintf(stderr, "disassemble: %ld\n", (long)qsBuildDisassemble(fn2, a, 1, one, loc));
  // CHECK: disassemble: -1
  // CHECK: diagnostic: a symbol @bad already exists in the module
  // CHECK: duplicate is null: 1
  fprintf(stderr, "duplicate is null: %d\n",
          mlirOperationIsNull(qsFuncCreate(module, str("bad"), 0, NULL, loc)));
  // CHECK: diagnostic: !qs.tensor needs a quantizer attribute, got unit
  // CHECK: non-quantizer type is null: 1
  fprintf(stderr, "non-quantizer type is null: %d\n",
          mlirTypeIsNull(qsTensorTypeGet(ctx, 2, s2, bf16, mlirUnitAttrGet(ctx))));

  // CHECK: func.func @roundtrip(%arg0: tensor<4x8xbf16>) -> (!qs.tensor<4x8xbf16, #qs.fp8_current>, tensor<4x8xf32>)
  // CHECK: qs.quantize %arg0
  // CHECK: qs.dequantize
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");

  /* The flattened signature and a CPU run: x = 1.0 everywhere. */
  // CHECK: flat inputs 1 results 4 first result 'data'
  intptr_t nIn = qsFunctionGetNumFlatInputs(module, str("roundtrip"));
  intptr_t nOut = qsFunctionGetNumFlatResults(module, str("roundtrip"));
  QSFlatValue r0 = qsFunctionGetFlatResult(module, str("roundtrip"), 0);
  fprintf(stderr, "flat inputs %ld results %ld first result '%.*s'\n", (long)nIn, (long)nOut,
          (int)r0.innerName.length, r0.innerName.data);
  uint16_t xs[32];
  for (int i = 0; i < 32; ++i)
    xs[i] = 0x3F80; /* bf16 1.0 */
  uint8_t data[32], transpose[32];
  float scaleInv, values[32];
  const void *ins[] = {xs};
  void *outs[] = {data, transpose, &scaleInv, values};
  MlirLogicalResult ran = qsRunOnCPU(module, str("roundtrip"), 1, ins, 4, outs);
  // CHECK: ran 1: data[0] 0x7e scale_inv 0.00223214 value 1
  fprintf(stderr, "ran %d: data[0] 0x%02x scale_inv %g value %g\n", mlirLogicalResultIsSuccess(ran),
          data[0], scaleInv, values[5]);

  // CHECK: diagnostic: @roundtrip takes 1 flattened inputs and 4 results, got 1 and 2
  // CHECK: wrong count 0
  fprintf(stderr, "wrong count %d\n",
          mlirLogicalResultIsSuccess(qsRunOnCPU(module, str("roundtrip"), 1, ins, 2, outs)));
  // CHECK: diagnostic: no function @nope with a body in the module
  // CHECK: missing function -1
  fprintf(stderr, "missing function %ld\n", (long)qsFunctionGetNumFlatInputs(module, str("nope")));

  /* The storage pipeline by name. */
  // CHECK: pipeline 1
  // CHECK: qs.quantize_buffers
  fprintf(stderr, "pipeline %d\n", mlirLogicalResultIsSuccess(qsRunPassPipeline(
                                       module, str("builtin.module(qs-storage-pipeline)"))));
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: diagnostic: invalid pass pipeline 'no-such-pass'
  // CHECK: bad pipeline 0
  fprintf(stderr, "bad pipeline %d\n",
          mlirLogicalResultIsSuccess(qsRunPassPipeline(module, str("no-such-pass"))));

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);

  /* A context that loads only the qs and func dialect handles lacks the
     reference models (qsRegisterAllDialects attaches them): the reference
     lowering says so instead of failing obscurely. */
  MlirContext bare = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__qs__(), bare);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), bare);
  mlirContextAttachDiagnosticHandler(bare, onDiagnostic, NULL, NULL);
  MlirModule m2 = mlirModuleCreateParse(
      bare, str("func.func @f(%x: tensor<32x32xbf16>) -> !qs.tensor<32x32xbf16, #qs.mxfp8> {\n"
                "  %q = qs.quantize %x : tensor<32x32xbf16> -> !qs.tensor<32x32xbf16, #qs.mxfp8>\n"
                "  return %q : !qs.tensor<32x32xbf16, #qs.mxfp8>\n}"));
  // CHECK: diagnostic: no reference lowering for '!qs.tensor<32x32xbf16, #qs.mxfp8>' (the quantizer has no QuantizerReferenceInterface model: call registerQSToLinalgInterfaces)
  // CHECK: without models 0
  fprintf(stderr, "without models %d\n",
          mlirLogicalResultIsSuccess(qsRunPassPipeline(m2, str("qs-expand-storage,convert-qs-to-linalg"))));
  mlirModuleDestroy(m2);
  mlirContextDestroy(bare);
  return 0;
}
