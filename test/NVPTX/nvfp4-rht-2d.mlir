// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SCALAR
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PAIRED

// NVFP4 with the random Hadamard transform and 16x16 tiles together: the
// column-wise tiles are tiles of bf16(RHT(x^T)), so their scales come from
// the transformed values. The amax kernel takes both global amaxes (max |x|
// and max |RHT(x^T)|); the cast kernel's phases, one barrier apart: tile
// load; the 1 x 16 segment amaxes of x (64 rows x 4 per 64 x 64 tile); the
// 16 x 16 block amaxes of x (row-wise scales); max |RHT(chunk)| of every
// 16-row chunk of a column (reusing the segment buffer); the transformed
// blocks' amaxes (column-wise scales); then the conversions and stores.
// CHECK-LABEL: .entry qs_quantize_rht_amax(
// CHECK: atom.global.max.u32
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_0[9216];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_1[1024];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_2[64];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_3[64];
// CHECK-COUNT-5: bar.sync 0;
// CHECK-NOT: bar.sync
// SM90-NOT: e2m1x2
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK: st.global.v2.b32
// The column-wise conversion rounds a transformed chunk's 16 sums to bf16
// two at a time (their NaN bits are never stored); the amax phase rounds
// one maximum per chunk without it.
// CHECK-COUNT-8: cvt.rn.bf16x2.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NOT: cvt.rn.bf16x2.f32
// The Hadamard sums of a chunk: on sm_100a its products and first three
// butterflies as f32 pairs (lanes i and i + 8; FMUL2, FADD2), 8
// multiplications, 12 additions and 12 subtractions; in the amax kernel
// its last butterfly only as f32(|p| + |q|), the larger magnitude of the
// two sums (8 scalar additions). sm_90a has no f32x2 instructions.
// SCALAR-NOT: f32x2
// PAIRED-LABEL: .entry qs_quantize_rht_amax(
// PAIRED-COUNT-8: mul.rn.f32x2
// PAIRED-COUNT-24: {{add|sub}}.rn.f32x2
// PAIRED-NOT: f32x2
// PAIRED-COUNT-8: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};
// PAIRED-LABEL: .entry qs_quantize(
// PAIRED: mul.rn.f32x2
// PAIRED: add.rn.f32x2
// PAIRED: sub.rn.f32x2
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_2d_quantization = true>>
}
}
