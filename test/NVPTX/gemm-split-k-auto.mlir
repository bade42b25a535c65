// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s

// qs.gemm_split_k = "auto": the plan's cost model (chooseSplitK,
// docs/GPU.md "Split-K") picks each GEMM's split. Small M with long K
// splits: 128 x 4096 x 14336 has 32 tiles and 112 k-tiles (4 ranges: 128
// blocks of 132 multiprocessors), 128 x 8192 x 8192 64 tiles and 64
// k-tiles (2 ranges); a GEMM whose tiles fill the chip (4096^3: 1024) and
// one with the TMA epilogue (which split-K rules out) do not split.

// CHECK-LABEL: func.func @deep
// CHECK: %[[WS:.*]] = memref.alloc() : memref<2097152xf32>
// CHECK: call @qs_gemm_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]])
// CHECK-NEXT: call @qs_gemm_split_k_reduce_launch(%[[WS]], %{{.*}})
// CHECK-LABEL: func.func @wide
// CHECK: %[[WS2:.*]] = memref.alloc() : memref<2097152xf32>
// CHECK: call @qs_gemm_0_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS2]])
// CHECK-NEXT: call @qs_gemm_split_k_reduce_0_launch(%[[WS2]], %{{.*}})
// CHECK-LABEL: func.func @square
// CHECK-NOT: memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK-NOT: split_k_reduce
// CHECK: call @qs_gemm_1_launch(
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @tma_store
// CHECK-NOT: memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK-NOT: split_k_reduce
// CHECK: call @qs_gemm_2_launch(
// CHECK-NOT: split_k_reduce
// CHECK: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 128 : i64
// CHECK: func.func private @qs_gemm_split_k_reduce_launch(
// CHECK: func.func private @qs_gemm_0_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 128 : i64
// CHECK: func.func private @qs_gemm_1_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 1024 : i64
// CHECK: func.func private @qs_gemm_2_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 32 : i64
!xd = !qs.tensor<128x14336xbf16, #qs.fp8_current<columnwise = false>>
!wd = !qs.tensor<4096x14336xbf16, #qs.fp8_current<columnwise = false>>
!xw = !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>
!ww = !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>
!xs = !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = "auto"} {
  func.func @deep(%x: !xd, %w: !wd) -> tensor<128x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b : !xd, !wd -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @wide(%x: !xw, %w: !ww) -> tensor<128x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b : !xw, !ww -> tensor<128x8192xbf16>
    return %y : tensor<128x8192xbf16>
  }
  func.func @square(%x: !xs, %w: !xs) -> tensor<4096x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b : !xs, !xs -> tensor<4096x4096xbf16>
    return %y : tensor<4096x4096xbf16>
  }
  func.func @tma_store(%x: !xd, %w: !wd) -> tensor<128x4096xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "tma"} : !xd, !wd -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
}
