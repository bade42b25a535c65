// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_promotion = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=OVERLAP

// The sm_90a FP8 block GEMM (fprop: 1x128 X x 128x128 W) in 128x192 tiles
// (qs.gemm_tile_n = 192): each k-tile's wgmmas cover one 96-column chunk
// at a time (four m64n96k32, B's descriptor 96 rows = 12288 bytes further
// for the second), each chunk's scales (2 row scales of X, and the 128x128
// scales of W's blocks holding the chunk's first and last column) loaded
// before its wgmmas, and promoted into the 96 FP32 totals after its wait:
// a chunk may straddle two 128-column blocks of W (tile 1's first chunk is
// columns [192, 288)), so each 8-column group selects its block's product
// (selp.f32). The stage is freed after the second chunk's wait. With
// qs.gemm_promotion = "in_tile" (CHECK) each chunk is waited for and
// promoted before the next is issued; by default (OVERLAP) the second
// chunk's wgmmas are issued first, then the first chunk's scales are
// loaded, waited for (wait_group 1) and promoted while the second runs,
// then the second chunk's (wait_group 0, the stage freed).
// OVERLAP-LABEL: .entry qs_gemm(
// OVERLAP: mbarrier.try_wait.parity.shared::cta.b64
// OVERLAP-NOT: ld.global
// OVERLAP-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// OVERLAP-NOT: ld.global
// OVERLAP: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 12288;
// OVERLAP-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// OVERLAP: wgmma.commit_group.sync.aligned;
// OVERLAP-COUNT-4: ld.global.b32
// OVERLAP: wgmma.wait_group.sync.aligned 1;
// OVERLAP-NOT: mbarrier.arrive
// OVERLAP: selp.f32
// OVERLAP-COUNT-4: ld.global.b32
// OVERLAP: wgmma.wait_group.sync.aligned 0;
// OVERLAP: mbarrier.arrive.shared::cta.b64
// OVERLAP-COUNT-24: selp.f32
// OVERLAP-NOT: m64n{{(128|192)}}k32
// CHECK-LABEL: .entry qs_gemm(
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: ld.global.b32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: selp.f32
// CHECK-COUNT-4: ld.global.b32
// CHECK: wgmma.fence.sync.aligned;
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 12288;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK-COUNT-24: selp.f32
// CHECK-NOT: m64n{{(128|192)}}k32
!x = !qs.tensor<512x1024xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w = !qs.tensor<768x1024xbf16, #qs.fp8_block<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_tile_n = 192 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<512x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<512x768xbf16>
    return %y : tensor<512x768xbf16>
  }
}
