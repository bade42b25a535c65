//===- QSOps.td - proto-level qs operations ----------------*- tablegen -*-===//

#ifndef QS_DIALECT_QS_IR_QSOPS_TD
#define QS_DIALECT_QS_IR_QSOPS_TD

include "qs/Dialect/QS/IR/QSDialect.td"
include "qs/Dialect/QS/IR/QSTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def QS_QuantTensor : Type<CPred<"::llvm::isa<::mlir::qs::QuantTensorType>($_self)">,
    "quantized tensor", "::mlir::qs::QuantTensorType">;
def QS_F32ScalarTensor : Type<And<[
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getShape() == "
          "::llvm::ArrayRef<int64_t>{1}">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getElementType().isF32()">]>,
    "tensor<1xf32>", "::mlir::RankedTensorType">;
def QS_F32AmaxTensor : Type<And<[
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 1">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getDimSize(0) == 1 || "
          "::llvm::cast<::mlir::RankedTensorType>($_self).getDimSize(0) == 2">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getElementType().isF32()">]>,
    "tensor<1xf32> or tensor<2xf32>", "::mlir::RankedTensorType">;
def QS_RngStateTensor : Type<And<[
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getShape() == "
          "::llvm::ArrayRef<int64_t>{2}">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()"
          ".isInteger(64)">]>,
    "tensor<2xi64>", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// qs.empty
//===----------------------------------------------------------------------===//

def QS_EmptyOp : QS_Op<"empty", [Pure]> {
  let summary = "Allocate an uninitialised quantized tensor";
  let description = [{
    Creates a quantized tensor of the result type whose inner tensors hold
    unspecified values: TE's `TensorSpec.create_tensor()` /
    `Quantizer.make_empty`. `qs-expand-storage` turns it into one
    `tensor.empty` per inner tensor, joined by `qs.assemble`.

    Example:
    ```mlir
    %t = qs.empty : !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
    ```
  }];
  let results = (outs QS_QuantTensor:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

//===----------------------------------------------------------------------===//
// qs.quantize
//===----------------------------------------------------------------------===//

def QS_QuantizeOp : QS_Op<"quantize", [Pure, AttrSizedOperandSegments]> {
  let summary = "Quantize a high-precision tensor";
  let description = [{
    Quantizes `input` (a builtin tensor with the logical shape and nominal
    element type of the result) into every representation the result's
    quantizer asks for, with the numerics of TE's quantize kernels
    (`te-formats.md` §2.c, §3.c, §4.c, §5.c).

    Delayed scaling (`#qs.fp8_delayed`) quantizes with a scale owned by the
    recipe, so it takes two `tensor<1xf32>` operands, `scale(...)` and the
    amax state `amax(...)`, and returns, after the quantized tensor, the
    updated amax `max(amax, max|input|)` (TE's atomic amax update).

    Current scaling (`#qs.fp8_current`) and NVFP4 without row scales
    (`#qs.nvfp4`) may take `amax(...)` alone: the global amaxes to compute
    the scales (NVFP4: `S_enc`, and the stored amaxes) from, in place of
    the ones the quantize would compute (no updated amax is returned): a
    `tensor<1xf32>` holding `max|input|`, or for NVFP4 with `with_rht` a
    `tensor<2xf32>` holding `max|input|` (the row-wise representation's)
    and `max|RHT(input^T)|` (the column-wise one's), both present whatever
    the usages (`qs.amax` returns exactly these). This is TE's
    `with_amax_reduction`: with the tensor split across ranks (sequence or
    tensor parallelism), each rank takes `qs.amax` of its part, the ranks
    all-reduce (MAX) it with a collective of the user's choice, and each
    rank quantizes its part with the global amaxes, so that every part has
    the scales of the whole (`te-formats.md` §2.c step 2, §5.c). No other
    quantizer takes `scale(...)` or `amax(...)`.

    NVFP4 with `stochastic_rounding` draws its random bits from an rng
    state, `rng(...)`: a `tensor<2xi64>` holding (seed, offset), what TE
    takes from the PyTorch generator per quantize; advance the offset (or
    change the seed) between quantizes that should round independently.
    Element i of a stored representation takes byte i mod 4 (little
    endian) of word (i / 4) mod 4 of Philox4x32-10 with key (lo32(seed),
    hi32(seed)) and counter (lo32(g), hi32(g) + 2^31 * stream,
    lo32(offset), hi32(offset)), g = floor(i / 16), stream 0 for the
    row-wise codes and 1 for the column-wise ones (in their stored order):
    32 random bits per 4 values, as TE's `cvt.rs.satfinite.e2m1x4.f32`.
    With that byte b it rounds the scaled value to one of its two E2M1
    neighbours, up iff (b + 1/2) 2^-8 is below its distance from the
    lower one in units of their spacing: up with that probability rounded
    to a multiple of 2^-8 (docs/Numerics.md). The distribution is TE's;
    the bits are ours (TE's depend on its kernels, te-formats.md §9).
    Only such a quantizer takes `rng(...)`.

    Examples:
    ```mlir
    %q = qs.quantize %x : tensor<64x128xbf16>
           -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
    %d, %amax2 = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>)
           : tensor<64x128xbf16>
           -> !qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>
    %g = qs.quantize %dy rng(%state : tensor<2xi64>) : tensor<64x128xbf16>
           -> !qs.tensor<64x128xbf16, #qs.nvfp4<stochastic_rounding = true>>
    %c = qs.quantize %x amax(%all_reduced : tensor<1xf32>) : tensor<64x128xbf16>
           -> !qs.tensor<64x128xbf16, #qs.fp8_current<>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Optional<QS_F32ScalarTensor>:$scale,
                       Optional<QS_F32AmaxTensor>:$amax,
                       Optional<QS_RngStateTensor>:$rng);
  let results = (outs QS_QuantTensor:$result,
                      Optional<QS_F32ScalarTensor>:$updated_amax);
  let assemblyFormat = [{
    $input (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`amax` `(` $amax^ `:` type($amax) `)`)?
    (`rng` `(` $rng^ `:` type($rng) `)`)? attr-dict
    `:` type($input) `->` qualified(type($result)) (`,` type($updated_amax)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qs.amax
//===----------------------------------------------------------------------===//

def QS_AmaxOp : QS_Op<"amax", [Pure]> {
  let summary = "The tensor-wide amaxes a quantize computes";
  let description = [{
    Returns the global amaxes that `qs.quantize` of `input` into
    `quantized_type` would compute and scale with, exactly as it computes
    them (`te-formats.md` §2.c step 1, §5.c): for current scaling
    (`#qs.fp8_current`) and NVFP4 without the Hadamard transform a
    `tensor<1xf32>` holding `max|input|`; for NVFP4 with `with_rht` a
    `tensor<2xf32>` holding `max|input|` (the row-wise representation's
    amax) and `max|RHT(input^T)|` (the column-wise one's, the bf16
    transform of §5.e), both whatever the usages. Other quantizers have no
    such amax (delayed scaling uses the recipe's, MXFP8 and block FP8 only
    per-block ones, row-scaled NVFP4 one per row, which TE does not reduce
    across ranks): an error.

    Its result is what `qs.quantize ... amax(...)` takes: TE's amax
    reduction (`with_amax_reduction`) is `qs.amax` of each rank's part,
    an all-reduce (MAX) of the results across the ranks by a collective of
    the program's choice, then `qs.quantize` of each part with the reduced
    amaxes. A maximum is exact in any order, so a tensor split by rows
    (any multiple of 16 rows for RHT, whose 16-element blocks run along
    the rows) reduces to the whole tensor's amaxes, and each part is
    quantized with the scales of the whole. NaN elements are ignored and
    infinities kept, as by the quantize.

    The reference lowering reduces with linalg; `convert-qs-to-gpu` runs
    the quantize's own amax kernel (`qs_quantize_amax`, or with RHT
    `qs_quantize_rht_amax`, which takes both in one read of `input`).

    Example:
    ```mlir
    %local = qs.amax %x as !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
        : tensor<64x128xbf16> -> tensor<2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       TypeAttrOf<QS_QuantTensor>:$quantized_type);
  let results = (outs QS_F32AmaxTensor:$result);
  let assemblyFormat = [{
    $input `as` $quantized_type attr-dict `:` type($input) `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::qs::QuantTensorType getQuantizedTensorType() {
      return ::llvm::cast<::mlir::qs::QuantTensorType>(getQuantizedType());
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qs.bias_grad
//===----------------------------------------------------------------------===//

def QS_BiasGradOp : QS_Op<"bias_grad", [Pure]> {
  let summary = "The bias gradient: column sums of a gradient";
  let description = [{
    Returns `dbias[n] = sum over m of input[m, n]` of `input` folded to
    2-D by TE's rule (`te-formats.md` §0.1: M = the product of all but the
    last dimension, N = the last), rounded to the result's element type:
    the gradient of a bias added to every row, which TE's Linear backward
    computes next to the quantize of the output gradient
    (`tex.bgrad_quantize(dY, quantizer)` returns the bias gradient and the
    quantized dY). The result is a 1-D `tensor<N x T>`, T one of bf16, f16,
    f32 (TE's is dY's own type); the input is statically shaped, of rank 2
    or more, with positive dimensions (as `!qs.tensor`), of element type
    bf16, f16 or f32.

    The order of the FP32 additions is part of the op, so that every
    lowering gives the same bits: the rows are taken in chunks of 32
    (the last one shorter when M is not a multiple of 32); each chunk's
    column sums are FP32 sums in row order starting from +0.0, and
    `dbias[n]` is the FP32 sum of the chunks' sums in chunk order starting
    from +0.0, rounded to T by round-to-nearest-even (NaN propagates,
    written as the reference's quiet NaN; an all -0.0 column sums to +0.0).

    The reference lowering (`convert-qs-to-linalg`) spells the chunks as
    ordered `linalg.generic` reductions. `convert-qs-to-gpu` takes the
    chunk sums from the first cast kernel of a `qs.quantize` of the same
    input earlier in the same block (one read of the input for both, as
    TE's fused kernel), else from a kernel of its own (`qs_bias_grad_chunks`:
    one thread per chunk and group of up to 16 bytes of columns), into an
    FP32 workspace; then one thread per column sums the chunks
    (`qs_bias_grad`).

    Example:
    ```mlir
    %db = qs.bias_grad %dy : tensor<256x1024xbf16> -> tensor<1024xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qs.amax_and_scale_update
//===----------------------------------------------------------------------===//

def QS_F32HistoryTensor : Type<And<[
    CPred<"::llvm::isa<::mlir::RankedTensorType>($_self)">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getRank() == 1">,
    CPred<"::llvm::cast<::mlir::RankedTensorType>($_self).getElementType().isF32()">]>,
    "1-D f32 tensor", "::mlir::RankedTensorType">;

def QS_AmaxAndScaleUpdateOp : QS_Op<"amax_and_scale_update",
    [Pure, AllTypesMatch<["history", "updated_history"]>,
     AllTypesMatch<["scale", "updated_scale"]>]> {
  let summary = "Delayed scaling's step: roll the amax history, new scale";
  let description = [{
    The recipe step of TE's `DelayedScaling` after each iteration
    (`te-formats.md` §2.c; TE's
    `tex.fused_amax_and_scale_update_after_reduction`, the kernel of
    `transformer_engine/common/recipe/delayed_scaling.cu`), for one tensor:
    `history` is its amax history, a `tensor<L x f32>` (L >= 1, TE's
    `amax_history_len`, default 1024) whose element 0 is the current
    step's amax, the state `qs.quantize ... scale(...) amax(...)` updates;
    `scale` is the scale that quantize used. With `a0` the step's amax
    (`history[0]`, or the optional `amax` operand where it is not 0.0: TE's
    all-reduced `amax_reduction_buffer`, whose 0.0 means "take the
    history's"):

    * `updated_history` is the history rolled by one:
      `[0.0, history[2], ..., history[L-1], a0]` (element 0 zeroed for the
      next step's amax; L = 1 gives `[0.0]`);
    * with `amax_compute_algo = "max"` (the default) the amax is the
      maximum of 0.0, `a0` and `history[1..L-1]` ignoring NaN (`fmaxf`);
      with `"most_recent"` it is `a0` itself;
    * `updated_scale` is `(fp8_max * 2^-margin) / amax` (IEEE f32
      division, round to nearest even) if the amax is finite and > 0, else
      `scale` unchanged; an infinite result of either becomes FLT_MAX
      (`0x7F7FFFFF`, TE's `isinf(scale)` rule). `fp8_max` is 448 for
      `fp8_dtype = f8E4M3FN` (the default) and 57344 for `f8E5M2`; `margin`
      (default 0) is an integer in [-100, 100], so the constant
      `fp8_max * 2^-margin` is an exact, normal f32.

    Those are TE's bits for one tensor of its bulk kernel. The reference
    lowering (`convert-qs-to-linalg`) spells it with tensor and arith ops;
    `convert-qs-to-gpu` with a block of a kernel
    (`qs_amax_and_scale_update`), consecutive updates of a block of IR in
    one launch as TE's bulk kernel: each thread rolls and max-reduces a
    strided part of the history, thread 0 combines the parts and writes
    the scale. The results are fresh tensors (buffers that must not alias
    the operands'); the caller keeps them as the recipe's state.

    Example (TE's defaults; the gradient's E5M2 with a margin):
    ```mlir
    %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<1024xf32>, tensor<1xf32>
    %h3, %s3 = qs.amax_and_scale_update %h, %s amax(%reduced : tensor<1xf32>)
        {fp8_dtype = f8E5M2, margin = 1 : i64, amax_compute_algo = "most_recent"}
        : tensor<1024xf32>, tensor<1xf32>
    ```
  }];
  let arguments = (ins QS_F32HistoryTensor:$history,
                       QS_F32ScalarTensor:$scale,
                       Optional<QS_F32ScalarTensor>:$amax,
                       OptionalAttr<TypeAttr>:$fp8_dtype,
                       DefaultValuedAttr<I64Attr, "0">:$margin,
                       DefaultValuedStrAttr<StrAttr, "max">:$amax_compute_algo);
  let results = (outs QS_F32HistoryTensor:$updated_history,
                      QS_F32ScalarTensor:$updated_scale);
  let assemblyFormat = [{
    $history `,` $scale (`amax` `(` $amax^ `:` type($amax) `)`)? attr-dict
    `:` type($history) `,` type($scale)
  }];
  let extraClassDeclaration = [{
    /// fp8_dtype, f8E4M3FN where absent (the default).
    ::mlir::Type getFp8Format();
    /// fp8_max * 2^-margin (exact for a verified op).
    float getScaledMax();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qs.dequantize
//===----------------------------------------------------------------------===//

def QS_DequantizeOp : QS_Op<"dequantize", [Pure]> {
  let summary = "Dequantize a quantized tensor to a high-precision tensor";
  let description = [{
    Reconstructs the logical values, `q * scale_inv` per block, from the
    row-wise representation if present, else from the column-wise one
    (`te-formats.md` §2.d, §3.d, §4.d, §5.d). The result has the logical
    shape; its element type may be any of bf16, f16, f32 (TE's
    `dequantize(dtype=...)`). NVFP4 can only be dequantized from row-wise
    data.

    Example:
    ```mlir
    %x = qs.dequantize %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins QS_QuantTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` qualified(type($input)) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// qs.assemble / qs.disassemble
//===----------------------------------------------------------------------===//

def QS_AssembleOp : QS_Op<"assemble", [Pure]> {
  let summary = "Build a quantized tensor from its inner tensors";
  let description = [{
    TE's `__tensor_unflatten__`: the operands are the inner tensors of the
    result type, exactly those `QuantizerAttrInterface` describes for the
    target chip, in interface order, with their exact types.

    Folds `qs.assemble` of the results of one `qs.disassemble`, in order and
    of the same type, to the disassembled value.

    Example:
    ```mlir
    %q = qs.assemble %data, %scale
        : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
        -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs QS_QuantTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` type($inputs) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def QS_DisassembleOp : QS_Op<"disassemble", [Pure]> {
  let summary = "Take a quantized tensor apart into its inner tensors";
  let description = [{
    TE's `__tensor_flatten__`: the results are the inner tensors of the
    operand type, in interface order, with their exact types.

    Folds `qs.disassemble(qs.assemble(x...))` to `x...`.

    Example:
    ```mlir
    %data, %scale = qs.disassemble %q
        : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
        -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    ```
  }];
  let arguments = (ins QS_QuantTensor:$input);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` type($outputs)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// qs.update_usage
//===----------------------------------------------------------------------===//

def QS_UpdateUsageOp : QS_Op<"update_usage", [Pure]> {
  let summary = "Add or drop representations of a quantized tensor";
  let description = [{
    TE's `update_usage(rowwise_usage=, columnwise_usage=)`: the result type is
    the operand type with other usage flags. Dropping a representation is
    always allowed; creating one only where the format allows it
    (`te-formats.md` §1.2): the per-tensor FP8 `transpose` from `data` on
    TN-only chips, column-wise from row-wise for 2-D block FP8
    (`block_scaling_dim = 2`) and 2-D NVFP4 without RHT. MXFP8 and 1-D block
    FP8 can never create a representation. An `update_usage` to the same
    type folds away.

    Example:
    ```mlir
    %r = qs.update_usage %q : !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>>
                           -> !qs.tensor<128x128xbf16, #qs.fp8_block<>>
    ```
  }];
  let arguments = (ins QS_QuantTensor:$input);
  let results = (outs QS_QuantTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// qs.gemm
//===----------------------------------------------------------------------===//

def QS_GemmOp : QS_Op<"gemm", [Pure, AttrSizedOperandSegments]> {
  let summary = "Matrix product of two quantized tensors";
  let description = [{
    `result = op(a) * op(b) (+ bias) (+ accumulate)` with FP32 accumulation,
    where operands are viewed as 2-D matrices by TE's rule (last dimension
    `K`, all leading dimensions folded into `M`), `op(a)` is `a` or, with
    `transpose_a`, its transpose, and likewise for `b`. With `op(a)` of shape
    `[m, k]` and `op(b)` of shape `[k, n]` the result is `[m, n]`, except that
    a non-transposed `a` keeps its leading dimensions: `a.shape[:-1] + [n]`.
    The optional `bias` is a 1-D tensor of size `n` added to every row; the
    optional `accumulate` operand has the result type and is added
    (TE's `accumulate=True`). The result element type is bf16, f16 or f32,
    or the result is quantized (below).

    `fast_accumulate` allows the tensor cores to sum the products in their
    own precision (TE's `use_split_accumulator=False`, cuBLASLt's
    `FAST_ACCUM`): Hopper's FP8 `wgmma` keeps about 14 bits of the running
    sum, so only the absence of the flag guarantees FP32 accumulation. It
    changes the sm_90a per-tensor FP8 kernel alone, which then sums all of
    K in the tensor core (the fastest kernel, 128x256 tiles by default
    where they fill the GPU, and the ping-pong schedule available); without
    it that kernel promotes each 128-wide block of K into FP32 registers
    (CUTLASS's and DeepGEMM's promotion, cuBLASLt's default; 128x128 tiles,
    or 128x256 with `qs.gemm_tile_n = 256`, promoted in two 128-column
    chunks, or 128x192 with 192, in two 96-column chunks). The block-scaled kernels promote every
    scale block anyway (TE forces the split accumulator for block scaling),
    sm_100a's `tcgen05` accumulates in FP32, and the CPU reference sums in
    FP32 either way. TE's Linear: fprop fast, dgrad and wgrad split
    (`te-formats.md` §6.2).

    Each operand must carry the representation its contraction needs: an
    operand contracted over its last dimension (`a` without `transpose_a`,
    `b` with `transpose_b`) needs its **row-wise** usage, one contracted over
    its first dimension its **column-wise** usage. Both operands must use
    compatible scaling modes (both per-tensor FP8, both MXFP8, both NVFP4, or
    both block FP8 but not both 128x128). NVFP4 column-wise data quantized
    with the random Hadamard transform (`with_rht`) holds `RHT(x^T)`; the
    orthogonal transform cancels only when both operands' contracted data
    carry it, so either both contract transformed data or neither does (TE
    gives no error and returns a wrong product; TE's recipe puts `with_rht`
    on inputs and gradients, whose column-wise data the wgrad GEMM
    contracts, never on weights).

    Mapping to TE's `general_gemm(A, B, layout)` (`te-formats.md` §6.1):
    `general_gemm(A, B, "XY")` equals
    `qs.gemm B, A` with `transpose_a` iff `Y == "T"` and `transpose_b` iff
    `X == "T"`. A Linear layer:

    | TE | qs |
    |---|---|
    | fprop `general_gemm(W, X, "TN")`, `Y = X Wᵀ` | `qs.gemm %x, %w transpose_b fast_accumulate` |
    | dgrad `general_gemm(W, dY, "NN")`, `dX = dY W` | `qs.gemm %dy, %w` |
    | wgrad `general_gemm(X, dY, "NT")`, `dW = dYᵀ X` | `qs.gemm %dy, %x transpose_a` |

    **Output quantizer.** The result may be a quantized tensor,
    `!qs.tensor<shape x T, #quantizer>` (TE's
    `general_gemm(..., quantization_params=quantizer)`): the product is
    quantized by the result's quantizer as `qs.quantize` would (every
    usage and scale layout the quantizer asks for), `T` being the GEMM's
    high-precision output type (TE's `out_dtype`). Which values are
    quantized follows TE (`gemm.cpp`):

    - **Fused** (a `#qs.fp8_delayed` result and per-tensor FP8 operands;
      cuBLASLt's FP8 output, `D_SCALE_POINTER` / `AMAX_D_POINTER`): the
      FP32 values `D = scale_inv_a * scale_inv_b * acc (+ bias)` are
      quantized directly, `q = fp8_rn_sat(D * scale)`, the amax taken over
      the unscaled `D`: no rounding to `T` in between.
    - **Unfused** (every other quantizer, or operands of another format):
      the product is rounded to `T` first, then quantized (TE's GEMM into
      a `T` buffer followed by `quantizer.quantize`); `T` must then be an
      output type the operands' format supports.

    A delayed-scaling result (`#qs.fp8_delayed`) takes the recipe's
    `scale(...)` and amax state `amax(...)` operands and returns the updated
    amax `max(amax, max|D|)` as a second result, as `qs.quantize` does; no
    other result takes them. A quantized result cannot be accumulated into
    (`accumulate` needs a high-precision result).

    Examples:
    ```mlir
    %y = qs.gemm %x, %w transpose_b fast_accumulate
        : !qs.tensor<128x256xbf16, #qs.fp8_current<>>,
          !qs.tensor<512x256xbf16, #qs.fp8_current<>> -> tensor<128x512xbf16>
    %h, %amax2 = qs.gemm %x, %w transpose_b
        scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>)
        : !qs.tensor<128x256xbf16, #qs.fp8_delayed<>>,
          !qs.tensor<512x256xbf16, #qs.fp8_delayed<>>
        -> !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>,
           tensor<1xf32>
    ```
  }];
  let arguments = (ins QS_QuantTensor:$a, QS_QuantTensor:$b,
                       Optional<AnyRankedTensor>:$bias,
                       Optional<AnyRankedTensor>:$accumulate,
                       Optional<QS_F32ScalarTensor>:$scale,
                       Optional<QS_F32ScalarTensor>:$amax,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$fast_accumulate);
  let results = (outs AnyTypeOf<[AnyRankedTensor, QS_QuantTensor]>:$result,
                      Optional<QS_F32ScalarTensor>:$updated_amax);
  let assemblyFormat = [{
    $a `,` $b (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`fast_accumulate` $fast_accumulate^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`accumulate` `(` $accumulate^ `:` type($accumulate) `)`)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    (`amax` `(` $amax^ `:` type($amax) `)`)? attr-dict
    `:` qualified(type($a)) `,` qualified(type($b)) `->` qualified(type($result))
    (`,` type($updated_amax)^)?
  }];
  let extraClassDeclaration = [{
    /// The quantized result type (the output quantizer), or null for a
    /// high-precision result.
    ::mlir::qs::QuantTensorType getQuantizedResultType() {
      return ::llvm::dyn_cast<::mlir::qs::QuantTensorType>(getResult().getType());
    }
    /// The high-precision tensor the product is computed into before the
    /// output quantizer applies: the result type itself, or for a quantized
    /// result FP32 when the result quantization is fused (delayed-scaling
    /// result, per-tensor FP8 operands) and the nominal type otherwise.
    ::mlir::RankedTensorType getProductType();
    /// Whether the output quantizer applies to the FP32 product (cuBLASLt's
    /// FP8 output with D_SCALE/AMAX_D) rather than to the product rounded to
    /// the nominal type (TE's unfused GEMM + quantize).
    bool isResultQuantizationFused();
  }];
  let hasVerifier = 1;
}

include "qs/Dialect/QS/IR/QSBufferOps.td"

#endif // QS_DIALECT_QS_IR_QSOPS_TD
