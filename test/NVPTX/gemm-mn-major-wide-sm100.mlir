// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// A per-tensor FP8 dgrad on sm_100a in 128x256 tiles: w's column-wise data
// keeps w's layout ([K, N]), so B is MN-major and 256 bytes wide per K-row,
// while TMA's 128-byte swizzle spans at most 128 bytes of a box row. B is
// loaded as two 128-byte atoms of 128 K-rows (tensor map box 128 x 128,
// swizzle 128; the second box at column + 128, 16 KiB further in the
// stage) and its descriptor's leading byte offset is that distance
// (16384 >> 4 = 1024 in bits 16-29: 0x4000404004000000; A, K-major, keeps
// 1: 0x4000404000010000). The instruction descriptor 0x08410010 =
// 138477584: D F32, E4M3 x E4M3, B MN-major (bit 16), N = 256, M = 128.
// CHECK-LABEL: .entry qs_gemm(
// CHECK-DAG: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// CHECK-DAG: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662116581376;
// CHECK-DAG: mov.b32 {{%r[0-9]+}}, 138477584;
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK-DAG: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 256;
// The producer (after the MMA thread in the text): A's box at the stage,
// then B's two atoms at the same K-row, columns n0 and n0 + 128, 16 KiB
// apart (A's tile is 16 KiB).
// CHECK: {{or.b32|add.s32}} [[N1:%r[0-9]+]], [[N0:%r[0-9]+]], 128;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [[[S:%r[0-9]+]]], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[FULL:%r[0-9]+]]];
// CHECK: add.s32 [[D1:%r[0-9]+]], [[S]], 16384;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [[[D1]]], [[[MAPB:%rd[0-9]+]], {[[N0]], [[K:%r[0-9]+]]}], [[[FULL]]];
// CHECK: add.s32 [[D2:%r[0-9]+]], [[S]], 32768;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [[[D2]]], [[[MAPB]], {[[N1]], [[K]]}], [[[FULL]]];
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c1024_i64{{(_[0-9]+)?}}, %c768_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c768_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 16 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196688 : i64}
!dy = !qs.tensor<1024x768xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_current<rowwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_tile_n = 256 : i64} {
  func.func @dgrad(%dy: !dy, %w: !w) -> tensor<1024x512xbf16> {
    %dx = qs.gemm %dy, %w : !dy, !w -> tensor<1024x512xbf16>
    return %dx : tensor<1024x512xbf16>
  }
}
