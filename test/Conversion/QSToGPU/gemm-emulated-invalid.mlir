// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=emulate=true -verify-diagnostics

// The emulation reports what the GEMM kernels cannot run, as
// qs-nvptx-pipeline does (every family has a kernel; some configurations
// do not).

!a = !qs.tensor<128x136xbf16, #qs.fp8_current<columnwise = false>>
func.func @k_not_16(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels need K (here 136) to be a multiple of 16}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

!m = !qs.tensor<128x128xbf16, #qs.nvfp4<columnwise = false, row_scaled_nvfp4 = true>>
func.func @nvfp4_row_scaled(%a: !m, %b: !m) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op has no GPU kernel yet for row-scaled NVFP4 operands}}
  %y = qs.gemm %a, %b transpose_b : !m, !m -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
