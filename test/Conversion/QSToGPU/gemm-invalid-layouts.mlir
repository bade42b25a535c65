// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a" -verify-diagnostics

// The storage layouts follow the op's qs.chip and the chip option only
// picks the instructions: sm_90a's wgmma kernel on Blackwell layouts (which
// store the column-wise FP8 usage untransposed) finds an operand that is
// not K-major.
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a"} {
func.func @not_k_major(%a: !g, %b: !g) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op operand b is contracted over its first dimension and has no transpose buffer: FP8 wgmma reads K-major operands only (qs.chip = "sm_90a" stores the column-wise FP8 usage transposed)}}
  %y = qs.gemm %a, %b : !g, !g -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}
