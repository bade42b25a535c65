// A linalg.reduce whose dimensions list does not lex: MLIR 22.1's parser
// crashes on it (llvm-project issue 132747); qs-run says so instead.
func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = linalg.reduce ins(%x : tensor<4xf32>) outs(%z : tensor<f32>) dimensions = [`]
    (%v: f32, %acc: f32) {
      linalg.yield %v : f32
    }
  return %r : tensor<f32>
}
