// The quantize step of the bundled TE Linear layers (linear_*.mlir: in 512
// features, out 1024, 256 tokens): for each recipe, X, W and dY quantized
// with the quantizers, usages and options of that example: the quantize
// kernels alone, which `bash scripts/demo.sh` prints for sm_90a and sm_100a
// before the whole layers (quantize and GEMM kernels).

func.func @fp8_delayed(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                       %dy: tensor<256x1024xbf16>, %scale: tensor<1xf32>,
                       %amax: tensor<1xf32>)
    -> (!qs.tensor<256x512xbf16, #qs.fp8_delayed>,
        !qs.tensor<1024x512xbf16, #qs.fp8_delayed>,
        !qs.tensor<256x1024xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>) {
  %qx, %ax = qs.quantize %x scale(%scale : tensor<1xf32>) amax(%amax : tensor<1xf32>)
      : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_delayed>, tensor<1xf32>
  %qw, %aw = qs.quantize %w scale(%scale : tensor<1xf32>) amax(%amax : tensor<1xf32>)
      : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.fp8_delayed>, tensor<1xf32>
  %qdy, %ady = qs.quantize %dy scale(%scale : tensor<1xf32>) amax(%amax : tensor<1xf32>)
      : tensor<256x1024xbf16> -> !qs.tensor<256x1024xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>, tensor<1xf32>
  return %qx, %qw, %qdy : !qs.tensor<256x512xbf16, #qs.fp8_delayed>,
      !qs.tensor<1024x512xbf16, #qs.fp8_delayed>,
      !qs.tensor<256x1024xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>
}

func.func @fp8_current(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                       %dy: tensor<256x1024xbf16>)
    -> (!qs.tensor<256x512xbf16, #qs.fp8_current>,
        !qs.tensor<1024x512xbf16, #qs.fp8_current>,
        !qs.tensor<256x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_current>
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.fp8_current>
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !qs.tensor<256x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
  return %qx, %qw, %qdy : !qs.tensor<256x512xbf16, #qs.fp8_current>,
      !qs.tensor<1024x512xbf16, #qs.fp8_current>,
      !qs.tensor<256x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
}

func.func @mxfp8(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                 %dy: tensor<256x1024xbf16>)
    -> (!qs.tensor<256x512xbf16, #qs.mxfp8>, !qs.tensor<1024x512xbf16, #qs.mxfp8>,
        !qs.tensor<256x1024xbf16, #qs.mxfp8>) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8>
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.mxfp8>
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !qs.tensor<256x1024xbf16, #qs.mxfp8>
  return %qx, %qw, %qdy : !qs.tensor<256x512xbf16, #qs.mxfp8>,
      !qs.tensor<1024x512xbf16, #qs.mxfp8>, !qs.tensor<256x1024xbf16, #qs.mxfp8>
}

func.func @fp8_block(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                     %dy: tensor<256x1024xbf16>)
    -> (!qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>,
        !qs.tensor<1024x512xbf16, #qs.fp8_block>,
        !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.fp8_block>
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
  return %qx, %qw, %qdy : !qs.tensor<256x512xbf16, #qs.fp8_block<block_scaling_dim = 1>>,
      !qs.tensor<1024x512xbf16, #qs.fp8_block>,
      !qs.tensor<256x1024xbf16, #qs.fp8_block<block_scaling_dim = 1>>
}

func.func @nvfp4(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>,
                 %dy: tensor<256x1024xbf16>)
    -> (!qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>,
        !qs.tensor<1024x512xbf16, #qs.nvfp4<with_2d_quantization = true>>,
        !qs.tensor<256x1024xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.nvfp4<with_2d_quantization = true>>
  %qdy = qs.quantize %dy : tensor<256x1024xbf16> -> !qs.tensor<256x1024xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
  return %qx, %qw, %qdy : !qs.tensor<256x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>,
      !qs.tensor<1024x512xbf16, #qs.nvfp4<with_2d_quantization = true>>,
      !qs.tensor<256x1024xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
}
