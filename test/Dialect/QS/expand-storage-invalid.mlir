// RUN: qs-opt %s -split-input-file --qs-expand-storage -verify-diagnostics

// A quantized value's inner tensors follow the chip it was produced for (on
// sm_120a per-tensor FP8 keeps a transpose buffer, on sm_100a it does not):
// an op selecting another chip than its module is reported, and nothing is
// expanded.
!q = !qs.tensor<32x32xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_120a"} {
func.func @chip_per_op(%x: tensor<32x32xbf16>) -> tensor<32x32xf16> {
  %q = qs.quantize %x : tensor<32x32xbf16> -> !q
  // expected-error @+1 {{qs-expand-storage expands one chip per module (the storage layouts follow it): this op selects "sm_100a" inside a module for sm_120a}}
  %y = qs.gemm %q, %q transpose_b {qs.chip = "sm_100a"} : !q, !q -> tensor<32x32xf16>
  return %y : tensor<32x32xf16>
}
}

// -----

// Without qs.chip on the module the chip is sm_90a.
!q = !qs.tensor<32x32xbf16, #qs.fp8_current>
func.func @chip_per_function(%x: tensor<32x32xbf16>) -> !q attributes {qs.chip = "sm_100a"} {
  // expected-error @-1 {{qs-expand-storage expands one chip per module (the storage layouts follow it): this op selects "sm_100a" inside a module for sm_90a}}
  %q = qs.quantize %x : tensor<32x32xbf16> -> !q
  return %q : !q
}
