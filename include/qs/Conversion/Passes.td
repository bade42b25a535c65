//===- Passes.td - qs conversion passes --------------------*- tablegen -*-===//

#ifndef QS_CONVERSION_PASSES_TD
#define QS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertQSToLinalgPass : Pass<"convert-qs-to-linalg"> {
  let summary = "Lower buffer-level qs ops to the bit-exact reference "
                "computation in linalg/arith/tensor";
  let description = [{
    The target-independent reference of quant-storage's numerics, runnable on
    the CPU: every buffer-level op (`qs.quantize_buffers`,
    `qs.dequantize_buffers`, `qs.gemm_buffers`, `qs.update_usage_buffers`),
    `qs.amax`, `qs.bias_grad` (its chunk sums in the op's order) and
    `qs.amax_and_scale_update` (tensor slices, a `linalg.reduce` of
    `arith.maxnumf`, the scale's scalar arith) becomes
    `linalg.generic`s on tensors whose bodies use only IEEE f32
    arithmetic (round to nearest even) and the exact integer emulation of the
    FP8/FP4/E8M0 conversions (`FloatEmulation.h`). Run after
    `qs-expand-storage` (flattened or not).

    Quantization is bit-exact to te-formats.md §2.c-§5.c for every family and
    usage: per-tensor delayed (scale operand, amax update) and current
    scaling (`compute_scale_from_amax`: epsilon, power-of-two, inf), MXFP8
    1-D and 2-D (E8M0 rounded up), FP8 block 1-D and 2-D (GEMM-ready scale
    layouts, partial edge blocks), NVFP4 1-D and 2-D two-level scaling with
    packed nibbles, row-scaled NVFP4, and the RHT (exact products by s / 4,
    four f32 butterfly stages, rounded to bf16; docs/Numerics.md); scales compact or GEMM-swizzled as the
    quantizer says, padding zero. NVFP4 stochastic rounding draws the
    random word of each code from the rng state operand (Philox4x32-10,
    docs/Numerics.md) and rounds to a neighbouring E2M1 value, up with
    probability equal to the distance in units of their spacing.

    A GEMM is computed as block-scaled products with FP32 promotion per
    contraction block (the tensor-core semantic): for each output,
    `sum_kb sA[m,kb] sB[n,kb] (sum_{k in kb} qA[m,k] qB[n,k])`, times the
    per-tensor factors, plus bias and accumulate, rounded once to the output
    type. Blocks: the whole K (per-tensor FP8), 32 (MXFP8), 128 (block FP8),
    16 (NVFP4).

    Example:
    ```mlir
    %q:2 = qs.quantize_buffers %x outs(%d, %s : ...) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
        : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
    ```
    becomes a block-amax reduction, an E8M0 scale computation, a scaled
    conversion and a scale-layout write, all as `linalg.generic` on tensors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect", "::mlir::math::MathDialect"];
}


def ConvertQSToGPUPass : Pass<"convert-qs-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower buffer-level quantize/dequantize/update_usage/GEMM to "
                "GPU kernels";
  let description = [{
    Rewrites every `qs.quantize_buffers`, `qs.dequantize_buffers`,
    `qs.update_usage_buffers`, `qs.amax` (the quantize's amax kernels alone),
    `qs.bias_grad` (chunk sums written by the cast kernel of a
    `qs.quantize_buffers` of the same input earlier in the block, else by a
    kernel of their own, then a column-sum kernel),
    `qs.amax_and_scale_update` (a block per op, consecutive ops of a
    block of IR in one launch: the history rolled and max-reduced, thread
    0 writes the scale)
    and (where a kernel exists) `qs.gemm_buffers` (run
    after `qs-expand-storage`, flattened or not) into launches of kernels
    emitted as `gpu.func`s in one `gpu.module @qs_kernels`. Operands become
    memrefs (`bufferization.to_buffer`, fresh `memref.alloc` for results,
    `bufferization.to_tensor` back), so the rest of the function is
    bufferized as usual afterwards.

    Quantize kernels (1-D grid, 128 threads per block) each own a tile of the
    2-D `[M, K]` view of the input (`M` = product of the leading dims) and
    read it from global memory exactly once, with 16-byte vector loads, into
    shared memory. Each thread then owns whole scaling blocks: a row-wise
    block is a `1 x B` row segment, a column-wise block a `B x 1` column
    segment of the tile; the thread computes the block amax, the scale in
    the family's rule, converts the block (packed `cvt.rn.satfinite.e4m3x2`
    / `e5m2x2` on the GPU, exact integer emulation for E2M1 and E8M0) and
    writes its codes (16-byte vector stores where the layout is contiguous)
    and its scale directly at its place in the quantizer's scale layout
    (compact or GEMM-swizzled). Both representations come from the same
    tile, so requesting both usages costs one input read. Per-tensor current
    scaling and NVFP4 first run an amax kernel (per-thread max, warp-shuffle
    reduction, one atomic per warp); scale buffers with padding are zeroed
    by an init kernel. Block length per family: per-tensor FP8 16 (codes
    only), MXFP8 32, FP8 block 128, NVFP4 16.

    Dequantize kernels read the row-wise representation when present (else
    the column-wise one) and write one output element per code.

    2-D quantization (MXFP8 32x32, NVFP4 16x16, FP8 128x128 blocks) adds
    two phases: each thread takes the amax of a 1 x B row segment, then of a
    B x B block, and both representations use that block's scale. Row-scaled
    NVFP4 first runs a kernel taking the max of every row and column of each
    tile (one atomic per row or column and tile). Rows or columns whose
    length is not a multiple of the block end in a partial block: its codes
    are stored byte by byte, and it counts the elements outside the tensor
    as zeros, as TE does.

    NVFP4 with the random Hadamard transform: the column-wise blocks are
    16-row chunks of a column, transformed in registers (16 sums of 16
    products in f32, rounded to bf16, as the reference) before their amax
    and conversion; an extra kernel computes the post-RHT global amax.

    Supported: every family and usage, 1-D and 2-D, row-scaled NVFP4, NVFP4
    with RHT, NVFP4 stochastic rounding (one Philox4x32-10 call, a random
    byte per code, per 16 codes from the rng state, read once per thread;
    the same rounding as the reference lowering on both chips). Not yet
    supported, with a diagnostic: NVFP4 with both RHT and 2-D
    quantization. Kernels whose shared buffers exceed the 48 KiB a kernel
    may declare statically (128x128 blocks of f32 input: 68,112 bytes) keep
    them in dynamic shared memory; the launch asks for the bytes.

    GEMM kernels (sm_90a): `qs.gemm_buffers` of per-tensor FP8, FP8 block
    (1x128 x 128x128, 1x128 x 1x128), MXFP8 or NVFP4 operands becomes one
    warp-specialized kernel of 384 threads: a producer warpgroup streams
    K-major FP8 tiles of A (128 rows) and B (64, 128, 192 or 256 rows) with TMA
    (`cp.async.bulk.tensor`, 128-byte swizzle, zero fill past the edges;
    the host code encodes the descriptors with `qsCudaEncodeTensorMap2D`)
    into a ring of shared-memory stages guarded by mbarriers; two consumer
    warpgroups of 64 rows each issue `wgmma.mma_async` with FP32
    accumulators and apply the epilogue (`scale_inv_A * scale_inv_B` for
    per-tensor FP8, bias, accumulate, rounding to the result type) from
    their registers. Per-tensor FP8 without the GEMM's `fast_accumulate`
    sums each 128-wide k-tile in fresh accumulators and adds it to FP32
    totals (Hopper's FP8 wgmma keeps about 14 bits of a running sum);
    with it, the tensor core sums all of K. Block-scaled operands sum each
    scale block of K (128
    for FP8 block, 32 for MXFP8) in fresh accumulators and promote it into
    the totals times `sA[row, kb] * sB[col, kb]`, read from the GEMM_READY
    (FP8 block) or compact / swizzled E8M0 (MXFP8) layouts. NVFP4: the
    consumers convert each k-tile's E2M1 codes times their E4M3 block
    scales to f16 in shared memory (exact), f16 wgmma sums them, and the
    global (or, row-scaled, per-row) amaxes scale the epilogue. Tile width in N: per-tensor 128 or
    256 (`qs.gemm_tile_n` or a heuristic, which picks 256 with
    `fast_accumulate` only; without it a 256-wide tile is promoted in two
    128-column chunks), or 192 (`qs.gemm_tile_n`; two 96-column chunks),
    FP8 block 128 (192 with `qs.gemm_tile_n` where B has 128x128 blocks),
    MXFP8 64 (sm_90a: 128 with `qs.gemm_tile_n`, two
    64-column chunks promoted in turn), NVFP4 128; on sm_100a every family
    128, or 256 with `qs.gemm_tile_n`. Operands whose storage is not
    K-major (MXFP8 column-wise data;
    per-tensor FP8 on Blackwell layouts, without a transpose buffer) are
    loaded MN-major and copied transposed into a K-major swizzled tile in
    shared memory by the consumers (16x16-byte blocks, `prmt` byte
    transposes), so every layout runs. Diagnostics (also in the emulation):
    K not a multiple of 16 (NVFP4: 32), an MN-major operand's other
    dimension not a multiple of 16, chips other than sm_90a and sm_100a.
    `qs.gemm_persistent = N : i64` on the op or an enclosing op makes the
    sm_90a kernels persistent: min(N, tiles) blocks loop over the output
    tiles (the producer streams the next tile during the previous one's
    epilogue); on sm_100a the MMA thread sums alternate tiles into two
    tensor-memory accumulator buffers while four more warps run the
    previous tile's epilogue. `qs.gemm_cluster = 2`
    makes the sm_90a kernels with K-major operands run in 2-block clusters
    whose blocks share B by TMA multicast (with `qs.gemm_persistent`, on an
    even persistent grid). `qs.gemm_schedule = "pingpong"` gives each
    consumer warpgroup of the sm_90a per-tensor kernel with
    `fast_accumulate` its own 128x128 tiles (persistent).
    `qs.gemm_epilogue = "tma"` makes the kernels write D through shared
    memory: each consumer (sm_100a: each warp) stages its rows 128 bytes
    of columns at a time in two 128-byte-swizzled buffers and stores each
    with a TMA bulk tensor store (D's rows in multiples of 16 bytes); the
    default for sm_90a per-tensor kernels with a block per tile that fill
    the GPU, where "direct" keeps the register stores.
    `qs.gemm_split_k = S : i64` (both chips, every family)
    cuts each output tile's K into S equal ranges of k-tiles, one work unit
    (block, or persistent iteration) each: the GEMM kernel stores each
    unit's FP32 result (alpha applied) into plane `split` of an [S, M, N]
    workspace, and a second kernel, `qs_gemm_split_k_reduce`, sums the
    planes in order and adds bias and C before converting to D's type. S
    must divide the k-tile count (ceil(K / 128); sm_100a NVFP4 ceil(K /
    256)); with `qs.gemm_epilogue = "tma"` only with the fused reduction
    (below).
    `qs.gemm_split_k = "auto"` picks S by a wave model of the kernels'
    time (the divisor of the k-tile count up to 16 that is fastest in it;
    1 where no split pays, and with the TMA epilogue and the reduction
    kernel), or (sm_90a) stream-K where
    its rules allow it and the model finds it faster still (a last wave
    that leaves most multiprocessors idle, e.g. 8192^3). With
    `qs.gemm_split_k_reduce = "fused"` there is no second kernel: each
    unit counts itself done on its tile's counter (a zero-initialized
    global of the kernel module, `atom.acq_rel.gpu`) and the tile's last
    unit sums the planes, in the same order, adds bias and C, stores D and
    zeroes the counter. `qs.gemm_split_k = "stream"` (both chips) is stream-K
    on the persistent grid: the last one to two waves of tiles are shared
    out as equal ranges of k-tiles, one per block (the rest computed whole
    after them); the blocks sharing a tile store FP32 planes and the last
    of them sums them in K order, through the same counters (docs/GPU.md
    "Stream-K").

    GEMM kernels (sm_100a, for the module's `qs.chip = "sm_100a"`): GEMMs
    of every family become one tcgen05 kernel of 128 threads per 128x128
    tile: one thread loads 128-byte-swizzled tiles with TMA, a warp gathers
    each k-tile's scale factors (compact or swizzled) into cuBLAS's 128x4
    order in shared memory (padding blocks as 1.0), and one thread copies
    them to tensor memory (`tcgen05.cp .32x128b.warpx4`) and issues
    `tcgen05.mma ... block_scale` (MXFP8: `kind::mxf8f6f4`, E8M0,
    `scale_vec::1X`; NVFP4: `kind::mxf4nvf4`, E4M3, `scale_vec::4X`) into
    FP32 accumulators in tensor memory; `tcgen05.ld` brings them to the
    shared epilogue (NVFP4 amaxes in alpha). Per-tensor FP8 uses
    `kind::f8f6f4` without scale factors, `scale_inv_A * scale_inv_B` in
    the epilogue. FP8 block scaling runs as MXFP8 (the E8M0 exponent byte
    of each FP32 scale, as TE on Blackwell; power-of-two scales only).
    Operands whose storage is not K-major (MXFP8 column-wise data,
    per-tensor FP8 without a transpose buffer) are read MN-major, so every
    layout runs.

    A GEMM whose product's only use is a quantize can do part of that
    quantize (docs/GPU.md): a delayed-scaling per-tensor FP8 result of
    per-tensor operands is quantized in the pass that writes D (scale,
    `cvt.rn.satfinite`, amax atomics; on sm_90a a result with column-wise
    usage gets its transpose from that pass too, the codes staged in
    shared memory and read back transposed); a current-scaling or NVFP4 (without
    RHT or row scales) result's global amax is taken by that pass, and the
    quantize runs without its amax kernel; on sm_100a and sm_90a (there
    each consumer's rows staged in shared memory, then one block per
    thread) a row-wise MXFP8 or FP8 1x128 result is quantized block by
    block in the epilogue, from the product rounded to its nominal type,
    without the cast kernel; an MXFP8 result's column-wise 32x1 blocks
    too (the rows staged in shared memory, each thread reads a column),
    and an FP8 1x128 result's 128x1 column blocks (every consumer's or
    epilogue warp's staged rows, codes transposed); with split-K, the
    reduction kernel quantizes those blocks from tiles it stages in
    shared memory. Where the
    GEMM's plan does not allow it, the GEMM writes the product and the
    quantize kernels follow, with the same bytes.

    `qs.update_usage_buffers` (the representations TE derives exactly: the
    per-tensor FP8 transpose, 128x128 block FP8 and 16x16 NVFP4
    column-wise from row-wise) becomes one kernel: 64x64 tiles of codes
    transposed through shared memory with 16-byte vector loads and stores
    (nibble pairs repacked for NVFP4), the created scale buffer written in
    full (tile scales transposed into its layout, padding zero) and NVFP4's
    amax copied.

    With `emulate = true` the same kernel bodies are emitted as ordinary
    functions that loop over blocks and threads phase by phase (a barrier is
    the end of a phase; warp reductions become atomics), using the integer
    emulation for every conversion: the CPU runner executes them, so the
    kernels' indexing, tiling, edge handling and scale layouts are tested
    bit for bit against the reference on machines without a GPU. GEMMs are
    emulated per block: TMA copies write the same swizzled shared-memory
    image, a wgmma emulation decodes the kernel's descriptors and
    accumulates into per-thread fragment registers kept in memory, and the
    epilogue is the GPU's code. The sm_100a kernel's emulation keeps an
    emulated tensor memory and decodes its tcgen05.cp/mma descriptors,
    instruction descriptors and tensor-memory addresses.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (sm_90a or sm_100a); default: the module's qs.chip "
           "or sm_90a">,
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Emit the kernels as CPU functions (testing without a GPU)">,
    Option<"requireNVPTXChip", "require-nvptx-chip", "bool",
           /*default=*/"false",
           "Reject chips other than sm_90a and sm_100a, a chip that "
           "differs from the module's qs.chip, and qs ops without GPU "
           "kernels (qs-nvptx-pipeline sets it)">,
    Option<"multiprocessors", "multiprocessors", "unsigned",
           /*default=*/"0",
           "The target GPU's streaming multiprocessors, which the GEMM "
           "plans fill (128x256 tiles where they still fill them, the "
           "ping-pong grid, split-K \"auto\"); 0: the chip's data-sheet "
           "count (sm_90a 132 as on H100/H200 SXM, sm_100a 148 as on "
           "B200). qs-run and Python's run_cuda pass the device's">,
    Option<"reportGemmPlans", "report-gemm-plans", "bool",
           /*default=*/"false",
           "Attach a remark to each GEMM stating the kernel plan it got "
           "(chip and kernel, tile shape and count, stage ring, k-tiles "
           "and their split-K ranges, schedule, grid, shared memory)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect"];
}

def QSElementwiseToGPUPass
    : Pass<"qs-elementwise-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower element-wise and reduction linalg ops on tensors to "
                "GPU kernels";
  let description = [{
    Rewrites every linalg op on tensors (`linalg.generic`, `linalg.map`,
    `linalg.fill`, `linalg.transpose`, `linalg.broadcast`, `linalg.reduce`,
    the named element-wise ops, and what `convert-elementwise-to-linalg`
    makes of `arith`/`math` ops on tensors) into the launch of a kernel
    emitted as a `gpu.func` in `gpu.module @qs_kernels`, as
    `convert-qs-to-gpu` does for qs ops: operands become memrefs
    (`bufferization.to_buffer`), results fresh `memref.alloc`s read back by
    `bufferization.to_tensor`. These are the activations, bias and residual
    adds, casts and reductions between qs ops (a TE MLP's GELU between its
    two Linears); with them on the GPU, `qs-nvptx-pipeline` compiles such a
    function, where otherwise host code would touch device buffers
    (`qs-gpu-host-buffers` reports that).

    Element-wise ops (every iterator parallel; `qs_elementwise`, 256
    threads per block, a 1-D grid) give each thread `V` consecutive points
    of the innermost loop: `V` is 16 bytes of the narrowest operand whose
    innermost index is the innermost loop (contiguous), halved until it
    divides the innermost loop's range (1 where no operand is contiguous).
    Contiguous operands are read and written with one vector access of `V`
    elements (16-byte aligned on the GPU), operands that do not depend on
    the innermost loop (broadcast) with one load, others (transposed)
    element by element. The op's payload is cloned once per point, so the
    arithmetic is the op's own: results equal `qs-cpu-pipeline`'s bit for
    bit wherever the payload's ops are exact IEEE operations (`arith` add,
    sub, mul, div, conversions, comparisons, selects, min/max; LLVM does not
    contract separate `arith.mulf` and `arith.addf` without fast-math
    flags); `qs-approximate-math` makes tanh, exp, erf and logs the same
    arithmetic on both. An init operand is read only where the payload uses
    its argument; the result is always a new buffer.

    Reductions (`qs_reduction`): one thread per point of the parallel loops
    (the last fastest), which loads the inits there and runs the payload
    over the reduction loops in order (the last fastest) in an `scf.for`
    carrying the results, the order of `qs-cpu-pipeline`'s loops: the same
    bits whatever the payload (a sequential f32 sum, not a tree). A thread
    reads its row's elements one at a time: correct, and latency-bound for
    long rows or few outputs (a full reduction is one thread); a reduction
    over no points writes its inits.

    Requirements, each a diagnostic naming the rule: static shapes; tensor
    elements i8, i16, i32, i64, f16, bf16, f32 or f64; indexing maps that
    are projected permutations (each index a loop index, or 0 for a
    broadcast size-1 dimension), results indexed by parallel loops only;
    scalar operands and values the payload captures are constants (cloned
    into the kernel); the payload holds only `arith` and `math` ops and
    `linalg.index`, on those types, i1 and index. With `emulate` the
    kernels are CPU functions (each block, each thread in turn;
    `qs-cpu-pipeline{emulate-gpu-kernels}`), and ops that break a rule are
    left for the CPU without a diagnostic.
  }];
  let options = [
    Option<"emulate", "emulate", "bool", /*default=*/"false",
           "Emit the kernels as CPU functions (testing without a GPU); "
           "ops that cannot become kernels stay for the CPU">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect"];
}

def QSGPUHostBuffersPass : Pass<"qs-gpu-host-buffers", "::mlir::ModuleOp"> {
  let summary = "Place host-side buffers in device memory";
  let description = [{
    After bufferization of a module whose kernels run on the GPU, every
    buffer the host code allocates is used by kernels: `memref.alloc` /
    `memref.dealloc` outside `gpu.module`s become `gpu.alloc` /
    `gpu.dealloc`, and `memref.copy` becomes `gpu.memcpy`. Any other memref
    access on the host (loads, stores, linalg) is reported: the host cannot
    touch device memory.

    One exception: the buffer-deallocation pipeline's bookkeeping for its
    run-time alias checks (a loop that yields fresh buffers): arrays of
    `index` (buffer pointers) and `i1` (ownership flags) elements that the
    host code allocates, fills and passes to a private helper function. An
    `index` or `i1` memref that comes, through `memref.cast`, from an
    allocation, or is an argument of a private function, is host memory:
    its allocation, deallocation, loads and stores stay as they are. No
    kernel takes such buffers; a public function's arguments are device
    buffers whatever their element type.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def QSGPUModuleToBinaryPass : Pass<"qs-gpu-module-to-binary"> {
  let summary = "gpu-module-to-binary with inline PTX treated as convergent";
  let description = [{
    Serializes every `gpu.module` to a `gpu.binary` exactly as upstream
    `gpu-module-to-binary` does (same target attributes, same options),
    except that, in the kernels' LLVM IR before it is linked and optimized,
    every inline-asm call is marked `convergent`, as clang marks all calls
    in CUDA device code. MLIR's `llvm.inline_asm` carries no such
    attribute, so LLVM may otherwise duplicate (tail duplication, jump
    threading) or sink an asm statement into divergent control flow; for
    the `.sync.aligned` PTX the GEMM kernels write as inline asm
    (`wgmma.fence` / `commit_group` / `wait_group`, `bar.sync` with a
    thread count, `setmaxnreg`, `tcgen05.alloc` / `ld` / `dealloc`), whose
    instances every thread of a warp must execute together, that is
    undefined behaviour. Convergent calls are never duplicated into, or
    moved across, divergent branches.

    Example: `qs-opt --qs-gpu-module-to-binary="format=isa"` on a module of
    `gpu.module`s with `#nvvm.target`s (qs-nvptx-pipeline runs it last).
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", [{""}],
           "CUDA toolkit path (ptxas, fatbinary)">,
    ListOption<"linkFiles", "l", "std::string",
               "Bitcode files to link into each module">,
    Option<"cmdOptions", "opts", "std::string", [{""}],
           "Options passed to the assembler (ptxas)">,
    Option<"compilationTarget", "format", "std::string", [{"fatbin"}],
           "offloading (llvm), assembly (isa), binary (bin) or fatbinary "
           "(fatbin)">,
    Option<"elfSection", "section", "std::string", [{""}],
           "ELF section for the binary">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // QS_CONVERSION_PASSES_TD
