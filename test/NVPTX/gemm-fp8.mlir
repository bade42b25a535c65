// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/qs.gemm_tile_n = 128/qs.gemm_tile_n = 256/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=WIDE

// The sm_90a per-tensor FP8 GEMM (dgrad, E5M2 dY x E4M3 W^T, bias): 1024-
// byte aligned dynamic shared memory; 384 threads; thread 0 initializes the
// full/empty mbarriers of the 6-stage ring (4 with 128x256 tiles); the
// producer warpgroup gives registers away and streams A and B tiles with
// TMA (expect_tx, cp.async.bulk.tensor with the mbarrier); the consumers
// take registers, wait for a full stage, issue four wgmma m64nNk32 with
// FP32 accumulators, keep one group in flight and free the previous stage;
// the epilogue scales by scale_inv_A * scale_inv_B, adds the bias and
// stores bf16.
// CHECK: .extern .shared .align 1024 .b8 qs_gemm_smem[];
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 384, 1, 1
// CHECK: .maxnreg 168
// CHECK-COUNT-12: mbarrier.init.shared::cta.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: prefetch.tensormap
// CHECK: bar.sync 0
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: mul.rn.f32
// The bias is read 16 values (8 columns: a thread's two rows share them) at
// a time, before the stores of those values.
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: st.global
// CHECK: ld.global.b16
// CHECK-NOT: ld.global
// CHECK: st.global.b32
// Registers 2j, 2j + 1 hold adjacent columns: one bf16x2 store per pair.
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.b32
// CHECK-NOT: st.global.b16
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{%r[0-9]+}}], {{%r[0-9]+}};
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// WIDE-COUNT-8: mbarrier.init.shared::cta.b64
// WIDE-NOT: mbarrier.init
// WIDE: wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e4m3
!dy = !qs.tensor<512x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
!w = !qs.tensor<1024x768xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_90a", qs.gemm_tile_n = 128 : i64} {
  func.func @dgrad(%dy: !dy, %w: !w, %bias: tensor<768xbf16>) -> tensor<512x768xbf16> {
    %dx = qs.gemm %dy, %w fast_accumulate bias(%bias : tensor<768xbf16>) : !dy, !w -> tensor<512x768xbf16>
    return %dx : tensor<512x768xbf16>
  }
}
