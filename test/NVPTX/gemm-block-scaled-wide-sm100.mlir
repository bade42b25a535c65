// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// Block-scaled 128x256 tiles on sm_100a (qs.gemm_tile_n = 256): N = 256
// MMAs, 256 accumulator columns, and per k-tile B's scale factors in two
// 128-row groups per chunk, copied to adjacent tensor-memory columns (the
// MMA reads B row n's word at column n / 32 of the chunk): MXFP8 copies
// 1 + 2 chunks, NVFP4 4 + 8. Stages of 49.5 KiB (MXFP8) and 54 KiB (NVFP4)
// would leave 3 in the 192 KiB ring, so the ring takes 4 (up to 224 KiB).
// Tensor memory: 256 + 4 x 12 = 304 columns (MXFP8), 256 + 4 x 48 = 448
// (NVFP4), both allocated as 512. Instruction descriptors of k-step 0:
// MXFP8 0x08C00000 = 146800640 (N = 256 >> 3 in bits 17-22), NVFP4
// 0x08400480 = 138413184.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK-COUNT-3: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-NOT: tcgen05.cp
// CHECK: mov.b32 {{%r[0-9]+}}, 146800640;
// CHECK: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
// CHECK-LABEL: .entry qs_gemm_0(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK-COUNT-12: tcgen05.cp.cta_group::1.32x128b.warpx4
// CHECK-NOT: tcgen05.cp
// CHECK: mov.b32 {{%r[0-9]+}}, 138413184;
// CHECK: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
!x = !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!xn = !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
!wn = !qs.tensor<1024x512xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
  func.func @mx(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x256 tiles (2 x 4), 4-stage ring, 4 k-tiles of 128, block-scaled MMA (scale factors in tensor memory); 8 blocks of 128 threads, 202832 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_tile_n = 256 : i64} : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @fp4(%x: !xn, %w: !wn) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x256 tiles (2 x 4), 4-stage ring, 2 k-tiles of 256, block-scaled MMA (scale factors in tensor memory); 8 blocks of 128 threads, 221264 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_tile_n = 256 : i64} : !xn, !wn -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
}
