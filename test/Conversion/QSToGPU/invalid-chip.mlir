// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=chip=sm9 -verify-diagnostics
// RUN: not qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_80 require-nvptx-chip=true" 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: not qs-opt %s --qs-nvptx-pipeline=chip=sm_120a 2>&1 | FileCheck %s --check-prefix=PIPELINE

// A chip option that is not a chip name.
// expected-error@+1 {{convert-qs-to-gpu: chip 'sm9' is not of the form sm_<major><minor>[a]}}
module {
func.func @f(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}
}

// CHECK: error: qs-nvptx-pipeline: chip 'sm_80' is not supported; the kernels target sm_90a (Hopper) and sm_100a (Blackwell)
// PIPELINE: error: qs-nvptx-pipeline: chip 'sm_120a' is not supported; the kernels target sm_90a (Hopper) and sm_100a (Blackwell)
