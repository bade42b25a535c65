// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.gemm_cluster = 2: clusters of two blocks (.reqnctapercluster 2, 1,
// 1) compute vertically adjacent 128 x 128 tiles sharing their B tile.
// Each stage's empty barrier takes 4 arrivals (both blocks' consumers),
// the blocks meet at a cluster barrier once their barriers exist and again
// before exiting; the producer loads its A tile and its half of B (64
// rows: tensor map box 64 x 128) with .multicast::cluster into both
// blocks (mask 3); each consumer frees a stage in its block and, through
// mapa, in the other. M = 384 is 3 tile rows: 2 pairs x 6 tile columns =
// 24 blocks (the last pair's second block lies past M).
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: mov.b32 [[FOUR:%r[0-9]+]], 4;
// CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[FOUR]];
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: @p mbarrier.arrive.shared::cta.b64
// CHECK: mapa.shared::cluster.u32 [[REMOTE:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: @p mbarrier.arrive.shared::cluster.b64 _, [[[REMOTE]]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}];
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%r[0-9]+}}], [[MASK]];
// CHECK: barrier.cluster.arrive.release.aligned;
// CHECK-NEXT: barrier.cluster.wait.acquire.aligned;
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c384_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c768_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 24 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
!x = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_cluster = 2 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<384x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<384x768xbf16>
    return %y : tensor<384x768xbf16>
  }
}
