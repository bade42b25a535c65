// TransformerEngine's MLP block without its LayerNorm (TE LayerNormMLP with
// activation="gelu", bias=False; hidden 512, FFN 1024, 256 tokens), forward
// and backward, with the Float8CurrentScaling recipe (HYBRID: E4M3 for X, W
// and the activation, E5M2 for the gradients):
//
//   fc1 fprop   H  = X W1^T              TE general_gemm(W1, X, "TN")
//   GELU        A  = gelu(H)             TE's tanh approximation, in f32
//   fc2 fprop   Y  = A W2^T              TE general_gemm(W2, A, "TN")
//   fc2 dgrad   dA = dY W2               TE general_gemm(W2, dY, "NN")
//   fc2 wgrad   dW2 = dY^T A             TE general_gemm(A, dY, "NT")
//   dGELU       dH = dA * gelu'(H)       TE's dgelu, in f32
//   fc1 dgrad   dX = dH W1
//   fc1 wgrad   dW1 = dH^T X
//
// The GELU and dGELU between the GEMMs are linalg ops on tensors: with
// qs-nvptx-pipeline each becomes a GPU kernel (qs-elementwise-to-gpu,
// docs/GPU.md "Element-wise ops between qs ops"), its tanh the polynomial
// of qs-approximate-math, so the CPU reference and the GPU compute the same
// bits. TE fuses the activation into the quantize of A and dH (its
// gelu/dgelu cast kernels); here they are kernels of their own.

!x = !qs.tensor<256x512xbf16, #qs.fp8_current>
!w1 = !qs.tensor<1024x512xbf16, #qs.fp8_current>
!a = !qs.tensor<256x1024xbf16, #qs.fp8_current>
!w2 = !qs.tensor<512x1024xbf16, #qs.fp8_current>
!dy = !qs.tensor<256x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
!dh = !qs.tensor<256x1024xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp_fwd(%x: tensor<256x512xbf16>, %w1: tensor<1024x512xbf16>,
                   %w2: tensor<512x1024xbf16>)
    -> (tensor<256x512xbf16>, !x, !w1, tensor<256x1024xbf16>, !a, !w2) {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw1 = qs.quantize %w1 : tensor<1024x512xbf16> -> !w1
  %h = qs.gemm %qx, %qw1 transpose_b fast_accumulate : !x, !w1 -> tensor<256x1024xbf16>
  // TE's gelu: 0.5 x (1 + tanh(0.79788456 x (1 + 0.044715 x^2))).
  %e = tensor.empty() : tensor<256x1024xbf16>
  %act = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<256x1024xbf16>) outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%hv: bf16, %o: bf16):
    %v = arith.extf %hv : bf16 to f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.79788456 : f32
    %k1 = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %p = arith.mulf %k1, %v2 : f32
    %q = arith.addf %one, %p : f32
    %r = arith.mulf %k0, %v : f32
    %u = arith.mulf %r, %q : f32
    %t = math.tanh %u : f32
    %s = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %v : f32
    %g = arith.mulf %hx, %s : f32
    %gb = arith.truncf %g : f32 to bf16
    linalg.yield %gb : bf16
  } -> tensor<256x1024xbf16>
  %qa = qs.quantize %act : tensor<256x1024xbf16> -> !a
  %qw2 = qs.quantize %w2 : tensor<512x1024xbf16> -> !w2
  %y = qs.gemm %qa, %qw2 transpose_b fast_accumulate : !a, !w2 -> tensor<256x512xbf16>
  return %y, %qx, %qw1, %h, %qa, %qw2
      : tensor<256x512xbf16>, !x, !w1, tensor<256x1024xbf16>, !a, !w2
}

func.func @mlp_bwd(%dy: tensor<256x512xbf16>, %qx: !x, %qw1: !w1,
                   %h: tensor<256x1024xbf16>, %qa: !a, %qw2: !w2)
    -> (tensor<256x512xbf16>, tensor<1024x512xf32>, tensor<512x1024xf32>) {
  %qdy = qs.quantize %dy : tensor<256x512xbf16> -> !dy
  %da = qs.gemm %qdy, %qw2 : !dy, !w2 -> tensor<256x1024xbf16>
  %dw2 = qs.gemm %qdy, %qa transpose_a : !dy, !a -> tensor<512x1024xf32>
  // TE's dgelu: 0.5 x (1 - t^2) (0.79788456 + 0.1070322243 x^2)
  // + 0.5 (1 + t), t = tanh(0.79788456 x (1 + 0.044715 x^2)); times dA.
  %e = tensor.empty() : tensor<256x1024xbf16>
  %dact = linalg.generic {indexing_maps = [#id, #id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%da, %h : tensor<256x1024xbf16>, tensor<256x1024xbf16>)
      outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%gv: bf16, %hv: bf16, %o: bf16):
    %grad = arith.extf %gv : bf16 to f32
    %v = arith.extf %hv : bf16 to f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.79788456 : f32
    %k1 = arith.constant 0.044715 : f32
    %k2 = arith.constant 0.1070322243 : f32
    %v2 = arith.mulf %v, %v : f32
    %p = arith.mulf %k1, %v2 : f32
    %q = arith.addf %one, %p : f32
    %r = arith.mulf %k0, %v : f32
    %u = arith.mulf %r, %q : f32
    %t = math.tanh %u : f32
    %tt = arith.mulf %t, %t : f32
    %omt = arith.subf %one, %tt : f32
    %kv = arith.mulf %k2, %v2 : f32
    %kk = arith.addf %k0, %kv : f32
    %hx = arith.mulf %half, %v : f32
    %l = arith.mulf %hx, %omt : f32
    %lt = arith.mulf %l, %kk : f32
    %opt = arith.addf %one, %t : f32
    %rt = arith.mulf %half, %opt : f32
    %d = arith.addf %lt, %rt : f32
    %dh = arith.mulf %grad, %d : f32
    %dhb = arith.truncf %dh : f32 to bf16
    linalg.yield %dhb : bf16
  } -> tensor<256x1024xbf16>
  %qdh = qs.quantize %dact : tensor<256x1024xbf16> -> !dh
  %dx = qs.gemm %qdh, %qw1 : !dh, !w1 -> tensor<256x512xbf16>
  %dw1 = qs.gemm %qdh, %qx transpose_a : !dh, !x -> tensor<1024x512xf32>
  return %dx, %dw1, %dw2 : tensor<256x512xbf16>, tensor<1024x512xf32>, tensor<512x1024xf32>
}
