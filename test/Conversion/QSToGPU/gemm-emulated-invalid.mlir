// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=emulate=true -verify-diagnostics | FileCheck %s

// The emulation reports what the per-tensor FP8 GEMM kernel cannot run, as
// qs-nvptx-pipeline does; GEMMs of families without a kernel stay for the
// reference lowering (no error, the op is left in place).

!a = !qs.tensor<128x136xbf16, #qs.fp8_current<columnwise = false>>
func.func @k_not_16(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels need K (here 136) to be a multiple of 16}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// CHECK-LABEL: func.func @nvfp4
// CHECK: qs.gemm_buffers
// CHECK-NOT: qs_gemm
!m = !qs.tensor<128x128xbf16, #qs.nvfp4<columnwise = false>>
func.func @nvfp4(%a: !m, %b: !m) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b : !m, !m -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
