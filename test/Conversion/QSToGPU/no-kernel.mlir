// RUN: qs-opt %s --split-input-file --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a require-nvptx-chip=true" -verify-diagnostics

// GEMM kernels are not there yet: qs-nvptx-pipeline names the op.
func.func @gemm(%a: !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>>,
                %b: !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>>) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op has no GPU kernel yet (quantize and dequantize do); qs-nvptx-pipeline cannot compile it, qs-cpu-pipeline can}}
  %y = qs.gemm %a, %b transpose_b : !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>>, !qs.tensor<128x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

func.func @update_usage(%a: !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>) -> !qs.tensor<128x128xbf16, #qs.fp8_current<>> {
  // expected-error@+1 {{'qs.update_usage_buffers' op has no GPU kernel yet}}
  %b = qs.update_usage %a : !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_current<>>
  return %b : !qs.tensor<128x128xbf16, #qs.fp8_current<>>
}
