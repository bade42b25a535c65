// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// An FP8 1x128 result of qs.gemm with column-wise usage on sm_90a (TE's
// default for 1-D block scaling: both usages; the column-wise data is
// transposed, [N, M], with 1 x 128 blocks along M): a column's 128 x 1
// block spans both consumers' 64 rows, so both consumers stage each pass
// (two chunks of 64 bf16 columns, stmatrix) and meet at the 256-thread
// named barrier 1 before and after their fills; then threads 64-127 of
// each consumer read one column's 128 values from both consumers'
// buffers (128 ld.shared.b16) for the amax, store its FP32 scale_inv
// (div.rn), read them again and store 128 codes, 16 per st.global.v4.b32,
// into the transpose's row; threads 0-63 read the row blocks as for a
// row-wise result. The quantize's cast kernel is not launched. Not fused:
// ping-pong consumers (different tiles), M not a multiple of 16, and the
// row-wise rules (FP32 results, 128x64 and 128x192 tiles, the TMA store,
// split-K). sm_100a: gemm-block-output-columnwise-sm100.mlir.
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!x2 = !qs.tensor<200x512xbf16, #qs.fp8_current<columnwise = false>>
!y = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!yc = !qs.tensor<256x1024xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false, force_pow_2_scales = false, fp8_dtype = f8E5M2>>
!y2 = !qs.tensor<200x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
module attributes {qs.chip = "sm_90a"} {
  // Four output buffers: row-wise codes and scales, the transposed codes
  // ([N, M]: 1024 x 256) and their scales ([M / 128, N]).
  // CHECK-LABEL: func.func @both_usages
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<{{[0-9]+}}xf32>, memref<262144xf8E4M3FN>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @both_usages(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, block-scaled output quantized in the epilogue (1x128 row blocks, 128x1 column blocks, FP32 scales, staged in shared memory); 16 blocks of 384 threads, 229472 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !y
    return %y : !y
  }
  // Column-wise only (exact E5M2 scales, f16): the transposed codes are D.
  // CHECK-LABEL: func.func @columnwise
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E5M2>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  func.func @columnwise(%x: !x, %w: !w) -> !yc {
    // expected-remark @+1 {{block-scaled output quantized in the epilogue (128x1 column blocks, FP32 scales, staged in shared memory)}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yc
    return %y : !yc
  }
  // CHECK-LABEL: func.func @pingpong
  //       CHECK:   call @qs_quantize
  func.func @pingpong(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{4 k-tiles of 128, persistent, ping-pong consumers; 16 blocks of 384 threads, 196704 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !x, !w -> !y
    return %y : !y
  }
  // CHECK-LABEL: func.func @m_not_16
  //       CHECK:   call @qs_quantize
  func.func @m_not_16(%x: !x2, %w: !w) -> !y2 {
    // expected-remark @+1 {{FP32 promotion per 128 of K; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x2, !w -> !y2
    return %y : !y2
  }
}

// PTX-LABEL: .entry qs_gemm(
// PTX: bar.sync 1, 256;
// PTX-COUNT-8: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: bar.sync 1, 256;
// PTX-COUNT-128: ld.shared.b16
// PTX: div.rn.f32
// PTX: st.global.b32
// PTX-COUNT-16: ld.shared.b16
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v4.b32 [[[T:%rd[0-9]+]]], {
// PTX: st.global.v4.b32 [[[T]]+16], {
// PTX: st.global.v4.b32 [[[T]]+112], {
// The row blocks: sixteen 16-byte loads for the amax, then the codes.
// PTX-COUNT-16: ld.shared.v4.b32
// PTX: div.rn.f32
// PTX-LABEL: .entry qs_gemm_0(
