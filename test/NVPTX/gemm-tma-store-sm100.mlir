// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOGLOBAL
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: sed 's/qs.gemm_epilogue = "tma"/qs.gemm_epilogue = "direct"/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=DIRECT

// qs.gemm_epilogue = "tma" on sm_100a (per-tensor FP8, 128x256 tiles,
// bf16 D with bias): each warp stores its 32 rows of the tile (its
// tensor-memory lanes) as four store chunks of 64 columns (128 bytes),
// each from two tcgen05.ld of 32 columns and four 16-byte st.shared.v4
// per load into one of the warp's two buffers at the start of the stage
// ring. Per chunk: the writes fenced for the async proxy, the warp
// synchronized, lane 0 issues the TMA store of the 32 x 128-byte box and
// commits it; from the third chunk on lane 0 first waits until the store
// two chunks back has read its buffer (the warp then synchronized again).
// Before exiting, lane 0 waits for every store. D is never written by
// ordinary stores. The host encodes D's tensor map as a [384, 600 x 2
// bytes] matrix in 32 x 128-byte boxes, 128-byte swizzle; the shared
// memory is the direct epilogue's (the buffers reuse the ring).
// CHECK-LABEL: .entry qs_gemm(
// CHECK-COUNT-3: prefetch.tensormap
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK-NEXT: bar.warp.sync -1;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW:%r[0-9]+]]}], [%r{{[0-9]+}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]}], [%r{{[0-9]+}}];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: bar.warp.sync -1;
// CHECK-COUNT-8: st.shared.v4.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]}], [%r{{[0-9]+}}];
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]}], [%r{{[0-9]+}}];
// CHECK-NOT: cp.async.bulk.tensor.2d.global
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: tcgen05.dealloc
// NOGLOBAL-NOT: st.global
// HOST: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c384_i64{{(_[0-9]+)?}}, %c1200_i64{{(_[0-9]+)?}}, %c32_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// HOST: qs_launch_shared = 196688 : i64
// DIRECT-NOT: %c32_i64
// DIRECT: qs_launch_shared = 196688 : i64
!x = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<600x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_epilogue = "tma"} {
  func.func @fprop(%x: !x, %w: !w, %bias: tensor<600xbf16>) -> tensor<384x600xbf16> {
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<600xbf16>) {qs.gemm_tile_n = 256 : i64} : !x, !w -> tensor<384x600xbf16>
    return %y : tensor<384x600xbf16>
  }
}
