// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed -e 's/qs.gemm_split_k = 4 : i64,/qs.gemm_split_k = 4 : i64, qs.gemm_schedule = "pingpong", qs.gemm_persistent = 8 : i64,/' -e 's/transpose_b bias/transpose_b fast_accumulate bias/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PINGPONG
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SM100
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans=true 2>&1 >/dev/null | FileCheck %s --check-prefix=PLAN

// qs.gemm_split_k_reduce = "fused": the split-K GEMM of gemm-split-k.mlir
// (128 x 1024 x 4096 with bias, 8 tiles x 4 splits = 32 blocks) without
// the reduction kernel. The GEMM kernel gets bias, D and the workspace;
// its module holds one zero-initialized counter per output tile.
// HOST: %[[WS:.*]] = memref.alloc() : memref<524288xf32>
// HOST: call @qs_gemm_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]]) : (memref<16xi64>, memref<16xi64>, memref<1xf32>, memref<1xf32>, memref<1024xbf16>, memref<131072xbf16>, memref<524288xf32>) -> ()
// HOST-NOT: qs_gemm_split_k_reduce
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 32 : i64
// HOST: memref.global "private" @qs_gemm_split_k_counters : memref<8xi32> = dense<0>
// HOST-NOT: qs_gemm_split_k_reduce
// PLAN: remark: GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 8), {{.*}} 32 k-tiles of 128 in 4 splits of 8, {{.*}}; 32 blocks of 384 threads, {{[0-9]+}} bytes of shared memory; each tile's last unit sums its planes

// The kernel: the unit's plane (alpha acc, FP32 pairs); every consumer
// thread fences its stores and meets the other consumer's (named barrier
// 1); consumer 0's thread 0 counts the unit done on the tile's counter
// (acquire-release at GPU scope), zeroes it if the unit was the last (the
// fourth), and tells the block in shared memory; after a second barrier
// the last unit's threads fence, read the four planes at their positions
// (2 MiB apart), sum them in plane order, add the bias and store bf16.
// CHECK: .global .align 16 .b8 qs_gemm_split_k_counters[32];
// CHECK-LABEL: .entry qs_gemm(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: st.global.v2.b32
// CHECK: fence.acq_rel.gpu;
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: bar.sync 1, 256;
// CHECK: cvta.global.u64 {{.*}}, {{.*}};
// CHECK: atom.acq_rel.gpu.add.u32
// CHECK: setp.eq.b32 {{.*}}, {{.*}}, 3;
// CHECK: @p st.relaxed.gpu.u32
// CHECK-NEXT: st.shared.b32
// CHECK: bar.sync 1, 256;
// CHECK: ld.shared.b32
// CHECK: fence.acq_rel.gpu;
// CHECK-NOT: st.global
// CHECK: ld.global.v2.b32 {{.*}}, [[[P:%rd[0-9]+]]];
// CHECK-NEXT: ld.global.v2.b32 {{.*}}, [[[P]]+524288];
// CHECK: ld.global.v2.b32 {{.*}}, [[[P]]+1048576];
// CHECK: ld.global.v2.b32 {{.*}}, [[[P]]+1572864];
// CHECK: ld.global.b16
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: .entry

// Ping-pong (8 persistent blocks of 4 units, two per consumer): each
// consumer computes whole units, so each arrives alone: its 128 threads
// meet at named barrier 4 (consumer 0) or 5, its thread 0 counts, with
// its own flag word.
// PINGPONG-LABEL: .entry qs_gemm(
// PINGPONG: fence.acq_rel.gpu;
// PINGPONG-DAG: bar.sync 4, 128;
// PINGPONG-DAG: bar.sync 5, 128;
// PINGPONG: atom.acq_rel.gpu.add.u32
// PINGPONG: st.shared.b32
// PINGPONG: ld.shared.b32
// PINGPONG: fence.acq_rel.gpu;
// PINGPONG: ld.global.v2.b32
// PINGPONG-NOT: .entry

// sm_100a: the four warps that store the plane from tensor memory meet
// at barrier 0; the last unit reads 8 FP32 of each plane at a time
// (32-byte loads) for 8 bf16 outputs (a 16-byte store).
// SM100: .global .align 16 .b8 qs_gemm_split_k_counters[32];
// SM100-LABEL: .entry qs_gemm(
// SM100: tcgen05.ld
// SM100: st.global.v2.b64
// SM100: fence.acq_rel.gpu;
// SM100: bar.sync 0;
// SM100: atom.acq_rel.gpu.add.u32
// SM100: bar.sync 0;
// SM100: fence.acq_rel.gpu;
// SM100: ld.global.v4.b64 {{.*}}, [[[Q:%rd[0-9]+]]];
// SM100-NEXT: ld.global.v4.b64 {{.*}}, [[[Q]]+524288];
// SM100: cvt.rn.bf16x2.f32
// SM100: st.global.v4.b32
// SM100-NOT: .entry
!x = !qs.tensor<128x4096xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x4096xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 4 : i64, qs.gemm_split_k_reduce = "fused"} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<1024xbf16>) -> tensor<128x1024xbf16> {
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<1024xbf16>) : !x, !w -> tensor<128x1024xbf16>
    return %y : tensor<128x1024xbf16>
  }
}
