// RUN: qs-opt %s --split-input-file --qs-storage-pipeline "--convert-qs-to-gpu=require-nvptx-chip=true chip=sm_90a" -verify-diagnostics

// What the GEMM kernels cannot run is a diagnostic under qs-nvptx-pipeline
// (the emulation: gemm-emulated-invalid.mlir).

// K must be a multiple of 16 (TMA row strides).
!a = !qs.tensor<128x136xbf16, #qs.fp8_current<columnwise = false>>
func.func @k_not_16(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op GEMM kernels need K (here 136) to be a multiple of 16: TMA row strides are multiples of 16 bytes (cuBLASLt has the same rule, lda % 16 == 0)}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Packed NVFP4 rows must be 16-byte multiples for TMA.
!f = !qs.tensor<128x144xbf16, #qs.nvfp4<columnwise = false>>
func.func @nvfp4_k(%a: !f, %b: !f) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op NVFP4 GEMM kernels need K (here 144) to be a multiple of 32: a packed row (K / 2 bytes) must be a multiple of 16 bytes for TMA}}
  %y = qs.gemm %a, %b transpose_b : !f, !f -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Block FP8 keeps 128-wide tiles, or 192 where B has 128x128 blocks
// (per-tensor FP8 may take 192 or 256 with or without fast_accumulate;
// with block scales and their promotion, a 128x256 tile's registers
// spill, and so do a 128x192 tile's with 1x128 B's column scales).
!w = !qs.tensor<256x256xbf16, #qs.fp8_block<columnwise = false>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.gemm_tile_n = 256 : i64} {
func.func @wide_block(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op sm_90a block-scaled GEMM kernels use fixed tile widths (FP8 block 128, MXFP8 converted to bf16 128 and promoted 64, NVFP4 128); qs.gemm_tile_n applies to them as 128 to MXFP8 and as 192 to FP8 block GEMMs whose B has 128x128 blocks (sm_100a: 128 or 256 for every family)}}
  %y = qs.gemm %a, %b transpose_b : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}


// -----

!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.gemm_tile_n = 192 : i64} {
func.func @block_192_wgrad(%a: !x, %b: !x) -> tensor<256x256xf32> {
  // expected-error@+1 {{'qs.gemm_buffers' op sm_90a block-scaled GEMM kernels use fixed tile widths (FP8 block 128, MXFP8 converted to bf16 128 and promoted 64, NVFP4 128); qs.gemm_tile_n applies to them as 128 to MXFP8 and as 192 to FP8 block GEMMs whose B has 128x128 blocks (sm_100a: 128 or 256 for every family)}}
  %y = qs.gemm %a, %b transpose_b : !x, !x -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
}

// -----

// MXFP8 has no 192-wide tiles.
!m = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
module attributes {qs.gemm_tile_n = 192 : i64} {
func.func @mxfp8_192(%a: !m, %b: !m) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op sm_90a block-scaled GEMM kernels use fixed tile widths (FP8 block 128, MXFP8 converted to bf16 128 and promoted 64, NVFP4 128); qs.gemm_tile_n applies to them as 128 to MXFP8 and as 192 to FP8 block GEMMs whose B has 128x128 blocks (sm_100a: 128 or 256 for every family)}}
  %y = qs.gemm %a, %b transpose_b : !m, !m -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// MXFP8 on sm_90a takes 128 (two promoted 64-column chunks), not 256.
!m = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
module attributes {qs.gemm_tile_n = 256 : i64} {
func.func @wide_mxfp8(%a: !m, %b: !m) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op sm_90a block-scaled GEMM kernels use fixed tile widths (FP8 block 128, MXFP8 converted to bf16 128 and promoted 64, NVFP4 128); qs.gemm_tile_n applies to them as 128 to MXFP8 and as 192 to FP8 block GEMMs whose B has 128x128 blocks (sm_100a: 128 or 256 for every family)}}
  %y = qs.gemm %a, %b transpose_b : !m, !m -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// TMA multicast pairs (qs.gemm_cluster = 2) need K-major operands: an
