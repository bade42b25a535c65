// gemm-output-amax.mlir's PTX case: a GEMM into a #qs.fp8_current result.
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>
!c = !qs.tensor<256x1024xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_90a"} {
  func.func @current(%x: !x, %w: !w) -> !c {
    %h = qs.gemm %x, %w transpose_b : !x, !w -> !c
    return %h : !c
  }
}
