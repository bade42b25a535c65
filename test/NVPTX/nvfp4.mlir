// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// NVFP4 on Hopper, which TE does not offer: the global amax kernel, then
// E4M3 block scales and E2M1 codes by exact integer arithmetic (no e2m1
// conversion instruction, which sm_90a lacks), packed two per byte and
// stored 8 bytes at a time.
// CHECK-LABEL: .entry qs_quantize_amax(
// CHECK: atom.global.max.u32
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: e2m1x2
// CHECK: st.global.v2.b32
// CHECK-NOT: e2m1x2
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<>>
}
}
