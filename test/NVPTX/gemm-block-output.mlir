// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX
// RUN: sed 's/"sm_100a"/"sm_90a", qs.gemm_mx_scaling = "promote"/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans | FileCheck %s --check-prefix=SM90

// A row-wise MXFP8 or FP8 1x128 result of qs.gemm on sm_100a: the
// tcgen05 epilogue, whose thread reads 32 consecutive columns of a row per
// tensor-memory load, rounds them to the result's nominal type (as the
// quantize would read D), and writes their block's scale (E8M0 / FP32
// scale_inv) and FP8 codes; a 1x128 block's four chunks are read twice
// (amax, then codes). The quantize's cast kernel is not launched (with
// GEMM-swizzled scales and M or N not a multiple of 128 its init kernel
// zeroes the padded scales first); with split-K the reduction kernel
// quantizes the blocks. Not fused (GEMM into the nominal type, then the
// quantize kernels): stream-K (its reducing pass sums 4-element groups),
// the TMA-store epilogue, N not a multiple of the block, FP8
// 1x128 in sm_90a's 128x64 MXFP8 tiles (sm_90a stages its block outputs
// in shared memory: gemm-block-output-sm90.mlir). MXFP8 with column-wise
// usage: a column's 32 rows are a warp's 32 lanes, so each warp stages
// its rows in bf16 (the TMA-store epilogue's 32 x 128-byte buffers, in
// the ring), then after bar.warp.sync each lane reads two columns' 32
// values (ld.shared.b16) and two rows' blocks (ld.shared.v4.b32) back.
!x = !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
!xp = !qs.tensor<224x512xbf16, #qs.fp8_current<columnwise = false>>
!wp = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!y = !qs.tensor<256x1024xbf16, #qs.mxfp8<columnwise = false>>
!ys = !qs.tensor<224x1024xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true, fp8_dtype = f8E5M2>>
!yb = !qs.tensor<256x1024xbf16, #qs.mxfp8>
!yk = !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w2 = !qs.tensor<160x512xbf16, #qs.mxfp8<columnwise = false>>
!yn = !qs.tensor<256x160xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: func.func @fused
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fused(%x: !x, %w: !w, %bias: tensor<1024xbf16>) -> !y {
    // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (2 x 8), 5-stage ring, 4 k-tiles of 128, block-scaled MMA (scale factors in tensor memory), block-scaled output quantized in the epilogue (1x32 row blocks, E8M0 scales); 16 blocks of 128 threads, 169056 bytes of shared memory}}
    %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<1024xbf16>) : !x, !w -> !y
    return %y : !y
  }
  // Swizzled scales of 224 rows: zeroed, then written by the epilogue;
  // per-tensor operands, persistent blocks.
  // CHECK-LABEL: func.func @swizzled
  //       CHECK:   call @qs_quantize_init_launch({{.*}}) : (memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<229376xf8E5M2>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @swizzled(%x: !xp, %w: !wp) -> !ys {
    // expected-remark @+1 {{persistent, block-scaled output quantized in the epilogue (1x32 row blocks, E8M0 scales); 4 blocks of 256 threads}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_persistent = 4 : i64} : !xp, !wp -> !ys
    return %y : !ys
  }
  // Split-K: the GEMM kernel writes FP32 planes only, the reduction
  // kernel quantizes the blocks (gemm-block-output-split-k.mlir).
  // CHECK-LABEL: func.func @split_k
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<4096xf8E8M0FNU>, memref<16384xf8E8M0FNU>, memref<524288xf32>) -> ()
  //       CHECK:   call @qs_gemm_split_k_reduce_blocks{{(_[0-9]+)?}}_launch({{.*}}) : (memref<524288xf32>, memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @split_k(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{in 2 splits of 2, block-scaled MMA (scale factors in tensor memory), block-scaled output quantized in the split-K reduction (1x32 row blocks, E8M0 scales); 32 blocks of 128 threads, 169056 bytes of shared memory; then qs_gemm_split_k_reduce_blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !y
    return %y : !y
  }
  // CHECK-LABEL: func.func @tma_store
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xbf16>, memref<16xi64>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @tma_store(%x: !x, %w: !w) -> !y {
    // expected-remark @+1 {{block-scaled MMA (scale factors in tensor memory), TMA-store epilogue; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b {qs.gemm_epilogue = "tma"} : !x, !w -> !y
    return %y : !y
  }
  // Both usages: D is the row-wise codes, then the row-wise scales, the
  // column-wise codes (the result's layout) and scales.
  // CHECK-LABEL: func.func @both_usages
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>, memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @both_usages(%x: !x, %w: !w) -> !yb {
    // expected-remark @+1 {{block-scaled MMA (scale factors in tensor memory), block-scaled output quantized in the epilogue (1x32 row blocks, 32x1 column blocks, E8M0 scales, staged in shared memory); 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yb
    return %y : !yb
  }
  // FP8 1x128: FP32 scale_inv [8, 256] (GEMM-ready: block-major).
  // SM90-LABEL: func.func @fp8_block
  //       SM90:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}memref<262144xbf16>) -> ()
  //       SM90:   call @qs_quantize_{{[0-9]+}}_launch
  // CHECK-LABEL: func.func @fp8_block
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<2048xf32>) -> ()
  //   CHECK-NOT:   call @qs_quantize
  //       CHECK:   return
  func.func @fp8_block(%x: !x, %w: !w) -> !yk {
    // expected-remark @+1 {{block-scaled MMA (scale factors in tensor memory), block-scaled output quantized in the epilogue (1x128 row blocks, FP32 scales); 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> !yk
    return %y : !yk
  }
  // N = 160: not whole 1x128 blocks.
  // CHECK-LABEL: func.func @fp8_block_partial
  //       CHECK:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<40960xbf16>) -> ()
  //       CHECK:   call @qs_quantize{{(_[0-9]+)?}}_launch
  func.func @fp8_block_partial(%x: !x, %w: !w2) -> !yn {
    // expected-remark @+1 {{block-scaled MMA (scale factors in tensor memory); 4 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w2 -> !yn
    return %y : !yn
  }
}

