// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_scale_loads = "ahead"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_scale_loads = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=INTILE

// The sm_90a FP8 block GEMM with 128x128-block B (fprop: 1x128 X x
// 128x128 W, 128x128 tiles), its promotion within the k-tile
// (qs.gemm_promotion = "in_tile"; overlapped by default:
// gemm-fp8-block-overlapped.mlir), prefetches its scales (GemmPlan::
// prefetchesScales): each consumer thread loads k-tile 0's two row scales
// of X and the block scale of W before the k-loop; each k-tile first
// multiplies the carried scales (the two products its 64 fma.rn.f32 use)
// and then loads the next k-tile's into the same registers, before it
// waits for its stage. The loads' latency hides behind a whole k-tile, and
// no copies of the loaded values (which ptxas would place right after the
// products, stalling on the loads between the wgmmas) are needed. No
// scale is loaded between the wgmmas and the promotion.
// CHECK-LABEL: .entry qs_gemm(
// CHECK-DAG: ld.global.b32 [[SA0:%r[0-9]+]], [[[AT:%rd[0-9]+]]];
// CHECK-DAG: ld.global.b32 [[SA1:%r[0-9]+]], [[[AT]]+32];
// CHECK-DAG: ld.global.b32 [[SB:%r[0-9]+]], [%rd{{[0-9]+}}];
// CHECK: $L__BB0_[[LOOP:[0-9]+]]:
// CHECK-NOT: ld.global
// CHECK: mul.rn.f32 [[P0:%r[0-9]+]], [[SA0]], [[SB]];
// CHECK-NEXT: mul.rn.f32 [[P1:%r[0-9]+]], [[SA1]], [[SB]];
// CHECK-DAG: ld.global.b32 [[SA0]], [[[NEXT:%rd[0-9]+]]];
// CHECK-DAG: ld.global.b32 [[SA1]], [[[NEXT]]+32];
// CHECK-DAG: ld.global.b32 [[SB]], [%rd{{[0-9]+}}];
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-NOT: ld.global
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-NOT: ld.global
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: ld.global
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[P0]],
// CHECK-NOT: ld.global
// CHECK: fma.rn.f32 %r{{[0-9]+}}, [[P1]],
// CHECK-NOT: ld.global
// CHECK: bra {{.*}}$L__BB0_[[LOOP]];
// qs.gemm_scale_loads = "ahead" says the default; "in_tile" restores the
// loads within the k-tile (to time the two): nothing loaded before the
// k-loop, the three loads after the stage wait and before the wgmmas,
// their products after the wait_group.
// INTILE-LABEL: .entry qs_gemm(
// INTILE-NOT: ld.global
// INTILE: mbarrier.try_wait.parity.shared::cta.b64
// INTILE: wgmma.fence.sync.aligned;
// INTILE-COUNT-3: ld.global.b32
// INTILE: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// INTILE: wgmma.wait_group.sync.aligned 0;
// INTILE: mul.rn.f32
// INTILE: fma.rn.f32
!x = !qs.tensor<512x1024xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w = !qs.tensor<768x1024xbf16, #qs.fp8_block<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_promotion = "in_tile"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<512x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<512x768xbf16>
    return %y : tensor<512x768xbf16>
  }
}
