// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_promotion = "overlapped"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_scale_loads = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=INTILE

// The sm_90a FP8 block GEMM with 128x128-block B (fprop: 1x128 X x
// 128x128 W, 128x128 tiles; K = 1536: 12 k-tiles) overlaps its promotion
// with the next k-tile's wgmmas (GemmPlan::overlapsPromotion) and
// prefetches its scales (GemmPlan::prefetchesScales): runs of three
// k-tiles (GemmPlan::overlappedRun; four spill with the carried scales).
// Issuing a k-tile multiplies its carried scales (the products its
// promotion will use, one k-tile later) and loads the next k-tile's
// before the stage wait; the products of k-tile j are those of the fma.rn.f32
// after the wait_group 1 that follows the wgmmas of k-tile j + 1, or after
// the run's closing wait_group 0.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: mul.rn.f32 [[P0:%r[0-9]+]],
// CHECK-NEXT: mul.rn.f32 [[P1:%r[0-9]+]],
// CHECK-COUNT-3: ld.global.b32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group
// CHECK: mul.rn.f32 [[Q0:%r[0-9]+]],
// CHECK-NEXT: mul.rn.f32 [[Q1:%r[0-9]+]],
// CHECK-COUNT-3: ld.global.b32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: @p mbarrier.arrive.shared::cta.b64
// CHECK-NOT: ld.global
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[P0]],
// CHECK-NOT: ld.global
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[P1]],
// CHECK-NOT: wgmma.wait_group
// CHECK: mul.rn.f32 [[R0:%r[0-9]+]],
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[Q0]],
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[Q1]],
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[R0]],
// CHECK-NOT: wgmma.mma_async
// CHECK: @%p{{[0-9]+}} bra $L__BB0_{{[0-9]+}};
// CHECK-NOT: wgmma.mma_async
// qs.gemm_scale_loads = "in_tile" (INTILE): overlapped, runs of four, the
// scales of k-tile j loaded after the wgmmas of k-tile j + 1 are issued
// (and before the wait_group 1 after which they are used).
// INTILE-LABEL: .entry qs_gemm(
// INTILE-NOT: ld.global
// INTILE-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// INTILE-NOT: ld.global
// INTILE: mbarrier.try_wait.parity.shared::cta.b64
// INTILE-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// INTILE: wgmma.commit_group.sync.aligned;
// INTILE-COUNT-3: ld.global.b32
// INTILE: wgmma.wait_group.sync.aligned 1;
// INTILE: fma.rn.f32
// INTILE-COUNT-2: wgmma.wait_group.sync.aligned 1;
// INTILE: wgmma.wait_group.sync.aligned 0;
// INTILE-NOT: wgmma.mma_async
// INTILE: @%p{{[0-9]+}} bra $L__BB0_{{[0-9]+}};
// INTILE-NOT: wgmma.mma_async
!x = !qs.tensor<512x1536xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w = !qs.tensor<768x1536xbf16, #qs.fp8_block<columnwise = false>>
// qs.gemm_split_k = 1: one block per tile, the kernel these checks read; by default a GEMM this small splits K.
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 1 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<512x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<512x768xbf16>
    return %y : tensor<512x768xbf16>
  }
}
