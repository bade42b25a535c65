// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=cvt.rn.f32.u32
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=cvt.rn.f32.u32

// f16 input: every kernel converts its elements with cvt.f32.f16
// (KernelEnv::toF32; exact: f32 holds every f16 value), not the software
// decode of the reference lowering, whose subnormal branch was a
// cvt.rn.f32.u32 of the mantissa per element.
// CHECK-LABEL: .entry qs_quantize_amax(
// CHECK: cvt.f32.f16
// CHECK-LABEL: .entry qs_quantize(
// CHECK: cvt.f32.f16
// CHECK-LABEL: .entry qs_quantize_0(
// CHECK: cvt.f32.f16
module {
func.func @nvfp4_row(%x: tensor<256x512xf16>) -> !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xf16> -> !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>>
  return %q : !qs.tensor<256x512xf16, #qs.nvfp4<columnwise = false>>
}

func.func @fp8_block_col(%x: tensor<256x512xf16>) -> !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>> {
  %q = qs.quantize %x : tensor<256x512xf16> -> !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
  return %q : !qs.tensor<256x512xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
}
}
