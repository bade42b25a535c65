// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed 's/qs.gemm_mx_scaling = "dequantize"/qs.gemm_mx_scaling = "dequantize", qs.gemm_tile_n = 256 : i64, qs.gemm_persistent = 132 : i64, qs.gemm_cluster = 2 : i64/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIONS

// MXFP8 on Hopper with qs.gemm_mx_scaling = "dequantize": before each
// GEMM, one pre-pass kernel per operand (qs_gemm_dequantize) writes its
// codes times their E8M0 scales, rounded to bf16, as the K-major [rows, K]
// operand in global memory, with the converting kernel's own conversion
// (cvt.rn.f16x2.e4m3x2, both halves to f32, mul.rn.f32 by the scale,
// cvt.rn.bf16x2.f32). K-major data (fprop's x and w, dgrad's dy): per
// thread 16 codes (one 16-byte load, one scale), two 16-byte stores.
// MN-major data (dgrad's column-wise w, [K, N]): 16 rows' codes at one k
// (a 16-byte load, 16 scales), 16 2-byte stores, transposing. Each
// pre-pass also writes its operand's per-tensor factor, 1.0, which the
// GEMM reads as that operand's scale_inv. The
// GEMM is the per-tensor FP8 kernel's (TMA into 128-byte-swizzled stages,
// the mbarrier ring, both consumers' wgmmas, no conversion, no promotion)
// on 64-element k-tiles of bf16, 128-byte rows as FP8's 128-element ones:
// four m64nNk16 bf16 wgmmas per k-tile (32-byte descriptor steps), FP32
// sums. Its tiles and schedules are per-tensor FP8's (the OPTIONS run: 128x256,
// persistent, multicast pairs, dgrad too: the GEMM's operands are K-major
// whatever the MXFP8 data's layout). Numerics: test_gemm.py
// test_gemm_mxfp8_dequantized (every layout and schedule, emulated);
// ptxas: ptxas-all-kernels.test (168 registers, no spills).
// CHECK-LABEL: .entry qs_gemm_dequantize(
// CHECK: ld.global.v4.b32
// CHECK: cvt.rn.f16x2.e4m3x2 h0, p0;
// CHECK: mul.rn.f32 f0, f0,
// CHECK: cvt.rn.bf16x2.f32
// CHECK-COUNT-2: st.global.v4.b32
// CHECK: st.global.b32 {{.*}}, 1065353216;
// CHECK-LABEL: .entry qs_gemm_dequantize_0(
// CHECK: ld.global.v4.b32
// CHECK-COUNT-2: st.global.v4.b32
// CHECK: st.global.b32 {{.*}}, 1065353216;
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxnreg 168
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 0;
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-NOT: cvt.rn.f16x2.e4m3x2
// CHECK-LABEL: .entry qs_gemm_dequantize_1(
// CHECK-COUNT-2: st.global.v4.b32
// CHECK-LABEL: .entry qs_gemm_dequantize_2(
// CHECK: ld.global.v4.b32
// CHECK-COUNT-16: st.global.b16
// CHECK-NOT: st.global.v4
// CHECK-LABEL: .entry qs_gemm_0(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// OPTIONS: remark: GEMM kernel plan: MXFP8 operands dequantized to K-major bf16 by two pre-pass kernels (qs_gemm_dequantize), then sm_90a wgmma kernel, 128x256 tiles (8 x 3), 4-stage ring, 8 k-tiles of 64, bf16 wgmma (FP32 sums), persistent, 2-block clusters multicasting B; 24 blocks
// OPTIONS: remark: GEMM kernel plan: MXFP8 operands dequantized to K-major bf16 by two pre-pass kernels (qs_gemm_dequantize), then sm_90a wgmma kernel, 128x256 tiles (8 x 2), 4-stage ring, 12 k-tiles of 64, bf16 wgmma (FP32 sums), persistent, 2-block clusters multicasting B; 16 blocks
!x = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
!dy = !qs.tensor<1024x768xbf16, #qs.mxfp8<columnwise = false>>
!wt = !qs.tensor<768x512xbf16, #qs.mxfp8<rowwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_mx_scaling = "dequantize"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: MXFP8 operands dequantized to K-major bf16 by two pre-pass kernels (qs_gemm_dequantize), then sm_90a wgmma kernel, 128x128 tiles (8 x 6), 6-stage ring, 8 k-tiles of 64, bf16 wgmma (FP32 sums); 48 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
  func.func @dgrad(%dy: !dy, %w: !wt) -> tensor<1024x512xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: MXFP8 operands dequantized to K-major bf16 by two pre-pass kernels (qs_gemm_dequantize), then sm_90a wgmma kernel, 128x128 tiles (8 x 4), 6-stage ring, 12 k-tiles of 64, bf16 wgmma (FP32 sums); 32 blocks of 384 threads, 196704 bytes of shared memory}}
    %dx = qs.gemm %dy, %w : !dy, !wt -> tensor<1024x512xbf16>
    return %dx : tensor<1024x512xbf16>
  }
}
