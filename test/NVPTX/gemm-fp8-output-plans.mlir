// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s

// Where the GEMM kernels quantize a #qs.fp8_delayed result themselves
// (qs.gemm's fused output quantizer) and where the quantize kernels do it
// after a GEMM into FP32: fused when the pass that writes D (the epilogue,
// the split-K reduction kernel, a fused reduction's last unit, stream-K's
// last block) quantizes it, with direct stores or staged for the TMA store
// (except where canFuseOutputQuantizer says the staging cannot); a result
// with both usages (sm_90a's transpose buffer) where its codes are staged
// and read back transposed by the GEMM kernel's pass that writes D (also a
// fused reduction's last unit and stream-K's), or written through shared
// memory by the split-K reduction kernel; M and N multiples of 16, not
// persistent 128x256 tiles (split-K "auto" leaves stream-K out for them).
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x1024xbf16, #qs.fp8_delayed<columnwise = false>>
!hb = !qs.tensor<256x1024xbf16, #qs.fp8_delayed>
!hf = !qs.tensor<256x1024xf32, #qs.fp8_delayed<columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  // CHECK-LABEL: func.func @fused
  //       CHECK:   call @qs_gemm_output_prepare_launch
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fused(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, FP8 output quantized in the epilogue (scale, amax atomics); 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // The split-K reduction kernel quantizes; the GEMM kernel writes planes.
  // CHECK-LABEL: func.func @split_k
  //       CHECK:   call @qs_gemm_output_prepare_{{[0-9]+}}_launch
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<1xf32>, memref<1xf32>, memref<524288xf32>) -> ()
  //       CHECK:   call @qs_gemm_split_k_reduce{{.*}}launch({{.*}}) : (memref<524288xf32>, memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @split_k(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K, FP8 output quantized in the split-K reduction (scale, amax atomics); 32 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = 2 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // Each tile's last unit sums the planes and quantizes.
  // CHECK-LABEL: func.func @split_k_fused
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<524288xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @split_k_fused(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K, FP8 output quantized in the epilogue (scale, amax atomics); 32 blocks of 384 threads, 196720 bytes of shared memory; each tile's last unit sums its planes}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // Stream-K: whole tiles' epilogues and shared tiles' last blocks.
  // CHECK-LABEL: func.func @stream_k
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<{{[0-9]+}}xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @stream_k(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{persistent, FP8 output quantized in the epilogue (scale, amax atomics); 12 blocks of 384 threads, 196720 bytes of shared memory; stream-K: the last 16 tiles' 64 k-tiles shared by the blocks (5-6 each, up to 2 per tile)}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = "stream", qs.gemm_persistent = 12 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // The TMA-store epilogue stages the FP8 codes.
  // CHECK-LABEL: func.func @tma_store
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<16xi64>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @tma_store(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{FP32 promotion per 128 of K, TMA-store epilogue, FP8 output quantized in the epilogue (scale, amax atomics); 16 blocks of 384 threads}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_epilogue = "tma"} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // Not fused with the TMA store: 128x192 tiles (a 128-byte staging chunk
  // would overwrite the next tile's columns) and a promoting persistent
  // kernel in 128x256 tiles (ptxas spills); the GEMM writes FP32.
  // CHECK-LABEL: func.func @tma_store_192
  //   CHECK-NOT:   qs_gemm_output_prepare
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf32>, memref<16xi64>) -> ()
  //       CHECK:   call @qs_quantize
  func.func @tma_store_192(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{128x192 tiles}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_epilogue = "tma", qs.gemm_tile_n = 192 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @tma_store_persistent_256
  //   CHECK-NOT:   qs_gemm_output_prepare
  //       CHECK:   call @qs_quantize
  func.func @tma_store_persistent_256(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{128x256 tiles (2 x 4), 4-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, persistent, TMA-store epilogue; 4 blocks}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_epilogue = "tma", qs.gemm_tile_n = 256 : i64, qs.gemm_persistent = 4 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // With fast_accumulate (no promotion) it fuses.
  // CHECK-LABEL: func.func @tma_store_persistent_256_fast
  //       CHECK:   call @qs_gemm_output_prepare
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @tma_store_persistent_256_fast(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    // expected-remark @+1 {{persistent, TMA-store epilogue, FP8 output quantized in the epilogue}}
    %h, %a2 = qs.gemm %x, %w transpose_b fast_accumulate scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_epilogue = "tma", qs.gemm_tile_n = 256 : i64, qs.gemm_persistent = 4 : i64} : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
  // An explicit qs.quantize of a GEMM's FP32 result (its only use) is the
  // same buffer-level pattern, fused alike; returning the product too keeps
  // it separate.
  // CHECK-LABEL: func.func @explicit_quantize
  //       CHECK:   call @qs_gemm_output_prepare
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @explicit_quantize(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hf, tensor<1xf32>) {
    // expected-remark @+1 {{FP8 output quantized in the epilogue}}
    %p = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xf32>
    %h, %a2 = qs.quantize %p scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<256x1024xf32> -> !hf, tensor<1xf32>
    return %h, %a2 : !hf, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @explicit_quantize_product_used
  //   CHECK-NOT:   qs_gemm_output_prepare
  //       CHECK:   call @qs_quantize
  func.func @explicit_quantize_product_used(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hf, tensor<1xf32>, tensor<256x1024xf32>) {
    // expected-remark @+1 {{FP32 promotion per 128 of K; 16 blocks}}
    %p = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xf32>
    %h, %a2 = qs.quantize %p scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<256x1024xf32> -> !hf, tensor<1xf32>
    return %h, %a2, %p : !hf, tensor<1xf32>, tensor<256x1024xf32>
  }
  // The transpose too: four output buffers (data, transpose, scale_inv,
  // amax), 32 KiB of staging.
  // CHECK-LABEL: func.func @with_transpose
  //       CHECK:   call @qs_gemm_output_prepare
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<262144xf8E4M3FN>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, FP8 output quantized in the epilogue (scale, amax atomics, transpose staged in shared memory); 16 blocks of 384 threads, 229472 bytes of shared memory}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // With the TMA store: its bulk stores write the rows, the transpose is
  // read back.
  // CHECK-LABEL: func.func @with_transpose_tma
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_tma(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{TMA-store epilogue, FP8 output quantized in the epilogue (scale, amax atomics, transpose staged in shared memory)}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_epilogue = "tma"} : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // A fused reduction's last unit, and stream-K's last block of a shared
  // tile, sum the planes in the consumers' fragments and stage their codes
  // like any tile's epilogue.
  // CHECK-LABEL: func.func @with_transpose_split_k_fused
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<262144xf8E4M3FN>{{.*}}) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_split_k_fused(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K, FP8 output quantized in the epilogue (scale, amax atomics, transpose staged in shared memory); 32 blocks of 384 threads, 229488 bytes of shared memory; each tile's last unit sums its planes}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"} : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @with_transpose_stream_k
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_stream_k(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark-re @+1 {{FP32 promotion per 128 of K, persistent, FP8 output quantized in the epilogue (scale, amax atomics, transpose staged in shared memory); {{.*}}; stream-K}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = "stream", qs.gemm_persistent = 12 : i64} : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // The split-K reduction kernel: 64 x 64 tiles, the codes staged in shared
  // memory and read back as the transpose's rows (D, scale, amax,
  // transpose after the workspace); the GEMM kernel stages nothing.
  // CHECK-LABEL: func.func @with_transpose_split_k
  //       CHECK:   call @qs_gemm_output_prepare
  //       CHECK:   call @qs_gemm_split_k_reduce_transpose_launch({{.*}}) : (memref<524288xf32>, memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<262144xf8E4M3FN>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_split_k(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K, FP8 output quantized in the split-K reduction (scale, amax atomics, transpose through shared memory); 32 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce_transpose}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = 2 : i64} : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // Split-K "auto" with the transpose: whichever pass it chooses writes
  // both layouts (here 8 splits, the reduction kernel).
  // CHECK-LABEL: func.func @with_transpose_split_k_auto
  //       CHECK:   call @qs_gemm_split_k_reduce_transpose{{(_[0-9]+)?}}_launch
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_split_k_auto(%x: !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>, %w: !qs.tensor<1024x8192xbf16, #qs.fp8_current<columnwise = false>>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!qs.tensor<128x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>) {
    // expected-remark-re @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 8), 6-stage ring, 64 k-tiles of 128 in 8 splits of 8 (split-K "auto", {{.*}}), FP32 promotion per 128 of K, FP8 output quantized in the split-K reduction (scale, amax atomics, transpose through shared memory); {{.*}}; then qs_gemm_split_k_reduce_transpose}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = "auto"} : !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>, !qs.tensor<1024x8192xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<128x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>
    return %h, %a2 : !qs.tensor<128x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>
  }
  // 128x256 tiles under split-K "auto": it leaves stream-K out (which
  // would make them persistent: ptxas spills; at 8192^3 the model finds
  // stream-K slower here even without the quantizer, 826 us unsplit).
  // CHECK-LABEL: func.func @with_transpose_split_k_auto_wide
  //       CHECK:   call @qs_gemm_output_prepare
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @with_transpose_split_k_auto_wide(%x: !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>, %w: !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!qs.tensor<8192x8192xbf16, #qs.fp8_delayed>, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (64 x 32), 4-stage ring, 64 k-tiles of 128 (split-K "auto": none, model 826.2 us), FP8 output quantized in the epilogue (scale, amax atomics, transpose staged in shared memory)}}
    %h, %a2 = qs.gemm %x, %w transpose_b fast_accumulate scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_split_k = "auto", qs.gemm_tile_n = 256 : i64} : !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>>, !qs.tensor<8192x8192xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<8192x8192xbf16, #qs.fp8_delayed>, tensor<1xf32>
    return %h, %a2 : !qs.tensor<8192x8192xbf16, #qs.fp8_delayed>, tensor<1xf32>
  }
  // Not fused with the transpose: persistent 128x256 tiles (ptxas spills),
  // M not a multiple of 16; the GEMM writes FP32, the quantize kernels
  // follow.
  // CHECK-LABEL: func.func @with_transpose_persistent_wide
  //       CHECK:   call @qs_quantize
  func.func @with_transpose_persistent_wide(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!hb, tensor<1xf32>) {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x256 tiles (2 x 4), 4-stage ring, 4 k-tiles of 128, persistent; 4 blocks of 384 threads, 196672 bytes of shared memory}}
    %h, %a2 = qs.gemm %x, %w transpose_b fast_accumulate scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) {qs.gemm_tile_n = 256 : i64, qs.gemm_persistent = 4 : i64} : !x, !w -> !hb, tensor<1xf32>
    return %h, %a2 : !hb, tensor<1xf32>
  }
  // CHECK-LABEL: func.func @with_transpose_m_not_16
  //       CHECK:   call @qs_quantize
  func.func @with_transpose_m_not_16(%x: !qs.tensor<200x512xbf16, #qs.fp8_current<columnwise = false>>, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!qs.tensor<200x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>) {
    // expected-remark @+1 {{FP32 promotion per 128 of K; 16 blocks}}
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !qs.tensor<200x512xbf16, #qs.fp8_current<columnwise = false>>, !w -> !qs.tensor<200x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>
    return %h, %a2 : !qs.tensor<200x1024xbf16, #qs.fp8_delayed>, tensor<1xf32>
  }
}
