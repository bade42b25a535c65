// REQUIRES: ptxas
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// Persistent sm_100a GEMM with the TMA-store epilogue: each epilogue warp
// (lane quarter q = warp - 4) stages in its two 4 KiB buffers after the
// 6-stage ring (196608 + q x 8192, the second 4096 further on), waits
// for the buffer's previous store before every chunk (it may be the
// previous unit's: the tile has two chunks) and for all of its stores
// once, after its last unit. `.minnctapersm 1` (one block per
// multiprocessor is all the shared memory allows) lets ptxas use the
// registers it needs: without it this kernel spilled 32 bytes at 64.
// CHECK-LABEL: .entry qs_gemm(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: shl.b64 [[Q:%rd[0-9]+]], {{%rd[0-9]+}}, 13;
// CHECK-NEXT: add.s64 {{%rd[0-9]+}}, [[Q]], 196608;
// CHECK: add.s64 {{%rd[0-9]+}}, [[Q]], 200704;
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: st.shared.v4.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read 1;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group 0;
// CHECK-NOT: cp.async.bulk.wait_group
// CHECK: tcgen05.dealloc
// PTXAS: Function properties for qs_gemm
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
!x = !qs.tensor<4096x512xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_persistent = 148 : i64, qs.gemm_epilogue = "tma", qs.gemm_tile_n = 128 : i64} {
  func.func @fprop(%x: !x, %w: !x) -> tensor<4096x4096xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (32 x 32), 6-stage ring, 4 k-tiles of 128, persistent, TMA-store epilogue; 148 blocks of 256 threads, 229520 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !x -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }
}
