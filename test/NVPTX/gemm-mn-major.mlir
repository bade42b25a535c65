// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=SYNC
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=COPY
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// MN-major operands on Hopper: an MXFP8 dgrad promoted per 32-block
// (qs.gemm_mx_scaling = "promote"; converted to bf16 by default:
// gemm-mxfp8-convert-mn-major.mlir) reads w's column-wise data, which
// keeps w's layout ([K, N]: MN-major), and FP8 wgmma reads K-major tiles
// only. TMA loads it unswizzled in boxes of 128 K-rows x 64 bytes
// (tensor map: rows K = 768, row bytes N = 512, box 128 x 64, swizzle 0;
// dy's rows stay K-major, swizzled); after the full barrier the consumers
// copy the tile transposed (sixteen 16-byte loads, 4x4 byte transposes in
// prmt, 16-byte stores into the 128-byte-swizzled K-major tile after the
// ring, buffer it % 2 of two), fence the generic-proxy writes for wgmma
// and meet (named barrier 1), then run the per-32 promoted wgmmas as for
// fprop. No barrier before the copy: block-scaled consumers finish every
// wgmma group within a k-tile, so both are done with the buffer's last
// readers (k-tile it - 2) once they have met after the copy of it - 1.
// Shared memory: 7 stages of 24 KiB, two 8 KiB transposed B tiles, 112
// bytes of barriers = 188,528 bytes. w's column-wise scales are
// GEMM-swizzled, so a column's four E8M0 codes of a k-tile are one word
// there too: 18 word loads (2 rows of dy, 16 columns of w), four
// m64n64k32 and one wait per k-tile.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 384, 1, 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-COUNT-18: ld.global.b32
// CHECK-NOT: ld.global
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.wait_group
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: wgmma.mma_async
// The producer: dy's box at {k byte, row}, w's at {column byte, k row}.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {[[K:%r[0-9]+]], {{%r[0-9]+}}}], [{{%r[0-9]+}}];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, [[K]]}], [{{%r[0-9]+}}];
// The copy, after the full barrier (the block layout puts it after the
// wgmmas in the text).
// COPY: mbarrier.try_wait.parity.shared::cta.b64
// COPY-NOT: bar.sync
// COPY-COUNT-16: ld.shared.v4.b32
// COPY-COUNT-32: prmt.b32
// COPY: st.shared.v4.b32
// SYNC: bar.sync 0;
// SYNC: fence.proxy.async.shared::cta;
// SYNC-NEXT: // end inline asm
// SYNC-NEXT: // begin inline asm
// SYNC-NEXT: bar.sync 1, 256;
// SYNC-NEXT: // end inline asm
// SYNC-NEXT: // begin inline asm
// SYNC-NEXT: wgmma.fence.sync.aligned;
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c1024_i64{{(_[0-9]+)?}}, %c768_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c768_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c0_i64{{(_[0-9]+)?}})
// HOST: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 64 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 188528 : i64}
!dy = !qs.tensor<1024x768xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.mxfp8<rowwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_90a", qs.gemm_mx_scaling = "promote"} {
  func.func @dgrad(%dy: !dy, %w: !w) -> tensor<1024x512xbf16> {
    %dx = qs.gemm %dy, %w : !dy, !w -> tensor<1024x512xbf16>
    return %dx : tensor<1024x512xbf16>
  }
}
