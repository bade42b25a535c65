!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
!d = !qs.tensor<64x128xbf16, #qs.fp8_delayed<columnwise = false>>

// Three round trips of an MXFP8 tensor (dequantize, quantize) in a loop
// that carries the quantized value: each iteration's buffers are new.
func.func @loop(%x: tensor<64x128xbf16>) -> !q {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %q0 = qs.quantize %x : tensor<64x128xbf16> -> !q
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %q0) -> (!q) {
    %d = qs.dequantize %acc : !q -> tensor<64x128xbf16>
    %q1 = qs.quantize %d : tensor<64x128xbf16> -> !q
    scf.yield %q1 : !q
  }
  return %r : !q
}

// The same, unrolled.
func.func @unrolled(%x: tensor<64x128xbf16>) -> !q {
  %q0 = qs.quantize %x : tensor<64x128xbf16> -> !q
  %d0 = qs.dequantize %q0 : !q -> tensor<64x128xbf16>
  %q1 = qs.quantize %d0 : tensor<64x128xbf16> -> !q
  %d1 = qs.dequantize %q1 : !q -> tensor<64x128xbf16>
  %q2 = qs.quantize %d1 : tensor<64x128xbf16> -> !q
  %d2 = qs.dequantize %q2 : !q -> tensor<64x128xbf16>
  %q3 = qs.quantize %d2 : tensor<64x128xbf16> -> !q
  return %q3 : !q
}

// Delayed scaling's state through a loop: the amax each quantize returns
// is the next one's (with the same scale), and the last quantized tensor.
func.func @delayed_loop(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!d, tensor<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %q0, %a0 = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !d, tensor<1xf32>
  %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%q = %q0, %m = %a0) -> (!d, tensor<1xf32>) {
    %y = qs.dequantize %q : !d -> tensor<64x128xbf16>
    %q1, %m1 = qs.quantize %y scale(%s : tensor<1xf32>) amax(%m : tensor<1xf32>) : tensor<64x128xbf16> -> !d, tensor<1xf32>
    scf.yield %q1, %m1 : !d, tensor<1xf32>
  }
  return %r#0, %r#1 : !d, tensor<1xf32>
}

func.func @delayed_unrolled(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>) -> (!d, tensor<1xf32>) {
  %q0, %a0 = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !d, tensor<1xf32>
  %y0 = qs.dequantize %q0 : !d -> tensor<64x128xbf16>
  %q1, %a1 = qs.quantize %y0 scale(%s : tensor<1xf32>) amax(%a0 : tensor<1xf32>) : tensor<64x128xbf16> -> !d, tensor<1xf32>
  %y1 = qs.dequantize %q1 : !d -> tensor<64x128xbf16>
  %q2, %a2 = qs.quantize %y1 scale(%s : tensor<1xf32>) amax(%a1 : tensor<1xf32>) : tensor<64x128xbf16> -> !d, tensor<1xf32>
  return %q2, %a2 : !d, tensor<1xf32>
}

// A branch between two quantized values.
func.func @pick(%x: tensor<64x128xbf16>, %c: i1) -> !q {
  %r = scf.if %c -> (!q) {
    %q = qs.quantize %x : tensor<64x128xbf16> -> !q
    scf.yield %q : !q
  } else {
    %e = qs.empty : !q
    scf.yield %e : !q
  }
  return %r : !q
}
