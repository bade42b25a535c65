// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100

// NVFP4 4over6: every block is measured twice, map-to-6 (sf = e4m3(base))
// and map-to-4 (sf = e4m3(base * 1.5)), the better candidate encoded. An
// element's error needs only its E2M1 magnitude m, which the kernel finds
// from q = x * enc against the rounding boundaries (> 0.25, >= 0.75,
// > 1.25, >= 1.75, > 2.5, >= 3.5, > 5 or NaN: ties to the even code),
// selecting m's decoded value ((m * sf) * G) / 6E from eight per block
// (IEEE divisions, div.rn, no fma contraction), negated when q < 0. The
// chosen candidate's codes come from cvt.rn.satfinite.e2m1x2.f32 on
// sm_100a and from the exact software E2M1 conversion on sm_90a, which has
// no such instruction (no e2m1x2 anywhere in its PTX).

// 16x16 tiles, MSE, E = 256 (6E = 1536 = 0f44C00000): the cast kernel's
// phases, one barrier apart: tile load, segment amaxes, tile amaxes, both
// candidates' errors of every 1 x 16 segment (one 2 KiB buffer per usage:
// 64 z rows x 4 segments x 2 candidates), then the encodes, each tile's
// choice from a tree sum of its 16 segments' errors; the encode computes
// only the chosen candidate (its factor selected: 1.5 or 1).
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_0[9216];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_1[1024];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_2[64];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_3[2048];
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_4[2048];
// CHECK-NOT: fma.rn.f32
// CHECK: min.f32 {{.*}}, 0f43E00000;
// CHECK: div.rn.f32 {{.*}}, 0f44C00000;
// CHECK: abs.f32 [[Q:%r[0-9]+]], [[QS:%r[0-9]+]];
// CHECK-NEXT: setp.gt.f32 {{%p[0-9]+}}, [[Q]], 0f3E800000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.ge.f32 {{%p[0-9]+}}, [[Q]], 0f3F400000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.gt.f32 {{%p[0-9]+}}, [[Q]], 0f3FA00000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.ge.f32 {{%p[0-9]+}}, [[Q]], 0f3FE00000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.gt.f32 {{%p[0-9]+}}, [[Q]], 0f40200000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.ge.f32 {{%p[0-9]+}}, [[Q]], 0f40600000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.gtu.f32 {{%p[0-9]+}}, [[Q]], 0f40A00000;
// CHECK-NEXT: selp.f32
// CHECK-NEXT: setp.lt.f32 {{%p[0-9]+}}, [[QS]], 0f00000000;
// CHECK: mul.rn.f32 {{.*}}, 0f3FC00000;
// CHECK: bar.sync 0;
// CHECK: selp.f32 {{.*}}, 0f3FC00000, 0f3F800000,
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK: st.global.v2.b32
// CHECK-LABEL: .entry qs_quantize_0(
// 1x16 blocks, MAE, E = 448 (2688 = 0f45280000): one tile barrier; the
// errors before the codes.
// CHECK-NOT: fma.rn.f32
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: div.rn.f32 {{.*}}, 0f45280000;
// CHECK: setp.gtu.f32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0f40A00000;
// CHECK: abs.f32
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK: st.global.v2.b32
module attributes {qs.chip = "sm_90a"} {
func.func @tiles(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">>
}
func.func @blocks(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<nvfp4_use_4over6 = true>>
}
}
