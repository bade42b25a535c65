// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// Per-tensor delayed scaling: one cast kernel that also measures max |x|
// for the amax history. Each block's maximum goes out as one atomic: the
// warps' maxima (butterfly shuffles) meet in shared memory after a
// barrier and thread 0 issues the block's only atomic. With one atomic
// per warp (4 per 64x64 tile, all on one address) the 16384^2 cast took
// 480 us on H200, twice MXFP8's 225 us (docs/performance.md, 2026-12-04).
// CHECK-LABEL: .entry qs_quantize_init(
// 16-byte loads (on sm_100a LLVM writes them as v2.b64: LDG.E.128 both).
// CHECK-LABEL: .entry qs_quantize(
// CHECK: ld.global.{{v4.b32|v2.b64}}
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: bar.sync 0
// CHECK-NOT: atom.global
// CHECK: atom.global.max.u32
// CHECK-NOT: atom.global
// CHECK: ret;
!q = !qs.tensor<256x512xbf16, #qs.fp8_delayed<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!q, tensor<1xf32>) {
  %q:2 = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<256x512xbf16> -> !q, tensor<1xf32>
  return %q#0, %q#1 : !q, tensor<1xf32>
}
}
