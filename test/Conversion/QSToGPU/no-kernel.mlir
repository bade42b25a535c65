// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a require-nvptx-chip=true" -verify-diagnostics

// update_usage has no kernel: qs-nvptx-pipeline names the op (GEMMs:
// gemm-invalid.mlir).
func.func @update_usage(%a: !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>) -> !qs.tensor<128x128xbf16, #qs.fp8_current<>> {
  // expected-error@+1 {{'qs.update_usage_buffers' op has no GPU kernel yet (quantize, dequantize and GEMM do); qs-nvptx-pipeline cannot compile it, qs-cpu-pipeline can}}
  %b = qs.update_usage %a : !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_current<>>
  return %b : !qs.tensor<128x128xbf16, #qs.fp8_current<>>
}
