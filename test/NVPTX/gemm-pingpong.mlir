// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=TAIL
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PRODUCER
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.gemm_schedule = "pingpong" with qs.gemm_persistent = 5: 5 persistent
// blocks over 15 128x128 tiles; consumer warpgroup c computes the block's
// tiles of iterations c, c + 2, ... whole. Each stage has one reader, so
// its empty barrier takes one arrival. Per k-tile one wgmma group: the
// tile's rows [0, 64) and [64, 128) as two blocks of four m64n128k32
// (A's descriptors 64 rows = 8 KiB apart, B's shared); wait_group 1, then
// the previous k-tile's stage is freed; after the k-loop wait_group 0, the
// tile's last stage is freed and the epilogue stores both halves.
// The consumers take turns on the ring: consumer c waits on named barrier
// 2 + c before its tile's k-loop (from its second iteration on), which the
// other consumer arrives on after its own k-loop (when the block has a
// next iteration); otherwise a consumer could pass a full-barrier wait two
// phases early (same parity), on the other consumer's data.
// ORDER-DAG: bar.sync 2, 256;
// ORDER-DAG: bar.sync 3, 256;
// ORDER-DAG: bar.arrive 2, 256;
// ORDER-DAG: bar.arrive 3, 256;
// CHECK-LABEL: .entry qs_gemm(
// CHECK: mov.b32 [[ONE:%r[0-9]+]], 1;
// CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[ONE]];
// CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[ONE]];
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{(%r[0-9]+, ){63}%r[0-9]+}}}, %rd{{[0-9]+}}, [[B:%rd[0-9]+]], p, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 8192;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{{(%r[0-9]+, ){63}%r[0-9]+}}}, %rd{{[0-9]+}}, [[B]], p, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: @p mbarrier.arrive.shared::cta.b64
// TAIL: wgmma.wait_group.sync.aligned 0;
// TAIL: @p mbarrier.arrive.shared::cta.b64
// TAIL: cvt.rn.bf16x2.f32
// PRODUCER: setmaxnreg.dec.sync.aligned.u32 40;
// PRODUCER: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c640_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 5 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
!x = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<640x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_schedule = "pingpong", qs.gemm_persistent = 5 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<384x640xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<384x640xbf16>
    return %y : tensor<384x640xbf16>
  }
}
