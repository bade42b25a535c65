// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a" --split-input-file -verify-diagnostics
// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a emulate=true" --split-input-file -verify-diagnostics

// sm_90a's kernel copies MN-major operands transposed into shared memory
// (gemm-blackwell-layouts-sm90.mlir), but TMA still reads their rows:
// per-tensor FP8 on Blackwell layouts, b contracted over its first
// dimension, needs its other dimension in multiples of 16. (MXFP8, whose
// column-wise data is MN-major on every chip, has dimensions in multiples
// of 32.)
!f = !qs.tensor<128x136xbf16, #qs.fp8_current<>>
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a"} {
func.func @mn_major_pitch(%a: !g, %b: !f) -> tensor<128x136xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op operand b is read MN-major (contracted over its first dimension, data in the tensor's own layout), so its other dimension (here 136) must be a multiple of 16: TMA row strides are multiples of 16 bytes}}
  %y = qs.gemm %a, %b : !g, !f -> tensor<128x136xbf16>
  return %y : tensor<128x136xbf16>
}
}

// -----

// TMA multicast pairs (qs.gemm_cluster = 2) need K-major operands: b read
// MN-major goes through the transposing copy, which they do not have.
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a", qs.gemm_cluster = 2 : i64} {
func.func @cluster_mn_major(%a: !g, %b: !g) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_cluster = 2 (TMA multicast of B across a pair of blocks) exists for the sm_90a kernels with K-major operands (not for MN-major data, whose tiles the consumers transpose in shared memory)}}
  %y = qs.gemm %a, %b : !g, !g -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// ... nor ping-pong consumers (the transposing copy is shared by both).
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a", qs.gemm_schedule = "pingpong"} {
func.func @pingpong_mn_major(%a: !g, %b: !g) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b : !g, !g -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}
