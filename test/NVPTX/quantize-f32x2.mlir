// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PAIRED
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SCALAR

// On sm_100a a conversion's inputs, x times the block's multiplier, are
// computed two at a time (quant::scaleValues: mul.rn.f32x2, FMUL2), and
// the pair's halves are the two operands of the packed conversion (the
// upper half first: cvt.*x2 d, a, b puts a in the upper part). sm_90a has
// no f32x2 instructions.
// SCALAR-NOT: f32x2

// Per-tensor FP8, row-wise: 32 values per thread, two rounds of 8 pairs
// (the multiplier pair [[M]] shared) and 8 conversions.
// PAIRED-LABEL: .entry qs_quantize(
// PAIRED: mul.rn.f32x2 [[P:%rd[0-9]+]], [[M:%rd[0-9]+]], %rd{{[0-9]+}};
// PAIRED-NEXT: mov.b64 {[[LO:%r[0-9]+]], [[HI:%r[0-9]+]]}, [[P]];
// PAIRED-COUNT-7: mul.rn.f32x2 %rd{{[0-9]+}}, [[M]], %rd{{[0-9]+}};
// PAIRED-NOT: mul.rn.f32
// PAIRED: cvt.rn.satfinite.e4m3x2.f32 %rs{{[0-9]+}}, [[HI]], [[LO]];
// PAIRED-COUNT-7: cvt.rn.satfinite.e4m3x2.f32
// PAIRED-COUNT-8: mul.rn.f32x2 %rd{{[0-9]+}}, [[M]], %rd{{[0-9]+}};
// PAIRED-COUNT-8: cvt.rn.satfinite.e4m3x2.f32
// PAIRED-NOT: mul.rn.f32
func.func @fp8(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
}

// MXFP8, row-wise: a 16-value chunk per lane and loop trip, 8 pairs.
// PAIRED-LABEL: .entry qs_quantize_0(
// PAIRED-COUNT-8: mul.rn.f32x2
// PAIRED-NOT: mul.rn.f32x2
// PAIRED: cvt.rn.satfinite.e4m3x2.f32
func.func @mx(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
}

// NVFP4, row-wise: two 16-value blocks per thread, 8 pairs each, then the
// E2M1 conversions of their halves.
// PAIRED-LABEL: .entry qs_quantize_1(
// PAIRED: mul.rn.f32x2 [[Q:%rd[0-9]+]],
// PAIRED-NEXT: mov.b64 {[[QLO:%r[0-9]+]], [[QHI:%r[0-9]+]]}, [[Q]];
// PAIRED-COUNT-7: mul.rn.f32x2
// PAIRED: cvt.rn.satfinite.e2m1x2.f32 %e2m1x2_out, [[QHI]], [[QLO]];
func.func @fp4(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
}
