// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefixes=CHECK,SM100

// NVFP4 quantize: the global amax kernel, then E4M3 block scales and E2M1
// codes packed two per byte and stored 8 bytes at a time. On Hopper, which
// TE does not offer and which has no E2M1 conversion, the codes come from
// exact arithmetic (KernelEnv::encodeE2M1Bytes: the least of three f32
// sums rounded to integers, 2^23 + rne(2a), 2^23 + 2 + rne(a), 2^23 + 4 +
// rne(a / 2); 8 magnitudes joined into a word by multiply-adds, the field
// sums removed by one add, the 8 signs joined by byte permutes in prmt's
// sign mode, KernelEnv::orE2M1Signs); on Blackwell from cvt.rn.satfinite.e2m1x2.f32,
// TE's conversion (the same codes for every finite input). On both chips
// the block's E4M3 scale is one cvt.rn.satfinite.e4m3x2.f32 and its value
// one cvt.rn.f16x2.e4m3x2 (exact) back (the software encode and decode
// are the emulation's).
// bf16 maxima two at a time (KernelEnv::absMaxAll), in the amax kernel and
// for each block's amax.
// CHECK-LABEL: .entry qs_quantize_amax(
// CHECK: max.xorsign.abs.bf16x2
// CHECK: atom.global.max.u32
// CHECK-LABEL: .entry qs_quantize(
// 8 blocks per multiprocessor (at most 64 registers) for this
// compute-bound cast.
// CHECK: .minnctapersm 8
// SM90-NOT: e2m1x2
// CHECK: max.xorsign.abs.bf16x2
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: cvt.rn.f16x2.e4m3x2
// SM90-NOT: e2m1x2
// SM90: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f40000000, 0f4B000000;
// SM90: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f4B000002;
// SM90: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3F000000, 0f4B000004;
// SM90: add.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 83886080;
// SM90: prmt.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, 0xfbfbU;
// SM90-NOT: mul.hi.u32
// SM100: cvt.rn.satfinite.e2m1x2.f32
// CHECK: st.global.v2.b32
// SM90-NOT: e2m1x2
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x512xbf16>) -> !qs.tensor<256x512xbf16, #qs.nvfp4<>> {
  %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<>>
  return %q : !qs.tensor<256x512xbf16, #qs.nvfp4<>>
}
}
