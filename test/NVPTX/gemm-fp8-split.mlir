// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=WIDE
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PROMOTE
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_tile_n = 128 : i64, qs.gemm_promotion = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/transpose_b :/transpose_b fast_accumulate :/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=FAST
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_tile_n = 256 : i64/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=WIDE
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_tile_n = 192 : i64/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=T192

// The sm_90a per-tensor FP8 GEMM without fast_accumulate (the default):
// FP32 accumulation, as on the CPU. Hopper's FP8 wgmma keeps only about 14
// bits of a running sum, so each 128-wide k-tile (four m64n128k32 k-steps)
// is summed on its own (the first wgmma's scale-d predicate false), waited
// for (wait_group 0), its stage freed inside the k-loop, and added to FP32
// totals (64 add.rn.f32 per thread and k-tile: the promotion of the block
// kernels with scales of 1); alpha = scale_inv_A * scale_inv_B in the
// epilogue. With qs.gemm_tile_n = 128 and qs.gemm_promotion = "in_tile"
// (CHECK): 128x128 tiles in 6 stages (in 128x128 tiles the promotion
// overlaps the next k-tile's wgmmas by default:
// gemm-promotion-overlapped.mlir). By default, as with qs.gemm_tile_n = 256, where they still fill
// every multiprocessor (16 x 16 tiles here; the H200 ran 8192^3 10% faster
// in them than in 128x128, docs/performance.md) (WIDE): 128x256 tiles whose two 128-column chunks
// are summed (four m64n128k32 each, B's descriptor 16384 bytes further for
// the second) and promoted in turn, 64 partial registers next to the 128
// totals (two whole-tile sets would not fit); the stage is freed after the
// second chunk's wait. With fast_accumulate: 128x256 tiles summed in the
// tensor core, one group in flight.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxnreg 168
// CHECK-COUNT-12: mbarrier.init.shared::cta.b64
// CHECK-NOT: mbarrier.init
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK: setp.ne.b32 p, [[ZERO:%r[0-9]+]], 0;
// CHECK: setp.ne.b32 q, [[ONE:%r[0-9]+]], 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{.*}}, q, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK-COUNT-64: add.rn.f32
// (LLVM rotates the loop: the epilogue's alpha may come first in the PTX.)
// PROMOTE-LABEL: .entry qs_gemm(
// PROMOTE: mul.rn.f32
// PROMOTE: cvt.rn.bf16x2.f32
// PROMOTE-NOT: wgmma.wait_group.sync.aligned 1;
// FAST-COUNT-8: mbarrier.init.shared::cta.b64
// FAST: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// FAST-NOT: add.rn.f32
// FAST: wgmma.wait_group.sync.aligned 1;
// WIDE-LABEL: .entry qs_gemm(
// WIDE-COUNT-8: mbarrier.init.shared::cta.b64
// WIDE-NOT: mbarrier.init
// WIDE: wgmma.fence.sync.aligned;
// WIDE-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WIDE: wgmma.commit_group.sync.aligned;
// WIDE-NEXT: wgmma.wait_group.sync.aligned 0;
// WIDE-COUNT-64: add.rn.f32
// WIDE: wgmma.fence.sync.aligned;
// WIDE: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 16384;
// WIDE-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WIDE: wgmma.commit_group.sync.aligned;
// WIDE-NEXT: wgmma.wait_group.sync.aligned 0;
// WIDE: mbarrier.arrive.shared::cta.b64
// WIDE-COUNT-64: add.rn.f32
// WIDE-NOT: m64n256k32
// qs.gemm_tile_n = 192 (T192): 128x192 tiles in 4 stages of 40 KiB, two
// 96-column chunks (four m64n96k32 each, B's descriptor 96 rows = 12288
// bytes further for the second), 48 partial registers each next to 96
// totals; the promotion overlapped (GemmPlan::overlapsPromotion): the
// second chunk's wgmmas are issued before the first chunk is waited for
// (wait_group 1) and promoted, then the second (wait_group 0, the stage
// freed, its promotion), one k-tile per run.
// T192-LABEL: .entry qs_gemm(
// T192-COUNT-8: mbarrier.init.shared::cta.b64
// T192-NOT: mbarrier.init
// T192: wgmma.fence.sync.aligned;
// T192-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// T192: wgmma.commit_group.sync.aligned;
// T192-NOT: wgmma.wait_group
// T192: wgmma.fence.sync.aligned;
// T192: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 12288;
// T192-COUNT-4: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// T192: wgmma.commit_group.sync.aligned;
// T192: wgmma.wait_group.sync.aligned 1;
// T192-NOT: mbarrier.arrive
// T192-COUNT-48: add.rn.f32
// T192: wgmma.wait_group.sync.aligned 0;
// T192: mbarrier.arrive.shared::cta.b64
// T192-COUNT-48: add.rn.f32
// T192-NOT: m64n{{(128|192|256)}}k32
!x = !qs.tensor<2048x1024xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<4096x1024xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<2048x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<2048x4096xbf16>
    return %y : tensor<2048x4096xbf16>
  }
}
