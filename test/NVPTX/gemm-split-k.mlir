// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=SM100
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// Split-K (qs.gemm_split_k = 4) of a small-M fprop, 128 x 1024 x 4096
// with bias: 8 output tiles would leave most multiprocessors idle, so each
// tile's 32 k-tiles are cut into 4 ranges of 8 and the grid has 32 blocks.
// Block u computes split u / 8 of tile u % 8 and stores its FP32 partial
// result, alpha applied, into plane u / 8 of a [4, 128, 1024] workspace
// (no bias, no conversion); the reduction kernel then sums each element's
// four planes in order, adds the bias, converts to bf16 and stores D, four
// elements at a time, all loads of a thread before its stores.
// HOST: %[[WS:.*]] = memref.alloc() : memref<524288xf32>
// HOST: call @qs_gemm_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]])
// HOST-NEXT: call @qs_gemm_split_k_reduce_launch(%[[WS]], %{{.*}}, %{{.*}}) : (memref<524288xf32>, memref<1024xbf16>, memref<131072xbf16>) -> ()
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 32 : i64
// HOST: func.func private @qs_gemm_split_k_reduce_launch({{.*}}) attributes {qs_launch_block = 256 : i64, qs_launch_grid = 32 : i64

// The GEMM kernel: alpha times the FP32 totals, stored as f32 pairs; no
// bias read, no conversion.
// CHECK-LABEL: .entry qs_gemm(
// CHECK-NOT: ld.global.b16
// CHECK-NOT: cvt.rn.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: mul.rn.f32
// CHECK: st.global.v2.b32
// CHECK-NOT: ld.global.b16
// CHECK-NOT: cvt.rn.bf16
// CHECK-LABEL: .entry qs_gemm_split_k_reduce(
// CHECK: .maxntid 256, 1, 1
// Four elements at a time (N is a multiple of 4): the bias's 8 bytes, the
// four planes' 16 bytes each (2 MiB apart), summed in plane order, the
// bias added, converted in pairs; four such groups per thread, then their
// four 8-byte stores.
// CHECK: ld.global.v4.b16
// CHECK-NOT: st.global
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: st.global
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: st.global
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: st.global
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: st.global
// CHECK-COUNT-4: ld.global.v4.b32
// CHECK-NOT: st.global
// CHECK: cvt.rn.bf16x2.f32
// CHECK-COUNT-4: st.global.v2.b32
// CHECK-NOT: ld.global
// CHECK-NOT: st.global

// sm_100a: the tcgen05 kernel's epilogue stores 16 bytes (4 f32, scaled
// by alpha with mul.rn.f32x2) at a time.
// SM100-LABEL: .entry qs_gemm(
// SM100: tcgen05.mma.cta_group::1.kind::f8f6f4
// SM100: tcgen05.ld
// SM100: mul.rn.f32x2
// SM100: st.global.v2.b64
// SM100-LABEL: .entry qs_gemm_split_k_reduce(
!x = !qs.tensor<128x4096xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x4096xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 4 : i64} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<1024xbf16>) -> tensor<128x1024xbf16> {
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<1024xbf16>) : !x, !w -> tensor<128x1024xbf16>
    return %y : tensor<128x1024xbf16>
  }
}
