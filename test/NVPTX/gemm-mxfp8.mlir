// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_promotion = "in_tile"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=OVERLAP
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_tile_n = 128 : i64/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=WIDE

// MXFP8 on Hopper, which TE does not offer: FP8 wgmma with per-32
// promotion (qs.gemm_mx_scaling = "promote"; K-major operands are
// converted to bf16 by default: gemm-mxfp8-convert.mlir). 128x64 tiles; per 128-wide k-tile, four fresh m64n64k32
// accumulator sets (one per 32-block) issued together, waited for once,
// the stage freed, and each set promoted with its E8M0 scales (2^(e -
// 127), from the compact and the GEMM-swizzled layouts: a row's four
// codes of the k-tile are one aligned word, so 18 word loads (2 rows of
// A, 16 columns of B) before the wgmmas, decoded after the wait).
// .maxnreg 168 lets setmaxnreg move registers to the consumers.
// That is qs.gemm_promotion = "in_tile" (CHECK). By default (OVERLAP) the
// promotion overlaps the next wgmmas (GemmPlan::overlapsPromotion): two
// groups of two 32-blocks per k-tile, the second group's two wgmmas
// issued before the first group's words are loaded, waited for
// (wait_group 1) and promoted, then the second group's (wait_group 0, the
// stage freed).
// OVERLAP-LABEL: .entry qs_gemm(
// OVERLAP: mbarrier.try_wait.parity.shared::cta.b64
// OVERLAP-NOT: ld.global
// OVERLAP-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// OVERLAP: wgmma.commit_group.sync.aligned;
// OVERLAP-NOT: wgmma.wait_group
// OVERLAP-NOT: ld.global
// OVERLAP-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// OVERLAP: wgmma.commit_group.sync.aligned;
// OVERLAP-COUNT-18: ld.global.{{(nc.)?}}b32
// OVERLAP: wgmma.wait_group.sync.aligned 1;
// OVERLAP-NOT: mbarrier.arrive
// OVERLAP: fma.rn.f32
// OVERLAP-COUNT-18: ld.global.{{(nc.)?}}b32
// OVERLAP: wgmma.wait_group.sync.aligned 0;
// OVERLAP: mbarrier.arrive.shared::cta.b64
// OVERLAP: fma.rn.f32
// OVERLAP-NOT: wgmma.mma_async
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 384, 1, 1
// CHECK: .maxnreg 168
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-18: ld.global.{{(nc.)?}}b32
// CHECK-NOT: ld.global
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-NEXT: }
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// CHECK-NEXT: }
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: mbarrier.arrive.shared::cta.b64
// qs.gemm_tile_n = 128 (WIDE): 128x128 tiles in 6 stages; each round's two
// m64n64k32 are issued per 64-column chunk, waited for and promoted into
// that chunk's registers: 2 rounds x 2 chunks, four waits per k-tile, the
// stage freed after the last.
// WIDE-COUNT-12: mbarrier.init.shared::cta.b64
// WIDE-NOT: mbarrier.init
// WIDE: wgmma.fence.sync.aligned;
// WIDE-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// WIDE: wgmma.wait_group.sync.aligned 0;
// WIDE-NOT: mbarrier.arrive.shared::cta.b64
// WIDE: wgmma.fence.sync.aligned;
// WIDE-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// WIDE: wgmma.wait_group.sync.aligned 0;
// WIDE-NOT: mbarrier.arrive.shared::cta.b64
// WIDE: wgmma.fence.sync.aligned;
// WIDE-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// WIDE: wgmma.wait_group.sync.aligned 0;
// WIDE-NOT: mbarrier.arrive.shared::cta.b64
// WIDE: wgmma.fence.sync.aligned;
// WIDE-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// WIDE: wgmma.wait_group.sync.aligned 0;
// WIDE: mbarrier.arrive.shared::cta.b64
// WIDE-NOT: m64n128k32
!x = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_90a", qs.gemm_mx_scaling = "promote"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
