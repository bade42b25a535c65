// RUN: qs-opt %s -split-input-file --qs-describe-storage -o /dev/null | FileCheck %s
// RUN: qs-opt %s -split-input-file --qs-describe-storage=metadata=true -o /dev/null | FileCheck %s --check-prefix=META

// te-formats.md §7.5 row 1: per-tensor FP8 on a TN-only chip (default sm_90a).
// CHECK-LABEL: @fp8_tn arg 0: !qs.tensor<4x8xbf16, #qs.fp8_current>
//  CHECK-NEXT:   data : tensor<4x8xf8E4M3FN>
//  CHECK-NEXT:   transpose : tensor<8x4xf8E4M3FN>
//  CHECK-NEXT:   scale_inv : tensor<1xf32>
// META-LABEL: @fp8_tn arg 0
//  META-NEXT:   metadata: {cls = "Float8TensorStorage", fake_dtype = bf16, fp8_dtype = f8E4M3FN, quantizer = #qs.fp8_current}
func.func private @fp8_tn(!qs.tensor<4x8xbf16, #qs.fp8_current>)

// -----

// §7.5 row 2: per-tensor FP8 on a non-TN chip: one data buffer serves both usages.
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: @fp8_non_tn arg 0: !qs.tensor<4x8xbf16, #qs.fp8_current>
  //  CHECK-NEXT:   data : tensor<4x8xf8E4M3FN>
  //  CHECK-NEXT:   scale_inv : tensor<1xf32>
  //  CHECK-NEXT: @fp8_non_tn arg 1: !qs.tensor<4x8xbf16, #qs.fp8_delayed<rowwise = false>>
  //  CHECK-NEXT:   data : tensor<4x8xf8E4M3FN>
  //  CHECK-NEXT:   scale_inv : tensor<1xf32>
  func.func private @fp8_non_tn(!qs.tensor<4x8xbf16, #qs.fp8_current>,
                                !qs.tensor<4x8xbf16, #qs.fp8_delayed<rowwise = false>>)
}

// -----

// Per-tensor FP8 with one usage on sm_90a; the transpose keeps the leading dimensions.
// CHECK-LABEL: @fp8_usages arg 0: !qs.tensor<2x3x16xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>>
//  CHECK-NEXT:   data : tensor<2x3x16xf8E5M2>
//  CHECK-NEXT:   scale_inv : tensor<1xf32>
//  CHECK-NEXT: @fp8_usages arg 1: !qs.tensor<2x3x16xbf16, #qs.fp8_delayed<rowwise = false>>
//  CHECK-NEXT:   transpose : tensor<16x2x3xf8E4M3FN>
//  CHECK-NEXT:   scale_inv : tensor<1xf32>
func.func private @fp8_usages(
  !qs.tensor<2x3x16xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2, columnwise = false>>,
  !qs.tensor<2x3x16xbf16, #qs.fp8_delayed<rowwise = false>>)

// -----

// Consumer Blackwell (12.x) is TN-only again.
module attributes {qs.chip = "sm_120a"} {
  // CHECK-LABEL: @fp8_sm120 arg 0: !qs.tensor<4x8xf16, #qs.fp8_current>
  //  CHECK-NEXT:   data : tensor<4x8xf8E4M3FN>
  //  CHECK-NEXT:   transpose : tensor<8x4xf8E4M3FN>
  //  CHECK-NEXT:   scale_inv : tensor<1xf32>
  func.func private @fp8_sm120(!qs.tensor<4x8xf16, #qs.fp8_current>)
}

// -----

// §7.5 row 3: MXFP8 (64, 128); column-wise data is not transposed.
// CHECK-LABEL: @mxfp8 arg 0: !qs.tensor<64x128xbf16, #qs.mxfp8>
//  CHECK-NEXT:   rowwise_data : tensor<64x128xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x4xf8E8M0FNU>
//  CHECK-NEXT:   columnwise_data : tensor<64x128xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<4x128xf8E8M0FNU>
// META-LABEL: @mxfp8 arg 0
//  META-NEXT:   metadata: {cls = "MXFP8TensorStorage", fake_dtype = bf16, fp8_dtype = f8E4M3FN, quantizer = #qs.mxfp8, with_gemm_swizzled_scales = false}
func.func private @mxfp8(!qs.tensor<64x128xbf16, #qs.mxfp8>)

// -----

// §7.5 row 7: MXFP8 (2, 64, 256) folds to M = 128; one usage at a time.
// CHECK-LABEL: @mxfp8_3d arg 0: !qs.tensor<2x64x256xbf16, #qs.mxfp8>
//  CHECK-NEXT:   rowwise_data : tensor<2x64x256xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x8xf8E8M0FNU>
//  CHECK-NEXT:   columnwise_data : tensor<2x64x256xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<4x256xf8E8M0FNU>
//  CHECK-NEXT: @mxfp8_3d arg 1: !qs.tensor<2x64x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
//  CHECK-NEXT:   rowwise_data : tensor<2x64x256xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x8xf8E8M0FNU>
//  CHECK-NEXT: @mxfp8_3d arg 2: !qs.tensor<2x64x256xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, rowwise = false>>
//  CHECK-NEXT:   columnwise_data : tensor<2x64x256xf8E5M2>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<4x256xf8E8M0FNU>
// META-LABEL: @mxfp8_3d arg 1
//  META-NEXT:   metadata: {{{.*}}with_gemm_swizzled_scales = true}
func.func private @mxfp8_3d(
  !qs.tensor<2x64x256xbf16, #qs.mxfp8>,
  !qs.tensor<2x64x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>,
  !qs.tensor<2x64x256xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, rowwise = false>>)

// -----

// §7.5 row 4: 128x128 block FP8 (128, 256); column-wise data is transposed.
// CHECK-LABEL: @block_2d arg 0: !qs.tensor<128x256xbf16, #qs.fp8_block>
//  CHECK-NEXT:   rowwise_data : tensor<128x256xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<1x4xf32>
//  CHECK-NEXT:   columnwise_data : tensor<256x128xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<2x4xf32>
// META-LABEL: @block_2d arg 0
//  META-NEXT:   metadata: {cls = "Float8BlockwiseQTensorStorage", fake_dtype = bf16, fp8_dtype = f8E4M3FN, is_2D_scaled = true, quantizer = #qs.fp8_block}
func.func private @block_2d(!qs.tensor<128x256xbf16, #qs.fp8_block>)

// -----

// §7.5 row 5: 1x128 block FP8 (128, 256).
// CHECK-LABEL: @block_1d arg 0: !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
//  CHECK-NEXT:   rowwise_data : tensor<128x256xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<2x128xf32>
//  CHECK-NEXT:   columnwise_data : tensor<256x128xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<1x256xf32>
func.func private @block_1d(!qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>)

// -----

// §7.5 row 8: 1x128 block FP8 (2, 64, 256); the transpose keeps the leading dimensions.
// CHECK-LABEL: @block_1d_3d arg 0: !qs.tensor<2x64x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
//  CHECK-NEXT:   rowwise_data : tensor<2x64x256xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<2x128xf32>
//  CHECK-NEXT:   columnwise_data : tensor<256x2x64xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<1x256xf32>
func.func private @block_1d_3d(!qs.tensor<2x64x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>)

// -----

// Block FP8 with partial edge blocks (te-formats.md §8.3: M = 300, K = 384), one usage each.
// CHECK-LABEL: @block_partial arg 0: !qs.tensor<300x384xf32, #qs.fp8_block<columnwise = false, block_scaling_dim = 1>>
//  CHECK-NEXT:   rowwise_data : tensor<300x384xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<3x300xf32>
//  CHECK-NEXT: @block_partial arg 1: !qs.tensor<300x384xf32, #qs.fp8_block<rowwise = false, block_scaling_dim = 1>>
//  CHECK-NEXT:   columnwise_data : tensor<384x300xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<3x384xf32>
//  CHECK-NEXT: @block_partial arg 2: !qs.tensor<300x384xf32, #qs.fp8_block<rowwise = false>>
//  CHECK-NEXT:   columnwise_data : tensor<384x300xf8E4M3FN>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<3x4xf32>
func.func private @block_partial(
  !qs.tensor<300x384xf32, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>,
  !qs.tensor<300x384xf32, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>,
  !qs.tensor<300x384xf32, #qs.fp8_block<rowwise = false>>)

// -----

// §7.5 row 6: NVFP4 (64, 128) with RHT (TE's test factory enables it).
// CHECK-LABEL: @nvfp4 arg 0: !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
//  CHECK-NEXT:   rowwise_data : tensor<64x64xi8>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x8xf8E4M3FN>
//  CHECK-NEXT:   columnwise_data : tensor<128x32xi8>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<128x4xf8E4M3FN>
//  CHECK-NEXT:   amax_rowwise : tensor<1xf32>
//  CHECK-NEXT:   amax_columnwise : tensor<1xf32>
// META-LABEL: @nvfp4 arg 0
//  META-NEXT:   metadata: {cls = "NVFP4TensorStorage", fake_dtype = bf16, fp4_dtype = f4E2M1FN, nvfp4_e4m3_max = 448 : i64, nvfp4_use_4over6 = false, quantizer = #qs.nvfp4<with_rht = true, with_post_rht_amax = true>, row_scaled_nvfp4 = false, with_gemm_swizzled_scales = false}
func.func private @nvfp4(!qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>)

// -----

// §7.5 row 9: NVFP4 (2, 64, 256); C++ flattens the column-wise data to (K, M/2).
// CHECK-LABEL: @nvfp4_3d arg 0: !qs.tensor<2x64x256xbf16, #qs.nvfp4>
//  CHECK-NEXT:   rowwise_data : tensor<2x64x128xi8>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x16xf8E4M3FN>
//  CHECK-NEXT:   columnwise_data : tensor<256x64xi8>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<256x8xf8E4M3FN>
//  CHECK-NEXT:   amax_rowwise : tensor<1xf32>
//  CHECK-NEXT:   amax_columnwise : tensor<1xf32>
func.func private @nvfp4_3d(!qs.tensor<2x64x256xbf16, #qs.nvfp4>)

// -----

// NVFP4 with one usage at a time, and row-scaled amaxes of size M and K.
// CHECK-LABEL: @nvfp4_usages arg 0: !qs.tensor<32x48xf32, #qs.nvfp4<columnwise = false>>
//  CHECK-NEXT:   rowwise_data : tensor<32x24xi8>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x4xf8E4M3FN>
//  CHECK-NEXT:   amax_rowwise : tensor<1xf32>
//  CHECK-NEXT: @nvfp4_usages arg 1: !qs.tensor<32x48xf32, #qs.nvfp4<rowwise = false>>
//  CHECK-NEXT:   columnwise_data : tensor<48x16xi8>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<128x4xf8E4M3FN>
//  CHECK-NEXT:   amax_columnwise : tensor<1xf32>
//  CHECK-NEXT: @nvfp4_usages arg 2: !qs.tensor<32x48xf32, #qs.nvfp4<row_scaled_nvfp4 = true>>
//  CHECK-NEXT:   rowwise_data : tensor<32x24xi8>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x4xf8E4M3FN>
//  CHECK-NEXT:   columnwise_data : tensor<48x16xi8>
//  CHECK-NEXT:   columnwise_scale_inv : tensor<128x4xf8E4M3FN>
//  CHECK-NEXT:   amax_rowwise : tensor<32xf32>
//  CHECK-NEXT:   amax_columnwise : tensor<48xf32>
func.func private @nvfp4_usages(
  !qs.tensor<32x48xf32, #qs.nvfp4<columnwise = false>>,
  !qs.tensor<32x48xf32, #qs.nvfp4<rowwise = false>>,
  !qs.tensor<32x48xf32, #qs.nvfp4<row_scaled_nvfp4 = true>>)

// -----

// Results are described after arguments; non-quantized values are skipped.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: @results arg 1: !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
//  CHECK-NEXT:   rowwise_data : tensor<64x128xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x4xf8E8M0FNU>
//  CHECK-NEXT: @results result 1: !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
//  CHECK-NEXT:   rowwise_data : tensor<64x128xf8E4M3FN>
//  CHECK-NEXT:   rowwise_scale_inv : tensor<128x4xf8E8M0FNU>
//   CHECK-NOT: @results
func.func @results(%x: tensor<64x128xbf16>, %q: !q) -> (tensor<64x128xbf16>, !q) {
  return %x, %q : tensor<64x128xbf16>, !q
}
