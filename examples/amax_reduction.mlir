// TE's amax reduction (with_amax_reduction): a tensor split by rows across
// ranks (sequence parallelism) is quantized with the scales of the whole
// (docs/Dialect.md "Amax reduction"; run by test/numerics/test_quantize.py).

// Current scaling. Each rank: max |x| over its part x (32 of the tensor's
// rows) as the quantize computes it ...
func.func @local_amax(%x: tensor<32x512xbf16>) -> tensor<1xf32> {
  %amax = qs.amax %x as !qs.tensor<32x512xbf16, #qs.fp8_current>
      : tensor<32x512xbf16> -> tensor<1xf32>
  return %amax : tensor<1xf32>
}

// ... (the same value by hand: NaN ignored, exact in any order) ...
func.func @local_amax_linalg(%x: tensor<32x512xbf16>) -> tensor<f32> {
  %zero = arith.constant dense<0.0> : tensor<f32>
  %amax = linalg.reduce ins(%x : tensor<32x512xbf16>) outs(%zero : tensor<f32>)
      dimensions = [0, 1]
    (%v: bf16, %acc: f32) {
      %e = arith.extf %v : bf16 to f32
      %a = math.absf %e : f32
      %m = arith.maxnumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %amax : tensor<f32>
}

// ... all-reduced (MAX) across the ranks by the program's own collective;
// then each rank quantizes its part with it.
func.func @quantize_part(%x: tensor<32x512xbf16>, %global: tensor<1xf32>)
    -> !qs.tensor<32x512xbf16, #qs.fp8_current> {
  %q = qs.quantize %x amax(%global : tensor<1xf32>)
      : tensor<32x512xbf16> -> !qs.tensor<32x512xbf16, #qs.fp8_current>
  return %q : !qs.tensor<32x512xbf16, #qs.fp8_current>
}

// NVFP4 with the Hadamard transform (TE's recipe for activations and
// gradients): two global amaxes, max |x| for the row-wise representation
// and max |RHT(x^T)| for the column-wise one, reduced elementwise. A part
// of a multiple of 16 rows holds whole 16-row RHT blocks, so the maximum
// over the parts is the whole tensor's.
func.func @local_amax_nvfp4(%x: tensor<32x512xbf16>) -> tensor<2xf32> {
  %amax = qs.amax %x as !qs.tensor<32x512xbf16,
      #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
      : tensor<32x512xbf16> -> tensor<2xf32>
  return %amax : tensor<2xf32>
}

func.func @quantize_part_nvfp4(%x: tensor<32x512xbf16>, %global: tensor<2xf32>)
    -> !qs.tensor<32x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>> {
  %q = qs.quantize %x amax(%global : tensor<2xf32>) : tensor<32x512xbf16>
      -> !qs.tensor<32x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
  return %q : !qs.tensor<32x512xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
}
