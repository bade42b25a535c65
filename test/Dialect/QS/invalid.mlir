// RUN: qs-opt %s -split-input-file -verify-diagnostics

// qs.quantize: the input is the expressed type of the result.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @quantize_wrong_input(%x: tensor<64x128xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op input type 'tensor<64x128xf32>' must be the expressed type of the result, 'tensor<64x128xbf16>'}}
  %q = qs.quantize %x : tensor<64x128xf32> -> !q
  return %q : !q
}

// -----

// qs.quantize: delayed scaling needs its recipe state.
!q = !qs.tensor<64x128xbf16, #qs.fp8_delayed>
func.func @delayed_without_scale(%x: tensor<64x128xbf16>) -> !q {
  // expected-error @+1 {{'qs.quantize' op with delayed scaling (#qs.fp8_delayed) needs scale(...) and amax(...) operands and returns the updated amax as a second result}}
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.quantize: other quantizers compute their own scales.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @current_with_scale(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes scale/amax operands and returns an updated amax only for delayed scaling (#qs.fp8_delayed)}}
  %q, %amax = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>)
      : tensor<64x128xbf16> -> !q, tensor<1xf32>
  return %q : !q
}

// -----

// qs.quantize: the scale is a tensor<1xf32>.
!q = !qs.tensor<64x128xbf16, #qs.fp8_delayed>
func.func @scale_wrong_type(%x: tensor<64x128xbf16>, %s: tensor<2xf32>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op operand #1 must be tensor<1xf32>, but got 'tensor<2xf32>'}}
  %q, %amax = qs.quantize %x scale(%s : tensor<2xf32>) amax(%a : tensor<1xf32>)
      : tensor<64x128xbf16> -> !q, tensor<1xf32>
  return %q : !q
}

// -----

// qs.dequantize: the result has the logical shape.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @dequantize_shape(%q: !q) -> tensor<128x64xbf16> {
  // expected-error @+1 {{'qs.dequantize' op result shape must equal the logical shape of the input, expected 'tensor<64x128xbf16>', got 'tensor<128x64xbf16>'}}
  %x = qs.dequantize %q : !q -> tensor<128x64xbf16>
  return %x : tensor<128x64xbf16>
}

// -----

// qs.dequantize: the result is a high-precision float tensor.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @dequantize_type(%q: !q) -> tensor<64x128xf64> {
  // expected-error @+1 {{'qs.dequantize' op result element type must be bf16, f16 or f32, got 'f64'}}
  %x = qs.dequantize %q : !q -> tensor<64x128xf64>
  return %x : tensor<64x128xf64>
}

// -----

// qs.dequantize: NVFP4 dequantizes from row-wise data only.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<rowwise = false>>
func.func @dequantize_nvfp4_columnwise(%q: !q) -> tensor<64x128xbf16> {
  // expected-error @+1 {{'qs.dequantize' op a NVFP4Quantizer tensor can only be dequantized from its rowwise representation, which the input does not have}}
  %x = qs.dequantize %q : !q -> tensor<64x128xbf16>
  return %x : tensor<64x128xbf16>
}

// -----

// qs.assemble: as many operands as inner tensors.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @assemble_count(%d: tensor<64x128xf8E4M3FN>) -> !q {
  // expected-error @+1 {{'qs.assemble' op expects 2 inner tensor operands (rowwise_data, rowwise_scale_inv) for '!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>' on sm_90a, got 1}}
  %q = qs.assemble %d : tensor<64x128xf8E4M3FN> -> !q
  return %q : !q
}

// -----

// qs.assemble: each operand has the exact inner type (scales are padded to 128x4).
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @assemble_type(%d: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>) -> !q {
  // expected-error @+1 {{'qs.assemble' op inner tensor operands #1 ('rowwise_scale_inv') must have type 'tensor<128x4xf8E8M0FNU>', got 'tensor<64x4xf8E8M0FNU>'}}
  %q = qs.assemble %d, %s : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> -> !q
  return %q : !q
}

// -----

// qs.assemble: on sm_100a per-tensor FP8 has no transpose.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_100a"} {
  func.func @assemble_chip(%d: tensor<4x8xf8E4M3FN>, %t: tensor<8x4xf8E4M3FN>, %s: tensor<1xf32>) -> !q {
    // expected-error @+1 {{'qs.assemble' op expects 2 inner tensor operands (data, scale_inv) for '!qs.tensor<4x8xbf16, #qs.fp8_current>' on sm_100a, got 3}}
    %q = qs.assemble %d, %t, %s : tensor<4x8xf8E4M3FN>, tensor<8x4xf8E4M3FN>, tensor<1xf32> -> !q
    return %q : !q
  }
}

// -----