// MXFP8 dgrad reads w's column-wise data MN-major.
!x = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<256x256xbf16, #qs.mxfp8<rowwise = false>>
module attributes {qs.gemm_cluster = 2 : i64} {
func.func @cluster_mn_major(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_cluster = 2 (TMA multicast of B across a pair of blocks) exists for the sm_90a kernels with K-major operands (not for MN-major data, whose tiles the consumers transpose in shared memory)}}
  %y = qs.gemm %a, %b : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// Ping-pong consumers (qs.gemm_schedule = "pingpong") exist for per-tensor
// FP8 only (block-scaled consumers hold partial and promoted sums: two
// 128-row tiles would not fit their registers) ...
!w = !qs.tensor<256x256xbf16, #qs.fp8_block<columnwise = false>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
func.func @pingpong_block(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_schedule = "pingpong"} : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}

// -----

// ... with 128-wide tiles (a 128x256 tile per consumer: 256 accumulator
// registers per thread).
!p = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_tile_n = 256 : i64} {
func.func @pingpong_wide(%a: !p, %b: !p) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !p, !p -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

!p = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_tile_n = 192 : i64} {
func.func @pingpong_192(%a: !p, %b: !p) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !p, !p -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// ... and with fast_accumulate: a ping-pong consumer's two m64 accumulators
// (128 registers) leave none for the promotion's second set.
!p = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @pingpong_split(%a: !p, %b: !p) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_schedule = "pingpong" (each consumer warpgroup computes its own 128x128 tiles) exists for the sm_90a per-tensor FP8 kernel with fast_accumulate (no registers are left to promote into), K-major operands and 128-wide tiles}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_schedule = "pingpong"} : !p, !p -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}

// -----

// TMA stores D by rows of 16-byte multiples: N = 36 bf16 (72 bytes) cannot
// (the direct epilogue stores any N).
!a = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
!b = !qs.tensor<36x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @tma_store_row_bytes(%a: !a, %b: !b) -> tensor<128x36xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_epilogue = "tma" needs D's rows to be multiples of 16 bytes (TMA row strides), here N = 36 elements of 2 bytes}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_epilogue = "tma"} : !a, !b -> tensor<128x36xbf16>
  return %y : tensor<128x36xbf16>
}

// -----

// ... while f32 rows of 36 elements (144 bytes) can.
!a = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
!b = !qs.tensor<36x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @tma_store_f32(%a: !a, %b: !b) -> tensor<128x36xf32> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_epilogue = "tma"} : !a, !b -> tensor<128x36xf32>
  return %y : tensor<128x36xf32>
}

// -----

// Split-K cuts K into equal ranges of 128-wide k-tiles: K = 400 has 4
// k-tiles (the last partial), which 3 does not divide.
!a = !qs.tensor<128x400xbf16, #qs.fp8_current<columnwise = false>>
func.func @split_k_divides(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = 3 must divide the GEMM's 4 k-tiles (ceil(K / 128), K = 400): each split sums an equal range of them}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = 3 : i64} : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// ... and 2 does (and so does 1, split-K off).
!a = !qs.tensor<128x400xbf16, #qs.fp8_current<columnwise = false>>
func.func @split_k_2(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = 2 : i64} : !a, !a -> tensor<128x128xbf16>
  %z = qs.gemm %a, %b transpose_b {qs.gemm_split_k = 1 : i64} : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// With split-K and the reduction kernel the GEMM kernel stores FP32
// partial planes only; D is the reduction kernel's, so the TMA-store
// epilogue has nothing to store (with the fused reduction the last unit
// stores D through it).
!a = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_epilogue = "tma"} {
func.func @split_k_tma_store(%a: !a, %b: !a) -> tensor<128x128xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k stores FP32 partial results into a workspace and a second kernel writes D, so qs.gemm_epilogue = "tma" (D written by the GEMM kernel through TMA) needs qs.gemm_split_k_reduce = "fused" (each tile's last unit writes D)}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = 2 : i64} : !a, !a -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}

// -----

// Stream-K runs on the cooperative schedule without clusters: not with
// ping-pong consumers, ...
!a = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_schedule = "pingpong", qs.gemm_split_k = "stream"} {
func.func @stream_k_pingpong(%a: !a, %b: !a) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" (stream-K: persistent blocks share the last tiles' k-tiles) exists for the sm_90a kernels with the cooperative schedule and no clusters, and for the sm_100a kernels}}
  %y = qs.gemm %a, %b transpose_b fast_accumulate : !a, !a -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}
}

