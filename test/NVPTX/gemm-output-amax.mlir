// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s --check-prefix=PLAN
// RUN: qs-opt %S/Inputs/gemm-output-current.mlir --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// A qs.gemm whose quantized result's kernels read D once for its global
// amax alone (current scaling; NVFP4 without the Hadamard transform or row
// scales): the pass that writes D max-combines max |D| (as stored, in the
// nominal type) into the quantize's amax buffer, between the quantize's
// init kernel (which zeroes it) and its cast kernel; no qs_quantize_amax.
// MXFP8 (block amaxes only) takes no global amax: its blocks are
// quantized in the epilogue (gemm-block-output-sm90.mlir).
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!c = !qs.tensor<256x1024xbf16, #qs.fp8_current>
!n = !qs.tensor<256x1024xbf16, #qs.nvfp4<columnwise = false>>
!m = !qs.tensor<256x1024xbf16, #qs.mxfp8>
!r = !qs.tensor<256x1024xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
module attributes {qs.chip = "sm_90a"} {
  // PLAN-LABEL: func.func @current
  //       PLAN:   call @qs_quantize_init_launch({{.*}}, %[[AMAX:.*]]) :
  //       PLAN:   call @qs_gemm_launch({{.*}}, %[[AMAX]]) : ({{.*}}memref<262144xbf16>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_launch
  func.func @current(%x: !x, %w: !w) -> !c {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K, D's amax taken in the epilogue; 16 blocks}}
    %h = qs.gemm %x, %w transpose_b : !x, !w -> !c
    return %h : !c
  }
  // With split-K the reduction kernel takes it.
  // PLAN-LABEL: func.func @nvfp4_split_k
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch({{.*}}, %[[NAMAX:.*]]) :
  //       PLAN:   call @qs_gemm_split_k_reduce_launch({{.*}}, %[[NAMAX]]) :
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_{{[0-9]+}}_launch
  func.func @nvfp4_split_k(%x: !x, %w: !w) -> !n {
    // expected-remark @+1 {{in 2 splits of 2, FP32 promotion per 128 of K, D's amax taken in the split-K reduction}}
    %h = qs.gemm %x, %w transpose_b {qs.gemm_split_k = 2 : i64} : !x, !w -> !n
    return %h : !n
  }
  // With a second use of the product the GEMM stays where it is and still
  // takes the amax, into a buffer of its own (zeroed before it) that the
  // quantize is then given: its init kernel copies it, no amax kernel.
  // PLAN-LABEL: func.func @product_used
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch({{.*}}, %[[UAMAX:.*]]) : (memref<262144xbf16>, memref<1xf32>) -> ()
  //       PLAN:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}, %[[UAMAX]]) : ({{.*}}memref<262144xbf16>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch({{.*}}) : (memref<262144xbf16>, memref<262144xf8E4M3FN>, memref<262144xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_{{[0-9]+}}_launch(
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   return
  func.func @product_used(%x: !x, %w: !w) -> (!c, tensor<256x1024xbf16>) {
    // expected-remark @+1 {{FP32 promotion per 128 of K, D's amax taken in the epilogue; 16 blocks}}
    %p = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    %h = qs.quantize %p : tensor<256x1024xbf16> -> !c
    return %h, %p : !c, tensor<256x1024xbf16>
  }
  // A qs.amax of the product (TE's amax reduction of a GEMM output): the
  // GEMM, between that qs.amax's init kernel and the quantize given its
  // result, takes the amax; D stays a result; no amax kernel.
  // PLAN-LABEL: func.func @product_amax
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch({{.*}}, %[[PAMAX:.*]]) : (memref<262144xbf16>, memref<1xf32>) -> ()
  //       PLAN:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}, %[[PAMAX]]) : ({{.*}}memref<262144xbf16>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch(
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_{{[0-9]+}}_launch(
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   return {{.*}} : tensor<256x1024xf8E4M3FN>, tensor<1024x256xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>, tensor<256x1024xbf16>
  func.func @product_amax(%x: !x, %w: !w) -> (!c, tensor<1xf32>, tensor<256x1024xbf16>) {
    // expected-remark @+1 {{FP32 promotion per 128 of K, D's amax taken in the epilogue; 16 blocks}}
    %p = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    %a = qs.amax %p as !c : tensor<256x1024xbf16> -> tensor<1xf32>
    %h = qs.quantize %p amax(%a : tensor<1xf32>) : tensor<256x1024xbf16> -> !c
    return %h, %a, %p : !c, tensor<1xf32>, tensor<256x1024xbf16>
  }
  // With the Hadamard transform the amax kernel reads D back for both
  // amaxes (max |RHT(D^T)| needs the transform); the GEMM takes none.
  // PLAN-LABEL: func.func @product_amax_rht
  //       PLAN:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}, memref<262144xbf16>) -> ()
  //       PLAN:   call @qs_quantize_init_{{[0-9]+}}_launch({{.*}}) : (memref<262144xbf16>, memref<2xf32>) -> ()
  //       PLAN:   call @qs_quantize_rht_amax{{(_[0-9]+)?}}_launch(
  func.func @product_amax_rht(%x: !x, %w: !w) -> tensor<2xf32> {
    // expected-remark @+1 {{FP32 promotion per 128 of K; 16 blocks}}
    %p = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    %a = qs.amax %p as !r : tensor<256x1024xbf16> -> tensor<2xf32>
    return %a : tensor<2xf32>
  }
  // PLAN-LABEL: func.func @mxfp8
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_gemm_{{[0-9]+}}_launch({{.*}}) : ({{.*}}memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>, memref<262144xf8E4M3FN>, memref<8192xf8E8M0FNU>) -> ()
  func.func @mxfp8(%x: !x, %w: !w) -> !m {
    // expected-remark @+1 {{FP32 promotion per 128 of K, block-scaled output quantized in the epilogue (1x32 row blocks, 32x1 column blocks, E8M0 scales, staged in shared memory); 16 blocks}}
    %h = qs.gemm %x, %w transpose_b : !x, !w -> !m
    return %h : !m
  }
}

// The epilogue's running |max| over the bf16 values it stores: a warp
// butterfly and one atomic per warp, in the GEMM kernel; no amax kernel
// (Inputs/gemm-output-current.mlir: @current alone).
// PTX-NOT: .entry qs_quantize_amax
// PTX-LABEL: .entry qs_gemm(
// PTX: cvt.rn.bf16x2.f32
// PTX: shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX: atom.global.max.u32
// PTX-NOT: .entry qs_quantize_amax