// qs.disassemble: as many results as inner tensors.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current>
func.func @disassemble_count(%q: !q) {
  // expected-error @+1 {{'qs.disassemble' op expects 3 inner tensor results (data, transpose, scale_inv) for '!qs.tensor<4x8xbf16, #qs.fp8_current>' on sm_90a, got 2}}
  %d, %s = qs.disassemble %q : !q -> tensor<4x8xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// qs.disassemble: each result has the exact inner type.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @disassemble_type(%q: !q) {
  // expected-error @+1 {{'qs.disassemble' op inner tensor results #0 ('data') must have type 'tensor<4x8xf8E4M3FN>', got 'tensor<4x8xf8E5M2>'}}
  %d, %s = qs.disassemble %q : !q -> tensor<4x8xf8E5M2>, tensor<1xf32>
  return
}

// -----

// qs.update_usage: only the usage flags may change.
!a = !qs.tensor<64x128xbf16, #qs.mxfp8>
!b = !qs.tensor<64x128xbf16, #qs.mxfp8<fp8_dtype = f8E5M2>>
func.func @update_usage_other_quantizer(%q: !a) -> !b {
  // expected-error @+1 {{'qs.update_usage' op result type must be the input type with other usage flags, got '!qs.tensor<64x128xbf16, #qs.mxfp8<fp8_dtype = f8E5M2>>' for '!qs.tensor<64x128xbf16, #qs.mxfp8>'}}
  %r = qs.update_usage %q : !a -> !b
  return %r : !b
}

// -----

// qs.update_usage: MXFP8 can only drop representations.
!a = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
!b = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @update_usage_mxfp8(%q: !a) -> !b {
  // expected-error @+1 {{'qs.update_usage' op cannot create the columnwise representation of a MXFP8Quantizer tensor from its rowwise one on sm_90a: only the per-tensor FP8 transpose (TN-only chips) and the column-wise form of 2-D block FP8 and 2-D NVFP4 without RHT can be derived}}
  %r = qs.update_usage %q : !a -> !b
  return %r : !b
}

// -----

// qs.update_usage: 1x128 blocks differ per direction.
!a = !qs.tensor<128x128xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!b = !qs.tensor<128x128xbf16, #qs.fp8_block<block_scaling_dim = 1, rowwise = false>>
func.func @update_usage_block_1d(%q: !a) -> !b {
  // expected-error @+1 {{cannot create the columnwise representation of a Float8BlockQuantizer tensor from its rowwise one}}
  %r = qs.update_usage %q : !a -> !b
  return %r : !b
}

// -----

// qs.update_usage: per-tensor FP8 data cannot be recreated from the transpose.
!a = !qs.tensor<64x128xbf16, #qs.fp8_current<rowwise = false>>
!b = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @update_usage_fp8_data(%q: !a) -> !b {
  // expected-error @+1 {{cannot create the rowwise representation of a Float8CurrentScalingQuantizer tensor from its columnwise one on sm_90a}}
  %r = qs.update_usage %q : !a -> !b
  return %r : !b
}

// -----

// qs.update_usage: 2-D NVFP4 with RHT cannot derive its column-wise form.
!a = !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true, with_rht = true, with_post_rht_amax = true>>
!b = !qs.tensor<64x128xbf16, #qs.nvfp4<with_2d_quantization = true, with_rht = true, with_post_rht_amax = true>>
func.func @update_usage_nvfp4_rht(%q: !a) -> !b {
  // expected-error @+1 {{cannot create the columnwise representation of a NVFP4Quantizer tensor from its rowwise one}}
  %r = qs.update_usage %q : !a -> !b
  return %r : !b
}

// -----

// qs.gemm: operands are at least 2-D.
!v = !qs.tensor<256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
func.func @gemm_rank(%x: !v, %w: !w) -> tensor<512xbf16> {
  // expected-error @+1 {{'qs.gemm' op operands must have rank >= 2 (leading dimensions are folded into M)}}
  %y = qs.gemm %x, %w transpose_b : !v, !w -> tensor<512xbf16>
  return %y : tensor<512xbf16>
}

// -----

// qs.gemm: the contraction sizes agree.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x128xbf16, #qs.fp8_current>
func.func @gemm_k(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op contraction sizes differ: op(a) is 128x256 and op(b) is 128x512}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: the random Hadamard transform of NVFP4 column-wise data cancels
// only when both operands' contracted data carry it. A dgrad (dX = dY W)
// with an RHT weight: W is contracted column-wise, dY row-wise.
!dy = !qs.tensor<128x256xbf16, #qs.nvfp4>
!w = !qs.tensor<256x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
func.func @gemm_rht_dgrad(%dy: !dy, %w: !w) -> tensor<128x64xbf16> {
  // expected-error @+1 {{'qs.gemm' op operand b contracts its column-wise data, which carries the random Hadamard transform (#qs.nvfp4 with_rht), but operand a contracts its row-wise data without it: the transform cancels only when both operands' contracted data carry it (TE's recipe: with_rht on inputs and gradients, which the wgrad GEMM contracts column-wise; never on weights)}}
  %dx = qs.gemm %dy, %w : !dy, !w -> tensor<128x64xbf16>
  return %dx : tensor<128x64xbf16>
}

// -----

