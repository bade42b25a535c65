// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=emulate=true -verify-diagnostics

// The emulation reports what the GEMM kernels cannot run, as
// qs-nvptx-pipeline does (every family and option has a kernel; some
// shapes do not).

!a = !qs.tensor<128x136xbf16, #qs.fp8_current<columnwise = false>>
func.func @k_not_16(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels need K (here 136) to be a multiple of 16}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

!n = !qs.tensor<128x144xbf16, #qs.nvfp4<columnwise = false>>
func.func @nvfp4_k(%a: !n, %b: !n) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op NVFP4 GEMM kernels need K (here 144) to be a multiple of 32}}
  %y = qs.gemm %a, %b transpose_b : !n, !n -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// The emulation runs the kernels of the module's chip; there are GEMM
// kernels for sm_90a and sm_100a only.
!o = !qs.tensor<128x256xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_89"} {
func.func @ada(%a: !o, %b: !o) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels exist for sm_90a (wgmma) and sm_100a (tcgen05), not for compute capability 8.9}}
  %y = qs.gemm %a, %b transpose_b : !o, !o -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}
