// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/"sm_90a"/"sm_100a"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SM100

// qs.gemm_epilogue = "tma" with fused split-K (S = 2, bf16 D with bias):
// each unit stores its FP32 plane to the workspace with ordinary stores
// (no staging), arrives on its tile's counter, and the tile's last unit
// writes D's sums through the TMA staging: sm_90a, per consumer, two
// store chunks of four stmatrix each, each stored by TMA; sm_100a, per
// warp, two chunks of eight st.shared.v4 (the sums of the planes, not
// tensor memory).
// CHECK-LABEL: .entry qs_gemm(
// CHECK-NOT: {{stmatrix|cp.async.bulk.tensor.2d.global}}
// CHECK-COUNT-32: st.global.v2.b32
// CHECK-NOT: {{stmatrix|cp.async.bulk.tensor.2d.global}}
// CHECK: atom.acq_rel.gpu.add.u32
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-NOT: st.global
// CHECK: cp.async.bulk.wait_group 0;
// SM100-LABEL: .entry qs_gemm(
// SM100-NOT: {{st.shared.v4|cp.async.bulk.tensor.2d.global}}
// SM100: atom.acq_rel.gpu.add.u32
// SM100-COUNT-8: st.shared.v4.b32
// SM100: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// SM100-COUNT-8: st.shared.v4.b32
// SM100: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// SM100-NOT: st.global
// SM100: cp.async.bulk.wait_group 0;
!x = !qs.tensor<256x4096xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_epilogue = "tma", qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<4096xbf16>) -> tensor<256x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<4096xbf16>) : !x, !w -> tensor<256x4096xbf16>
    return %y : tensor<256x4096xbf16>
  }
}