// A wgrad (dW = dY^T X) with an RHT gradient and a plain input: both are
// contracted column-wise, only dY's is transformed.
!dy = !qs.tensor<128x256xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
!x = !qs.tensor<128x64xbf16, #qs.nvfp4>
func.func @gemm_rht_wgrad(%dy: !dy, %x: !x) -> tensor<256x64xf32> {
  // expected-error @+1 {{'qs.gemm' op operand a contracts its column-wise data, which carries the random Hadamard transform (#qs.nvfp4 with_rht), but operand b contracts its column-wise data without it}}
  %dw = qs.gemm %dy, %x transpose_a : !dy, !x -> tensor<256x64xf32>
  return %dw : tensor<256x64xf32>
}

// -----

// A wgrad whose operands carry different transforms (TE's random signs and
// the unsigned H16 / 4).
!dy = !qs.tensor<128x256xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
!x = !qs.tensor<128x64xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_random_sign_mask = false>>
func.func @gemm_rht_signs(%dy: !dy, %x: !x) -> tensor<256x64xf32> {
  // expected-error @+1 {{'qs.gemm' op operands a and b contract column-wise data under different random Hadamard transforms (sign masks 0xD7E8 and 0x0, #qs.nvfp4 with_random_sign_mask): the transforms cancel only when both operands carry the same one}}
  %dw = qs.gemm %dy, %x transpose_a : !dy, !x -> tensor<256x64xf32>
  return %dw : tensor<256x64xf32>
}

// -----

// qs.gemm: the result shape is [m, n] (with a's leading dimensions).
!x = !qs.tensor<2x64x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
func.func @gemm_result_shape(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op result shape must be 2x64x512 (op(a) * op(b), keeping a's leading dimensions), got 'tensor<128x512xbf16>'}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: the result element type is bf16, f16 or f32.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
func.func @gemm_result_type(%x: !x, %w: !w) -> tensor<128x512xi32> {
  // expected-error @+1 {{'qs.gemm' op result element type must be bf16, f16 or f32, got 'i32'}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xi32>
  return %y : tensor<128x512xi32>
}

// -----

// qs.gemm: both operands use one scaling family.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8>
!w = !qs.tensor<512x256xbf16, #qs.nvfp4>
func.func @gemm_mixed_families(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op operands use incompatible scaling modes: MXFP8 and NVFP4 (both must be per-tensor FP8, MXFP8 or NVFP4, or block FP8 with at most one 128x128 operand)}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: TE forbids 128x128 x 128x128 block scaling.
!x = !qs.tensor<128x256xbf16, #qs.fp8_block>
!w = !qs.tensor<512x256xbf16, #qs.fp8_block>
func.func @gemm_block_2d_2d(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op operands use incompatible scaling modes: 128x128 block FP8 and 128x128 block FP8}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: NVFP4 GEMMs cannot produce f16.
!x = !qs.tensor<128x256xbf16, #qs.nvfp4>
!w = !qs.tensor<512x256xbf16, #qs.nvfp4>
func.func @gemm_nvfp4_f16(%x: !x, %w: !w) -> tensor<128x512xf16> {
  // expected-error @+1 {{'qs.gemm' op a GEMM on NVFP4Quantizer operands cannot produce 'f16'}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xf16>
  return %y : tensor<128x512xf16>
}

// -----

// qs.gemm: a is contracted over its last dimension and needs rowwise.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8<rowwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8>
func.func @gemm_a_needs_rowwise(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op operand a is contracted over its last dimension and needs its rowwise usage, but its quantizer has rowwise = false on sm_90a}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: b without transpose is contracted over its first dimension and needs columnwise (TE dgrad).
!dy = !qs.tensor<128x512xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @gemm_b_needs_columnwise(%dy: !dy, %w: !w) -> tensor<128x256xbf16> {
  // expected-error @+1 {{'qs.gemm' op operand b is contracted over its first dimension and needs its columnwise usage, but its quantizer has columnwise = false on sm_90a}}
  %dx = qs.gemm %dy, %w : !dy, !w -> tensor<128x256xbf16>
  return %dx : tensor<128x256xbf16>
}

// -----

// qs.gemm: the bias is a 1-D tensor of n values.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
func.func @gemm_bias(%x: !x, %w: !w, %b: tensor<256xbf16>) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op bias must be a 1-D tensor of 512 bf16, f16 or f32 values, got 'tensor<256xbf16>'}}
  %y = qs.gemm %x, %w transpose_b bias(%b : tensor<256xbf16>) : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: the accumulate operand has the result type.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
