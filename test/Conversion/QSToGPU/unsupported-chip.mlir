// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_80 require-nvptx-chip=true" -verify-diagnostics

// qs-nvptx-pipeline compiles for the two chips its kernels are written for.
// expected-error@+1 {{qs-nvptx-pipeline: chip 'sm_80' is not supported; the kernels target sm_90a (Hopper) and sm_100a (Blackwell)}}
module {
func.func @f(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}
}
