// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOGLOBAL
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PACK
// RUN: sed 's/xbf16>/xf32>/g' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=F32
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.gemm_epilogue = "tma" (sm_90a per-tensor FP8, 128x128 tiles, bf16 D
// with bias): each consumer warpgroup stores its 64 rows of a tile as two
// store chunks of 64 columns (128 bytes). Per chunk: its thread 0 waits
// until the buffer is no longer read (wait_group.read 0 before a tile's
// first chunk, 1 before the next), the warpgroup meets on its named
// barrier (4 or 5, 128 threads), every warp writes its 16 rows x 64 bf16
// columns with four stmatrix.x4 (each thread's 16 bf16 pairs, four words
// per stmatrix; each row address at its swizzled offset), fences them
// for the async proxy,
// meets again, and thread 0 issues the TMA store of the 64 x 128-byte box
// and commits it. Before exiting, thread 0 waits for every store. D is
// never written by ordinary stores. The host encodes D's tensor map as a
// [384, 600 x 2 bytes] matrix in 64 x 128-byte boxes, 128-byte swizzle;
// the staging buffers (32 KiB) follow the ring: 229,472 bytes of shared
// memory.
// CHECK-LABEL: .entry qs_gemm(
// CHECK-COUNT-3: prefetch.tensormap
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync {{[45]}}, 128;
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NOT: {{st.shared|stmatrix}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync {{[45]}}, 128;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW:%r[0-9]+]]}], [%r{{[0-9]+}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: bar.sync {{[45]}}, 128;
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK-NOT: {{st.shared|stmatrix}}
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync {{[45]}}, 128;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]}], [%r{{[0-9]+}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NOT: cp.async.bulk.tensor.2d.global
// CHECK: cp.async.bulk.wait_group 0;
// NOGLOBAL-NOT: st.global
// Each bf16 pair is converted and packed by one cvt.rn.bf16x2.f32 (16 per
// chunk and thread), never by two scalar conversions and a shift.
// PACK-NOT: cvt.rn.bf16.f32
// PACK-COUNT-32: cvt.rn.bf16x2.f32
// PACK-NOT: cvt.rn.bf16{{(x2)?}}.f32
// f32 D: 32 columns (128 bytes) per chunk, four chunks, eight pairs each.
// F32-COUNT-8: st.shared.v2.f32
// F32: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// F32: cp.async.bulk.wait_group.read 1;
// F32-COUNT-8: st.shared.v2.f32
// F32: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// F32: cp.async.bulk.wait_group.read 1;
// F32-COUNT-8: st.shared.v2.f32
// F32: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// F32: cp.async.bulk.wait_group.read 1;
// F32-COUNT-8: st.shared.v2.f32
// F32: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// F32-NOT: cp.async.bulk.tensor.2d.global
// F32: cp.async.bulk.wait_group 0;
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c384_i64{{(_[0-9]+)?}}, %c1200_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: qs_launch_shared = 229472 : i64
!x = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<600x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_epilogue = "tma"} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<600xbf16>) -> tensor<384x600xbf16> {
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<600xbf16>) : !x, !w -> tensor<384x600xbf16>
    return %y : tensor<384x600xbf16>
  }
}
