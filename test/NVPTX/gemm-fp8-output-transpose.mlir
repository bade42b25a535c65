// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,DIRECT
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_epilogue = "tma"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,TMA

// A #qs.fp8_delayed result with both usages on sm_90a (TE's default; a
// transpose buffer, [N, M]) quantized in the GEMM's epilogue: each consumer
// stages its FP8 codes (one st.shared.b16 per column pair) in a 64 x
// 128-byte swizzled buffer per store chunk, then after its named barrier
// each thread reads them back:
// - without the TMA store, the rows: four ld.shared.v4.b32 and four
//   16-byte stores into D (row t / 2, half t % 2);
// - the transpose: sixteen ld.shared.b32 (rows 16 (t / 32) ... + 15,
//   columns 4 (t % 32) ... + 3), byte-transposed with prmt, one 16-byte
//   store per column into the transpose's rows, 256 bytes (M) apart.
// With the TMA store its bulk store writes the rows and only the
// transpose is read back. No quantize kernel runs.
// CHECK-LABEL: .entry qs_gemm_output_prepare(
// CHECK-LABEL: .entry qs_gemm(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.shared.b16
// CHECK: atom.global.max.u32
// DIRECT: bar.sync 4, 128;
// DIRECT-COUNT-4: ld.shared.v4.b32
// DIRECT-NOT: ld.shared.v4.b32
// TMA: fence.proxy.async.shared::cta;
// TMA: bar.sync 4, 128;
// TMA: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// TMA-NOT: ld.shared.v4.b32
// CHECK-COUNT-16: ld.shared.b32
// CHECK-NOT: ld.shared
// CHECK: prmt.b32
// CHECK: st.global.v4.b32 [[[T:%rd[0-9]+]]], {
// CHECK: st.global.v4.b32 [[[T]]+256], {
// CHECK: st.global.v4.b32 [[[T]]+512], {
// CHECK: st.global.v4.b32 [[[T]]+768], {
// CHECK-NOT: st.global
// CHECK: ret;
// CHECK-NOT: .entry qs_quantize
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x384xbf16, #qs.fp8_delayed>
module attributes {qs.chip = "sm_90a"} {
func.func @fprop(%x: !x, %w: !w, %bias: tensor<384xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>)
    -> (!h, tensor<1xf32>) {
  %h, %a2 = qs.gemm %x, %w transpose_b bias(%bias : tensor<384xbf16>)
      scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
  return %h, %a2 : !h, tensor<1xf32>
}
}
