// RUN: qs-opt %s -split-input-file --qs-storage-pipeline | FileCheck %s
// RUN: qs-opt %s -split-input-file --qs-storage-pipeline="flatten=false" | FileCheck %s --check-prefix=NOFLAT
// RUN: qs-opt %s -split-input-file --qs-storage-pipeline="infer-usage=false select-scale-layout=false" | FileCheck %s --check-prefix=NOINFER

// An inference model (fprop only): column-wise buffers are never allocated, the scales the GEMM
// reads are written swizzled, and no !qs.tensor or assemble/disassemble remains.
!x = !qs.tensor<256x512xbf16, #qs.mxfp8>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @inference
//   CHECK-DAG:   %[[XD:.*]] = tensor.empty() : tensor<256x512xf8E4M3FN>
//   CHECK-DAG:   %[[XS:.*]] = tensor.empty() : tensor<256x16xf8E8M0FNU>
//       CHECK:   %[[QX:.*]]:2 = qs.quantize_buffers %{{.*}} outs(%[[XD]], %[[XS]] : tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>) as !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
//       CHECK:   %[[QW:.*]]:2 = qs.quantize_buffers
//       CHECK:   qs.gemm_buffers a(%[[QX]]#0, %[[QX]]#1 : {{.*}}) as {{.*}} b(%[[QW]]#0, %[[QW]]#1 : {{.*}}) as {{.*}} transpose_b
//   CHECK-NOT:   qs.assemble
//   CHECK-NOT:   qs.disassemble
//   CHECK-NOT:   columnwise_data
// NOFLAT-LABEL: func.func @inference
// NOFLAT-NOT:     qs.assemble
// NOFLAT:         qs.gemm_buffers
// NOINFER-LABEL: func.func @inference
// NOINFER:         qs.quantize_buffers %{{.*}} outs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : {{.*}}) as !qs.tensor<256x512xbf16, #qs.mxfp8>
func.func @inference(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>) -> tensor<256x1024xbf16> {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}

// -----

// Forward and backward functions: the saved X and W cross the boundary as flattened inner
// tensors tagged with their origin; inside the backward, dY keeps both usages.
!x = !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_block>
!dy = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
// CHECK-LABEL: func.func @fwd
//  CHECK-SAME:     -> (tensor<256x1024xbf16>, tensor<256x512xf8E4M3FN> {qs.inner = "rowwise_data", qs.origin = 1 : i64
// CHECK-LABEL: func.func @bwd
//  CHECK-SAME:     %{{.*}}: tensor<256x1024xbf16>, %{{.*}}: tensor<256x512xf8E4M3FN> {qs.inner = "rowwise_data", qs.origin = 1 : i64
//       CHECK:   qs.quantize_buffers %{{.*}} outs({{.*}} : tensor<256x1024xf8E4M3FN>, tensor<8x256xf32>, tensor<1024x256xf8E4M3FN>, tensor<2x1024xf32>) as !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
func.func @fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>) -> (tensor<256x1024xbf16>, !x, !w) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<256x1024xbf16>
  return %y, %qx, %qw : tensor<256x1024xbf16>, !x, !w
}
func.func @bwd(%dy: tensor<256x1024xbf16>, %qx: !x, %qw: !w) -> (tensor<256x512xbf16>, tensor<1024x512xf32>) {
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !dy
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<256x512xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<1024x512xf32>
  return %dx, %dw : tensor<256x512xbf16>, tensor<1024x512xf32>
}
