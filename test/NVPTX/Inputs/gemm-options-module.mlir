// A module whose attributes set GEMM kernel options (split-K in 2 ranges);
// kernel-table.py --module adds qs.chip for each chip.
!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<384x512xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<256x384xbf16, #qs.fp8_delayed<columnwise = false>>
module attributes {qs.gemm_split_k = 2 : i64} {
  func.func @fprop(%x: !x, %w: !w, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!h, tensor<1xf32>) {
    %h, %a2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
    return %h, %a2 : !h, tensor<1xf32>
  }
}