func.func @gemm_accumulate(%x: !x, %w: !w, %c: tensor<128x512xf32>) -> tensor<128x512xbf16> {
  // expected-error @+1 {{'qs.gemm' op accumulate operand must have the result type 'tensor<128x512xbf16>', got 'tensor<128x512xf32>'}}
  %y = qs.gemm %x, %w transpose_b accumulate(%c : tensor<128x512xf32>) : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// qs.gemm: accumulate needs a high-precision result.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
!y = !qs.tensor<128x512xbf16, #qs.fp8_current>
func.func @gemm_accumulate_into_quantized(%x: !x, %w: !w, %c: tensor<128x512xbf16>) -> !y {
  // expected-error @+1 {{'qs.gemm' op cannot accumulate into a quantized result (an output quantizer): accumulate needs a high-precision result type}}
  %y = qs.gemm %x, %w transpose_b accumulate(%c : tensor<128x512xbf16>) : !x, !w -> !y
  return %y : !y
}

// -----

// qs.gemm: a delayed-scaling result takes the recipe's scale and amax state.
!x = !qs.tensor<128x256xbf16, #qs.fp8_delayed>
!w = !qs.tensor<512x256xbf16, #qs.fp8_delayed>
!y = !qs.tensor<128x512xbf16, #qs.fp8_delayed>
func.func @gemm_delayed_result_state(%x: !x, %w: !w) -> !y {
  // expected-error @+1 {{'qs.gemm' op with a delayed-scaling result (#qs.fp8_delayed) needs scale(...) and amax(...) operands and returns the updated amax as a second result}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> !y
  return %y : !y
}

// -----

// qs.gemm: an output quantizer with global amaxes cannot be given them
// (amax reduction of a product goes through qs.amax and qs.quantize).
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
!h = !qs.tensor<128x512xbf16, #qs.fp8_current>
func.func @gemm_given_amax(%x: !x, %w: !w, %a: tensor<1xf32>) -> !h {
  // expected-error @+1 {{'qs.gemm' op cannot be given its output quantizer's global amax(...) (TE's amax reduction): the product's amax exists only after the GEMM; return the high-precision product, all-reduce its qs.amax and qs.quantize it with amax(...)}}
  %h = qs.gemm %x, %w transpose_b amax(%a : tensor<1xf32>) : !x, !w -> !h
  return %h : !h
}

// -----

// qs.gemm: only a delayed-scaling result takes scale and amax.
!x = !qs.tensor<128x256xbf16, #qs.fp8_delayed>
!w = !qs.tensor<512x256xbf16, #qs.fp8_delayed>
func.func @gemm_state_without_quantizer(%x: !x, %w: !w, %s: tensor<1xf32>) -> (tensor<128x512xbf16>, tensor<1xf32>) {
  // expected-error @+1 {{'qs.gemm' op takes scale/amax operands and returns an updated amax only for a delayed-scaling result (#qs.fp8_delayed)}}
  %y, %a = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%s : tensor<1xf32>) : !x, !w -> tensor<128x512xbf16>, tensor<1xf32>
  return %y, %a : tensor<128x512xbf16>, tensor<1xf32>
}

// -----

// qs.gemm: a quantized result has the product's logical shape.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8>
!y = !qs.tensor<128x256xbf16, #qs.mxfp8>
func.func @gemm_quantized_result_shape(%x: !x, %w: !w) -> !y {
  // expected-error @+1 {{'qs.gemm' op result shape must be 128x512 (op(a) * op(b), keeping a's leading dimensions), got 'tensor<128x256xbf16>'}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> !y
  return %y : !y
}

// -----

// qs.gemm: the unfused product of a quantized result has the nominal type, which the operands' format must support.
!x = !qs.tensor<128x256xbf16, #qs.nvfp4>
!w = !qs.tensor<512x256xbf16, #qs.nvfp4>
!y = !qs.tensor<128x512xf16, #qs.fp8_current>
func.func @gemm_quantized_result_nominal(%x: !x, %w: !w) -> !y {
  // expected-error @+1 {{'qs.gemm' op a GEMM on NVFP4Quantizer operands cannot produce 'f16'}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> !y
  return %y : !y
}

// -----

// qs.quantize_buffers: the outs are exactly the inner tensors of the quantized type.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @quantize_buffers_outs(%x: tensor<64x128xbf16>, %d: tensor<64x128xf8E4M3FN>) {
  // expected-error @+1 {{'qs.quantize_buffers' op expects 2 inner tensor outs operands (rowwise_data, rowwise_scale_inv) for '!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>' on sm_90a, got 1}}
  %r = qs.quantize_buffers %x outs(%d : tensor<64x128xf8E4M3FN>) as !q
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>
  return
}

// -----

// qs.quantize_buffers: the input is the expressed type.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @quantize_buffers_input(%x: tensor<4x8xf32>, %d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'qs.quantize_buffers' op input type 'tensor<4x8xf32>' must be the expressed type of the result, 'tensor<4x8xbf16>'}}
  %r:2 = qs.quantize_buffers %x outs(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q
      : tensor<4x8xf32> -> tensor<4x8xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// qs.quantize_buffers: only delayed scaling takes a scale.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @quantize_buffers_scale(%x: tensor<4x8xbf16>, %d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'qs.quantize_buffers' op takes a scale operand iff the quantizer uses delayed scaling (#qs.fp8_delayed)}}
  %r:2 = qs.quantize_buffers %x scale(%s : tensor<1xf32>) outs(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q
      : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// qs.quantize_buffers: delayed scaling updates the amax state, the last outs operand.
!q = !qs.tensor<4x8xbf16, #qs.fp8_delayed<columnwise = false>>
func.func @quantize_buffers_amax(%x: tensor<4x8xbf16>, %d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'qs.quantize_buffers' op with delayed scaling takes the amax state as a last tensor<1xf32> outs operand}}
  %r = qs.quantize_buffers %x scale(%s : tensor<1xf32>) outs(%d : tensor<4x8xf8E4M3FN>) as !q
      : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
  return
}

