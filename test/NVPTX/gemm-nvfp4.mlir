// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=CONVERT
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PREFETCH

// NVFP4 on Hopper (no FP4 tensor cores there; TE has no NVFP4 GEMM on
// Hopper): TMA brings the packed E2M1 tiles (no swizzle); each consumer
// thread converts half a row of A and of B (two 16-byte shared loads, four
// E4M3 block scales, 64 exact f16 values in eight 16-byte stores into the
// swizzled f16 tiles), a named barrier joins the two consumers (before:
// the previous wgmmas are done; after: both halves written, after
// fence.proxy.async), then eight wgmma m64n128k16 .f32.f16.f16 (K-major).
// Two values per step: prmt looks their f16 high bytes up in the table
// {0x00, 0x38, 0x3C, 0x3E | 0x40, 0x42, 0x44, 0x46} (0x3E3C3800 =
// 1044133888, 0x46444240 = 1178878528), the sign bits are or-ed in, and
// mul.rn.f16x2 applies the block scale (cvt.rn.f16x2.e4m3x2 of the E4M3
// code pair): 32 prmt and 32 mul.rn.f16x2 per operand.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxnreg 168
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// (LLVM rotates the loop: the wgmmas come before the stage wait.)
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// CHECK-COUNT-7: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, q, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CONVERT-LABEL: .entry qs_gemm(
// CONVERT: bar.sync 1, 256;
// CONVERT: ld.shared.v4.b32
// CONVERT: ld.shared.v4.b32
// CONVERT: cvt.rn.f16x2.e4m3x2 {{%r[0-9]+}}, {{%rs[0-9]+}};
// CONVERT: prmt.b32 {{%r[0-9]+}}, 1044133888, 1178878528, {{%r[0-9]+}};
// CONVERT: mul.rn.f16x2 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}};
// CONVERT-COUNT-8: st.shared.v4.b32
// CONVERT: fence.proxy.async.shared::cta;
// CONVERT-NEXT: // end inline asm
// CONVERT-NEXT: // begin inline asm
// CONVERT-NEXT: bar.sync 1, 256;
// CONVERT: mbarrier.arrive.shared::cta.b64
// The eight E4M3 block-scale codes a thread applies (four of A, four of B)
// are loaded one k-tile ahead: k-tile 0's before the loop, the next
// k-tile's in each iteration before the conversion, which uses the
// carried ones (no global load between the barrier and the conversion).
// PREFETCH-LABEL: .entry qs_gemm(
// PREFETCH: setmaxnreg.inc.sync.aligned.u32 232;
// PREFETCH-COUNT-8: ld.global.{{(nc.)?}}b8
// PREFETCH: mbarrier.try_wait.parity.shared::cta.b64
// PREFETCH-COUNT-8: ld.global.{{(nc.)?}}b8
// PREFETCH: bar.sync 1, 256;
// PREFETCH-NOT: ld.global
// PREFETCH: cvt.rn.f16x2.e4m3x2
!x = !qs.tensor<512x1024xbf16, #qs.nvfp4<columnwise = false>>
!w = !qs.tensor<768x1024xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, optimize_for_gemm = true>>
// qs.gemm_split_k = 1: one block per tile, the kernel these checks read; by default a GEMM this small splits K.
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 1 : i64} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<512x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<512x768xbf16>
    return %y : tensor<512x768xbf16>
  }
}
