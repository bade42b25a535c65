// x[i] for an i the caller gives: outside x for i >= 4 (qs-run.test).
func.func @gather(%x: tensor<4xf32>, %i: tensor<1xi32>) -> tensor<1xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %i[%c0] : tensor<1xi32>
  %j = arith.index_cast %v : i32 to index
  %e = tensor.extract %x[%j] : tensor<4xf32>
  %r = tensor.from_elements %e : tensor<1xf32>
  return %r : tensor<1xf32>
}
