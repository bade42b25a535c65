// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=WGRAD
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_mx_scaling = "promote"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PROMOTE

// MXFP8 on Hopper with MN-major operands (column-wise data, which keeps
// the tensor's layout: dgrad's w, wgrad's dy and x), converted to bf16 by
// default as fprop is (gemm-mxfp8-convert.mlir): TMA loads an MN-major
// tile unswizzled ([128 K rows, 128 tile rows]); the conversion writes
// the same K-major, 128-byte-swizzled bf16 tiles as for K-major operands,
// transposing on the way. Per half k-tile, each thread takes four tile
// rows (4 l .. 4 l + 3, l its lane) at eight k (8 g .. 8 g + 7, g = (warp
// + l / 2) % 8): per pair of k, two 4-byte loads (the four rows' codes at
// k and at k + 1; a warp reads 32 banks), prmt 0x5140 and 0x7362 regroup
// them into each row's 16-bit pair along K, converted with that row's
// E8M0 scale; then one 16-byte store per row (the eight lanes of a
// quarter warp store eight different swizzled chunks). The K-major
// operand (dgrad's dy) converts as in fprop. Scale codes carried to the
// next k-tile: 2 per K-major operand, 8 per MN-major one (four rows, two
// halves; GEMM-swizzled w: 16 bytes apart, compact: adjacent). The
// promoting kernel (PROMOTE, qs.gemm_mx_scaling = "promote") copies the
// tiles transposed as FP8 first (gemm-mn-major.mlir). Numerics:
// test_gemm.py test_gemm_mxfp8_converted_mn_major, test_gemm_mn_major_edges,
// test_gemm_mxfp8_converted_scale_ranges.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxnreg 168
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-10: ld.global.b8
// CHECK-NOT: ld.global
// CHECK: bar.sync 1, 256;
// CHECK: ld.shared.v4.b32
// CHECK: cvt.rn.f16x2.e4m3x2 h0, p0;
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: ld.shared.b32 [[K0:%r[0-9]+]], [{{%r[0-9]+}}];
// CHECK: ld.shared.b32 [[K1:%r[0-9]+]], [{{%r[0-9]+}}];
// CHECK: prmt.b32 {{%r[0-9]+}}, [[K0]], [[K1]], 0x5140U;
// CHECK: cvt.rn.f16x2.e4m3x2 h0, p0;
// CHECK: prmt.b32 {{%r[0-9]+}}, [[K0]], [[K1]], 0x7362U;
// CHECK-COUNT-3: prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7362U;
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK-NOT: ld.shared
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync 1, 256;
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK-NOT: e4m3.e4m3
// wgrad: both operands MN-major, 16 codes carried, no 16-byte loads.
// WGRAD-LABEL: .entry qs_gemm_0(
// WGRAD: mbarrier.try_wait.parity.shared::cta.b64
// WGRAD-COUNT-16: ld.global.b8
// WGRAD: bar.sync 1, 256;
// WGRAD-NOT: ld.shared.v4.b32
// WGRAD-COUNT-8: prmt.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 0x5140U;
// WGRAD-NOT: ld.shared.v4.b32
// WGRAD: fence.proxy.async.shared::cta;
// WGRAD: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PROMOTE-LABEL: .entry qs_gemm(
// PROMOTE: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// PROMOTE-NOT: bf16.bf16
// PROMOTE-LABEL: .entry qs_gemm_0(
// PROMOTE: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// PROMOTE-NOT: bf16.bf16
!dy = !qs.tensor<1024x768xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<rowwise = false, optimize_for_gemm = true>>
!dyc = !qs.tensor<1024x768xbf16, #qs.mxfp8<rowwise = false>>
!x = !qs.tensor<1024x512xbf16, #qs.mxfp8<rowwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @dgrad(%dy: !dy, %w: !w) -> tensor<1024x512xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (8 x 4), 4-stage ring, 6 k-tiles of 128, FP8 codes times E8M0 scales converted to bf16 in shared memory (MN-major tiles transposed); 32 blocks of 384 threads, 196672 bytes of shared memory}}
    %dx = qs.gemm %dy, %w {qs.gemm_split_k = 1 : i64} : !dy, !w -> tensor<1024x512xbf16>
    return %dx : tensor<1024x512xbf16>
  }
  func.func @wgrad(%dy: !dyc, %x: !x) -> tensor<768x512xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (6 x 4), 4-stage ring, 8 k-tiles of 128, FP8 codes times E8M0 scales converted to bf16 in shared memory (MN-major tiles transposed); 24 blocks of 384 threads, 196672 bytes of shared memory}}
    %dw = qs.gemm %dy, %x transpose_a {qs.gemm_split_k = 1 : i64} : !dyc, !x -> tensor<768x512xbf16>
    return %dw : tensor<768x512xbf16>
  }
}
