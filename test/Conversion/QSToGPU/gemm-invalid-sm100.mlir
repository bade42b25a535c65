// RUN: qs-opt %s --split-input-file --qs-storage-pipeline "--convert-qs-to-gpu=require-nvptx-chip=true chip=sm_100a" -verify-diagnostics
// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=emulate=true -verify-diagnostics

// Per-tensor FP8 GEMMs for Blackwell layouts (qs.chip = "sm_100a") are
// diagnostics, under qs-nvptx-pipeline and in the emulation alike.

// Per-tensor FP8 on sm_100a: no wgmma (and no tcgen05 kernel yet).
!f = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
func.func @blackwell(%a: !f, %b: !f) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op FP8 GEMM kernels use wgmma, which only sm_90a has (ptxas rejects FP8 wgmma for sm_100a); the tcgen05 kernels of sm_100a do not exist yet}}
  %y = qs.gemm %a, %b transpose_b : !f, !f -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// sm_100a stores the column-wise usage untransposed: an operand contracted
// over its first dimension is not K-major.
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a"} {
func.func @not_k_major(%a: !g, %b: !g) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op operand b is contracted over its first dimension and has no transpose buffer: FP8 wgmma reads K-major operands only (qs.chip = "sm_90a" stores the column-wise FP8 usage transposed)}}
  %y = qs.gemm %a, %b : !g, !g -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}
