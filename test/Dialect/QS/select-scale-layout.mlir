// RUN: qs-opt %s -split-input-file --qs-select-scale-layout | FileCheck %s

// MXFP8 and NVFP4 values feeding a GEMM write GEMM-swizzled scales.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @gemm_operands
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
func.func @gemm_operands(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<128x512xbf16> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qw = qs.quantize %w : tensor<512x256xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// Values with other consumers only stay compact; a value both dequantized and fed to a GEMM is swizzled.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>
// CHECK-LABEL: func.func @other_consumers
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false, optimize_for_gemm = true>>
func.func @other_consumers(%x: tensor<64x128xbf16>) -> (tensor<64x128xf32>, tensor<64x64xf32>, tensor<64x128xf32>) {
  %a = qs.quantize %x : tensor<64x128xbf16> -> !q
  %da = qs.dequantize %a : !q -> tensor<64x128xf32>
  %b = qs.quantize %x : tensor<64x128xbf16> -> !q
  %g = qs.gemm %b, %b transpose_b : !q, !q -> tensor<64x64xf32>
  %db = qs.dequantize %b : !q -> tensor<64x128xf32>
  return %da, %g, %db : tensor<64x128xf32>, tensor<64x64xf32>, tensor<64x128xf32>
}

// -----

// Formats without a swizzled layout are untouched; fixed values (arguments) keep their layout.
!fp8 = !qs.tensor<128x256xbf16, #qs.fp8_current>
!mx = !qs.tensor<512x256xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @untouched
//  CHECK-SAME:     %{{.*}}: !qs.tensor<512x256xbf16, #qs.mxfp8>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.fp8_current>
func.func @untouched(%x: tensor<128x256xbf16>, %a: !mx, %b: !mx) -> (tensor<128x128xbf16>, tensor<512x512xbf16>) {
  %q = qs.quantize %x : tensor<128x256xbf16> -> !fp8
  %y = qs.gemm %q, %q transpose_b : !fp8, !fp8 -> tensor<128x128xbf16>
  %z = qs.gemm %a, %b transpose_b : !mx, !mx -> tensor<512x512xbf16>
  return %y, %z : tensor<128x128xbf16>, tensor<512x512xbf16>
}

// -----

// A returned value's type is fixed by the signature: compact stays compact.
!q = !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @returned
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false>>
func.func @returned(%x: tensor<128x256xbf16>) -> (!q, tensor<128x128xbf16>) {
  %q = qs.quantize %x : tensor<128x256xbf16> -> !q
  %y = qs.gemm %q, %q transpose_b : !q, !q -> tensor<128x128xbf16>
  return %q, %y : !q, tensor<128x128xbf16>
}

// -----

// The layout follows values through control flow and through update_usage to its producer.
!both = !qs.tensor<128x128xbf16, #qs.nvfp4<with_2d_quantization = true>>
!row = !qs.tensor<128x128xbf16, #qs.nvfp4<with_2d_quantization = true, columnwise = false>>
// CHECK-LABEL: func.func @through_update_usage_and_if
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x128xbf16, #qs.nvfp4<with_2d_quantization = true, optimize_for_gemm = true>>
//       CHECK:   qs.update_usage %{{.*}} : !qs.tensor<128x128xbf16, #qs.nvfp4<with_2d_quantization = true, optimize_for_gemm = true>> -> !qs.tensor<128x128xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, optimize_for_gemm = true>>
//       CHECK:   scf.if %{{.*}} -> (!qs.tensor<128x128xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, optimize_for_gemm = true>>)
func.func @through_update_usage_and_if(%c: i1, %x: tensor<128x128xbf16>) -> tensor<128x128xbf16> {
  %q = qs.quantize %x : tensor<128x128xbf16> -> !both
  %r = qs.update_usage %q : !both -> !row
  %s = scf.if %c -> !row {
    scf.yield %r : !row
  } else {
    scf.yield %r : !row
  }
  %y = qs.gemm %s, %s transpose_b : !row, !row -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// A quantized GEMM result feeding a GEMM writes GEMM-swizzled scales (its
// output quantizer writes them, as qs.quantize would).
!x = !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
!h = !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @gemm_result
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b : {{.*}} -> !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
func.func @gemm_result(%x: !x, %w: !x) -> tensor<128x128xf32> {
  %h = qs.gemm %x, %w transpose_b : !x, !x -> !h
  %y = qs.gemm %h, %h transpose_b : !h, !h -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
