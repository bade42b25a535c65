// RUN: qs-opt %s -split-input-file --convert-qs-to-linalg | FileCheck %s

// MXFP8 row-wise quantize: a block-amax reduction over 1x32 blocks, the E8M0
// exponent, the scaled conversion and the zero-padded scale write.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @mxfp8
//   CHECK-NOT:   qs.quantize_buffers
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
//       CHECK:     math.absf
//       CHECK:     arith.maxnumf
//       CHECK:   tensor.pad
//       CHECK:   return {{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
func.func @mxfp8(%x: tensor<64x128xbf16>, %d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>)
    -> (tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %r:2 = qs.quantize_buffers %x outs(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      as !q : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %r#0, %r#1 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

// GEMM-swizzled scales are a tiled transpose of the padded scale matrix.
!q = !qs.tensor<128x128xbf16, #qs.nvfp4<columnwise = false, optimize_for_gemm = true>>
// CHECK-LABEL: func.func @nvfp4_swizzled
//       CHECK:   tensor.expand_shape {{.*}} into tensor<1x4x32x2x4xi8>
//       CHECK:   linalg.transpose {{.*}} permutation = [0, 3, 2, 1, 4]
func.func @nvfp4_swizzled(%x: tensor<128x128xbf16>, %d: tensor<128x64xi8>, %s: tensor<128x8xf8E4M3FN>,
                          %a: tensor<1xf32>) -> (tensor<128x64xi8>, tensor<128x8xf8E4M3FN>, tensor<1xf32>) {
  %r:3 = qs.quantize_buffers %x outs(%d, %s, %a : tensor<128x64xi8>, tensor<128x8xf8E4M3FN>, tensor<1xf32>)
      as !q : tensor<128x128xbf16> -> tensor<128x64xi8>, tensor<128x8xf8E4M3FN>, tensor<1xf32>
  return %r#0, %r#1, %r#2 : tensor<128x64xi8>, tensor<128x8xf8E4M3FN>, tensor<1xf32>
}

// -----

// A GEMM promotes per contraction block: partial sums over [rows, blocks, blockK] views.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @gemm
//       CHECK:   tensor.expand_shape {{.*}} into tensor<64x4x32xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
//   CHECK-NOT:   qs.gemm_buffers
func.func @gemm(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>, %o: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = qs.gemm_buffers a(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !q
      b(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !q
      outs(%o : tensor<64x64xf32>) transpose_b -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// Creating the per-tensor FP8 transpose is a byte transpose.
!row = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
!both = !qs.tensor<4x8xbf16, #qs.fp8_current>
// CHECK-LABEL: func.func @transpose
//       CHECK:   linalg.transpose ins(%{{.*}} : tensor<4x8xf8E4M3FN>) outs(%{{.*}} : tensor<8x4xf8E4M3FN>) permutation = [1, 0]
func.func @transpose(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %t: tensor<8x4xf8E4M3FN>) -> tensor<8x4xf8E4M3FN> {
  %r = qs.update_usage_buffers ins(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) outs(%t : tensor<8x4xf8E4M3FN>)
      from !row to !both -> tensor<8x4xf8E4M3FN>
  return %r : tensor<8x4xf8E4M3FN>
}

// -----

// qs.amax: max |x| over the whole tensor, and with RHT max |RHT(x^T)| of
// the transform's four butterfly stages, joined into one tensor<2xf32>.
!q = !qs.tensor<32x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
// CHECK-LABEL: func.func @global_amaxes
//   CHECK-NOT:   qs.amax
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
//       CHECK:     math.absf
//       CHECK:     arith.maxnumf
//       CHECK:   arith.constant {{.*}}dense<{{.*}}> : tensor<16xf32>
// CHECK-COUNT-4:   arith.subf
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
//       CHECK:   %[[A:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xf32>
//       CHECK:   return %[[A]]
func.func @global_amaxes(%x: tensor<32x64xbf16>) -> tensor<2xf32> {
  %a = qs.amax %x as !q : tensor<32x64xbf16> -> tensor<2xf32>
  return %a : tensor<2xf32>
}
