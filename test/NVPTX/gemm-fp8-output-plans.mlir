// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s

// Where the GEMM kernel quantizes a #qs.fp8_delayed result itself (qs.gemm's
// fused output quantizer) and where the quantize kernels do it after a GEMM
// into FP32: fused only when one block writes each tile whole with direct
// stores (no split-K, stream-K or TMA-store epilogue) and the result is
// row-wise only (a TN-only chip's transpose comes from the quantize kernel).
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x1024xbf16, #qs.fp8_delayed<columnwise = false>>
!hb = !qs.tensor<256x1024xbf16, #qs.fp8_delayed>
module attributes {qs.chip = "sm_90a"} {
  // CHECK-LABEL: func.func @fused
  //       CHECK:   call @qs_gemm_output_prepare_launch
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fused(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, FP8 output quantized in the epilogue (scale, amax atomics); 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @split_k
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch
  //       CHECK:   call @qs_gemm_split_k_reduce{{.*}}launch({{.*}}memref<262144xf32>)
  //       CHECK:   call @qs_quantize
  func.func @split_k(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128 in 2 splits of 2}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = 2 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @with_transpose
  //   CHECK-NOT:   qs_gemm_output_prepare
  //       CHECK:   call @qs_quantize
  func.func @with_transpose(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K; 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
}
