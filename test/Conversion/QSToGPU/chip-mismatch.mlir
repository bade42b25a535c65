// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a require-nvptx-chip=true" -verify-diagnostics

// The storage layouts were chosen for qs.chip (no per-tensor FP8 transpose
// on sm_100a): compiling them for another chip is refused.
// expected-error@+1 {{qs-nvptx-pipeline: chip=sm_90a differs from qs.chip = "sm_100a" here; the storage layouts follow qs.chip, so compile for that chip}}
module attributes {qs.chip = "sm_100a"} {
func.func @f(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.fp8_current<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_current<>>
  return %q : !qs.tensor<64x128xbf16, #qs.fp8_current<>>
}
}
