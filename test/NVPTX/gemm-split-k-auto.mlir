// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s

// qs.gemm_split_k = "auto": the plan's cost model (chooseKSplit,
// docs/GPU.md "Split-K") picks each GEMM's split or stream-K. Small M with
// long K splits: 128 x 4096 x 14336 has 32 tiles and 112 k-tiles (4
// ranges: 128 blocks of 132 multiprocessors), 128 x 8192 x 8192 64 tiles
// and 64 k-tiles (2 ranges); a GEMM whose last wave is mostly full
// (4096^3: 1024 tiles, 7.76 waves; stream-K's planes would cost more than
// the 3% it saves) does neither; with the TMA epilogue and the reduction
// kernel, which would write D instead of the GEMM kernel, 128 x 4096 x
// 14336 gets stream-K instead of 4 splits (132 blocks, 5 planes of all 32
// tiles, the counters, no reduction kernel). 8192^3's 4096 tiles are
// 31.03 waves: stream-K (132 persistent blocks, a workspace of 2 planes of
// the last 136 tiles, the counters, no reduction kernel), MXFP8 promoted
// per 32-block in 8192 tiles of 128x64 (62.06 waves) likewise (2 planes
// of 140), and MXFP8 converted to bf16 (the default) in 4096 128x128 tiles
// as per-tensor's (2 planes of 136); not where stream-K's rules exclude
// it: with qs.gemm_split_k_reduce = "kernel", ping-pong (the persistent
// 132-block kernel as asked, no split) and MXFP8 promoted in 128x128
// tiles.

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
// CHECK: %[[WS1:.*]] = memref.alloc() : memref<2621440xf32>
// CHECK: call @qs_gemm_2_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS1]], %{{.*}})
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @large
// CHECK: %[[WS3:.*]] = memref.alloc() : memref<4456448xf32>
// CHECK: call @qs_gemm_3_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS3]])
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @large_kernel_reduce
// CHECK-NOT: memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK: call @qs_gemm_4_launch(
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @large_pingpong
// CHECK-NOT: memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK: call @qs_gemm_5_launch(
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @mx
// CHECK: %[[WS6:.*]] = memref.alloc() : memref<2293760xf32>
// CHECK: call @qs_gemm_6_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS6]])
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @mx_wide
// CHECK-NOT: memref.alloc() : memref<{{[0-9]+}}xf32>
// CHECK: call @qs_gemm_7_launch(
// CHECK-NOT: split_k_reduce
// CHECK-LABEL: func.func @mx_converted
// CHECK: %[[WS8:.*]] = memref.alloc() : memref<4456448xf32>
// CHECK: call @qs_gemm_8_launch(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[WS8]])
// CHECK-NOT: split_k_reduce
// CHECK: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 128 : i64
// CHECK: func.func private @qs_gemm_split_k_reduce_launch(
// CHECK: func.func private @qs_gemm_0_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 128 : i64
// CHECK: func.func private @qs_gemm_1_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 1024 : i64
// CHECK: func.func private @qs_gemm_2_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 132 : i64
// CHECK: func.func private @qs_gemm_3_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 132 : i64
// CHECK: func.func private @qs_gemm_4_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 4096 : i64
// CHECK: func.func private @qs_gemm_5_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 132 : i64
// CHECK: func.func private @qs_gemm_6_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 132 : i64
// CHECK: func.func private @qs_gemm_7_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 4096 : i64
// CHECK: memref.global "private" @qs_gemm_2_split_k_counters : memref<32xi32>
// CHECK: memref.global "private" @qs_gemm_3_split_k_counters : memref<4096xi32>
// CHECK-NOT: @qs_gemm_{{[45]}}_split_k_counters
// CHECK: memref.global "private" @qs_gemm_6_split_k_counters : memref<8192xi32>
// CHECK-NOT: @qs_gemm_7_split_k_counters
!xd = !qs.tensor<128x14336xbf16, #qs.fp8_current<columnwise = false>>
!wd = !qs.tensor<4096x14336xbf16, #qs.fp8_current<columnwise = false>>
!xw = !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>
!ww = !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>
!xs = !qs.tensor<4096x4096xbf16, #qs.fp8_current<columnwise = false>>
!xl = !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>
!mx = !qs.tensor<8192x8192xbf16, #qs.mxfp8<columnwise = false>>
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
  func.func @large(%x: !xl, %w: !xl) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b : !xl, !xl -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @large_kernel_reduce(%x: !xl, %w: !xl) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k_reduce = "kernel"} : !xl, !xl -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @large_pingpong(%x: !xl, %w: !xl) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !xl, !xl -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @mx(%x: !mx, %w: !mx) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_mx_scaling = "promote"} : !mx, !mx -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @mx_wide(%x: !mx, %w: !mx) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b {qs.gemm_tile_n = 128 : i64, qs.gemm_mx_scaling = "promote"} : !mx, !mx -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @mx_converted(%x: !mx, %w: !mx) -> tensor<8192x8192xbf16> {
    %y = qs.gemm %x, %w transpose_b : !mx, !mx -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
}
