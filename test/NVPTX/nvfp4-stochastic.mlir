// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2

// NVFP4 with stochastic rounding: the cast kernel reads the rng state
// (seed, offset: two i64) once, before any store, and computes four
// Philox4x32-10 words per 16 codes (32x32->64 multiplications); the codes
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
// CHECK: mul.wide.u32
// Each code (KernelEnv::e2m1StochasticParts): K = word >> 8 as f32, then
// for each run of the grid (s = 1/2, 1, 2; base 0, 2, 4) Y' = fma.rm(|v|,
// -2^24 / s, K) (0xCC000000 = -872415232, 0xCB800000, 0xCB000000) and W =
// sub.rp(2^47 + 2^24 (1 + base), Y') (0x57000001 = 1459617793,
// 0x57000003, 0x57000005), the least W capped at magnitude 7
// (0f57000008).
// CHECK: shr.u32 [[WORD:%r[0-9]+]], %r{{[0-9]+}}, 8;
// CHECK-NEXT: cvt.rn.f32.u32 [[K:%r[0-9]+]], [[WORD]];
// CHECK-NEXT: abs.f32 [[A:%r[0-9]+]],
// CHECK-NEXT: mov.b32 [[C0:%r[0-9]+]], -872415232;
// CHECK: fma.rm.f32 [[Y0:%r[0-9]+]], [[A]], [[C0]], [[K]];
// CHECK: mov.b32 [[B0:%r[0-9]+]], 1459617793;
// CHECK: sub.rp.f32 [[W0:%r[0-9]+]], [[B0]], [[Y0]];
// CHECK: mov.b32 [[C1:%r[0-9]+]], -880803840;
// CHECK: fma.rm.f32 [[Y1:%r[0-9]+]], [[A]], [[C1]], [[K]];
// CHECK: mov.b32 [[B1:%r[0-9]+]], 1459617795;
// CHECK: sub.rp.f32 [[W1:%r[0-9]+]], [[B1]], [[Y1]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: min.f32 [[M:%r[0-9]+]], [[W0]], [[W1]];
// CHECK: mov.b32 [[C2:%r[0-9]+]], -889192448;
// CHECK: fma.rm.f32 [[Y2:%r[0-9]+]], [[A]], [[C2]], [[K]];
// CHECK: mov.b32 [[B2:%r[0-9]+]], 1459617797;
// CHECK: sub.rp.f32 [[W2:%r[0-9]+]], [[B2]], [[Y2]];
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: min.f32 {{%r[0-9]+}}, [[M]], [[W2]], 0f57000008;
// CHECK: st.global.v2.b32
module attributes {qs.chip = "sm_100a"} {
func.func @sr(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
}
}
