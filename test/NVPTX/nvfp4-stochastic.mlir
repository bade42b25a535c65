// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2

// NVFP4 with stochastic rounding: the cast kernel reads the rng state
// (seed, offset: two i64) once, before any store, and computes one
// Philox4x32-10 call (ten rounds, each with a 32x32->64 multiplication by
// 0xD2511F53 = 3528531795) per 16 codes, a random byte per code; the codes
// take the software rounding of StochasticRounding.h on both chips (no
// cvt.rn.satfinite.e2m1x2, which rounds to nearest, for the codes), by
// directed roundings whose host model unittests/StochasticE2M1Test.cpp
// checks against the definition.
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: st.global
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG:%rd[0-9]+]]{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+4{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+8{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+12{{\]}}
// CHECK-COUNT-10: mul.lo.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 3528531795;
// CHECK-NOT: 3528531795
// Each code (KernelEnv::e2m1StochasticParts): F = 128 + (byte + 1/2) 2^-8
// by one prmt of the word's byte k into 0x43000080 (= 1124073600;
// selector 0x76k4), then for each run of the grid (s = 1/2, 1, 2; base 0,
// 2, 4) -Z = fma.rm(|v|, -1 / s, F) (0xC0000000 = -1073741824,
// 0xBF800000, 0xBF000000) and W = sub.rp(2^23 + 129 + base, -Z)
// (0x4B000081 = 1258291329, 0x4B000083, 0x4B000085), the least W capped
// at magnitude 7 (0f4B000008).
// CHECK: prmt.b32 [[F:%r[0-9]+]], [[WORD:%r[0-9]+]], 1124073600, 0x7604U;
// CHECK-NEXT: abs.f32 [[A:%r[0-9]+]],
// CHECK-NEXT: mov.b32 [[C0:%r[0-9]+]], -1073741824;
// CHECK: fma.rm.f32 [[Y0:%r[0-9]+]], [[A]], [[C0]], [[F]];
// CHECK: mov.b32 [[B0:%r[0-9]+]], 1258291329;
// CHECK: sub.rp.f32 [[W0:%r[0-9]+]], [[B0]], [[Y0]];
// CHECK: mov.b32 [[C1:%r[0-9]+]], -1082130432;
// CHECK: fma.rm.f32 [[Y1:%r[0-9]+]], [[A]], [[C1]], [[F]];
// CHECK: mov.b32 [[B1:%r[0-9]+]], 1258291331;
// CHECK: sub.rp.f32 [[W1:%r[0-9]+]], [[B1]], [[Y1]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: min.f32 [[M:%r[0-9]+]], [[W0]], [[W1]];
// CHECK: mov.b32 [[C2:%r[0-9]+]], -1090519040;
// CHECK: fma.rm.f32 [[Y2:%r[0-9]+]], [[A]], [[C2]], [[F]];
// CHECK: mov.b32 [[B2:%r[0-9]+]], 1258291333;
// CHECK: sub.rp.f32 [[W2:%r[0-9]+]], [[B2]], [[Y2]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: min.f32 {{%r[0-9]+}}, [[M]], [[W2]], 0f4B000008;
// The next three codes take the same word's bytes 1, 2, 3.
// CHECK: prmt.b32 {{%r[0-9]+}}, [[WORD]], 1124073600, 0x7614U;
// CHECK: prmt.b32 {{%r[0-9]+}}, [[WORD]], 1124073600, 0x7624U;
// CHECK: prmt.b32 {{%r[0-9]+}}, [[WORD]], 1124073600, 0x7634U;
// CHECK-NOT: 3528531795
// CHECK: st.global.v2.b32
module attributes {qs.chip = "sm_100a"} {
func.func @sr(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
}
}