// -----

// ... nor multicast pairs.
!a = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_cluster = 2 : i64, qs.gemm_split_k = "stream"} {
func.func @stream_k_cluster(%a: !a, %b: !a) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" (stream-K: persistent blocks share the last tiles' k-tiles) exists for the sm_90a kernels with the cooperative schedule and no clusters, and for the sm_100a kernels}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}
}

// -----

// Stream-K sums shared tiles in the GEMM kernel: "kernel" contradicts it.
!a = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_split_k = "stream", qs.gemm_split_k_reduce = "kernel"} {
func.func @stream_k_reduce_kernel(%a: !a, %b: !a) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" sums the tiles its blocks share inside the GEMM kernel (each tile's last block), so qs.gemm_split_k_reduce = "kernel" does not apply}}
  %y = qs.gemm %a, %b transpose_b : !a, !a -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}
}

// -----

// Stream-K with the TMA-store epilogue: not with MXFP8 promoted per
// 32-block (spills) ...
!m = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
module attributes {qs.gemm_epilogue = "tma", qs.gemm_mx_scaling = "promote"} {
func.func @stream_k_tma_mxfp8(%a: !m, %b: !m) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" with qs.gemm_epilogue = "tma" needs operands scaled per tensor, FP8 block 1x128 x 128x128, MXFP8 converted to bf16 or NVFP4: with 1x128-scaled B or MXFP8 promoted per 32-block the segments' bookkeeping, the planes' sums and the staging exceed the consumers' 232 registers (ptxas spills)}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "stream"} : !m, !m -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}
}

// -----

// ... nor with FP8 block 1x128 x 1x128 (wgrad's).
!g = !qs.tensor<512x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.gemm_epilogue = "tma"} {
func.func @stream_k_tma_block_1d(%a: !g, %b: !g) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" with qs.gemm_epilogue = "tma" needs operands scaled per tensor, FP8 block 1x128 x 128x128, MXFP8 converted to bf16 or NVFP4: with 1x128-scaled B or MXFP8 promoted per 32-block the segments' bookkeeping, the planes' sums and the staging exceed the consumers' 232 registers (ptxas spills)}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "stream"} : !g, !g -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}
}

// -----

// Stream-K with MXFP8 promoted per 32-block keeps the default 128x64 tiles
// (128x128 spills).
!m = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
func.func @stream_k_mxfp8_128(%a: !m, %b: !m) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = "stream" with MXFP8 operands promoted per 32-block (qs.gemm_mx_scaling = "promote" or a qs.gemm_promotion) needs their default 128x64 tiles: with qs.gemm_tile_n = 128 the segments' bookkeeping next to two sets of partial accumulators exceeds the consumers' 232 registers (ptxas spills)}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "stream", qs.gemm_tile_n = 128 : i64, qs.gemm_mx_scaling = "promote"} : !m, !m -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// -----

// ... and runs with them, and with the other families' tiles.
!m = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
!f = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @stream_k_ok(%a: !m, %b: !m, %c: !f) -> tensor<512x512xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "stream"} : !m, !m -> tensor<512x512xbf16>
  %z = qs.gemm %c, %c transpose_b {qs.gemm_split_k = "stream", qs.gemm_tile_n = 256 : i64} : !f, !f -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// -----

