// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans=true 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN
// RUN: sed 's/qs.chip = "sm_90a", /qs.chip = "sm_90a", qs.gemm_persistent = 128 : i64, /' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans=true 2>&1 >/dev/null | FileCheck %s --check-prefix=DIVIDED

// qs.gemm_split_k = "stream": 4096^3 per-tensor FP8 in 1024 tiles of
// 128 x 128 over 132 persistent blocks (one per multiprocessor). 1024 =
// 7 x 132 + 100: the last 132 + 100 = 232 tiles' 7424 k-tiles are shared
// (56 or 57 per block, so a tile spans at most two blocks), then each
// block computes 6 whole tiles. The workspace holds two planes of the 232
// stream-K tiles (2 x 232 x 128 x 128 FP32), the module one counter per
// tile; no reduction kernel.
// PLAN: remark: GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (32 x 32), 6-stage ring, 32 k-tiles of 128, FP32 promotion per 128 of K, persistent; 132 blocks of 384 threads, 196720 bytes of shared memory; stream-K: the last 232 tiles' 7424 k-tiles shared by the blocks (56-57 each, up to 2 per tile), then 6 whole tiles each; each shared tile's last block sums its planes
// HOST: %[[WS:.*]] = memref.alloc() : memref<7602176xf32>
// HOST: call @qs_gemm_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]]) : (memref<16xi64>, memref<16xi64>, memref<1xf32>, memref<1xf32>, memref<4096xbf16>, memref<16777216xbf16>, memref<7602176xf32>) -> ()
// HOST-NOT: qs_gemm_split_k_reduce
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 132 : i64
// HOST: memref.global "private" @qs_gemm_split_k_counters : memref<1024xi32> = dense<0>
// HOST-NOT: qs_gemm_split_k_reduce

// A grid that divides the tiles (128 blocks, 8 tiles each) has nothing to
// share: the plain persistent kernel.
// DIVIDED: remark: GEMM kernel plan: {{.*}}, persistent; 128 blocks of 384 threads, {{[0-9]+}} bytes of shared memory; stream-K: none (the blocks divide the tiles)

// The kernel: after a segment's k-loop, a segment sharing its tile stores
// its plane (alpha acc as FP32 pairs) and arrives: fence, the consumers'
// barrier, one atomic on the tile's counter compared with the tile's
// contributors - 1 (a register, not a constant as with split-K), the flag
// in shared memory; the tile's last block fences and sums the planes at
// its positions, 232 x 128 x 128 x 4 bytes apart, in a loop per output
// group (runtime-unrolled by LLVM), adds the bias and stores bf16. A
// segment computing its tile whole stores D directly.
// CHECK: .global .align 16 .b8 qs_gemm_split_k_counters[4096];
// CHECK-LABEL: .entry qs_gemm(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: st.global.v2.b32
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.sync 1, 256;
// CHECK: atom.acq_rel.gpu.add.u32 [[BEFORE:%r[0-9]+]], [{{%rd[0-9]+}}], {{%r[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: setp.eq.b32 {{%p[0-9]+}}, [[BEFORE]], {{%r[0-9]+}};
// CHECK: @p st.relaxed.gpu.u32
// CHECK-NEXT: st.shared.b32
// CHECK: bar.sync 1, 256;
// CHECK: ld.shared.b32
// CHECK: fence.acq_rel.gpu;
// CHECK: ld.global.v2.b32
// CHECK: $L__BB
// CHECK: ld.global.v2.b32 {{.*}}, [[[P:%rd[0-9]+]]];
// CHECK: ld.global.v2.b32 {{.*}}, [[[P]]+15204352];
// CHECK: ld.global.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: .entry

!a = !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = "stream"} {
func.func @stream(%a: !a, %b: !a, %bias: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %y = qs.gemm %a, %b transpose_b bias(%bias : tensor<4096xbf16>) : !a, !a -> tensor<4096x4096xbf16>
  return %y : tensor<4096x4096xbf16>
}
}
