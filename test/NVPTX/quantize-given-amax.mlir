// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics | FileCheck %s --check-prefix=PLAN
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// Current scaling and NVFP4 with a given global amax (TE's amax
// reduction): no amax kernel reads x; the init kernel's first thread copies
// the given amax into the amax buffers the cast kernel reads (instead of
// zeroing them; NVFP4: amax_rowwise and amax_columnwise), and a GEMM whose
// product is quantized that way does not take max |D| in its epilogue (the
// given amax is the scale's).
!c = !qs.tensor<256x512xbf16, #qs.fp8_current>
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x1024xbf16, #qs.fp8_current>
!n = !qs.tensor<256x512xbf16, #qs.nvfp4>
!r = !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
module attributes {qs.chip = "sm_90a"} {
  // PLAN-LABEL: func.func @given
  //  PLAN-SAME:     %[[X:[a-z0-9]+]]: tensor<256x512xbf16>, %[[A:[a-z0-9]+]]: tensor<1xf32>
  //       PLAN:   call @qs_quantize_init_launch(%{{.*}}) : (memref<131072xbf16>, memref<131072xf8E4M3FN>, memref<131072xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_launch
  func.func @given(%x: tensor<256x512xbf16>, %a: tensor<1xf32>) -> !c {
    %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<256x512xbf16> -> !c
    return %q : !c
  }
  // PLAN-LABEL: func.func @nvfp4_given
  //       PLAN:   call @qs_quantize_init_0_launch(%{{.*}}) : (memref<131072xbf16>, memref<65536xi8>, memref<8192xf8E4M3FN>, memref<65536xi8>, memref<8192xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_0_launch
  func.func @nvfp4_given(%x: tensor<256x512xbf16>, %a: tensor<1xf32>) -> !n {
    %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<256x512xbf16> -> !n
    return %q : !n
  }
  // PLAN-LABEL: func.func @gemm_given
  //       PLAN:   call @qs_gemm_launch(%{{.*}}) : (memref<16xi64>, memref<16xi64>, memref<1xf32>, memref<1xf32>, memref<262144xbf16>) -> ()
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_init_1_launch
  //   PLAN-NOT:   qs_quantize_amax
  //       PLAN:   call @qs_quantize_1_launch
  func.func @gemm_given(%x: !x, %w: !w, %a: tensor<1xf32>) -> !h {
    // expected-remark @+1 {{GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (2 x 8), 6-stage ring, 4 k-tiles of 128, FP32 promotion per 128 of K; 16 blocks}}
    %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<256x1024xbf16>
    %q = qs.quantize %y amax(%a : tensor<1xf32>) : tensor<256x1024xbf16> -> !h
    return %q : !h
  }
  // NVFP4 with RHT given both amaxes: the init kernel copies max |x| into
  // amax_rowwise and max |RHT(x^T)| into amax_columnwise; no amax kernel.
  // PLAN-LABEL: func.func @nvfp4_rht_given
  //       PLAN:   call @qs_quantize_init_2_launch(%{{.*}}) : (memref<131072xbf16>, memref<65536xi8>, memref<8192xf8E4M3FN>, memref<65536xi8>, memref<8192xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<2xf32>) -> ()
  //   PLAN-NOT:   amax_launch
  //       PLAN:   call @qs_quantize_2_launch
  func.func @nvfp4_rht_given(%x: tensor<256x512xbf16>, %a: tensor<2xf32>) -> !r {
    %q = qs.quantize %x amax(%a : tensor<2xf32>) : tensor<256x512xbf16> -> !r
    return %q : !r
  }
  // qs.amax: the quantize's own amax kernels into the result, zeroed
  // first; with RHT one kernel takes both amaxes from one read of x.
  // PLAN-LABEL: func.func @local_amaxes
  //       PLAN:   call @qs_quantize_init_3_launch(%{{.*}}) : (memref<131072xbf16>, memref<2xf32>) -> ()
  //       PLAN:   call @qs_quantize_rht_amax_launch(%{{.*}}) : (memref<131072xbf16>, memref<2xf32>) -> ()
  //       PLAN:   call @qs_quantize_init_4_launch(%{{.*}}) : (memref<131072xbf16>, memref<1xf32>) -> ()
  //       PLAN:   call @qs_quantize_amax_launch(%{{.*}}) : (memref<131072xbf16>, memref<1xf32>) -> ()
  func.func @local_amaxes(%x: tensor<256x512xbf16>) -> (tensor<2xf32>, tensor<1xf32>) {
    %r = qs.amax %x as !r : tensor<256x512xbf16> -> tensor<2xf32>
    %c = qs.amax %x as !c : tensor<256x512xbf16> -> tensor<1xf32>
    return %r, %c : tensor<2xf32>, tensor<1xf32>
  }
}

// The init kernel: one thread loads the given amax and stores it.
// PTX-LABEL: .entry qs_quantize_init(
// PTX: ld.global.{{[bf]}}32
// PTX: st.global.{{[bf]}}32
// PTX: ret;
// PTX-NOT: .entry qs_quantize_amax(
// PTX-LABEL: .entry qs_quantize(
// PTX: cvt.rn.satfinite.e4m3x2.f32

// Given both NVFP4 RHT amaxes: element 1 (byte offset 4) is the column-wise.
// PTX-LABEL: .entry qs_quantize_init_2(
// PTX: ld.global.b32 {{.*}}+4]
// PTX-LABEL: .entry qs_quantize_2(
// qs.amax with RHT: max |RHT(x^T)| max-combined into element 1 of the
// result, max |x| into element 0.
// PTX-LABEL: .entry qs_quantize_rht_amax(
// PTX: atom.{{(global.)?}}max.u32 {{.*}}+4]
// PTX-LABEL: .entry qs_quantize_amax(
// PTX: atom.global.max.u32
