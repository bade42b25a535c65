// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// A row-wise MXFP8 or FP8 1x128 result of qs.gemm on sm_90a: wgmma's
// fragments spread a block's columns of a row over the four threads of a
// quad, so each consumer warpgroup stages its 64 rows in the result's
// nominal type, 128 bytes of columns at a time (stmatrix, the TMA-store
// epilogue's buffers and layout), then after a barrier each thread reads
// one block back: MXFP8 four 16-byte shared loads, its amax, its E8M0
// scale (the software path: sm_90a has no cvt to ue8m0) and its 32 FP8
// codes (two 16-byte stores); FP8 1x128 (both buffers: 128 bf16 columns,
// threads 0-63) sixteen loads for the amax, the FP32 scale_inv, then four
// times four loads, 32 codes and two stores. MXFP8 with column-wise usage:
// each thread also reads one column's 32 staged rows (32 x 1 block), and
// stores its E8M0 scale and 32 codes (one byte per row). The quantize's
// cast kernel is not launched (with split-K: the reduction kernel
// quantizes). Not fused: qs.gemm_epilogue = "tma", FP8 1x128 in MXFP8's
// default 128x64 tiles or of an FP32 result (four staged chunks per
// block).
!x = !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!xp = !qs.tensor<224x512xbf16, #qs.fp8_current<columnwise = false>>
!wp = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!y = !qs.tensor<256x1024xbf16, #qs.mxfp8<columnwise = false>>
!ys = !qs.tensor<224x1024xf32, #qs.mxfp8<columnwise = false, optimize_for_gemm = true, fp8_dtype = f8E5M2>>
!yb = !qs.tensor<256x1024xbf16, #qs.mxfp8>
!ybp = !qs.tensor<224x1024xbf16, #qs.mxfp8>
!yc = !qs.tensor<224x1024xf32, #qs.mxfp8<rowwise = false, optimize_for_gemm = true, fp8_dtype = f8E5M2>>
!yk = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!ykf = !qs.tensor<224x1024xf32, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.chip = "sm_90a", qs.gemm_mx_scaling = "promote"} {
  // 32 KiB of staging (two 64 x 128-byte buffers per consumer) after the
  // ring.
  // CHECK-LABEL: func.func @fused
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fused(%x: !x, %w: !w, %bias: tensor<1024xbf16>) -> !y {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x64 tiles (2 x 16), 8-stage ring, 4 k-tiles of 128, FP32 promotion per 32 of K, block-scaled output quantized in the epilogue (1x32 row blocks, E8M0 scales, staged in shared memory); 32 blocks of 384 threads, 229504 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<1024xbf16>) : !x, !w -> !y
    return %y : !y
  }
  // An FP32 result (32 columns staged per chunk: threads 0-63 read a row
  // each), GEMM-swizzled scales of 224 rows (zeroed by the quantize's init
  // kernel first), per-tensor operands in persistent blocks.
  // CHECK-LABEL: func.func @swizzled
  //       CHECK:   call @qs_quantize_init_launch({{.*}}) : (memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @swizzled(%x: !xp, %w: !wp) -> !ys {
    // expected-remark @+1 {{persistent, block-scaled output quantized in the epilogue (1x32 row blocks, E8M0 scales, staged in shared memory); 4 blocks of 384 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_persistent = 4 : i64} : !xp, !wp -> !ys
    return %y : !ys
  }
  // CHECK-LABEL: func.func @tma_store
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xbf16>, memref<16xi64>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @tma_store(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{FP32 promotion per 32 of K, TMA-store epilogue; 32 blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "tma"} : !x, !w -> !y
    return %y : !y
  }
  // Split-K: the reduction kernel quantizes the blocks (the planes, then
  // D's codes and scales; gemm-block-output-split-k.mlir).
  // CHECK-LABEL: func.func @split_k
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch({{.*}}) : (memref<524288xf32>, memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @split_k(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{in 2 splits of 2, FP32 promotion per 32 of K, block-scaled output quantized in the split-K reduction (1x32 row blocks, E8M0 scales); 64 blocks of 384 threads, 196736 bytes of shared memory; then qs_gemm_split_k_reduce_blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !y
    return %y : !y
  }
  // Both usages (TE's default): the row-wise codes are D, then the
  // row-wise scales [256, 32], the column-wise codes (the result's own
  // layout) and scales [8, 1024].
  // CHECK-LABEL: func.func @both_usages
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>, memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @both_usages(%x: !x, %w: !w) -> !yb {
    // expected-remark @+1 {{FP32 promotion per 32 of K, block-scaled output quantized in the epilogue (1x32 row blocks, 32x1 column blocks, E8M0 scales, staged in shared memory); 32 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yb
    return %y : !yb
  }
  // Column-wise only, of an FP32 result (32 columns staged per chunk:
  // threads 0-63 take a column's block each), swizzled E5M2 scales (the
  // quantize's init kernel zeroes their padding: 224 / 32 = 7 rows of 8).
  // CHECK-LABEL: func.func @columnwise
  //       CHECK:   call @qs_quantize_init{{(_[0-9]+)?}}_launch({{.*}}) : (memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @columnwise(%x: !xp, %w: !wp) -> !yc {
    // expected-remark @+1 {{FP32 promotion per 128 of K, block-scaled output quantized in the epilogue (32x1 column blocks, E8M0 scales, staged in shared memory); 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !xp, !wp -> !yc
    return %y : !yc
  }
  // Ping-pong consumers keep the quantize kernels for column-wise blocks
  // (128 accumulator registers each: ptxas would spill).
  // CHECK-LABEL: func.func @pingpong_both_usages
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<229376xbf16>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @pingpong_both_usages(%x: !xp, %w: !wp) -> !ybp {
    // expected-remark @+1 {{persistent, ping-pong consumers; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !xp, !wp -> !ybp
    return %y : !ybp
  }
  // CHECK-LABEL: func.func @fp8_block_narrow
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xbf16>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @fp8_block_narrow(%x: !x, %w: !w) -> !yk {
    // expected-remark @+1 {{FP32 promotion per 32 of K; 32 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yk
    return %y : !yk
  }
  // FP8 1x128: FP32 scale_inv [8, 256] (GEMM-ready: block-major). One
  // block per tile (MXFP8 in 128x128 tiles would split K by default).
  // CHECK-LABEL: func.func @fp8_block
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fp8_block(%x: !x, %w: !w) -> !yk {
    // expected-remark @+1 {{128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 32 of K, block-scaled output quantized in the epilogue (1x128 row blocks, FP32 scales, staged in shared memory); 16 blocks of 384 threads, 229472 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_tile_n = 128 : i64, qs.gemm_split_k = 1 : i64} : !x, !w -> !yk
    return %y : !yk
  }
  // CHECK-LABEL: func.func @fp8_block_f32
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<229376xf32>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @fp8_block_f32(%x: !xp, %w: !wp) -> !ykf {
    // expected-remark @+1 {{FP32 promotion per 128 of K; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !xp, !wp -> !ykf
    return %y : !ykf
  }
}

