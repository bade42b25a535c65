// RUN: qs-opt %s -split-input-file --convert-qs-to-linalg -verify-diagnostics

// Stochastic rounding has no deterministic reference.
!q = !qs.tensor<16x32xbf16, #qs.nvfp4<columnwise = false, stochastic_rounding = true>>
func.func @stochastic(%x: tensor<16x32xbf16>, %d: tensor<16x16xi8>, %s: tensor<128x4xf8E4M3FN>, %a: tensor<1xf32>) {
  // expected-error @+1 {{stochastic_rounding has no deterministic reference (its random bits come from TE's Philox stream): the reference lowering cannot quantize it}}
  %r:3 = qs.quantize_buffers %x outs(%d, %s, %a : tensor<16x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>)
      as !q : tensor<16x32xbf16> -> tensor<16x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// Proto-level ops are expanded first.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @proto(%x: tensor<64x128xbf16>) -> !q {
  // expected-error @+1 {{'qs.quantize' is a proto-level op; run qs-expand-storage before convert-qs-to-linalg}}
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return %q : !q
}
