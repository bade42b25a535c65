// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// Dequantize: one kernel, 16 outputs per thread stored with vector stores.
// CHECK-LABEL: .entry qs_dequantize(
// CHECK: ld.global
// CHECK: st.global.v4.b32
module attributes {qs.chip = "sm_90a"} {
func.func @f(%q: !qs.tensor<256x512xbf16, #qs.mxfp8<>>) -> tensor<256x512xbf16> {
  %x = qs.dequantize %q : !qs.tensor<256x512xbf16, #qs.mxfp8<>> -> tensor<256x512xbf16>
  return %x : tensor<256x512xbf16>
}
}