// The fused kernel: 32 columns of a row per tcgen05.ld, each rounded to
// bf16 (cvt.rn.bf16.f32), the block's E8M0 scale (cvt.rp.satfinite.ue8m0x2,
// one byte stored), the codes (cvt.rn.satfinite.e4m3x2) in one 32-byte
// store; no quantize kernel.
// PTX-LABEL: .entry qs_gemm(
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: cvt.rn.bf16.f32
// PTX: cvt.rp.satfinite.ue8m0x2.f32
// PTX: st.global.b8
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v8.b32
// PTX-LABEL: .entry qs_gemm_0(
// PTX: cvt.rp.satfinite.ue8m0x2.f32
// PTX: cvt.rn.satfinite.e5m2x2.f32
// The 1x128 kernel: each block's four chunks for the amax, then chunk 0
// again, the block's FP32 scale (div.rn: 1 / s stored), its codes, and
// the other three chunks.
// Both usages: two tensor-memory loads staged (64 bf16 columns), the
// warp synchronized, then two column blocks per lane (32 16-bit loads, the
// E8M0 scale, 16 cvt pairs, 32 one-byte stores each) and two row blocks.
// PTX-LABEL: .entry qs_gemm_3(
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: st.shared.v4.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-COUNT-4: st.shared.v4.b32
// PTX: bar.warp.sync
// PTX-COUNT-32: ld.shared.b16
// PTX: cvt.rp.satfinite.ue8m0x2.f32
// PTX: st.global.b8
// PTX-COUNT-16: cvt.rn.satfinite.e4m3x2.f32
// PTX-COUNT-32: st.global.b8
// PTX-COUNT-32: ld.shared.b16
// PTX-COUNT-4: ld.shared.v4.b32
// PTX: cvt.rp.satfinite.ue8m0x2.f32
// PTX: st.global.v8.b32
// PTX-NOT: cp.async.bulk.tensor.2d.global
// PTX-LABEL: .entry qs_gemm_4(
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: div.rn.f32
// PTX: st.global.b32
// PTX: cvt.rn.satfinite.e4m3x2.f32
// PTX: st.global.v8.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX-NOT: .entry qs_quantize_rowwise
