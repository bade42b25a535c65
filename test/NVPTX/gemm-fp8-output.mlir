// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_split_k = 4 : i64/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SPLIT
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_90a", qs.gemm_epilogue = "tma"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=TMA,TMA90
// RUN: sed 's/qs.chip = "sm_90a"/qs.chip = "sm_100a", qs.gemm_epilogue = "tma"/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=TMA,TMA100
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100

// qs.gemm's fused output quantizer (a #qs.fp8_delayed result of per-tensor
// FP8 operands, row-wise only): a one-thread kernel writes scale_inv =
// 1 / scale (rcp.rn) and the amax state max(state, +0); the GEMM kernel's
// epilogue multiplies the FP32 values by the scale, converts pairs with
// cvt.rn.satfinite.e4m3x2, stores the FP8 codes (sm_90a: a pair of columns
// per store; sm_100a: 16 bytes of a row), and max-combines the |values| it
// stored into the amax: a butterfly over the warp, one atomic per warp.
// CHECK-LABEL: .entry qs_gemm_output_prepare(
// CHECK: rcp.rn.f32
// CHECK: max.f32 {{.*}}, 0f00000000;
// CHECK-LABEL: .entry qs_gemm(
// SM90: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SM100: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// SM90: st.global.b16
// SM100: st.global.v4.b32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: atom.global.max.u32
// CHECK-NOT: .entry qs_quantize

// With split-K the reduction kernel quantizes: the planes' sums (16-byte
// loads), the scale, 4 codes per 4-byte store, one atomic per warp.
// SPLIT-LABEL: .entry qs_gemm_split_k_reduce(
// SPLIT: ld.global.v4.b32
// SPLIT: cvt.rn.satfinite.e4m3x2.f32
// SPLIT: st.global.b32
// SPLIT: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// SPLIT: atom.global.max.u32
// SPLIT-NOT: .entry qs_quantize

// With the TMA-store epilogue the codes are staged in shared memory (sm_90a:
// each thread's pair, 2 bytes; sm_100a: 16 codes of a row per 16-byte
// store) and leave by TMA bulk tensor stores.
// TMA-LABEL: .entry qs_gemm(
// TMA: cvt.rn.satfinite.e4m3x2.f32
// TMA90: st.shared.b16
// TMA100: st.shared.v4.b32
// TMA-DAG: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// TMA-DAG: atom.global.max.u32
// TMA-NOT: .entry qs_quantize
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x384xbf16, #qs.fp8_delayed<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
func.func @fprop(%x: !x, %w: !w, %bias: tensor<384xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>)
    -> (!h, tensor<1xf32>) {
  %h, %a2 = qs.gemm %x, %w transpose_b bias(%bias : tensor<384xbf16>)
      scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
  return %h, %a2 : !h, tensor<1xf32>
}
}
