// RUN: qs-opt %s --split-input-file --qs-storage-pipeline "--convert-qs-to-gpu=require-nvptx-chip=true chip=sm_100a" -verify-diagnostics
// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu=emulate=true -verify-diagnostics

// GEMMs for Blackwell (qs.chip = "sm_100a") that the tcgen05 kernels do not
// run are diagnostics, under qs-nvptx-pipeline and in the emulation alike.
// (MN-major operands, MXFP8 and per-tensor FP8 in any layout, run.)

// Per-tensor FP8 on sm_100a reads an operand contracted over its first
// dimension MN-major (Blackwell layouts keep the column-wise usage
// untransposed): TMA needs its other dimension in multiples of 16.
!f = !qs.tensor<128x136xbf16, #qs.fp8_current<>>
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a"} {
func.func @mn_major_pitch(%a: !g, %b: !f) -> tensor<128x136xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op operand b is read MN-major (contracted over its first dimension, data in the tensor's own layout), so its other dimension (here 136) must be a multiple of 16: TMA row strides are multiples of 16 bytes}}
  %y = qs.gemm %a, %b : !g, !f -> tensor<128x136xbf16>
  return %y : tensor<128x136xbf16>
}
}

// -----

// FP8 block scaling runs as MXFP8 on sm_100a (as TE converts it): the E8M0
// exponent byte of each scale is exact for power-of-two scales only.
!x = !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w = !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 2, columnwise = false, force_pow_2_scales = false>>
module attributes {qs.chip = "sm_100a"} {
func.func @block(%a: !x, %b: !w) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op on sm_100a, FP8 block GEMMs run as MXFP8 (E8M0 scales, as TE converts them on Blackwell), which is exact only for power-of-two scales: operand b's quantizer has force_pow_2_scales = false}}
  %y = qs.gemm %a, %b transpose_b : !x, !w -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// 128x192 tiles are the sm_90a kernels'.
!p = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_tile_n = 192 : i64} {
func.func @tile_n_192(%a: !p, %b: !p) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_tile_n = 192 (128x192 tiles, promoted in two 96-column chunks) exists for the sm_90a kernels; sm_100a tiles are 128 or 256 wide}}
  %y = qs.gemm %a, %b transpose_b : !p, !p -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// NVFP4 on sm_100a also needs K % 32 (packed TMA rows of 16-byte multiples).
!k = !qs.tensor<128x144xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
func.func @nvfp4_k(%a: !k, %b: !k) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op NVFP4 GEMM kernels need K (here 144) to be a multiple of 32}}
  %y = qs.gemm %a, %b transpose_b : !k, !k -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// TMA multicast pairs (qs.gemm_cluster = 2) exist for sm_90a only.
!x = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_cluster = 2 : i64} {
func.func @cluster(%a: !x, %b: !x) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_cluster = 2 (TMA multicast of B across a pair of blocks) exists for the sm_90a kernels with K-major operands (not for MN-major data, whose tiles the consumers transpose in shared memory)}}
  %y = qs.gemm %a, %b transpose_b : !x, !x -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// Ping-pong consumers are a schedule of the sm_90a wgmma kernel.
!x = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_schedule = "pingpong"} {
func.func @pingpong(%a: !x, %b: !x) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b transpose_b : !x, !x -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// sm_100a NVFP4 k-tiles are 256 elements (a 128-byte row of packed codes):
// K = 768 has 3 of them, which 2 does not divide (on sm_90a, 6 of 128).
!x = !qs.tensor<128x768xbf16, #qs.nvfp4<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_split_k = 2 : i64} {
func.func @split_k_nvfp4(%a: !x, %b: !x) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = 2 must divide the GEMM's 3 k-tiles (ceil(K / 256), K = 768): each split sums an equal range of them}}
  %y = qs.gemm %a, %b transpose_b : !x, !x -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// Scales loaded a k-tile ahead are a schedule of the sm_90a FP8 block
// kernel (sm_100a moves scales into tensor memory).
!w = !qs.tensor<256x256xbf16, #qs.fp8_block<columnwise = false, force_pow_2_scales = true>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false, force_pow_2_scales = true>>
module attributes {qs.chip = "sm_100a", qs.gemm_scale_loads = "ahead"} {
func.func @scale_loads_ahead(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_scale_loads = "ahead" (each consumer thread loads the next k-tile's scales while one runs) exists for the sm_90a FP8 block kernel with 128x128-block B (1x128 x 128x128) in 128-wide tiles: 1x128 x 1x128 would carry 32 column scales per thread and k-tile, 128x192 tiles spill, and the other families and sm_100a load their scales otherwise}}
  %y = qs.gemm %a, %b transpose_b : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// sm_100a accumulates in tensor memory: no promotion to overlap.
!w = !qs.tensor<256x256xbf16, #qs.fp8_block<columnwise = false, force_pow_2_scales = true>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false, force_pow_2_scales = true>>
module attributes {qs.chip = "sm_100a", qs.gemm_promotion = "overlapped"} {
func.func @promotion_overlapped(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion = "overlapped" (the wgmmas of a k-tile run while the previous k-tile's partial sums are promoted) exists for the sm_90a kernels that promote}}
  %y = qs.gemm %a, %b transpose_b : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}
