// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --implicit-check-not=e2m1x2

// NVFP4 with stochastic rounding: the cast kernel reads the rng state
// (seed, offset: two i64) once, before any store, and computes four
// Philox4x32-10 words per 16 codes (32x32->64 multiplications); the codes
// take the software rounding of StochasticRounding.h on both chips (no
// cvt.rn.satfinite.e2m1x2, which rounds to nearest, for the codes).
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: st.global
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG:%rd[0-9]+]]{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+4{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+8{{\]}}
// CHECK: ld.global.b32 %rd{{[0-9]+}}, {{\[}}[[RNG]]+12{{\]}}
// CHECK: mul.wide.u32
// CHECK: st.global.v2.b32
module attributes {qs.chip = "sm_100a"} {
func.func @sr(%x: tensor<256x512xbf16>, %rng: tensor<2xi64>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>> {
  %q = qs.quantize %x rng(%rng : tensor<2xi64>) : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
}
}
