// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// Dequantize: one kernel, 16 outputs per thread stored with vector stores.
// A row-wise representation's 16 codes in one 16-byte load, their block's
// scale once (one byte: a 32-block's E8M0), the FP8 codes decoded in pairs
// by cvt.rn.f16x2.e4m3x2 (KernelEnv::decodeFp8Pair; eight per 16 outputs)
// and widened by cvt.f32.f16, no software decode (cvt.rn.f32.u32 was its
// subnormal branch).
// bf16 outputs two at a time by cvt.rn.bf16x2.f32 (KernelEnv::
// packFromF32Pair), each pair's NaN halves found by (w | 0x80008000) -
// 0x7F817F81 and spread by prmt's sign mode (0xBB99).
// CHECK-LABEL: .entry qs_dequantize(
// CHECK: ld.global.v4.b32
// CHECK: ld.global.b8
// CHECK-COUNT-8: cvt.rn.f16x2.e4m3x2
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.bf16x2.f32
// CHECK: or.b32 {{.*}}-2147450880
// CHECK: add.s32 {{.*}}-2139193217
// CHECK: prmt.b32 {{.*}}0xbb99U
// CHECK-COUNT-7: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: cvt.rn.f32.u32
// CHECK-LABEL: .entry qs_dequantize_0(
// CHECK: ld.global.v4.b32
// CHECK-COUNT-8: cvt.rn.f16x2.e5m2x2
// CHECK: st.global.v4.b32
// CHECK-NOT: cvt.rn.f32.u32
// NVFP4 on sm_90a (KernelEnv::decodeE2M1Word): 16 codes in one 8-byte
// load, decoded two at a time as f16 bits times 2^14 (0x7400) by
// mul.rn.f16x2; f16 output by cvt.rn.f16x2.f32 and its NaN fix-up.
// CHECK-LABEL: .entry qs_dequantize_1(
// CHECK: ld.global.v2.b32
// CHECK-COUNT-8: mul.rn.f16x2
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.f16x2.f32
// CHECK: or.b32 {{.*}}-2147450880
// CHECK: add.s32 {{.*}}-2080472065
// CHECK: prmt.b32 {{.*}}0xbb99U
// CHECK-COUNT-7: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: cvt.rn.f32.u32
module attributes {qs.chip = "sm_90a"} {
func.func @f(%q: !qs.tensor<256x512xbf16, #qs.mxfp8<>>) -> tensor<256x512xbf16> {
  %x = qs.dequantize %q : !qs.tensor<256x512xbf16, #qs.mxfp8<>> -> tensor<256x512xbf16>
  return %x : tensor<256x512xbf16>
}
func.func @e5m2(%q: !qs.tensor<256x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>) -> tensor<256x512xbf16> {
  %x = qs.dequantize %q : !qs.tensor<256x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>> -> tensor<256x512xbf16>
  return %x : tensor<256x512xbf16>
}
func.func @nvfp4(%q: !qs.tensor<256x512xbf16, #qs.nvfp4<>>) -> tensor<256x512xf16> {
  %x = qs.dequantize %q : !qs.tensor<256x512xbf16, #qs.nvfp4<>> -> tensor<256x512xf16>
  return %x : tensor<256x512xf16>
}
}
