// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// NVFP4 on Hopper with qs.gemm_mx_scaling = "dequantize" (the MXFP8 form:
// gemm-mxfp8-dequantize.mlir): one pre-pass kernel per operand writes its
// E2M1 codes times their E4M3 block scales as K-major f16 (exact), per
// thread 16 codes of a row (one 8-byte load, one scale decoded from its
// E4M3 byte, the codes decoded in f16 pairs by KernelEnv::decodeE2M1Word
// (mul.rn.f16x2 by 2^14, cvt.f32.f16), per code mul.rn.f32, per pair
// cvt.rn.f16x2.f32 and the NaN fix-up (prmt 0xBB99), no per-code
// cvt.rn.f16.f32, then two 16-byte stores), and its amax / 6E (E = 448: 1 / 2688 =
// 0f39C30C31) as the GEMM's per-tensor scale_inv, which the per-tensor
// epilogue multiplies (alpha = (amaxA / 6E)(amaxB / 6E), the converting
// kernel's). The GEMM: f16 wgmma (m64nNk16 .f16.f16) on 64-element
// k-tiles read by TMA, no conversion. Numerics: test_gemm.py
// test_gemm_nvfp4_dequantized (NVFP4 and 4over6, every layout, four
// schedules; writing 1 for the factor fails all 24).
// CHECK-LABEL: .entry qs_gemm_dequantize(
// CHECK: ld.global.b32 [[AMAX:%r[0-9]+]]
// CHECK-NEXT: mul.rn.f32 [[FACTOR:%r[0-9]+]], [[AMAX]], 0f39C30C31;
// CHECK-NEXT: st.global.b32 {{.*}}, [[FACTOR]];
// CHECK-LABEL: .entry qs_gemm_dequantize_0(
// CHECK: ld.global.v2.b32
// CHECK-NOT: cvt.rn.f16.f32
// CHECK-COUNT-8: mul.rn.f16x2
// CHECK: cvt.f32.f16
// CHECK: mul.rn.f32
// CHECK: cvt.rn.f16x2.f32
// CHECK: prmt.b32 {{.*}}0xbb99U
// CHECK-COUNT-7: cvt.rn.f16x2.f32
// CHECK-NOT: cvt.rn.f16.f32
// CHECK-COUNT-2: st.global.v4.b32
// CHECK-LABEL: .entry qs_gemm(
// CHECK-NOT: cvt.rn.f16.f32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, 1, 1, 0, 0;
!x = !qs.tensor<1024x512xbf16, #qs.nvfp4<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_mx_scaling = "dequantize"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: NVFP4 operands dequantized to K-major f16 by two pre-pass kernels (qs_gemm_dequantize), then sm_90a wgmma kernel, 128x128 tiles (8 x 6), 6-stage ring, 8 k-tiles of 64, f16 wgmma (FP32 sums); 48 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
