// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed -e '/expected-remark/d' -e 's/"sm_90a"/"sm_100a"/' -e 's/qs.gemm_cluster = 2/qs.gemm_persistent = 32/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans 2>&1 >/dev/null | FileCheck %s --check-prefix=SM100

// Split-K by default (defaultsToSplitK, chooseDefaultSplitK): an sm_90a
// GEMM without qs.gemm_split_k whose tiles leave multiprocessors idle
// splits K where the cost model (fitted to the H200's times) gains more
// than 10%, summed by the reduction kernel, never stream-K. The shapes the
// H200 timed (docs/performance.md, 2026-12-04): FP8 block 128 x 4096 x
// 14336 (32 tiles, 112 k-tiles; 210 -> 437 TFLOP/s in 4 splits) splits in
// 4; per-tensor with fast_accumulate 128 x 8192 x 8192 (its weights
// stream at the operands' floor either way: 28.4 us unsplit, 29.9 in 2
// splits) stays whole. Not with qs.gemm_split_k = 1, a persistent grid,
// multicast pairs, the TMA-store epilogue or a fused reduction asked
// for, not where the tiles fill the chip, not with one k-tile; not on
// sm_100a (unmeasured there: "auto" only; sm_100a has no multicast pairs).
// SM100-NOT: by default
// SM100-NOT: error
// SM100: remark: GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (1 x 8), 6-stage ring, 1 k-tiles of 128; 8 blocks
!xb = !qs.tensor<128x14336xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!wb = !qs.tensor<4096x14336xbf16, #qs.fp8_block<columnwise = false>>
!x = !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>
!xs = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
!ws = !qs.tensor<1024x128xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @block(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark-re @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 32), 6-stage ring, 112 k-tiles of 128 in 4 splits of 28 (split-K by default, model {{[0-9.]+}} us against {{[0-9.]+}} unsplit), FP32 promotion per 128 of K; 128 blocks of 384 threads, {{.*}}; then qs_gemm_split_k_reduce}}
    %y = qs.gemm %x, %w transpose_b : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @block_whole(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark @+1 {{112 k-tiles of 128, FP32 promotion per 128 of K; 32 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 1 : i64} : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @block_persistent(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark @+1 {{112 k-tiles of 128, FP32 promotion per 128 of K, persistent; 32 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_persistent = 32 : i64} : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @block_multicast(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark @+1 {{112 k-tiles of 128, FP32 promotion per 128 of K, 2-block clusters multicasting B; 64 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_cluster = 2 : i64} : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @block_tma(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark @+1 {{112 k-tiles of 128, FP32 promotion per 128 of K, TMA-store epilogue; 32 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "tma"} : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @block_fused(%x: !xb, %w: !wb) -> tensor<128x4096xbf16> {
    // expected-remark @+1 {{112 k-tiles of 128, FP32 promotion per 128 of K; 32 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k_reduce = "fused"} : !xb, !wb -> tensor<128x4096xbf16>
    return %y : tensor<128x4096xbf16>
  }
  func.func @fast(%x: !x, %w: !w) -> tensor<128x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 64), 6-stage ring, 64 k-tiles of 128; 64 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<128x8192xbf16>
    return %y : tensor<128x8192xbf16>
  }
  func.func @one_k_tile(%x: !xs, %w: !ws) -> tensor<128x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 8), 6-stage ring, 1 k-tiles of 128, FP32 promotion per 128 of K; 8 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b : !xs, !ws -> tensor<128x1024xbf16>
    return %y : tensor<128x1024xbf16>
  }
}
