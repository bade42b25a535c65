// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx

// The sm_100a GEMM kernel (tcgen05): 128 threads, one 128x128 tile; warp 1
// allocates 512 tensor-memory columns (accumulators, 5 scale-factor slots);
// warp 0 loads tiles with TMA, warp 2 gathers the scale factors (32-bit
// global loads, 16-byte shared stores in cuBLAS's 128x4 order, a proxy
// fence, one mbarrier arrival per lane); one thread copies them to tensor
// memory (tcgen05.cp .32x128b.warpx4) and issues the block-scaled MMAs,
// freeing stages with tcgen05.commit; every warp reads its 32 lanes back
// (tcgen05.ld .32x32b.x32). Shared-memory descriptors: version 1 (bit 46),
// SBO 1024 and 128-byte swizzle (layout 2, bits 61-63) for the tiles:
// 0x4000404000010000 = 4611756662049538048 plus the start address; SBO 128,
// no swizzle for scale-factor chunks: 0x400800000000 = 70403103916032.
// NVFP4: kind::mxf4nvf4 with E4M3 scales, scale_vec::4X (four 16-blocks per K = 64 MMA, 256-wide k-tiles of packed codes, 128-byte swizzled); the instruction descriptor is 0x08200480 = 136316032 (E2M1 x E2M1, N = 128, M = 128, UE4M3) for every k-step, each step reading its own 4 scale-factor columns.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 128, 1, 1
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], 512;
// CHECK-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: bar.sync 0;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK-DAG: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 70403103916032;
// CHECK-DAG: tcgen05.cp.cta_group::1.32x128b.warpx4 [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK-DAG: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// CHECK-DAG: mov.b32 {{%r[0-9]+}}, 136316032;
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, [{{%r[0-9]+}}], [{{%r[0-9]+}}], p;
// CHECK-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-DAG: ld.global.nc.b32
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: mbarrier.arrive.shared::cta.b64
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NEXT: tcgen05.wait::ld.sync.aligned;
// The epilogue stores 16 bytes (8 bf16 of a row) at a time.
// CHECK: st.global.v4.b32
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 {{%r[0-9]+}}, 512;
!x = !qs.tensor<1024x512xbf16, #qs.nvfp4<columnwise = false>>
!w = !qs.tensor<768x512xbf16, #qs.nvfp4<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.chip = "sm_100a"} {
  func.func @fprop(%x: !x, %w: !w) -> tensor<1024x768xbf16> {
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<1024x768xbf16>
    return %y : tensor<1024x768xbf16>
  }
}
