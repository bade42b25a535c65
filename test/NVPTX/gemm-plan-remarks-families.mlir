// RUN: qs-opt %s -split-input-file --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null

// report-gemm-plans for the sm_100a tcgen05 kernel (128 threads, scale
// factors in tensor memory, no promotion) and sm_90a's MXFP8 (converted
// to bf16 in 128x128 tiles by default, here split, MN-major dgrad tiles
// transposed by the conversion; with qs.gemm_mx_scaling = "promote"
// 128x64 tiles promoted per 32 of K, for MN-major operands 128x128 where a
// block computes a tile, copied transposed in shared memory), NVFP4
// (converted to f16); split-K "auto" on NVFP4's 256-wide sm_100a k-tiles.
!x = !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!xn = !qs.tensor<128x8192xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
  func.func @mx(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (2 x 8), 5-stage ring, 4 k-tiles of 128, block-scaled MMA (scale factors in tensor memory); 16 blocks of 128 threads, 169056 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @fp4(%x: !xn, %w: !xn) -> tensor<128x128xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (1 x 1), 5-stage ring, 32 k-tiles of 256 in 16 splits of 2 (split-K "auto", model 5.5 us against 7.4 unsplit), block-scaled MMA (scale factors in tensor memory); 16 blocks of 128 threads, 184416 bytes of shared memory; then qs_gemm_split_k_reduce}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !xn, !xn -> tensor<128x128xbf16>
    return %y : tensor<128x128xbf16>
  }
}

// -----

!x = !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!dy = !qs.tensor<256x1024xbf16, #qs.mxfp8<columnwise = false>>
!wt = !qs.tensor<1024x512xbf16, #qs.mxfp8<rowwise = false>>
!dyl = !qs.tensor<2048x1024xbf16, #qs.mxfp8<columnwise = false>>
!wtl = !qs.tensor<1024x2048xbf16, #qs.mxfp8<rowwise = false>>
!xn = !qs.tensor<256x512xbf16, #qs.nvfp4<columnwise = false>>
!wn = !qs.tensor<1024x512xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  func.func @mx(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 4-stage ring, 4 k-tiles of 128 in 4 splits of 1 (split-K by default, model 9.1 us against 12.3 unsplit), FP8 codes times E8M0 scales converted to bf16 in shared memory; 64 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @mx_promoted(%x: !x, %w: !w) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x64 tiles (2 x 16), 8-stage ring, 4 k-tiles of 128, FP32 promotion per 32 of K; 32 blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_mx_scaling = "promote"} : !x, !w -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
  func.func @dgrad(%dy: !dy, %w: !wt) -> tensor<256x512xbf16> {
    // expected-remark @+1 {{128x128 tiles (2 x 4), 4-stage ring, 8 k-tiles of 128 in 8 splits of 1 (split-K by default, model 9.1 us against 21.6 unsplit), FP8 codes times E8M0 scales converted to bf16 in shared memory (MN-major tiles transposed); 64 blocks}}
    %y = qs.gemm %dy, %w : !dy, !wt -> tensor<256x512xbf16>
    return %y : tensor<256x512xbf16>
  }
  func.func @dgrad_wide(%dy: !dyl, %w: !wtl) -> tensor<2048x2048xbf16> {
    // expected-remark @+1 {{128x128 tiles (16 x 16), 5-stage ring, 8 k-tiles of 128, FP32 promotion per 32 of K, MN-major tiles transposed in shared memory; 256 blocks}}
    %y = qs.gemm %dy, %w {qs.gemm_mx_scaling = "promote"} : !dyl, !wtl -> tensor<2048x2048xbf16>
    return %y : tensor<2048x2048xbf16>
  }
  func.func @fp4(%x: !xn, %w: !wn) -> tensor<256x1024xbf16> {
    // expected-remark @+1 {{E2M1 codes times E4M3 scales converted to f16 in shared memory}}
    %y = qs.gemm %x, %w transpose_b : !xn, !wn -> tensor<256x1024xbf16>
    return %y : tensor<256x1024xbf16>
  }
}