// The fused kernel: after the k-loop the values rounded to bf16 in pairs
// (4 stmatrix: 64 columns), a barrier, four 16-byte reads of the block, the
// E8M0 scale in software (amax / 448 rounded up to a power of two; one
// byte stored), the codes (16 cvt pairs) in two 16-byte stores.
// PTX-LABEL: .entry qs_gemm(
// PTX: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// PTX: cvt.rn.bf16x2.f32
// PTX-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: bar.sync
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-NOT: cvt.rp.satfinite.ue8m0x2
// PTX: mul.rn.f32 {{.*}}0f3B124925
// PTX: st.global.b8
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared
// PTX-LABEL: .entry qs_gemm_0(
// PTX: st.shared.v2.f32
// PTX: ld.shared.v4.b32
// PTX: cvt.rn.satfinite.e5m2x2.f32
// Both usages: after the staging and its barrier, the column's 32 values
// (one 16-bit load each), the E8M0 scale (one byte), 16 cvt pairs and 32
// one-byte stores; then the row-wise block as above.
// PTX-LABEL: .entry qs_gemm_3(
// PTX-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: bar.sync
// PTX-COUNT-32: ld.shared.b16
// PTX: mul.rn.f32 {{.*}}0f3B124925
// PTX: st.global.b8
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-32: st.global.b8
// PTX-COUNT-4: ld.shared.v4.b32
// PTX: mul.rn.f32 {{.*}}0f3B124925
// PTX: st.global.b8
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared
// Column-wise only, FP32: 32-bit staged values, one load per row.
// PTX-LABEL: .entry qs_gemm_4(
// PTX: st.shared.v2.f32
// PTX: bar.sync
// PTX-COUNT-32: ld.shared.b32
// PTX: st.global.b8
// PTX-COUNT-16: cvt.rn.satfinite.e5m2x2.f32
// PTX-COUNT-32: st.global.b8
// The 1x128 kernel: 8 stmatrix (both buffers), a barrier, 16 loads for the
// amax, the scale (div.rn: 1 / s stored), then four groups of 4 loads, 16
// cvt pairs and two stores.
// PTX-LABEL: .entry qs_gemm_6(
// PTX-COUNT-8: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX: bar.sync
// PTX-COUNT-16: ld.shared.v4.b32
// PTX: div.rn.f32
// PTX: st.global.b32
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-2: st.global.v4.b32
// PTX-NOT: .entry qs_quantize_rowwise
