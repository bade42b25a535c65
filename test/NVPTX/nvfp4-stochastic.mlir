// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2 --implicit-check-not=fma.rm --implicit-check-not=sub.rp

// NVFP4 with stochastic rounding: the cast kernel reads the rng state
// (seed, offset: two i64) once, before any store, and computes one
// Philox4x32-10 call (ten rounds, each with a 32x32->64 multiplication by
// 0xD2511F53 = 3528531795) per 16 codes, a random byte per code; the codes
// take the software rounding of StochasticRounding.h on both chips (no
// cvt.rn.satfinite.e2m1x2, which rounds to nearest, for the codes), by
// an upward rounding and integer arithmetic whose host model
// unittests/StochasticE2M1Test.cpp checks against the definition.
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: st.global
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG:%rd[0-9]+]]{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+4{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+8{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+12{{\]}}
// CHECK-COUNT-10: mul.lo.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 3528531795;
// CHECK-NOT: 3528531795
// Each code (KernelEnv::e2m1StochasticField): a = min(|v|, 6)
// (0f40C00000), a' = mul.rp(a, 2^-126) (0f00800000: a subnormal a' rounded
// up, so no .ftz), the field 4 bits(a') + prmt(~word, 0x7FFF = 32767,
// 0x7k54): the complemented byte k in byte 2, the magnitude lands in byte
// 3. No directed additions (fma.rm and sub.rp per run of the grid: the
// encoder before).
// CHECK: not.b32 [[NW:%r[0-9]+]],
// CHECK: abs.f32 [[A:%r[0-9]+]],
// CHECK-NEXT: min.f32 [[M:%r[0-9]+]], [[A]], 0f40C00000;
// CHECK: mul.rp.f32 [[S:%r[0-9]+]], [[M]], 0f00800000;
// CHECK: prmt.b32 [[P:%r[0-9]+]], [[W0:%r[0-9]+]], 32767, 0x7054U;
// CHECK-NEXT: shl.b32 [[S4:%r[0-9]+]], [[S]], 2;
// CHECK-NEXT: add.s32 [[F0:%r[0-9]+]], [[S4]], [[P]];
// The next three codes take the same word's bytes 1, 2, 3.
// CHECK: mul.rp.f32
// CHECK: prmt.b32 {{%r[0-9]+}}, [[W0]], 32767, 0x7154U;
// CHECK: mul.rp.f32
// CHECK: prmt.b32 {{%r[0-9]+}}, [[W0]], 32767, 0x7254U;
// CHECK: mul.rp.f32
// CHECK: prmt.b32 {{%r[0-9]+}}, [[W0]], 32767, 0x7354U;
// Eight codes to a word: the even and the odd codes' magnitudes (byte 3 of
// each field) gathered by three permutes each, the even codes' signs by
// prmt's sign mode (0xfbfb) masked to bit 3 (0x08080808 = 134744072), the
// odd codes' bit 7 (0x80808080 = -2139062144), odd * 16 + even.
// CHECK: prmt.b32 [[E01:%r[0-9]+]], [[F0]], {{%r[0-9]+}}, 0x7373U;
// CHECK-NEXT: prmt.b32 [[E23:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x7373U;
// CHECK-NEXT: prmt.b32 [[EVEN:%r[0-9]+]], [[E01]], [[E23]], 0x5410U;
// The signs as the plain encoder's (KernelEnv::orE2M1Signs).
// CHECK: prmt.b32 [[ODD:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x5410U;
// CHECK-NEXT: shl.b32 [[ODD16:%r[0-9]+]], [[ODD]], 4;
// CHECK-NEXT: add.s32 [[MAG:%r[0-9]+]], [[ODD16]], [[EVEN]];
// CHECK-NEXT: prmt.b32 [[S01:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0xfbfbU;
// CHECK-NEXT: prmt.b32 [[S23:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0xfbfbU;
// CHECK-NEXT: prmt.b32 [[ES:%r[0-9]+]], [[S01]], [[S23]], 0x5410U;
// CHECK: prmt.b32 [[OS:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}}, 0x5410U;
// CHECK-NEXT: and.b32 [[ESB:%r[0-9]+]], [[ES]], 134744072;
// CHECK-NEXT: and.b32 [[OSB:%r[0-9]+]], [[OS]], -2139062144;
// CHECK-NEXT: or.b32 [[SB:%r[0-9]+]], [[OSB]], [[ESB]];
// CHECK-NEXT: or.b32 {{%r[0-9]+}}, [[SB]], [[MAG]];
// CHECK-NOT: 3528531795
// CHECK: st.global.v2.b32
module attributes {qs.chip = "sm_100a"} {
func.func @sr(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
}
}
