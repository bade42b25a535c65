// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.gemm_cluster = 2 (on the op: the storage passes keep it on
// qs.gemm_buffers) in a block-scaled kernel (FP8 block, 1x128 x
// 128x128): pairs of blocks share the 128-wide B tile, each loading 64
// rows of it with .multicast::cluster (tensor map box 64 x 128). The
// consumers free each stage inside the k-loop, after the wait_group that
// precedes its promotion (1: the next k-tile's wgmmas in flight, the
// promotion overlapped, GemmPlan::overlapsPromotion): one arrival in their
// block and one, through mapa, in the other (whose producer wrote half of
// B into it); then the promotion (the prefetched scales' products,
// computed when the k-tile was issued, times its partial sums).
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: @p mbarrier.arrive.shared::cta.b64 _, [[[FREED:%r[0-9]+]]];
// CHECK: mapa.shared::cluster.u32 [[REMOTE:%r[0-9]+]], [[FREED]], {{%r[0-9]+}};
// CHECK: @p mbarrier.arrive.shared::cluster.b64 _, [[[REMOTE]]];
// CHECK-NEXT: }
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: fma.rn.f32
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c768_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 24 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
!x = !qs.tensor<384x512xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_block<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<384x768xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_cluster = 2 : i64} : !x, !w -> tensor<384x768xbf16>
    return %y : tensor<384x768xbf16>
  }
}
