// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// Persistent sm_100a GEMM in block-scaled 128x256 tiles (MXFP8 4096^3,
// qs.gemm_persistent = 148, qs.gemm_tile_n = 256): one accumulator buffer,
// since two 128x256 FP32 buffers would take all 512 tensor-memory columns
// and leave none for the scale factors (columns 0-255, the slots from 256:
// 512 allocated). Barriers after the 4-stage ring (202752): "done" (the
// buffer's full barrier) at 202816 with one arrival, the buffer's empty
// barrier at 202840 with 128 (one per epilogue thread); buffer 1's are
// not initialized. The MMA thread waits for the empty barrier before each
// unit but the first (unit u: phase u - 1) and commits the unit's sums to
// "done"; the epilogue warps wait for "done" (phase u), read the buffer
// and arrive on the empty barrier, so unit u + 1's MMAs follow unit u's
// reads (its TMA loads run ahead through the ring).
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 202816;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: mbarrier.init.shared::cta.b64
// CHECK-NOT: 202832;
// CHECK: add.s32 [[EMPTY:%r[0-9]+]], {{%r[0-9]+}}, 202840;
// CHECK-NEXT: mov.b32 [[EPI:%r[0-9]+]], 128;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: mbarrier.init.shared::cta.b64 [[[EMPTY]]], [[EPI]];
// CHECK-NOT: 202848;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK: add.s32 [[WAIT:%r[0-9]+]], {{%r[0-9]+}}, 202840;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 p, [[[WAIT]]]
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: add.s32 [[DONE:%r[0-9]+]], {{%r[0-9]+}}, 202816;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[DONE]]];
// CHECK: add.s32 [[RELEASE:%r[0-9]+]], {{%r[0-9]+}}, 202840;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: mbarrier.arrive.shared::cta.b64 _, [[[RELEASE]]];
// CHECK: add.s32 [[FULL:%r[0-9]+]], {{%r[0-9]+}}, 202816;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 p, [[[FULL]]]
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
!x = !qs.tensor<4096x4096xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<4096x4096xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_100a", qs.gemm_persistent = 148 : i64, qs.gemm_tile_n = 256 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<4096x4096xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x256 tiles (32 x 16), 4-stage ring, 32 k-tiles of 128, block-scaled MMA (scale factors in tensor memory), persistent; 148 blocks of 256 threads, 202864 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }
}
