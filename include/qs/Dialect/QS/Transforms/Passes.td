//===- Passes.td - qs dialect passes -----------------------*- tablegen -*-===//

#ifndef QS_DIALECT_QS_TRANSFORMS_PASSES_TD
#define QS_DIALECT_QS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def QSDescribeStoragePass : Pass<"qs-describe-storage", "::mlir::ModuleOp"> {
  let summary = "Print the inner tensors of every quantized function argument "
                "and result";
  let description = [{
    The command-line form of TE's `TensorSpec.inner_tensor_specs()`. For every
    function (any `FunctionOpInterface` op) and every argument and result of
    `!qs.tensor` type, prints to standard output a header line followed by one
    line per inner tensor, in `QuantizerAttrInterface` order, for the chip
    named by `qs.chip` (default `sm_90a`). The IR is not changed.

    The output format is stable:
    ```
    @FUNC arg N: TYPE
      NAME : tensor<SHAPExELEMTYPE>
    @FUNC result N: TYPE
      NAME : tensor<SHAPExELEMTYPE>
    ```
    With `metadata=true`, each header is followed by a line
    `  metadata: {...}` holding the non-tensor flatten context (storage class,
    element format, `fake_dtype`, family extras).

    Example: for
    ```mlir
    func.func private @f(!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>)
    ```
    it prints
    ```
    @f arg 0: !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
      rowwise_data : tensor<64x128xf8E4M3FN>
      rowwise_scale_inv : tensor<128x4xf8E8M0FNU>
    ```
  }];
  let options = [
    Option<"metadata", "metadata", "bool", /*default=*/"false",
           "Also print the non-tensor storage metadata">,
  ];
}

