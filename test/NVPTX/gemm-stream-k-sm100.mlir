// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// qs.gemm_split_k = "stream" on sm_100a: 4096^3 MXFP8 in 1024 tiles of
// 128 x 128 over 148 persistent blocks of 256 threads (one per
// multiprocessor). 1024 = 6 x 148 + 136: the last 148 + 136 = 284 tiles'
// 9088 k-tiles are shared (61 or 62 per block, so a tile spans at most
// two blocks), then each block computes 5 whole tiles. The workspace holds
// two planes of the 284 stream-K tiles (2 x 284 x 128 x 128 FP32), the
// module one counter per tile; no reduction kernel.
// HOST: %[[WS:.*]] = memref.alloc() : memref<9306112xf32>
// HOST: call @qs_gemm_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]]) : (memref<16xi64>, memref<16xi64>, memref<524288xf8E8M0FNU>, memref<524288xf8E8M0FNU>, memref<4096xbf16>, memref<16777216xbf16>, memref<9306112xf32>) -> ()
// HOST-NOT: qs_gemm_split_k_reduce
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 256 : i64, qs_launch_grid = 148 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 169104 : i64}
// HOST: memref.global "private" @qs_gemm_split_k_counters : memref<1024xi32> = dense<0>
// HOST-NOT: qs_gemm_split_k_reduce

// The kernel: the persistent roles loop over the block's segments (each
// segment's k-tiles, a count in a register), alternating the two
// accumulator buffers (512 columns). After a segment's MMAs the epilogue
// warps (4-7) read their lane quarter; a segment sharing its tile stores
// its plane (alpha acc, FP32, 32 bytes at a time), frees the buffer
// (empty barrier at 169064 + 8 x buffer) and arrives: fence, the
// epilogue warps' named barrier (128 threads: warps 0-3 run the other
// roles), one atomic on the tile's counter against contributors - 1, the
// flag at 169088; the tile's last block fences and sums the planes in
// order, 284 x 128 x 128 x 4 bytes apart (a loop runtime-unrolled by
// LLVM, packed f32x2 adds), adds the bias and stores bf16. A segment computing its tile whole stores D.
// CHECK: .global .align 16 .b8 qs_gemm_split_k_counters[4096];
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: st.global.v8.b32
// CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 169064;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: mbarrier.arrive.shared::cta.b64 _, [{{%r[0-9]+}}];
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.sync 1, 128;
// CHECK: atom.acq_rel.gpu.add.u32 [[BEFORE:%r[0-9]+]], [{{%rd[0-9]+}}], {{%r[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: setp.eq.b32 {{%p[0-9]+}}, [[BEFORE]], {{%r[0-9]+}};
// CHECK: add.s32 [[FLAG:%r[0-9]+]], {{%r[0-9]+}}, 169088;
// CHECK: @p st.relaxed.gpu.u32
// CHECK-NEXT: st.shared.b32 [[[FLAG]]]
// CHECK: bar.sync 1, 128;
// CHECK: ld.shared.b32
// CHECK: fence.acq_rel.gpu;
// CHECK: ld.global.v4.b64 {{.*}}, [[[P:%rd[0-9]+]]];
// CHECK: $L__BB
// CHECK: mad.lo.s64 [[Q:%rd[0-9]+]], {{%rd[0-9]+}}, 18612224, [[P]];
// CHECK-NEXT: ld.global.v4.b64 {{.*}}, [[[Q]]];
// CHECK: add.rn.f32x2
// CHECK: ld.global.v4.b64 {{.*}}, [[[Q]]+18612224];
// CHECK: ld.global.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v4.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
// CHECK-NOT: .entry
!x = !qs.tensor<4096x4096xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<4096x4096xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_100a", qs.gemm_split_k = "stream"} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (32 x 32), 5-stage ring, 32 k-tiles of 128, block-scaled MMA (scale factors in tensor memory), persistent; 148 blocks of 256 threads, 169104 bytes of shared memory; stream-K: the last 284 tiles' 9088 k-tiles shared by the blocks (61-62 each, up to 2 per tile), then 5 whole tiles each; each shared tile's last block sums its planes}}
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<4096xbf16>) : !x, !w -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }
}
