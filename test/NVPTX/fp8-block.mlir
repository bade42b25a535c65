// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// FP8 1x128 block scaling: a 128x128 tile (32 KiB of bf16 in shared
// memory), 128 conversions per row block, f32 scales.
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_0[34816]
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.v4.b32
// CHECK: st.global.b32
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
}
}
