// A dense array of index elements: MLIR 22.1's parser crashes on it
// (llvm-project issue 179045); qs-run says so instead of crashing.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {qs.x = array< index : 1, 2>} {
  return %x : tensor<4xf32>
}
