// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_promotion = "overlapped"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/, qs.gemm_tile_n = 128 : i64/, qs.gemm_promotion = "overlapped"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_promotion = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SERIAL

// The sm_90a per-tensor FP8 GEMM without fast_accumulate in 128x128 tiles
// (K = 1536: 12 k-tiles) overlaps its promotion (GemmPlan::
// overlapsPromotion, the default; qs.gemm_promotion = "overlapped" says it,
// and without qs.gemm_tile_n picks these 128-wide tiles): runs of four
// k-tiles (GemmPlan::overlappedRun: three runs) as straight-line code. A
// run's first k-tile is summed into a fresh partial set (P0) and left in
// flight; each later one is issued into the other set before the previous
// set is waited for (wait_group 1: the newer group stays in flight), its
// stage freed and its 64 partial sums added to the FP32 totals; after the
// run's last k-tile, wait_group 0 and its promotion. No group is in flight
// across the loop's back edge.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[P0:%r[0-9]+]],
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[P0]],
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.wait_group
// CHECK-NOT: add.rn.f32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {[[P1:%r[0-9]+]],
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: @p mbarrier.arrive.shared::cta.b64
// CHECK: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[P0]];
// CHECK-COUNT-63: add.rn.f32
// CHECK-NOT: wgmma.wait_group
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[P1]];
// CHECK-COUNT-63: add.rn.f32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-COUNT-64: add.rn.f32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: @p mbarrier.arrive.shared::cta.b64
// CHECK-COUNT-64: add.rn.f32
// CHECK-NOT: wgmma.mma_async
// CHECK: @%p{{[0-9]+}} bra $L__BB0_{{[0-9]+}};
// CHECK-NOT: wgmma.mma_async
// qs.gemm_promotion = "in_tile" (SERIAL): each k-tile waited for
// (wait_group 0) and promoted within its iteration, one k-tile per
// iteration (the kernel before 2026-12-05).
// SERIAL-LABEL: .entry qs_gemm(
// SERIAL-NOT: wgmma.wait_group.sync.aligned 1;
// SERIAL-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SERIAL: wgmma.commit_group.sync.aligned;
// SERIAL-NEXT: wgmma.wait_group.sync.aligned 0;
// SERIAL: @p mbarrier.arrive.shared::cta.b64
// SERIAL-COUNT-64: add.rn.f32
// SERIAL-NOT: wgmma.wait_group.sync.aligned 1;
// SERIAL-NOT: wgmma.mma_async
!x = !qs.tensor<2048x1536xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<4096x1536xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_tile_n = 128 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<2048x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<2048x4096xbf16>
    return %y : tensor<2048x4096xbf16>
  }
}
