// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx

// An MXFP8 dgrad (NN) on sm_100a: W is contracted over its first dimension
// and its column-wise data keeps W's layout, so B is read MN-major: the
// instruction descriptor sets bit 16 (0x08A10000 = 144769024 for k-step 0;
// k-step 1 adds the scale-factor ids: 0x28A10010 = 681639952), B's
// descriptor has the leading byte offset of 128-byte atoms along N
// (16384 >> 4 in bits 16-29; one atom here) and the k-steps advance it by
// 32 rows of 128 bytes (4096 >> 4 = 256: k-step 1's descriptor is the
// tile's constant bits 0x4000404004000000 + 256), and
// the compact column-wise scales are gathered byte by byte (a row's blocks
// are 768 bytes apart), dY's row-wise ones a word at a time.
// CHECK-LABEL: .entry qs_gemm(
// CHECK-DAG: ld.global.nc.u8
// CHECK-DAG: ld.global.nc.b32
// CHECK-DAG: mov.b32 {{%r[0-9]+}}, 144769024;
// CHECK-DAG: mov.b32 {{%r[0-9]+}}, 681639952;
// CHECK-DAG: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662116581632;
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
!dy = !qs.tensor<1024x768xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<rowwise = false>>
module attributes {qs.chip = "sm_100a"} {
  func.func @dgrad(%dy: !dy, %w: !w) -> tensor<1024x512xbf16> {
    %y = qs.gemm %dy, %w : !dy, !w -> tensor<1024x512xbf16>
    return %y : tensor<1024x512xbf16>
  }
}
