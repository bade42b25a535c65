// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_mx_scaling = "promote"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PROMOTE
// RUN: sed 's/1024x512xbf16, #qs.mxfp8<columnwise = false>/1024x512xbf16, #qs.mxfp8<columnwise = false, fp8_dtype = f8E5M2>/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=E5M2
// RUN: sed 's/transpose_b/transpose_b fast_accumulate/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// MXFP8 on Hopper with K-major operands (fprop, TN), by default
// (qs.gemm_mx_scaling = "convert"): the consumers convert each half
// k-tile (64 elements of K) of A and B, codes times their E8M0 scales, to
// bf16 in shared memory and bf16 wgmma sums them in FP32, no promotion.
// Per half: named barrier 1 (both consumers past the wgmmas that read
// this buffer), each thread's 32 codes of a row of A and of B (two
// 16-byte loads from the 128-byte-swizzled stage each), per 16-bit pair
// cvt.rn.f16x2.e4m3x2, both halves to f32, mul.rn.f32 by the block's
// scale (2^(e - 127): shl 23), cvt.rn.bf16x2.f32, four 16-byte stores;
// fence.proxy.async and the barrier again; the stage freed after the
// second half; four m64n128k16 bf16 wgmmas, one group left in flight
// (wait_group 1). The next k-tile's four scale codes (A's and B's two
// 32-blocks) are loaded before the first half and carried. With
// qs.gemm_mx_scaling = "promote" (PROMOTE): FP8 wgmma promoted per
// 32-block in 128x64 tiles (gemm-mxfp8.mlir). fast_accumulate changes
// nothing (REMARK): the conversion is exact and the sum FP32 either way.
// PTX of every schedule: ptxas-all-kernels.test (168 registers, no
// spills); numerics: test_gemm.py test_gemm_mxfp8_converted*.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxnreg 168
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: ld.global.b8
// CHECK: bar.sync 1, 256;
// CHECK: shl.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 23;
// CHECK: ld.shared.v4.b32
// CHECK: cvt.rn.f16x2.e4m3x2 h0, p0;
// CHECK: cvt.f32.f16 f0, q0;
// CHECK: mul.rn.f32 f0, f0,
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.shared.v4.b32
// CHECK-COUNT-3: st.shared.v4.b32
// CHECK: shl.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 23;
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK-NOT: mbarrier.arrive
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 1, 256;
// CHECK-NOT: mbarrier.arrive
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: bar.sync 1, 256;
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 1, 256;
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: e4m3.e4m3
// E5M2 codes of A (TE's HYBRID gradients) convert with cvt.rn.f16x2.e5m2x2.
// E5M2-LABEL: .entry qs_gemm(
// E5M2: cvt.rn.f16x2.e5m2x2 h0, p0;
// E5M2: cvt.rn.f16x2.e4m3x2 h0, p0;
// E5M2: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PROMOTE-LABEL: .entry qs_gemm(
// PROMOTE: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// PROMOTE-NOT: bf16.bf16
// REMARK: remark: GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (8 x 6), 4-stage ring, 4 k-tiles of 128, FP8 codes times E8M0 scales converted to bf16 in shared memory; 48 blocks
!x = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_90a"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (8 x 6), 4-stage ring, 4 k-tiles of 128, FP8 codes times E8M0 scales converted to bf16 in shared memory; 48 blocks of 384 threads, 196672 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 1 : i64} : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
