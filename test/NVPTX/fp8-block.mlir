// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// FP8 1x128 block scaling, both usages of a bf16 input: a 128x128 tile
// (32 KiB in shared memory, rows unpadded, 16-byte chunks XOR-swizzled by
// row: Tile::swizzled), 7 resident blocks asked for (at most 72 registers;
// with 32 KiB each, shared memory allows 6).
// Row-wise: a thread per row block, 16-byte shared loads, 128 conversions,
// f32 scales. Column-wise (columnPairsPhase): a warp per 8 column pairs of
// a 128-row block, each lane reading its 32 rows of both columns with one
// 32-bit load per row (ld.shared.b32), max |x| in packed bf16x2, the
// column's 4 lanes meeting through shfl.sync.bfly 8 and 16, then two
// 16-byte stores of codes per column.
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .minnctapersm 7
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_0[32768]
// CHECK: ld.shared.v4.b32
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.v4.b32
// CHECK-COUNT-32: ld.shared.b32
// CHECK-COUNT-32: max.bf16x2
// CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 8, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 31, -1;
// CHECK: st.global.b32
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: ld.shared.b16
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
  return %q : !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
}
}
