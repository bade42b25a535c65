// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SM90
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SM100

// Both usages where an element has one scale in either: 2-D blocks (TE's
// weight quantizers of the block recipes: FP8 128x128, NVFP4 16x16) and
// per-tensor FP8 (TE's cast + transpose). The column-wise codes are the
// row-wise codes transposed, bit for bit, so the cast kernel encodes each
// element once (QuantizeColumnPhases.cpp derivesColumnCodes): the
// row-wise phase leaves its codes in the tile,
// and columnFromRowCodesPhase reads them back a 32-bit word per row and
// transposes them with byte permutes (FP8: 4 x 4 bytes, selectors 0x5140,
// 0x7362, 0x5410, 0x7632; FP4: 8 x 8 nibbles, 0x5410 / 0x7632 for the
// halves, 0x6240 / 0x7351 for the bytes). With qs.quantize_stores =
// "direct" each usage encodes on its own, twice the conversions.

!fb = !qs.tensor<256x512xbf16, #qs.fp8_block<>>
!nv = !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true>>

// FP8 128x128: 128 elements a thread, 64 packed conversions (row-wise).
// SM90-LABEL: .entry qs_quantize(
// SM90-COUNT-64: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: cvt.rn.satfinite.e4m3x2.f32
// SM90: prmt.b32 {{.*}}, 0x5140U;
// SM90: prmt.b32 {{.*}}, 0x7362U;
// SM90: prmt.b32 {{.*}}, 0x5410U;
// SM90-LABEL: .entry qs_quantize_0(
// SM90-COUNT-128: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: prmt.b32 {{.*}}, 0x5140U;
// SM90-LABEL: .entry qs_quantize_1(
// SM90: prmt.b32 {{.*}}, 0x6240U;
// SM90: prmt.b32 {{.*}}, 0x7351U;
// SM90-LABEL: .entry qs_quantize_2(
// SM90-NOT: prmt.b32 {{.*}}, 0x6240U;
func.func @fp8_block_128x128(%x: tensor<256x512xbf16>) -> !fb {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !fb
  return %q : !fb
}
func.func @fp8_block_128x128_direct(%x: tensor<256x512xbf16>) -> !fb attributes {qs.quantize_stores = "direct"} {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !fb
  return %q : !fb
}

// NVFP4 16x16 on sm_100a: the row-wise loop's 16 conversions (8 per 16
// codes, two units a thread), where the direct kernel has 32.
// SM100-LABEL: .entry qs_quantize_1(
// SM100-COUNT-16: cvt.rn.satfinite.e2m1x2.f32
// SM100-NOT: cvt.rn.satfinite.e2m1x2.f32
// SM100: prmt.b32 {{.*}}, 0x6240U;
// SM100-LABEL: .entry qs_quantize_2(
// SM100-COUNT-32: cvt.rn.satfinite.e2m1x2.f32
// SM100-NOT: cvt.rn.satfinite.e2m1x2.f32
func.func @nvfp4_16x16(%x: tensor<256x512xbf16>) -> !nv {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !nv
  return %q : !nv
}
func.func @nvfp4_16x16_direct(%x: tensor<256x512xbf16>) -> !nv attributes {qs.quantize_stores = "direct"} {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !nv
  return %q : !nv
}

// Per-tensor FP8 (current scaling; delayed scaling's cast kernel is the
// same): 32 elements a thread, 16 conversions, where the direct kernel
// has 32.
// SM90-LABEL: .entry qs_quantize_3(
// SM90-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: cvt.rn.satfinite.e4m3x2.f32
// SM90: prmt.b32 {{.*}}, 0x5140U;
// SM90-LABEL: .entry qs_quantize_4(
// SM90-COUNT-32: cvt.rn.satfinite.e4m3x2.f32
// SM90-NOT: cvt.rn.satfinite.e4m3x2.f32
!pt = !qs.tensor<256x512xbf16, #qs.fp8_current<>>
func.func @fp8_current(%x: tensor<256x512xbf16>) -> !pt {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !pt
  return %q : !pt
}
func.func @fp8_current_direct(%x: tensor<256x512xbf16>) -> !pt attributes {qs.quantize_stores = "direct"} {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !pt
  return %q : !pt
}
