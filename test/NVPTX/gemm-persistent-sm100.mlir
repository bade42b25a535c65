// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed 's/qs.gemm_persistent = 148 : i64}/qs.gemm_persistent = 148 : i64, qs.gemm_split_k = 4 : i64, qs.gemm_split_k_reduce = "fused", qs.gemm_epilogue = "tma"}/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" 2>/dev/null | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=FUSED

// Persistent sm_100a GEMM (qs.gemm_persistent = 148): 256 threads; warps
// 0-2 load, gather scale factors and issue MMAs for each of the block's
// tiles (1024 tiles over 148 blocks: up to 7 each), warps 4-7 run the
// epilogue. Two accumulator buffers (columns 0-127 and 128-255, scale
// factors from 256: 512 columns allocated); barriers after the stage
// ring: buffer 0's full ("done") at 169040, buffer 1's at 169056, the
// empty ones (128 arrivals: one per epilogue thread) at 169064 and
// 169072. The MMA thread waits for a buffer's empty barrier before its
// third and later units, and commits each unit to the buffer's full
// barrier; an epilogue thread waits for the full barrier, reads its lane
// quarter (warp - 4) with tcgen05.ld and arrives on the empty barrier.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 256, 1, 1
// CHECK: mov.b32 [[EPI:%r[0-9]+]], 128;
// CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[EPI]];
// CHECK: mbarrier.init.shared::cta.b64 [{{%r[0-9]+}}], [[EPI]];
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 169064;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: mbarrier.arrive.shared::cta.b64 _, [{{%r[0-9]+}}];
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 169040;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;

// With the fused split-K reduction (4 splits of one k-tile) and the TMA
// store: each unit's epilogue warps store its plane, release the buffer
// (empty barrier at 169064 + 8 x buffer) and arrive between two named
// barriers of their 128 threads (warps 0-3 run the next units' roles);
// the tile's last unit stages D and stores it with TMA; every TMA store
// is complete (wait_group 0) before tensor memory is freed.
// FUSED-LABEL: .entry qs_gemm(
// FUSED: .maxntid 256, 1, 1
// FUSED: tcgen05.ld.sync.aligned.32x32b.x32.b32
// FUSED: st.global.v4.b32
// FUSED: mbarrier.arrive.shared::cta.b64 _,
// FUSED: bar.sync 1, 128;
// FUSED: atom.acq_rel.gpu.add.u32
// FUSED: bar.sync 1, 128;
// FUSED: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// FUSED: cp.async.bulk.wait_group 0;
// FUSED: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
!x = !qs.tensor<4096x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<4096x512xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_100a", qs.gemm_persistent = 148 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<4096x4096xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (32 x 32), 5-stage ring, 4 k-tiles of 128, block-scaled MMA (scale factors in tensor memory), persistent; 148 blocks of 256 threads, 169088 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }
}
