// TE's amax reduction for current scaling (Float8CurrentScalingQuantizer
// with_amax_reduction): a tensor split by rows across ranks (sequence
// parallelism) is quantized with the scale of the whole (docs/Dialect.md
// "Amax reduction"; run by test/numerics/test_quantize.py).

// Each rank: max |x| over its part x (32 of the tensor's rows) ...
func.func @local_amax(%x: tensor<32x512xbf16>) -> tensor<f32> {
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

// ... all-reduced (MAX) across the ranks by the program's own collective,
// reshaped to tensor<1xf32>; then each rank quantizes its part with it.
func.func @quantize_part(%x: tensor<32x512xbf16>, %global: tensor<1xf32>)
    -> !qs.tensor<32x512xbf16, #qs.fp8_current> {
  %q = qs.quantize %x amax(%global : tensor<1xf32>)
      : tensor<32x512xbf16> -> !qs.tensor<32x512xbf16, #qs.fp8_current>
  return %q : !qs.tensor<32x512xbf16, #qs.fp8_current>
}
