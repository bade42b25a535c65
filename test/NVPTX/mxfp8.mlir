// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=CHECK
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100

// MXFP8 (E5M2 here) on either chip: one kernel, both usages from one tile;
// the E8M0 scale comes from cvt.rp.satfinite.ue8m0x2.f32 on sm_100a (TE's
// float_to_e8m0 on Blackwell) and from exact integer arithmetic on sm_90a
// (the only way there; the spec gives both the same result); both
// representations' codes leave with 16-byte stores. Row-wise, each 32-long
// block is split over two lanes (one 16-element chunk each): the block
// amax meets by a butterfly shuffle over lane bit 0 (rowLanesPhase).
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | not grep ue8m0
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: .entry
// CHECK: ld.global.v4.b32
// CHECK: bar.sync 0
// CHECK-DAG: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 31, -1;
// SM100-DAG: cvt.rp.satfinite.ue8m0x2.f32
// CHECK-DAG: cvt.rn.satfinite.e5m2x2.f32
// CHECK-DAG: st.global.v4.b32
// CHECK-DAG: st.global.b8
// Column-wise: codes in x's layout after the multipliers' barrier.
// CHECK: bar.sync 0
// CHECK: cvt.rn.satfinite.e5m2x2.f32
// CHECK: st.global.v4.b32
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, optimize_for_gemm = true>>
}
}
