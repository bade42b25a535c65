// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2 --implicit-check-not=copysign
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100 --implicit-check-not=copysign

// NVFP4 4over6: every block is measured twice, map-to-6 (sf = e4m3(base))
// and map-to-4 (sf = e4m3(base * 1.5)), the better candidate encoded. An
// element's error needs only its E2M1 magnitude m, which the kernel finds
// from a = min(|q|, 6), q = x * enc, as the least of three candidates
// (fma(a, 2, 2^23), a + 2^23 + 2, fma(a, 0.5, 2^23 + 4): RNE, ties to the
// even code), loading m's decoded value ((m * sf) * G) / 6E from the eight
// the thread stored per block and candidate in its column of a shared
// table (512 bytes = 128 threads apart) and subtracting |x| (the magnitude
// of the reference's difference; no sign copied). The divisions by 6 and
// 6E are correctly rounded without div.rn where the dividend lies in
// [2^-64, 2^64] (0f1F800000, 0f5F800000; ConstantDivision.h: q0 = v * y,
// y = 1 / c, then fma(fma(q0, -c, v), y, q0)), by div.rn elsewhere; of
// the eight decoded values only (sf * G) / 6E and ((1.5 sf) * G) / 6E are
// divided on that path (sf * G <= 2^63, 0f5F000000), the others are their
// multiples by 1/2, 2 and 4. No other fma contracts the reference's
// arithmetic. The chosen candidate's codes come from
// cvt.rn.satfinite.e2m1x2.f32 on sm_100a and from the exact software E2M1
// conversion on sm_90a, which has no such instruction (no e2m1x2 anywhere
// in its PTX).

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
// CHECK: .shared .align 16 .b8 __wg_qs_quantize_5[4096];
// CHECK: setp.ltu.f32 {{%p[0-9]+}}, [[AMAX:%r[0-9]+]], 0f1F800000;
// CHECK-NEXT: setp.gtu.f32 {{%p[0-9]+}}, [[AMAX]], 0f5F800000;
// CHECK: mul.rn.f32 [[Q0:%r[0-9]+]], [[AMAX]], 0f3E2AAAAB;
// CHECK-NEXT: fma.rn.f32 [[R0:%r[0-9]+]], [[Q0]], 0fC0C00000, [[AMAX]];
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, [[R0]], 0f3E2AAAAB, [[Q0]];
// CHECK: div.rn.f32 {{%r[0-9]+}}, [[AMAX]], 0f40C00000;
// CHECK-NOT: fma.rn.f32
// CHECK: min.f32 {{.*}}, 0f43E00000;
// CHECK-NOT: fma.rn.f32
// CHECK: st.shared.b32 {{\[}}[[T:%rd[0-9]+]]{{\]}}
// CHECK: setp.ltu.f32 {{%p[0-9]+}}, [[SG:%r[0-9]+]], 0f1F800000;
// CHECK-NEXT: setp.gtu.f32 {{%p[0-9]+}}, [[SG]], 0f5F000000;
// CHECK: mul.rn.f32 [[Q1:%r[0-9]+]], [[SG]], 0f3A2AAAAB;
// CHECK-NEXT: fma.rn.f32 [[R1:%r[0-9]+]], [[Q1]], 0fC4C00000, [[SG]];
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, [[R1]], 0f3A2AAAAB, [[Q1]];
// CHECK-COUNT-2: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{0fC4C00000|0f3A2AAAAB}}
// CHECK-COUNT-6: st.shared.b32 {{\[}}[[T]]+{{[0-9]+}}{{\]}}
// CHECK-COUNT-7: div.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f44C00000;
// CHECK: st.shared.b32 {{\[}}[[T]]+3584{{\]}}
// CHECK: abs.f32 [[A:%r[0-9]+]], {{%r[0-9]+}};
// CHECK-NEXT: min.f32 [[M:%r[0-9]+]], [[A]], 0f40C00000;
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, [[M]], 0f40000000, 0f4B000000;
// CHECK-NEXT: add.rn.f32 {{%r[0-9]+}}, [[M]], 0f4B000002;
// CHECK-NEXT: fma.rn.f32 {{%r[0-9]+}}, [[M]], 0f3F000000, 0f4B000004;
// CHECK: ld.shared.b32 [[BACK:%r[0-9]+]],
// CHECK: sub.rn.f32 {{%r[0-9]+}}, [[BACK]], {{%r[0-9]+}};
// CHECK: mul.rn.f32 {{.*}}, 0f3FC00000;
// CHECK: bar.sync 0;
// CHECK: selp.f32 {{.*}}, 0f3FC00000, 0f3F800000,
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK: st.global.v2.b32
// CHECK-LABEL: .entry qs_quantize_0(
// 1x16 blocks, MAE, E = 448 (2688 = 0f45280000, 1 / 2688 = 0f39C30C31):
// one tile barrier, then the errors and the codes (the block layout puts
// the div.rn paths first and the others last, so no order is checked).
// CHECK-NOT: fma.rn.f32
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK-DAG: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0fC5280000,
// CHECK-DAG: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f39C30C31,
// CHECK-DAG: div.rn.f32 {{.*}}, 0f45280000;
// CHECK-DAG: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f3F000000, 0f4B000004;
// CHECK-DAG: ld.shared.b32
// CHECK-DAG: sub.rn.f32
// SM100-DAG: cvt.rn.satfinite.e2m1x2.f32
// CHECK-DAG: st.global.v2.b32
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
