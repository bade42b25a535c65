// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa report-gemm-plans" -verify-diagnostics -o /dev/null
// RUN: sed '/expected-remark/d' %s | qs-opt --qs-nvptx-pipeline="chip=sm_90a format=isa" -o /dev/null 2>&1 | count 0

// report-gemm-plans (convert-qs-to-gpu and qs-nvptx-pipeline): a remark at
// each GEMM stating the kernel plan it got. 256 x 1024 x 512: 2 x 8 tiles
// of 128x128, 4 k-tiles; the 6-stage ring of 32 KiB stages fills the 192
// KiB given to it; the per-tensor kernel promotes each k-tile unless
// fast_accumulate; persistent, multicast, ping-pong and the TMA-store
// epilogue as asked; split-K "auto" splits the one-tile GEMM with 32
// k-tiles 16 ways and not the 16-tile one with 4 (with the cost model's
// times of the plan and of the GEMM unsplit); an explicit split
// doubles the grid. Without the option, no remark.
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!xl = !qs.tensor<128x4096xbf16, #qs.fp8_current<columnwise = false>>
!xb = !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!wb = !qs.tensor<1024x512xbf16, #qs.fp8_block<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @plain(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K; 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @fast(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, persistent, 2-block clusters multicasting B, TMA-store epilogue; 4 blocks of 384 threads, 229472 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_persistent = 4 : i64, qs.gemm_cluster = 2 : i64, qs.gemm_epilogue = "tma"} : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @pingpong(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, persistent, ping-pong consumers; 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @auto(%x: !xl, %w: !xl) -> tensor<128x128xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 1), 6-stage ring, 32 k-tiles of 128 in 16 splits of 2 (split-K "auto", model 6.4 us against 18.4 unsplit), FP32 promotion per 128 of K; 16 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !xl, !xl -> tensor<128x128xbf16>
    return %y : tensor<128x128xbf16>
  }
  func.func @auto_none(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128 (split-K "auto": none, model 4.9 us), FP32 promotion per 128 of K; 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @block(%x: !xb, %w: !wb) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K; 32 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !xb, !wb -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
}
