// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=GPU

// Ops in a module nested in the one the pass runs on: their kernels go to
// that nested module (the symbol table their calls and launches resolve
// in), not to the outer one. (Until 2026-12-03 they went to the outer
// module, and the result did not verify: found by qs-fuzz.)
// EMU-LABEL: module {
//       EMU:   module attributes {qs.chip = "sm_90a"} {
//       EMU:     func.func @wgrad
//       EMU:       call @qs_gemm_emulated(
//       EMU:     func.func @quantize
//       EMU:       call @qs_quantize_emulated(
//       EMU:     func.func private @qs_gemm_emulated(
//       EMU:     func.func private @qs_quantize_emulated(
// GPU-LABEL: module {
//       GPU:   module attributes {gpu.container_module, qs.chip = "sm_90a"} {
//       GPU:     func.func @wgrad
//       GPU:       call @qs_gemm_launch(
//       GPU:     gpu.module @qs_kernels
//       GPU:       gpu.func @qs_gemm(
//       GPU:       gpu.func @qs_quantize(
%c0 = arith.constant 0 : index
module attributes {qs.chip = "sm_90a"} {
  func.func @wgrad(%dy: !qs.tensor<512x1024xbf16, #qs.fp8_block<fp8_dtype = f8E5M2, block_scaling_dim = 1, rowwise = false>>, %x: !qs.tensor<512x768xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>) -> tensor<1024x768xf32> {
    %dw = qs.gemm %dy, %x transpose_a : !qs.tensor<512x1024xbf16, #qs.fp8_block<fp8_dtype = f8E5M2, block_scaling_dim = 1, rowwise = false>>, !qs.tensor<512x768xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>> -> tensor<1024x768xf32>
    return %dw : tensor<1024x768xf32>
  }
  func.func @quantize(%x: tensor<64x64xbf16>) -> !qs.tensor<64x64xbf16, #qs.mxfp8<columnwise = false>> {
    %q = qs.quantize %x : tensor<64x64xbf16> -> !qs.tensor<64x64xbf16, #qs.mxfp8<columnwise = false>>
    return %q : !qs.tensor<64x64xbf16, #qs.mxfp8<columnwise = false>>
  }
}
