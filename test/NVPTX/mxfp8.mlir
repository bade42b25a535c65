// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// MXFP8 (E5M2 here) on either chip: one kernel, both usages from one tile;
// the E8M0 scale is computed with integer arithmetic (exact, and the only
// way on sm_90a), so no ue8m0 conversion instruction appears; both
// representations' codes leave with 16-byte stores.
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: bar.sync 0
// CHECK: cvt.rn.satfinite.e5m2x2.f32
// CHECK: st.global.v4.b32
// CHECK: bar.sync 0
// CHECK: cvt.rn.satfinite.e5m2x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: ue8m0
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>>
}
}