// -----

// qs.dequantize_buffers: the ins are exactly the inner tensors.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @dequantize_buffers_ins(%d: tensor<4x8xf8E5M2>, %s: tensor<1xf32>, %o: tensor<4x8xf32>) {
  // expected-error @+1 {{'qs.dequantize_buffers' op inner tensor ins operands #0 ('data') must have type 'tensor<4x8xf8E4M3FN>', got 'tensor<4x8xf8E5M2>'}}
  %r = qs.dequantize_buffers ins(%d, %s : tensor<4x8xf8E5M2>, tensor<1xf32>) outs(%o : tensor<4x8xf32>)
      as !q -> tensor<4x8xf32>
  return
}

// -----

// qs.dequantize_buffers: the init has the logical shape (dequantize's rules).
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @dequantize_buffers_init(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<8x4xf32>) {
  // expected-error @+1 {{'qs.dequantize_buffers' op result shape must equal the logical shape of the input, expected 'tensor<4x8xbf16>', got 'tensor<8x4xf32>'}}
  %r = qs.dequantize_buffers ins(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) outs(%o : tensor<8x4xf32>)
      as !q -> tensor<8x4xf32>
  return
}

// -----

// qs.gemm_buffers: a's inner tensors match a_type.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @gemm_buffers_a(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<4x4xf32>) {
  // expected-error @+1 {{'qs.gemm_buffers' op expects 2 a operands (data, scale_inv) for '!qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>' on sm_90a, got 1}}
  %r = qs.gemm_buffers a(%d : tensor<4x8xf8E4M3FN>) as !q b(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q
      outs(%o : tensor<4x4xf32>) transpose_b -> tensor<4x4xf32>
  return
}

// -----

// qs.gemm_buffers: b's inner tensors match b_type.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @gemm_buffers_b(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<4x4xf32>) {
  // expected-error @+1 {{'qs.gemm_buffers' op b operands #1 ('scale_inv') must have type 'tensor<1xf32>', got 'tensor<4x8xf8E4M3FN>'}}
  %r = qs.gemm_buffers a(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q b(%d, %d : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E4M3FN>) as !q
      outs(%o : tensor<4x4xf32>) transpose_b -> tensor<4x4xf32>
  return
}

// -----

// qs.gemm_buffers: the GEMM rules of qs.gemm apply (here the usage of b).
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @gemm_buffers_usage(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %o: tensor<8x8xf32>) {
  // expected-error @+1 {{'qs.gemm_buffers' op operand a is contracted over its first dimension and needs its columnwise usage, but its quantizer has columnwise = false on sm_90a}}
  %r = qs.gemm_buffers a(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q b(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) as !q
      outs(%o : tensor<8x8xf32>) transpose_a -> tensor<8x8xf32>
  return
}

// -----

// qs.update_usage_buffers: only for transitions that create something.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func @update_usage_buffers_nothing(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'qs.update_usage_buffers' op creates nothing: '!qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>' has no inner tensor that '!qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>' lacks (dropping needs no op)}}
  "qs.update_usage_buffers"(%d, %s) <{operandSegmentSizes = array<i32: 2, 0>, source_type = !q, result_type = !q}>
      : (tensor<4x8xf8E4M3FN>, tensor<1xf32>) -> ()
  return
}

// -----

// qs.update_usage_buffers: the outs are the created inner tensors.
!row = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
!both = !qs.tensor<4x8xbf16, #qs.fp8_current>
func.func @update_usage_buffers_outs(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>, %t: tensor<4x8xf8E4M3FN>) {
  // expected-error @+1 {{'qs.update_usage_buffers' op outs must be the created inner tensors (transpose : 'tensor<8x4xf8E4M3FN>')}}
  %r = qs.update_usage_buffers ins(%d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32>) outs(%t : tensor<4x8xf8E4M3FN>)
      from !row to !both -> tensor<4x8xf8E4M3FN>
  return
}

// -----

