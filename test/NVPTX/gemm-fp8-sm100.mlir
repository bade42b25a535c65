// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx

// Per-tensor FP8 on sm_100a: the tcgen05 kernel without scale factors
// (kind::f8f6f4; no scale-factor warp, no tcgen05.cp, full barriers of one
// arrival), 128 tensor-memory columns for the FP32 accumulators; the
// instruction descriptor 0x08200090 = 136315024: D F32 (bits 4-5 = 1),
// A E5M2 (bit 7), B E4M3, N = 128, M = 128. The epilogue applies
// scale_inv_A * scale_inv_B.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 128, 1, 1
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 128;
// CHECK-NOT: tcgen05.cp
// CHECK: mov.b32 {{%r[0-9]+}}, 136315024;
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, p;
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: mul.rn.f32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 128;
!x = !qs.tensor<1024x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2, columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
