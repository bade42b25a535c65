// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans -verify-diagnostics -o /dev/null
// RUN: sed 's/"sm_100a"/"sm_90a"/' %s | qs-opt --qs-storage-pipeline --convert-qs-to-gpu=report-gemm-plans 2>&1 >/dev/null | FileCheck %s

// qs.gemm_split_k = "auto" on sm_100a weighs S-splits only: stream-K runs
// there when asked for ("stream") but is unmeasured, so the model does not
// pick it. 128 x 1024 x 14336 (8 tiles, 112 k-tiles) with the TMA-store
// epilogue and the reduction kernel (which excludes S-splits): no split
// (sm_90a's "auto" weighs stream-K there too, and finds each tile's 16
// planes summed by one block too slow); without the TMA store, 4 splits
// on sm_100a, 8 on sm_90a (whose promoting k-tiles take longer).
// CHECK: remark: GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 8), 6-stage ring, 112 k-tiles of 128 (split-K "auto": none,
// CHECK: remark: GEMM kernel plan: sm_90a wgmma kernel, 128x128 tiles (1 x 8), 6-stage ring, 112 k-tiles of 128 in 8 splits of 14 (split-K "auto",
!a = !qs.tensor<128x14336xbf16, #qs.fp8_current<columnwise = false>>
!b = !qs.tensor<1024x14336xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a", qs.gemm_split_k = "auto"} {
func.func @tma_store(%a: !a, %b: !b) -> tensor<128x1024xbf16> {
  // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (1 x 8), 6-stage ring, 112 k-tiles of 128 (split-K "auto": none, model 18.4 us), TMA-store epilogue; 8 blocks of 128 threads, 196720 bytes of shared memory}}
  %y = qs.gemm %a, %b transpose_b {qs.gemm_epilogue = "tma"} : !a, !b -> tensor<128x1024xbf16>
  return %y : tensor<128x1024xbf16>
}
func.func @deep(%a: !a, %b: !b) -> tensor<128x1024xbf16> {
  // expected-remark @+1 {{GEMM kernel plan: sm_100a tcgen05 kernel, 128x128 tiles (1 x 8), 6-stage ring, 112 k-tiles of 128 in 4 splits of 28 (split-K "auto", model 9.4 us against 18.4 unsplit); 32 blocks of 128 threads, 196720 bytes of shared memory; then qs_gemm_split_k_reduce}}
  %y = qs.gemm %a, %b transpose_b : !a, !b -> tensor<128x1024xbf16>
  return %y : tensor<128x1024xbf16>
}
}
