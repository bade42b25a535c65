// RUN: qs-opt %s --split-input-file --qs-storage-pipeline "--convert-qs-to-gpu=require-nvptx-chip=true chip=sm_90a" -verify-diagnostics

// What the GEMM kernels cannot run is a diagnostic under qs-nvptx-pipeline
// (the emulation: gemm-emulated-invalid.mlir).

// K must be a multiple of 16 (TMA row strides).
!a = !qs.tensor<128x136xbf16, #qs.fp8_current<columnwise = false>>
func.func @k_not_16(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels need K (here 136) to be a multiple of 16: TMA row strides are multiples of 16 bytes (cuBLASLt has the same rule, lda % 16 == 0)}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Block-scaled families have no GEMM kernel yet.
!m = !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @mxfp8(%a: !m, %b: !m) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op has no GPU kernel yet for #qs.mxfp8<columnwise = false> operands (per-tensor FP8 has one, on sm_90a); qs-cpu-pipeline can run it}}
  %y = qs.gemm %a, %b transpose_b : !m, !m -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

