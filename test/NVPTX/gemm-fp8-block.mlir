// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PROMOTE

// The sm_90a FP8 block GEMM (wgrad: 1x128 dY x 1x128 X, both column-wise,
// f32 out): the same TMA / mbarrier / wgmma pipeline, but each 128-wide
// k-tile is summed on its own (the first wgmma's scale-d predicate false),
// waited for (wait_group 0), its stage freed, and promoted into the FP32
// totals with scale_inv_A[row, kb] * scale_inv_B[col, kb] (2 row scales
// and 32 column scales per thread and k-tile, from the GEMM_READY
// layouts, loaded before the wgmmas so that they overlap): one
// fma.rn.f32 per accumulator register (total + scale * partial, one
// rounding; no separate mul and add); no per-tensor alpha.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-34: ld.global.{{(nc.)?}}{{f32|b32}}
// CHECK: setp.ne.b32 p, [[ZERO:%r[0-9]+]], 0;
// CHECK: setp.ne.b32 q, [[ONE:%r[0-9]+]], 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3 {{.*}}, p, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3 {{.*}}, q, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared::cta.b64
// (LLVM rotates the loop: the promotion may come first in the PTX.)
// PROMOTE-LABEL: .entry qs_gemm(
// PROMOTE: mul.rn.f32
// PROMOTE-COUNT-64: fma.rn.f32
// PROMOTE-NOT: add.rn.f32
// PROMOTE: st.global.v2.b32
!dy = !qs.tensor<512x1024xbf16, #qs.fp8_block<fp8_dtype = f8E5M2, block_scaling_dim = 1, rowwise = false>>
!x = !qs.tensor<512x768xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @wgrad(%dy: !dy, %x: !x) -> tensor<1024x768xf32> {
    %dw = qs.gemm %dy, %x transpose_a : !dy, !x -> tensor<1024x768xf32>
    return %dw : tensor<1024x768xf32>
  }
}