// qs.update_usage_buffers: the transition rules of qs.update_usage apply.
!row = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
!both = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @update_usage_buffers_rule(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>,
                                     %cd: tensor<64x128xf8E4M3FN>, %cs: tensor<4x128xf8E8M0FNU>) {
  // expected-error @+1 {{'qs.update_usage_buffers' op cannot create the columnwise representation of a MXFP8Quantizer tensor from its rowwise one on sm_90a}}
  %r:2 = qs.update_usage_buffers ins(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      outs(%cd, %cs : tensor<64x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU>)
      from !row to !both -> tensor<64x128xf8E4M3FN>, tensor<4x128xf8E8M0FNU>
  return
}

// -----

// qs.quantize: stochastic rounding draws its bits from an rng state.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<stochastic_rounding = true>>
func.func @stochastic_without_rng(%x: tensor<64x128xbf16>) -> !q {
  // expected-error @+1 {{'qs.quantize' op with stochastic rounding (#qs.nvfp4 stochastic_rounding) needs an rng(...) operand: a tensor<2xi64> holding (seed, offset)}}
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.quantize: given global amaxes alone (TE's amax reduction) are for the
// quantizers tensor-wide amaxes scale (current scaling, NVFP4 without row
// scales); the others compute per-block or per-row amaxes only.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @given_amax_mxfp8(%x: tensor<64x128xbf16>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes a global amax(...) alone only where tensor-wide amaxes scale the whole tensor (TE's amax reduction): #qs.fp8_current, #qs.nvfp4 without row_scaled_nvfp4; #qs.mxfp8 computes none (per-block or per-row amaxes, or the recipe's)}}
  %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.quantize: NVFP4 with RHT computes two global amaxes (max |x| and
// max |RHT(x^T)|) and takes both.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
func.func @given_amax_nvfp4_rht(%x: tensor<64x128xbf16>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes a global amax(...) alone: #qs.nvfp4<with_rht = true, with_post_rht_amax = true> has 2 global amaxes, max|x| (row-wise) and max|RHT(x^T)| (column-wise), a tensor<2xf32>; got 'tensor<1xf32>'}}
  %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

!q = !qs.tensor<64x128xbf16, #qs.nvfp4>
func.func @given_amax_nvfp4_two(%x: tensor<64x128xbf16>, %a: tensor<2xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes a global amax(...) alone: #qs.nvfp4 has 1 global amax, max|x|, a tensor<1xf32>; got 'tensor<2xf32>'}}
  %q = qs.quantize %x amax(%a : tensor<2xf32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// Row-scaled NVFP4 has one amax per row, which TE does not reduce.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<row_scaled_nvfp4 = true>>
func.func @given_amax_nvfp4_row_scaled(%x: tensor<64x128xbf16>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes a global amax(...) alone only where tensor-wide amaxes scale the whole tensor (TE's amax reduction): #qs.fp8_current, #qs.nvfp4 without row_scaled_nvfp4; #qs.nvfp4<row_scaled_nvfp4 = true> computes none (per-block or per-row amaxes, or the recipe's)}}
  %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.quantize: the amax state of delayed scaling is one value.
!q = !qs.tensor<64x128xbf16, #qs.fp8_delayed>
func.func @delayed_amax_two(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<2xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op the amax state of delayed scaling is a tensor<1xf32>, got 'tensor<2xf32>'}}
  %q, %u = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<2xf32>) : tensor<64x128xbf16> -> !q, tensor<1xf32>
  return %q : !q
}

// -----

// qs.quantize: an amax operand holds one or two f32 values.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @given_amax_three(%x: tensor<64x128xbf16>, %a: tensor<3xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op operand #1 must be tensor<1xf32> or tensor<2xf32>, but got 'tensor<3xf32>'}}
  %q = qs.quantize %x amax(%a : tensor<3xf32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.amax: the global amaxes of the quantizers that have them.
func.func @amax_mxfp8(%x: tensor<64x128xbf16>) -> tensor<1xf32> {
  // expected-error @+1 {{'qs.amax' op returns the global amaxes only where tensor-wide amaxes scale the whole tensor (TE's amax reduction): #qs.fp8_current, #qs.nvfp4 without row_scaled_nvfp4; #qs.mxfp8 computes none (per-block or per-row amaxes, or the recipe's)}}
  %a = qs.amax %x as !qs.tensor<64x128xbf16, #qs.mxfp8> : tensor<64x128xbf16> -> tensor<1xf32>
  return %a : tensor<1xf32>
}

// -----

func.func @amax_delayed(%x: tensor<64x128xbf16>) -> tensor<1xf32> {
  // expected-error @+1 {{'qs.amax' op returns the global amaxes only where tensor-wide amaxes scale the whole tensor (TE's amax reduction): #qs.fp8_current, #qs.nvfp4 without row_scaled_nvfp4; #qs.fp8_delayed computes none (per-block or per-row amaxes, or the recipe's)}}
  %a = qs.amax %x as !qs.tensor<64x128xbf16, #qs.fp8_delayed> : tensor<64x128xbf16> -> tensor<1xf32>
  return %a : tensor<1xf32>
}

// -----

func.func @amax_rht_one(%x: tensor<64x128xbf16>) -> tensor<1xf32> {
  // expected-error @+1 {{'qs.amax' op returns the global amaxes: #qs.nvfp4<with_rht = true, with_post_rht_amax = true> has 2 global amaxes, max|x| (row-wise) and max|RHT(x^T)| (column-wise), a tensor<2xf32>; got 'tensor<1xf32>'}}
  %a = qs.amax %x as !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>> : tensor<64x128xbf16> -> tensor<1xf32>
  return %a : tensor<1xf32>
}

// -----

func.func @amax_input_type(%x: tensor<64x128xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'qs.amax' op input type 'tensor<64x128xf32>' must be the expressed type of the result, 'tensor<64x128xbf16>'}}
  %a = qs.amax %x as !qs.tensor<64x128xbf16, #qs.fp8_current> : tensor<64x128xf32> -> tensor<1xf32>
  return %a : tensor<1xf32>
}

// -----

func.func @amax_result_type(%x: tensor<64x128xbf16>) -> tensor<1xf16> {
  // expected-error @+1 {{'qs.amax' op result #0 must be tensor<1xf32> or tensor<2xf32>, but got 'tensor<1xf16>'}}
  %a = qs.amax %x as !qs.tensor<64x128xbf16, #qs.fp8_current> : tensor<64x128xbf16> -> tensor<1xf16>
  return %a : tensor<1xf16>
}

// -----

func.func @amax_not_quantized(%x: tensor<64x128xbf16>) -> tensor<1xf32> {
  // expected-error @+1 {{'qs.amax' op attribute 'quantized_type' failed to satisfy constraint: type attribute of quantized tensor}}
  %a = qs.amax %x as tensor<64x128xbf16> : tensor<64x128xbf16> -> tensor<1xf32>
  return %a : tensor<1xf32>
}

// -----

// qs.quantize: current scaling with a given amax returns no updated amax.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @given_amax_updated(%x: tensor<64x128xbf16>, %a: tensor<1xf32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes scale/amax operands and returns an updated amax only for delayed scaling (#qs.fp8_delayed)}}
  %q, %u = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !q, tensor<1xf32>
  return %q : !q
}

// -----

// qs.quantize_buffers: the same rule for the given amax.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @quantize_buffers_given_amax(%x: tensor<64x128xbf16>, %a: tensor<1xf32>, %d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>) {
  // expected-error @+1 {{'qs.quantize_buffers' op takes a global amax(...) only where tensor-wide amaxes scale the whole tensor (TE's amax reduction): #qs.fp8_current, #qs.nvfp4 without row_scaled_nvfp4; #qs.mxfp8<columnwise = false> computes none (per-block or per-row amaxes, or the recipe's)}}
  %r:2 = qs.quantize_buffers %x amax(%a : tensor<1xf32>) outs(%d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !q
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return
}

// -----

// qs.quantize: only stochastic rounding takes an rng state.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4>
func.func @rng_without_stochastic(%x: tensor<64x128xbf16>, %r: tensor<2xi64>) -> !q {
  // expected-error @+1 {{'qs.quantize' op takes an rng(...) operand only for a quantizer with stochastic rounding (#qs.nvfp4 stochastic_rounding = true)}}
  %q = qs.quantize %x rng(%r : tensor<2xi64>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.quantize: the rng state is a tensor<2xi64>.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4<stochastic_rounding = true>>
func.func @rng_wrong_type(%x: tensor<64x128xbf16>, %r: tensor<2xi32>) -> !q {
  // expected-error @+1 {{'qs.quantize' op operand #1 must be tensor<2xi64>, but got 'tensor<2xi32>'}}
  %q = qs.quantize %x rng(%r : tensor<2xi32>) : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// qs.gemm: an output quantizer cannot round stochastically.
!x = !qs.tensor<128x256xbf16, #qs.nvfp4>
!w = !qs.tensor<512x256xbf16, #qs.nvfp4>
!y = !qs.tensor<128x512xbf16, #qs.nvfp4<stochastic_rounding = true>>
func.func @gemm_stochastic_output(%x: !x, %w: !w) -> !y {
  // expected-error @+1 {{'qs.gemm' op cannot round its output stochastically (#qs.nvfp4 stochastic_rounding): a GEMM takes no rng state; return the high-precision product and qs.quantize it with rng(...)}}
  %y = qs.gemm %x, %w transpose_b : !x, !w -> !y
  return %y : !y
}

// -----

// qs.quantize_buffers: the same rng rule.
!q = !qs.tensor<16x32xbf16, #qs.nvfp4<columnwise = false, stochastic_rounding = true>>
func.func @quantize_buffers_without_rng(%x: tensor<16x32xbf16>, %d: tensor<16x16xi8>, %s: tensor<128x4xf8E4M3FN>, %a: tensor<1xf32>) {
  // expected-error @+1 {{'qs.quantize_buffers' op with stochastic rounding (#qs.nvfp4 stochastic_rounding) needs an rng(...) operand: a tensor<2xi64> holding (seed, offset)}}
  %r:3 = qs.quantize_buffers %x outs(%d, %s, %a : tensor<16x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>) as !q
      : tensor<16x32xbf16> -> tensor<16x16xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

// qs.bias_grad: a static tensor of rank 2 or more.
func.func @bias_grad_rank1(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  // expected-error @+1 {{'qs.bias_grad' op input must be a statically shaped tensor of rank 2 or more with positive dimensions (rows folded to M, columns the last dimension N; as !qs.tensor), got 'tensor<64xbf16>'}}
  %db = qs.bias_grad %x : tensor<64xbf16> -> tensor<64xbf16>
  return %db : tensor<64xbf16>
}

// -----

func.func @bias_grad_dynamic(%x: tensor<?x64xbf16>) -> tensor<64xbf16> {
  // expected-error @+1 {{'qs.bias_grad' op input must be a statically shaped tensor of rank 2 or more with positive dimensions (rows folded to M, columns the last dimension N; as !qs.tensor), got 'tensor<?x64xbf16>'}}
  %db = qs.bias_grad %x : tensor<?x64xbf16> -> tensor<64xbf16>
  return %db : tensor<64xbf16>
}

// -----

func.func @bias_grad_input_type(%x: tensor<32x64xi8>) -> tensor<64xbf16> {
  // expected-error @+1 {{'qs.bias_grad' op input element type must be bf16, f16 or f32, got 'i8'}}
  %db = qs.bias_grad %x : tensor<32x64xi8> -> tensor<64xbf16>
  return %db : tensor<64xbf16>
}

// -----

func.func @bias_grad_result_shape(%x: tensor<32x64xbf16>) -> tensor<32xbf16> {
  // expected-error @+1 {{'qs.bias_grad' op result must be a 1-D tensor of the input's last dimension (64), got 'tensor<32xbf16>'}}
  %db = qs.bias_grad %x : tensor<32x64xbf16> -> tensor<32xbf16>
  return %db : tensor<32xbf16>
}

// -----

func.func @bias_grad_result_type(%x: tensor<32x64xbf16>) -> tensor<64xf64> {
  // expected-error @+1 {{'qs.bias_grad' op result element type must be bf16, f16 or f32, got 'f64'}}
  %db = qs.bias_grad %x : tensor<32x64xbf16> -> tensor<64xf64>
  return %db : tensor<64xf64>
}

// -----

// qs.amax_and_scale_update: a history of static length >= 1.
func.func @scale_update_dynamic(%h: tensor<?xf32>, %s: tensor<1xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op history must be a tensor<L x f32> with a static length L >= 1 (TE's amax_history_len), got 'tensor<?xf32>'}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<?xf32>, tensor<1xf32>
  return %h2 : tensor<?xf32>
}

// -----

func.func @scale_update_empty(%h: tensor<0xf32>, %s: tensor<1xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op history must be a tensor<L x f32> with a static length L >= 1 (TE's amax_history_len), got 'tensor<0xf32>'}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<0xf32>, tensor<1xf32>
  return %h2 : tensor<0xf32>
}

// -----

func.func @scale_update_2d(%h: tensor<16x2xf32>, %s: tensor<1xf32>) -> tensor<16x2xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op operand #0 must be 1-D f32 tensor, but got 'tensor<16x2xf32>'}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<16x2xf32>, tensor<1xf32>
  return %h2 : tensor<16x2xf32>
}

// -----

func.func @scale_update_scale(%h: tensor<16xf32>, %s: tensor<2xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op operand #1 must be tensor<1xf32>, but got 'tensor<2xf32>'}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<16xf32>, tensor<2xf32>
  return %h2 : tensor<16xf32>
}

// -----

func.func @scale_update_dtype(%h: tensor<16xf32>, %s: tensor<1xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op fp8_dtype must be f8E4M3FN or f8E5M2 (the FP8 format whose maximum the scale maps the amax to), got 'f8E4M3FNUZ'}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s {fp8_dtype = f8E4M3FNUZ} : tensor<16xf32>, tensor<1xf32>
  return %h2 : tensor<16xf32>
}

// -----

func.func @scale_update_margin(%h: tensor<16xf32>, %s: tensor<1xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op margin must be in [-100, 100] (fp8_max * 2^-margin an exact, normal f32), got 101}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s {margin = 101 : i64} : tensor<16xf32>, tensor<1xf32>
  return %h2 : tensor<16xf32>
}

// -----

func.func @scale_update_algo(%h: tensor<16xf32>, %s: tensor<1xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'qs.amax_and_scale_update' op amax_compute_algo must be "max" or "most_recent" (TE's DelayedScaling), got "mean"}}
  %h2, %s2 = qs.amax_and_scale_update %h, %s {amax_compute_algo = "mean"} : tensor<16xf32>, tensor<1xf32>
  return %h2 : tensor<16xf32>
}

// -----

func.func @bias_grad_empty(%x: tensor<0x64xbf16>) -> tensor<64xbf16> {
  // expected-error @+1 {{'qs.bias_grad' op input must be a statically shaped tensor of rank 2 or more with positive dimensions (rows folded to M, columns the last dimension N; as !qs.tensor), got 'tensor<0x64xbf16>'}}
  %db = qs.bias_grad %x : tensor<0x64xbf16> -> tensor<64xbf16>
  return %db : tensor<64xbf16>
}
