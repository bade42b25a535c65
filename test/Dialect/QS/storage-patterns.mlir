// RUN: qs-opt %s -split-input-file --test-qs-storage-patterns | FileCheck %s

// The greedy (local) forms of qs-infer-usage and qs-select-scale-layout on straight-line code.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @fprop
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
func.func @fprop(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<128x512xbf16> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qw = qs.quantize %w : tensor<512x256xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// The local forms leave values forwarded by control flow alone (the passes handle those).
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @forwarded
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @forwarded(%c: i1, %x: tensor<64x128xbf16>, %y: !q) -> tensor<64x128xf32> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  %v = scf.if %c -> !q {
    scf.yield %q : !q
  } else {
    scf.yield %y : !q
  }
  %d = qs.dequantize %v : !q -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

// An update_usage after a local producer moves into it and disappears.
!row = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
!col = !qs.tensor<128x128xbf16, #qs.fp8_current<rowwise = false>>
// CHECK-LABEL: func.func @update_usage
//       CHECK:   %[[Q:.*]] = qs.quantize %{{.*}} -> !qs.tensor<128x128xbf16, #qs.fp8_current<rowwise = false>>
//   CHECK-NOT:   qs.update_usage
//       CHECK:   qs.gemm %[[Q]], %[[Q]] transpose_a
func.func @update_usage(%x: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %q = qs.quantize %x : tensor<128x128xbf16> -> !row
  %both = qs.update_usage %q : !row -> !qs.tensor<128x128xbf16, #qs.fp8_current>
  %c = qs.update_usage %both : !qs.tensor<128x128xbf16, #qs.fp8_current> -> !col
  %g = qs.gemm %c, %c transpose_a : !col, !col -> tensor<128x128xbf16>
  return %g : tensor<128x128xbf16>
}
