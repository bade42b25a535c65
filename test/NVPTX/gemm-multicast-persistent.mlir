// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.gemm_cluster = 2 with qs.gemm_persistent = 7: the persistent grid of
// multicast pairs is even (7 -> 6 blocks, 3 pairs; M = 640 is 5 tile rows,
// 3 pair rows x 6 tile columns = 36 tiles, 6 per block), so the blocks of a
// pair walk the two tiles of each tile pair together. Each consumer frees
// every stage in its block and, through mapa, in the other, including the
// tile's last stage after the k-loop's final wait_group 0 (the producers
// stream the next tile pair meanwhile).
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: @p mbarrier.arrive.shared::cta.b64
// CHECK: mapa.shared::cluster.u32
// CHECK: @p mbarrier.arrive.shared::cluster.b64
// The tile's last stage.
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: add.s32 [[LAST:%r[0-9]+]],
// CHECK: @p mbarrier.arrive.shared::cta.b64 _, [[[LAST]]];
// CHECK: mapa.shared::cluster.u32 [[REMOTE:%r[0-9]+]], [[LAST]], {{%r[0-9]+}};
// CHECK: @p mbarrier.arrive.shared::cluster.b64 _, [[[REMOTE]]];
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 6 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
!x = !qs.tensor<640x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_cluster = 2 : i64, qs.gemm_persistent = 7 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<640x768xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<640x768xbf16>
    return %y : tensor<640x768xbf16>
  }
}