// Scales loaded a k-tile ahead (qs.gemm_scale_loads = "ahead") need B's
// 128x128 blocks: a wgrad (1x128 x 1x128) would carry 32 column scales
// per thread ...
!dy = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
func.func @scale_loads_ahead_wgrad(%a: !dy, %b: !x) -> tensor<256x256xf32> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_scale_loads = "ahead" (each consumer thread loads the next k-tile's scales while one runs) exists for the sm_90a FP8 block kernel with 128x128-block B (1x128 x 128x128) in 128-wide tiles: 1x128 x 1x128 would carry 32 column scales per thread and k-tile, 128x192 tiles spill, and the other families and sm_100a load their scales otherwise}}
  %y = qs.gemm %a, %b transpose_a {qs.gemm_scale_loads = "ahead"} : !dy, !x -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

// ... and 128-wide tiles (128x192: four scales and products per chunk
// carried, ptxas spills) ...
!w = !qs.tensor<256x384xbf16, #qs.fp8_block<columnwise = false>>
!x = !qs.tensor<256x384xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.gemm_tile_n = 192 : i64, qs.gemm_scale_loads = "ahead"} {
func.func @scale_loads_ahead_192(%a: !x, %b: !w) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_scale_loads = "ahead" (each consumer thread loads the next k-tile's scales while one runs) exists for the sm_90a FP8 block kernel with 128x128-block B (1x128 x 128x128) in 128-wide tiles: 1x128 x 1x128 would carry 32 column scales per thread and k-tile, 128x192 tiles spill, and the other families and sm_100a load their scales otherwise}}
  %y = qs.gemm %a, %b transpose_b : !x, !w -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// ... and FP8 block operands (MXFP8 loads packed E8M0 words).
!m = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
func.func @scale_loads_ahead_mxfp8(%a: !m, %b: !m) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_scale_loads = "ahead" (each consumer thread loads the next k-tile's scales while one runs) exists for the sm_90a FP8 block kernel with 128x128-block B (1x128 x 128x128) in 128-wide tiles: 1x128 x 1x128 would carry 32 column scales per thread and k-tile, 128x192 tiles spill, and the other families and sm_100a load their scales otherwise}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_scale_loads = "ahead"} : !m, !m -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}

// -----

// The promotion overlapped with the next k-tile's wgmmas
// (qs.gemm_promotion = "overlapped") needs a kernel that promotes: not
// per-tensor FP8 with fast_accumulate ...
!x = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @promotion_overlapped_fast(%a: !x, %b: !x) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion = "overlapped" (the wgmmas of a k-tile run while the previous k-tile's partial sums are promoted) exists for the sm_90a kernels that promote, per-tensor FP8 without fast_accumulate and FP8 block with 128x128-block B (1x128 x 128x128) in 128- or 192-wide tiles and MXFP8 in 64-wide ones, with K-major operands: the second partial accumulator set does not fit next to 128x256 tiles' totals (nor, with MXFP8's four 32-blocks per k-tile, in 128x128 tiles), 1x128 x 1x128 spills, MN-major tiles are transposed within the k-tile, and sm_100a accumulates in tensor memory}}
  %y = qs.gemm %a, %b transpose_b fast_accumulate {qs.gemm_promotion = "overlapped"} : !x, !x -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}

// -----

// ... in 128- or 192-wide tiles (not 128x256) ...
!x = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_tile_n = 256 : i64, qs.gemm_promotion = "overlapped"} {
func.func @promotion_overlapped_256(%a: !x, %b: !x) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion = "overlapped" (the wgmmas of a k-tile run while the previous k-tile's partial sums are promoted) exists for the sm_90a kernels that promote}}
  %y = qs.gemm %a, %b transpose_b : !x, !x -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// ... with B in 128x128 blocks for FP8 block scaling (not the wgrad's
// 1x128 x 1x128) ...
!dy = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
!x = !qs.tensor<256x256xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
func.func @promotion_overlapped_wgrad(%a: !dy, %b: !x) -> tensor<256x256xf32> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion = "overlapped" (the wgmmas of a k-tile run while the previous k-tile's partial sums are promoted) exists for the sm_90a kernels that promote}}
  %y = qs.gemm %a, %b transpose_a {qs.gemm_promotion = "overlapped"} : !dy, !x -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

// ... and MXFP8 in 64-wide tiles only (four 32-blocks per k-tile: two
// partial sets of two blocks do not fit next to a 128-wide tile's totals).
!m = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
module attributes {qs.gemm_tile_n = 128 : i64} {
func.func @promotion_overlapped_mxfp8_128(%a: !m, %b: !m) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion = "overlapped" (the wgmmas of a k-tile run while the previous k-tile's partial sums are promoted) exists for the sm_90a kernels that promote}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_promotion = "overlapped"} : !m, !m -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
}

// -----

// Persistent kernels quantizing their output to FP8 keep their epilogue in
// the tile loop: no registers are left for a second partial set.
!x = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
!y = !qs.tensor<256x256xbf16, #qs.fp8_delayed<columnwise = false>>
module attributes {qs.gemm_persistent = 2 : i64, qs.gemm_promotion = "overlapped"} {
func.func @promotion_overlapped_persistent_fp8_output(%a: !x, %b: !x, %s: tensor<1xf32>, %am: tensor<1xf32>) -> (!y, tensor<1xf32>) {
  // expected-error@+1 {{qs.gemm_promotion = "overlapped" does not exist for persistent or stream-K GEMM kernels that quantize their output to FP8 (the epilogue inside the tile loop leaves no registers for a second partial accumulator set)}}
  %y, %am2 = qs.gemm %a, %b transpose_b scale(%s : tensor<1xf32>) amax(%am : tensor<1xf32>) : !x, !x -> !y, tensor<1xf32>
  return %y, %am2 : !y, tensor<1xf32>
}
}

// -----

// Persistent MXFP8 kernels quantizing their output in blocks likewise.
!m = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false>>
!y = !qs.tensor<256x256xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>
module attributes {qs.gemm_persistent = 2 : i64, qs.gemm_promotion = "overlapped"} {
func.func @promotion_overlapped_persistent_mxfp8_output(%a: !m, %b: !m) -> !y {
  // expected-error@+1 {{qs.gemm_promotion = "overlapped" does not exist for persistent or stream-K MXFP8 GEMM kernels that quantize their output in blocks (the epilogue inside the tile loop leaves no registers for a second partial accumulator set)}}
  %y = qs.gemm %a, %b transpose_b : !m, !m -> !y
  return %y : !y
}
}

// -----

// qs.gemm_mx_scaling = "convert" sums all of K in bf16 wgmmas: nothing to
// promote, so a qs.gemm_promotion on the same GEMM contradicts it.
!m = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
func.func @mx_convert_promotion(%a: !m, %b: !m) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion applies to kernels that promote partial sums; with qs.gemm_mx_scaling = "convert" the bf16 wgmmas sum all of K in FP32 and nothing is promoted}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_mx_scaling = "convert", qs.gemm_promotion = "in_tile"} : !m, !m -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// -----

// qs.gemm_mx_scaling = "dequantize": the GEMM after the pre-passes sums
// all of K in bf16 wgmmas, so a qs.gemm_promotion contradicts it too.
!m = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
func.func @mx_dequantize_promotion(%a: !m, %b: !m) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_promotion applies to kernels that promote partial sums; with qs.gemm_mx_scaling = "dequantize" the 16-bit wgmmas sum all of K in FP32 and nothing is promoted}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_mx_scaling = "dequantize", qs.gemm_promotion = "overlapped"} : !m, !m -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// -----

// The dequantized GEMM cuts K into 64-element k-tiles (128-byte rows of
// bf16): a split of K must divide their count.
!m = !qs.tensor<512x320xbf16, #qs.mxfp8<columnwise = false>>
func.func @mx_dequantize_split_k(%a: !m, %b: !m) -> tensor<512x512xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_split_k = 2 must divide the GEMM's 5 k-tiles (ceil(K / 64), K = 320): each split sums an equal range of them}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_mx_scaling = "dequantize", qs.gemm_split_k = 2 : i64} : !m, !m -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}


// -----

// NVFP4 dequantized by pre-passes scales the GEMM per tensor by each
// operand's amax / 6E; a row-scaled operand has one amax per row.
!x = !qs.tensor<256x256xbf16, #qs.nvfp4<columnwise = false, row_scaled_nvfp4 = true>>
func.func @nvfp4_dequantize_row_scaled(%a: !x, %b: !x) -> tensor<256x256xbf16> {
  // expected-error@+1 {{'qs.gemm_buffers' op qs.gemm_mx_scaling = "dequantize" folds an NVFP4 operand's global amax into the GEMM's per-tensor alpha; a row-scaled NVFP4 operand (one amax per row) has none, so its GEMM converts in the kernel (without qs.gemm_mx_scaling)}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_mx_scaling = "dequantize"} : !x, !x -> tensor<256x256xbf16>
  return %y : tensor<256x256xbf16>
}