def QSInferUsagePass : Pass<"qs-infer-usage"> {
  let summary = "Give every quantized value exactly the usages its consumers "
                "need";
  let description = [{
    Computes, from how each quantized value is consumed, the minimal
    row-wise/column-wise usage of its producer and rewrites the types, so
    that unused representations are never produced (TE users set these flags
    by hand). Consumers and what they need:

    * `qs.gemm` operand `a`: row-wise, or column-wise with `transpose_a`;
      operand `b`: column-wise, or row-wise with `transpose_b` (an operand
      contracted over its last dimension needs row-wise, over its first
      dimension column-wise);
    * `qs.dequantize`: either representation (NVFP4: row-wise);
    * `qs.update_usage`: the usages of its result, which its producer then
      provides directly (the `update_usage` becomes a no-op and is removed);
    * `func.return`, `func.call`, `qs.disassemble` and ops that do not know
      qs: the usages of the value's current type, which then cannot change.

    Values forwarded by control flow (`cf.br`/`cf.cond_br`/`cf.switch` block
    arguments, `scf.if`/`scf.for`/`scf.while` results, region arguments and
    yields) share one type and are rewritten together. Producers that are
    rewritten: `qs.quantize`, `qs.empty`, `qs.update_usage`. Function
    arguments, call results and `qs.assemble` results keep their declared
    types, and so does a value nobody consumes.

    A consumer can never need a usage its operand lacks: the verifiers
    reject that before any pass runs (`qs.gemm` names the operand, the
    contraction and the missing usage; `qs.update_usage` names the
    representation a format cannot derive, e.g. column-wise from a 1x128
    block-scaled value produced row-wise only). Starting from verified IR the
    pass always succeeds, and the IR it leaves produces no representation
    the input did not (a representation an `update_usage` created moves into
    its producer).

    Example (a Linear layer's forward only: no column-wise buffers remain):
    ```mlir
    %qx = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8>
    %qw = qs.quantize %w : tensor<1024x512xbf16> -> !qs.tensor<1024x512xbf16, #qs.mxfp8>
    %y = qs.gemm %qx, %qw transpose_b : ... -> tensor<256x1024xbf16>
    ```
    becomes
    ```mlir
    %qx = qs.quantize %x : tensor<256x512xbf16>
        -> !qs.tensor<256x512xbf16, #qs.mxfp8<columnwise = false>>
    %qw = qs.quantize %w : tensor<1024x512xbf16>
        -> !qs.tensor<1024x512xbf16, #qs.mxfp8<columnwise = false>>
    ```
  }];
}

def QSSelectScaleLayoutPass : Pass<"qs-select-scale-layout"> {
  let summary = "Make producers of GEMM operands write GEMM-swizzled scales";
  let description = [{
    cuBLAS-style block-scaled GEMMs read MXFP8 and NVFP4 scales in the
    128x4-tiled (GEMM-swizzled) layout of te-formats.md §3.b. TE and torchao
    quantize into the compact layout and run a separate swizzle kernel before
    every GEMM. This pass sets `optimize_for_gemm = true` on every MXFP8 or
    NVFP4 value that feeds a `qs.gemm` operand, so its producer writes the
    swizzled layout directly. Rule: a value (with the values control flow
    ties to it, and the values `qs.update_usage` ties to it, which must share
    the layout) is switched when any of them is a `qs.gemm` operand and all
    of their types may change (no function argument, call result, return or
    unknown consumer among them). Other values are left as they are:
    compact unless the user asked otherwise. Formats without a swizzled
    layout are untouched.

    Example:
    ```mlir
    %q = qs.quantize %x : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.mxfp8>
    %y = qs.gemm %q, %w transpose_b : ...
    ```
    becomes
    ```mlir
    %q = qs.quantize %x : tensor<256x512xbf16>
        -> !qs.tensor<256x512xbf16, #qs.mxfp8<optimize_for_gemm = true>>
    ```
  }];
}

def QSExpandStoragePass : Pass<"qs-expand-storage"> {
  let summary = "Lower proto-level ops to explicit inner-buffer allocations "
                "and buffer-level ops";
  let description = [{
    Rewrites every proto-level op into the buffer-level form, keeping
    quantized values as one `!qs.tensor` joined by `qs.assemble`:

    * `qs.empty` -> one `tensor.empty` per inner tensor (interface order),
      joined by `qs.assemble` (TE's `assemble(create_inner_tensors())`);
    * `qs.quantize` -> `tensor.empty`s + `qs.quantize_buffers` + `qs.assemble`;
    * `qs.dequantize` -> `qs.disassemble` + `tensor.empty` +
      `qs.dequantize_buffers`;
    * `qs.gemm` -> `qs.disassemble` of both operands + `tensor.empty` (or the
      accumulate operand) + `qs.gemm_buffers`;
    * `qs.update_usage` -> `qs.disassemble`, `qs.update_usage_buffers` for
      the inner tensors it creates (none when it only drops), `qs.assemble`.

    Afterwards no proto-level op remains; canonicalization removes the
    `qs.disassemble(qs.assemble(...))` pairs. Each buffer-level op keeps its
    proto-level op's discardable attributes (`qs.chip`, the GEMM kernel
    options `qs.gemm_tile_n` / `qs.gemm_persistent` / `qs.gemm_cluster`),
    which the later passes look up on the op or its ancestors. An op whose
    `qs.chip` differs from the one of the operation the pass runs on is
    reported first (one chip per module), and nothing is changed.

    Example:
    ```mlir
    %q = qs.quantize %x : tensor<64x128xbf16>
        -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
    ```
    becomes
    ```mlir
    %0 = tensor.empty() : tensor<64x128xf8E4M3FN>
    %1 = tensor.empty() : tensor<128x4xf8E8M0FNU>
    %2:2 = qs.quantize_buffers %x outs(%0, %1 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
        as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    %q = qs.assemble %2#0, %2#1 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
        -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def QSFlattenStoragePass : Pass<"qs-flatten-storage", "::mlir::ModuleOp"> {
  let summary = "Replace every !qs.tensor value by its inner tensors (1:N)";
  let description = [{
    A 1:N type conversion after which no `!qs.tensor` type remains: function
    signatures (all blocks), `func.call`, `func.return`, `cf.br`,
    `cf.cond_br`, `cf.switch`, `scf.if`/`scf.for`/`scf.while`, and
    `arith.select` carry the inner tensors instead (interface order);
    `qs.assemble`/`qs.disassemble` pairs disappear. This is TE's
    `__tensor_flatten__` at a custom-op boundary.

    Argument and result attributes survive (copied to every inner tensor),
    and each flattened argument and result carries `qs.inner = "<name>"`
    (the inner tensor), `qs.origin = <index>` (the original argument or
    result index) and `qs.type = <the quantized type>`, so a caller in
    another compiler can map buffers back.

    Run it after `qs-expand-storage`: proto-level ops left in the input, and
    any other op that uses a `!qs.tensor` value, are reported (naming the
    op) and nothing is changed. The chip is the module's `qs.chip`.

    Example:
    ```mlir
    func.func @f(%q: !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>)
    ```
    becomes
    ```mlir
    func.func @f(%d: tensor<64x128xf8E4M3FN> {qs.inner = "rowwise_data", qs.origin = 0 : i64, qs.type = !qs.tensor<...>},
                 %s: tensor<128x4xf8E8M0FNU> {qs.inner = "rowwise_scale_inv", qs.origin = 0 : i64, qs.type = !qs.tensor<...>})
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def QSStripFlattenAttributesPass : Pass<"qs-strip-flatten-attributes"> {
  let summary = "Remove the qs.inner / qs.origin / qs.type argument and "
                "result attributes";
  let description = [{
    `qs-flatten-storage` tags every flattened function argument and result
    with `qs.inner`, `qs.origin` and `qs.type` so that callers can map
    buffers back. Consumers that do not need that mapping (the CPU pipeline,
    before converting to LLVM, whose translation would warn about unknown
    parameter attributes) remove them with this pass. Other attributes are
    kept.

    Example:
    ```mlir
    func.func private @f(tensor<4xf32> {qs.inner = "data", qs.origin = 0 : i64, test.keep})
    ```
    becomes
    ```mlir
    func.func private @f(tensor<4xf32> {test.keep})
    ```
  }];
}

def QSApproximateMathPass : Pass<"qs-approximate-math"> {
  let summary = "Rewrite transcendental math ops of linalg payloads into "
                "polynomial approximations (the same bits on CPU and GPU)";
  let description = [{
    In the payload of every linalg op on tensors (the element-wise ops a
    program writes between qs ops: GELU's `math.tanh`, SiLU's `math.exp`,
    `math.erf`), rewrites `math.tanh`, `exp`, `expm1`, `log`, `log2`,
    `log1p` and `erf` into MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`), f16 and bf16 operands
    computed in f32 (`populateMathF32ExpansionPatterns`). The
    approximations are `arith` ops and `math.fma`, each an exact IEEE
    operation on both targets, so `qs-cpu-pipeline` and
    `qs-nvptx-pipeline` (which run this pass) give the same bits, where
    libm and libdevice (whose `tanhf` uses `ex2.approx`) would not. They
    are within 4.5 ulp of the exact value in f32 (measured on 200,000
    random arguments each against float64: tanh 4.4, erf 4.3, expm1 2.4,
    log1p 2.0, log2 1.4, exp 1.0, log 0.8; `docs/Numerics.md`,
    "Element-wise math"). Other math functions stay as they are (libm on
    the CPU, libdevice on the GPU; the last bits may differ): MLIR's
    approximations of sin, cos, atan and cbrt, and the expansions of sinh,
    exp2 and powf through exp and log, lose far more near some arguments.
    Exact ops (`absf`, `sqrt`, `fma`, `copysign`, `floor`, rounding) and
    ops outside linalg payloads (the qs kernels' own) are left alone.

    Example: `%t = math.tanh %x : f32` in a `linalg.map` becomes the
    clamped rational approximation of tanh in `arith.mulf`, `math.fma`,
    `arith.divf` and `arith.select` ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def QSDistinctReturnedBuffersPass : Pass<"qs-distinct-returned-buffers"> {
  let summary = "Copy every buffer a function returns more than once";
  let description = [{
    Makes the memref operands of every `func.return` distinct: the second
    and later occurrences of one value are replaced by a new allocation of
    the same (static) type holding a copy of it. The bufferization passes
    (`qs-cpu-pipeline`, `qs-nvptx-pipeline`) run it before
    `buffer-results-to-out-params{hoist-static-allocs}`, which then lets a
    function write its results straight into the caller's out-parameters
    instead of into allocations copied there at the end, but which crashes
    in MLIR 22.1.8 on a function that returns one buffer twice (MXFP8 and
    NVFP4 2-D quantizations return equal row- and column-wise data). A
    buffer of dynamic shape is left alone (not hoisted either).

    Example:
    ```mlir
    func.func @f() -> (memref<4xf32>, memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      "test.fill"(%a) : (memref<4xf32>) -> ()
      return %a, %a : memref<4xf32>, memref<4xf32>
    }
    ```
    becomes
    ```mlir
    func.func @f() -> (memref<4xf32>, memref<4xf32>) {
      %a = memref.alloc() : memref<4xf32>
      "test.fill"(%a) : (memref<4xf32>) -> ()
      %b = memref.alloc() : memref<4xf32>
      memref.copy %a, %b : memref<4xf32> to memref<4xf32>
      return %a, %b : memref<4xf32>, memref<4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def QSOrderConstantGlobalsPass
    : Pass<"qs-order-constant-globals", "::mlir::ModuleOp"> {
  let summary = "Give the constant globals of bufferization a deterministic "
                "order and names";
  let description = [{
    One-shot module bufferization turns every tensor constant into a
    private constant `memref.global` named `__constant_<type>` (`_0`, `_1`,
    ... for further values of one type) in the order it bufferizes the
    functions, which in MLIR 22.1.8 varies from run to run (with or
    without threads) when several functions hold constants: the same input
    then compiles to differently ordered, differently named globals
    (`test/Reliability/determinism.test`). This pass sorts the private
    constant globals of each module by type, then initial value, moves
    them to the front of the module in that order and renames them
    `__constant_<type>`, `__constant_<type>_1`, ... in it, updating every
    `memref.get_global`. `qs-cpu-pipeline` and `qs-nvptx-pipeline` run it
    after bufferization. Other globals and symbols are left alone (a name
    another symbol holds gets a further suffix).

    Example:
    ```mlir
    memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[1.0, 2.0]>
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[0.5, 2.0]>
    ```
    becomes, whichever was created first,
    ```mlir
    memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
    memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.000000e-01, 2.000000e+00]>
    ```
    (the order of the types' and values' printed forms).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def QSLowerAssertsPass : Pass<"qs-lower-asserts", "::mlir::ModuleOp"> {
  let summary = "Lower cf.assert to a branch to puts and abort, in time "
                "linear in the function";
  let description = [{
    Replaces every `cf.assert %cond, "message"` by a conditional branch:
    when `%cond` holds, to a new block that continues with the operations
    that followed the assert; otherwise to a new block that passes the
    message to `puts` (`llvm.call`, the message a NUL-terminated private
    global `assert_msg...`), calls `abort` and ends in `llvm.unreachable`.
    `puts`, `abort` and the message globals are declared once in the
    assert's nearest symbol table (the module, or a nested `gpu.module` or
    `builtin.module`, whose functions call its own symbols); asserts with
    the same message share its global, and within a region its failure
    block.
    This is what `convert-cf-to-llvm` does with an assert (the same calls,
    the same message), apart from the branch, which stays a `cf.cond_br`
    for `convert-cf-to-llvm` to lower, the shared globals and blocks, and
    the message globals' numbering. An assert whose parent op holds a
    single block (`scf.for`, `scf.if`) cannot become a branch and is
    reported; so is a symbol `puts` or `abort` of that symbol table that is
    not an `llvm.func` of the type the calls need.

    Why: `convert-cf-to-llvm` splits each assert's block inside the dialect
    conversion, which moves the operations after the assert one at a time
    and records each move; a block with n asserts among m operations costs
    O(n m) (MLIR 22.1.8). `generate-runtime-verification` puts one assert
    (or several) before every memref access, so the emulated GPU kernels
    with `qs-cpu-pipeline{runtime-checks}` have hundreds of asserts in long
    blocks: `convert-cf-to-llvm` took up to 39% of the pipeline's time on
    them. This pass splits each block at its last assert first, so every
    operation moves once, and uses a symbol table for the declarations and
    message globals. `qs-cpu-pipeline` runs it right before
    `convert-cf-to-llvm` when it has runtime checks.

    Example:
    ```mlir
    func.func @f(%c: i1) {
      cf.assert %c, "out of bounds"
      "test.use"() : () -> ()
      return
    }
    ```
    becomes
    ```mlir
    llvm.mlir.global private constant @assert_msg("out of bounds\00") {addr_space = 0 : i32}
    llvm.func @abort()
    llvm.func @puts(!llvm.ptr)
    func.func @f(%c: i1) {
      cf.cond_br %c, ^bb1, ^bb2
    ^bb1:
      "test.use"() : () -> ()
      return
    ^bb2:
      %0 = llvm.mlir.addressof @assert_msg : !llvm.ptr
      llvm.call @puts(%0) : (!llvm.ptr) -> ()
      llvm.call @abort() : () -> ()
      llvm.unreachable
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // QS_DIALECT_QS_TRANSFORMS_PASSES_TD
