// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX
// RUN: sed 's/sm_90a/sm_100a/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans | FileCheck %s --check-prefix=SM100

// A block-scaled result (MXFP8, FP8 1x128) of a split-K qs.gemm: the GEMM
// kernel writes FP32 planes only, and the reduction kernel
// qs_gemm_split_k_reduce_blocks (256 threads, a 32 x 128 tile per block;
// 128 x 128 with FP8 128 x 1 column blocks) sums the planes of four (16)
// groups of 4 elements per thread, adds the bias, rounds to the nominal
// type and stages the values in shared memory; after a barrier a thread
// per row block and per column takes its amax and writes its scale,
// keeping the multiplier in shared memory; after another the threads
// encode and store the codes: row-wise 4 per 32-bit store, MXFP8
// column-wise (the result's own layout) one byte per row, FP8 column-wise
// (transposed, [N, M]) 16 rows of a column per 16-byte store. The
// arguments: the planes, [bias], D (the row-wise codes, else the
// column-wise ones), then ProducerBlockQuantizer::extraBuffers() (row-wise
// scales, column-wise codes, column-wise scales). The quantize's cast
// kernel is not launched (its init kernel zeroes padded scales). Not
// fused: FP8 128 x 1 column blocks of an FP32 result (128 staged rows of
// 4 bytes would take 64 KiB), a fused split-K reduction (its last unit
// sums the planes in the consumers' fragments), also under split-K
// "auto". "auto" without it leaves stream-K out: no split (the epilogue)
// or the reduction kernel.
!x = !qs.tensor<224x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!mx = !qs.tensor<224x1024xbf16, #qs.mxfp8>
!blk = !qs.tensor<224x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!cols = !qs.tensor<224x1024xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false, fp8_dtype = f8E5M2, force_pow_2_scales = false>>
!blkf = !qs.tensor<224x1024xf32, #qs.fp8_block<block_scaling_dim = 1>>
!rowsf = !qs.tensor<224x1024xf32, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.chip = "sm_90a"} {
  // CHECK-LABEL: func.func @mxfp8_both
  //       CHECK:   call @qs_quantize_init{{(_[0-9]+)?}}_launch
  //       CHECK:   call @qs_gemm{{(_[0-9]+)?}}_launch({{.*}}) : ({{.*}}, memref<917504xf32>) -> ()
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch({{.*}}) : (memref<917504xf32>, memref<1024xbf16>, memref<229376xf8E4M3FN>, memref<8192xf8E8M0FNU>, memref<229376xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize{{(_[0-9]+)?}}_launch
  //       CHECK:   return
  // SM100-LABEL: func.func @mxfp8_both
  //       SM100:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch
  //   SM100-NOT:   call @qs_quantize
  //       SM100:   return
  func.func @mxfp8_both(%x: !x, %w: !w, %bias: tensor<1024xbf16>) -> !mx {
    // expected-remark @+1 {{4 k-tiles of 128 in 4 splits of 1, FP32 promotion per 128 of K, block-scaled output quantized in the split-K reduction (1x32 row blocks, 32x1 column blocks, E8M0 scales); 64 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce_blocks}}
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<1024xbf16>) {qs.gemm_split_k = 4 : i64} : !x, !w -> !mx
    return %y : !mx
  }
  // CHECK-LABEL: func.func @fp8_block_both
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch({{.*}}) : (memref<458752xf32>, memref<229376xf8E4M3FN>, memref<1792xf32>, memref<229376xf8E4M3FN>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fp8_block_both(%x: !x, %w: !w) -> !blk {
    // expected-remark @+1 {{block-scaled output quantized in the split-K reduction (1x128 row blocks, 128x1 column blocks, FP32 scales); 32 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce_blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !blk
    return %y : !blk
  }
  // CHECK-LABEL: func.func @fp8_block_columns
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch({{.*}}) : (memref<458752xf32>, memref<229376xf8E5M2>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fp8_block_columns(%x: !x, %w: !w) -> !cols {
    // expected-remark @+1 {{block-scaled output quantized in the split-K reduction (128x1 column blocks, FP32 scales)}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !cols
    return %y : !cols
  }
  // Row-wise FP8 1x128 of an FP32 result: a 32 x 128 tile (16 KiB).
  // CHECK-LABEL: func.func @fp8_block_rows_f32
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fp8_block_rows_f32(%x: !x, %w: !w) -> !rowsf {
    // expected-remark @+1 {{block-scaled output quantized in the split-K reduction (1x128 row blocks, FP32 scales)}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !rowsf
    return %y : !rowsf
  }
  // CHECK-LABEL: func.func @fp8_block_both_f32
  //       CHECK:   call @qs_gemm_split_k_reduce{{(_[0-9]+)?}}_launch
  //       CHECK:   call @qs_quantize
  func.func @fp8_block_both_f32(%x: !x, %w: !w) -> !blkf {
    // expected-remark @+1 {{4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K; 32 blocks of 384 threads, 196704 bytes of shared memory; then qs_gemm_split_k_reduce}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !blkf
    return %y : !blkf
  }
  // CHECK-LABEL: func.func @fused_reduction
  //       CHECK:   call @qs_quantize
  func.func @fused_reduction(%x: !x, %w: !w) -> !mx {
    // expected-remark @+1 {{4 k-tiles of 128 in 2 splits of 2, FP32 promotion per 128 of K; 32 blocks of 384 threads, 196720 bytes of shared memory; each tile's last unit sums its planes}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"} : !x, !w -> !mx
    return %y : !mx
  }
  // Split-K "auto" (no stream-K for a block quantizer): no split here, the
  // epilogue quantizes; 16 splits of a K-heavy GEMM, the reduction kernel.
  // CHECK-LABEL: func.func @split_k_auto
  //   CHECK-NOT:   call @qs_quantize{{(_[0-9]+)?}}_launch
  //       CHECK:   return
  func.func @split_k_auto(%x: !x, %w: !w) -> !mx {
    // expected-remark-re @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128 (split-K "auto": none, {{.*}}), FP32 promotion per 128 of K, block-scaled output quantized in the epilogue (1x32 row blocks, 32x1 column blocks, E8M0 scales, staged in shared memory); {{.*}}}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !x, !w -> !mx
    return %y : !mx
  }
  // CHECK-LABEL: func.func @split_k_auto_splits
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks
  //   CHECK-NOT:   call @qs_quantize{{(_[0-9]+)?}}_launch
  //       CHECK:   return
  func.func @split_k_auto_splits(%x: !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>, %w: !qs.tensor<256x8192xbf16, #qs.fp8_current<columnwise = false>>) -> !qs.tensor<128x256xbf16, #qs.mxfp8> {
    // expected-remark-re @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 2), 6-stage ring, 64 k-tiles of 128 in {{[0-9]+}} splits of {{[0-9]+}} (split-K "auto", {{.*}}), FP32 promotion per 128 of K, block-scaled output quantized in the split-K reduction (1x32 row blocks, 32x1 column blocks, E8M0 scales); {{.*}}; then qs_gemm_split_k_reduce_blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto"} : !qs.tensor<128x8192xbf16, #qs.fp8_current<columnwise = false>>, !qs.tensor<256x8192xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<128x256xbf16, #qs.mxfp8>
    return %y : !qs.tensor<128x256xbf16, #qs.mxfp8>
  }
  // Split-K "auto" with the fused reduction: the quantize kernels.
  // CHECK-LABEL: func.func @split_k_auto_fused
  //       CHECK:   call @qs_quantize
  func.func @split_k_auto_fused(%x: !x, %w: !w) -> !mx {
    // expected-remark-re @+1 {{GEMM kernel plan: sm_90a wgmma kernel, {{.*}} (split-K "auto"{{.*}}), FP32 promotion per 128 of K; {{.*}}}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = "auto", qs.gemm_split_k_reduce = "fused"} : !x, !w -> !mx
    return %y : !mx
  }
}
// MXFP8 both usages: 16-byte plane loads, the bias, values staged; after
// the barrier a row block's 32 values in four 16-byte loads, its E8M0
// scale (software: sm_90a has no cvt to ue8m0) stored as a byte, a
// column's 32 values; after the next, 4 row codes per 32-bit store and a
// column's 4 codes one byte each.
// PTX-LABEL: .entry qs_gemm_split_k_reduce_blocks(
// PTX: ld.global.v4.b16
// PTX: ld.global.v4.b32
// PTX: st.shared.v2.b32
// PTX: bar.sync
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-NOT: cvt.rp.satfinite.ue8m0x2
// PTX: st.global.b8
// PTX-COUNT-32: ld.shared.b16
// PTX: st.global.b8
// PTX: bar.sync
// PTX-COUNT-2: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.b32
// PTX-COUNT-4: st.global.b8
// PTX: ret;
// FP8 1x128 both usages: 128 x 128 tiles (16 groups a thread); a
// column's 16 codes per 16-byte store into the transpose.
// PTX-LABEL: .entry qs_gemm_split_k_reduce_blocks_0(
// PTX-COUNT-16: st.shared
// PTX: bar.sync
// PTX: bar.sync
// PTX-COUNT-2: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.b32
// PTX-COUNT-16: ld.shared.b16
// PTX-COUNT-8: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v4.b32
// PTX-LABEL: .entry qs_gemm_split_k_reduce_blocks_1(
// PTX: bar.sync
// PTX: bar.sync
// PTX-NOT: st.global.b32
// PTX-COUNT-8: cvt.rn.satfinite.e5m2x2.f32
// PTX: st.global.v4.b32
