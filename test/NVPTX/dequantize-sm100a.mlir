// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// NVFP4 dequantize on sm_100a: E2M1 codes by the hardware's
// cvt.rn.f16x2.e2m1x2, one per byte (two codes, the low nibble to the low
// half; KernelEnv::decodeE2M1Word), not sm_90a's f16 arithmetic; bf16
// outputs by cvt.rn.bf16x2.f32.
// CHECK-LABEL: .entry qs_dequantize(
// CHECK: ld.global.v2.b32
// CHECK-COUNT-8: cvt.rn.f16x2.e2m1x2
// CHECK: cvt.f32.f16
// CHECK-COUNT-8: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: mul.rn.f16x2
module attributes {qs.chip = "sm_100a"} {
func.func @f(%q: !qs.tensor<256x512xbf16, #qs.nvfp4<>>) -> tensor<256x512xbf16> {
  %x = qs.dequantize %q : !qs.tensor<256x512xbf16, #qs.nvfp4<>> -> tensor<256x512xbf16>
  return %x : tensor<256x512xbf16>
}
}
