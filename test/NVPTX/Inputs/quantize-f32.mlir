// Quantize kernels of f32 inputs, whose tiles differ from bf16's: 1x128
// blocks in one kernel per representation (a tile with both would not fit
// in 48 KiB), 128x128 blocks in one kernel whose 66 KiB tile lives in
// dynamic shared memory. kernel-table.py compiles it for each chip.

func.func @current(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.fp8_current<>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.fp8_current<>>
  return %q : !qs.tensor<4096x4096xf32, #qs.fp8_current<>>
}

func.func @mxfp8(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.mxfp8<>>
  return %q : !qs.tensor<4096x4096xf32, #qs.mxfp8<>>
}

func.func @block1d(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.fp8_block<block_scaling_dim = 1>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.fp8_block<block_scaling_dim = 1>>
  return %q : !qs.tensor<4096x4096xf32, #qs.fp8_block<block_scaling_dim = 1>>
}

func.func @block2d(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.fp8_block<>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.fp8_block<>>
  return %q : !qs.tensor<4096x4096xf32, #qs.fp8_block<>>
}

func.func @block2d_odd(%x: tensor<300x200xf32>) -> !qs.tensor<300x200xf32, #qs.fp8_block<>> {
  %q = qs.quantize %x : tensor<300x200xf32> -> !qs.tensor<300x200xf32, #qs.fp8_block<>>
  return %q : !qs.tensor<300x200xf32, #qs.fp8_block<>>
}

func.func @block2d_col(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.fp8_block<rowwise = false>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.fp8_block<rowwise = false>>
  return %q : !qs.tensor<4096x4096xf32, #qs.fp8_block<rowwise = false>>
}

func.func @nvfp4(%x: tensor<4096x4096xf32>) -> !qs.tensor<4096x4096xf32, #qs.nvfp4<>> {
  %q = qs.quantize %x : tensor<4096x4096xf32> -> !qs.tensor<4096x4096xf32, #qs.nvfp4<>>
  return %q : !qs.tensor<4096x4096xf32, #qs.nvfp4<>>
}
