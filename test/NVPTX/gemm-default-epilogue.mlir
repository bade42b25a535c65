// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// The sm_90a GEMM epilogue by default (defaultsToTmaStore): the TMA-store
// epilogue for per-tensor kernels with a block per tile whose tiles fill
// the GPU (132 multiprocessors: 64 x 32 tiles of 128x256 here), with and
// without fast_accumulate, and for FP8 block 1x128 x 128x128 (64 x 64
// tiles of 128x128); measured on the H200 at 8192^3 (per-tensor +5.2%,
// fast +7.6%, FP8 block +2.3%, docs/performance.md). The direct epilogue
// where qs.gemm_epilogue = "direct" asks for it, where the tiles do not
// fill the GPU (256 rows), for persistent kernels, where D's rows are not
// multiples of 16 bytes (8196 bf16 columns) and for the other block-scaled
// operands (unmeasured there: MXFP8 here, converted to bf16 in 128x128
// tiles by default). Also 128x256 tiles without fast_accumulate
// where they fill the GPU and the kernel has a block per tile.
!x = !qs.tensor<8192x1024xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<8192x1024xbf16, #qs.fp8_current<columnwise = false>>
!wn = !qs.tensor<8196x1024xbf16, #qs.fp8_current<columnwise = false>>
!xs = !qs.tensor<256x1024xbf16, #qs.fp8_current<columnwise = false>>
!xb = !qs.tensor<8192x1024xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!wb = !qs.tensor<8192x1024xbf16, #qs.fp8_block<columnwise = false>>
!xm = !qs.tensor<8192x1024xbf16, #qs.mxfp8<columnwise = false>>
!wm = !qs.tensor<8192x1024xbf16, #qs.mxfp8<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @large(%x: !x, %w: !w) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (64 x 32), 4-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K, TMA-store epilogue; 2048 blocks of 384 threads, 229440 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @fast(%x: !x, %w: !w) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (64 x 32), 4-stage ring, 8 k-tiles of 128, TMA-store epilogue; 2048 blocks of 384 threads, 229440 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate : !x, !w -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @asked_direct(%x: !x, %w: !w) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (64 x 32), 4-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K; 2048 blocks of 384 threads, 196672 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "direct"} : !x, !w -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @small(%x: !xs, %w: !w) -> tensor<256x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 64), 6-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K; 128 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !xs, !w -> tensor<256x8192xbf16>
    return %y : tensor<256x8192xbf16>
  }
  func.func @persistent(%x: !x, %w: !w) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (64 x 64), 6-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K, persistent; 132 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_persistent = 132 : i64} : !x, !w -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @unaligned_rows(%x: !x, %w: !wn) -> tensor<8192x8196xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (64 x 33), 4-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K; 2112 blocks of 384 threads, 196672 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !wn -> tensor<8192x8196xbf16>
    return %y : tensor<8192x8196xbf16>
  }
  func.func @block(%x: !xb, %w: !wb) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (64 x 64), 6-stage ring, 8 k-tiles of 128, FP32 promotion per 128 of K, TMA-store epilogue; 4096 blocks of 384 threads, 229472 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !xb, !wb -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
  func.func @mx(%x: !xm, %w: !wm) -> tensor<8192x8192xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (64 x 64), 4-stage ring, 8 k-tiles of 128, FP8 codes times E8M0 scales converted to bf16 in shared memory; 4096 blocks}}
    %y = qs.gemm %x, %w transpose_b : !xm, !wm -> tensor<8192x8192xbf16>
    return %y : tensor<8192x8192xbf16>
  }
}
