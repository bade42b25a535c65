// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// An FP8 1x128 result of qs.gemm with column-wise usage on sm_100a (the
// column-wise data is transposed, [N, M], with 1 x 128 blocks along M): a
// column's 128 x 1 block spans the four epilogue warps' 32 rows each, so
// every warp stages a pass (two chunks of 64 bf16 columns from tensor
// memory, four st.shared.v4.b32 each, into both of its buffers) between
// two 128-thread barriers (named barrier 1); then lane l of warp w reads
// column 32 w + l's 128 values from the four warps' buffers (128
// ld.shared.b16) for the amax, stores its FP32 scale_inv (div.rn), reads
// them again and stores 128 codes, 16 per st.global.v4.b32, into the
// transpose's row; and reads its row's 1x128 block (16-byte loads) as for
// a row-wise result. The quantize's cast kernel is not launched. Not
// fused: an FP32 result (a pass of 128 FP32 columns would need four
// buffers), M not a multiple of 16, and the row-wise rules (the TMA
// store, split-K).
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!x2 = !qs.tensor<200x512xbf16, #qs.fp8_current<columnwise = false>>
!y = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!yc = !qs.tensor<256x1024xf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false, force_pow_2_scales = false, fp8_dtype = f8E5M2>>
!yf = !qs.tensor<256x1024xf32, #qs.fp8_block<block_scaling_dim = 1>>
!y2 = !qs.tensor<200x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
module attributes {qs.chip = "sm_100a"} {
  // Four output buffers: row-wise codes and scales, the transposed codes
  // ([N, M]: 1024 x 256) and their scales ([M / 128, N]).
  // CHECK-LABEL: func.func @both_usages
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<{{[0-9]+}}xf32>, memref<262144xf8E4M3FN>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @both_usages(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, block-scaled output quantized in the epilogue (1x128 row blocks, 128x1 column blocks, FP32 scales, staged in shared memory); 16 blocks of 128 threads, 196720 bytes of shared memory}}
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
  // Persistent blocks stage after the ring (four warps x two buffers).
  // CHECK-LABEL: func.func @persistent
  //   CHECK-NOT:   call @qs_quantize
  func.func @persistent(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{persistent, block-scaled output quantized in the epilogue (1x128 row blocks, 128x1 column blocks, FP32 scales, staged in shared memory); 4 blocks of 256 threads, 229520 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_persistent = 4 : i64} : !x, !w -> !y
    return %y : !y
  }
  // CHECK-LABEL: func.func @f32_result
  //       CHECK:   call @qs_quantize
  func.func @f32_result(%x: !x, %w: !w) -> !yf {
    // expected-remark @+1 {{4 k-tiles of 128; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yf
    return %y : !yf
  }
  // CHECK-LABEL: func.func @m_not_16
  //       CHECK:   call @qs_quantize
  func.func @m_not_16(%x: !x2, %w: !w) -> !y2 {
    // expected-remark @+1 {{4 k-tiles of 128; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x2, !w -> !y2
    return %y : !y2
  }
  // CHECK-LABEL: func.func @tma_store
  //       CHECK:   call @qs_quantize
  func.func @tma_store(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{4 k-tiles of 128, TMA-store epilogue; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "tma"} : !x, !w -> !y
    return %y : !y
  }
}

// The pass: a barrier, two chunks from tensor memory into the staging
// buffers, a barrier; the column's amax from 128 staged values, its scale,
// then 16 values per 16-byte store into the transpose's row, 16 bytes
// apart; then the row block (sixteen 16-byte loads for the amax).
// The staged values are rounded to bf16 in pairs (cvt.rn.bf16x2.f32).
// PTX-LABEL: .entry qs_gemm(
// PTX: bar.sync 1, 128;
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-COUNT-4: cvt.rn.bf16x2.f32
// PTX: st.shared.v4.b32
// PTX-COUNT-3: st.shared.v4.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-COUNT-4: st.shared.v4.b32
// PTX: bar.sync 1, 128;
// PTX-COUNT-128: ld.shared.b16
// PTX: div.rn.f32
// PTX: st.global.b32
// PTX-COUNT-16: ld.shared.b16
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v4.b32 [[[T:%rd[0-9]+]]], {
// PTX: st.global.v4.b32 [[[T]]+16], {
// PTX: st.global.v4.b32 [[[T]]+112], {
// PTX-COUNT-16: ld.shared.v4.b32
// PTX: div.rn.f32
// PTX-LABEL: .entry qs_gemm_0(
