//===- QSDialect.td - qs dialect definition and base classes -*- tablegen -*-===//

#ifndef QS_DIALECT_QS_IR_QSDIALECT_TD
#define QS_DIALECT_QS_IR_QSDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "qs/Dialect/QS/IR/QSInterfaces.td"

def QS_Dialect : Dialect {
  let name = "qs";
  let cppNamespace = "::mlir::qs";
  let summary = "Quantized tensors whose storage is a set of inner buffers";
  let description = [{
    The `qs` dialect makes TransformerEngine-style quantized tensors first
    class. A value of type `!qs.tensor<SHAPE x DTYPE, QUANTIZER>` is the IR form
    of TE's `TensorSpec`: a logical (*expressed*) tensor of the nominal
    high-precision element type `DTYPE` (bf16, f16 or f32) whose *storage* is
    not one array but the ordered list of **inner tensors** that TE's C++
    allocation (`<Family>Quantizer::create_tensor`) makes for `QUANTIZER`:
    FP8 data, its transpose, FP32 or E8M0 or E4M3 block scales, global amaxes.

    ### Quantizers

    The quantizer attribute names the TE family and carries TE's value fields
    with TE's constructor keyword names and defaults:

    | attribute | TE class | inner tensors (in TE `_INNER_TENSORS` order) |
    |---|---|---|
    | `#qs.fp8_delayed` | `Float8Quantizer` | `data`, `transpose`, `scale_inv` |
    | `#qs.fp8_current` | `Float8CurrentScalingQuantizer` | `data`, `transpose`, `scale_inv` |
    | `#qs.mxfp8` | `MXFP8Quantizer` | `rowwise_data`, `rowwise_scale_inv`, `columnwise_data`, `columnwise_scale_inv` |
    | `#qs.fp8_block` | `Float8BlockQuantizer` | `rowwise_data`, `rowwise_scale_inv`, `columnwise_data`, `columnwise_scale_inv` |
    | `#qs.nvfp4` | `NVFP4Quantizer` | the four above, then `amax_rowwise`, `amax_columnwise` |

    Every quantizer implements `QuantizerAttrInterface`, which is the only
    place in the compiler that knows formats: passes ask it for the inner
    tensors of a shape, for shape rules and for usage transitions, and never
    switch on concrete attributes.

    ### Usages

    `rowwise` and `columnwise` say which representations exist. The
    row-wise one has scaling blocks along the last (contiguous) dimension and
    serves GEMMs that contract over the last dimension; the column-wise one
    has blocks along the flattened leading dimensions (and for some formats is
    physically transposed). Inner tensors of an absent usage are not
    allocated.

    ### Target

    One format depends on the GPU: per-tensor FP8 keeps a `transpose` buffer
    only on *TN-only* GPUs (compute capability below 10.0, and 12.x). The chip
    comes from the string attribute `qs.chip` on an enclosing operation
    (normally the `builtin.module`), e.g. `module attributes {qs.chip =
    "sm_100a"}`; it defaults to `sm_90a` (Hopper, TN-only). A module's
    storage follows one chip: `qs-expand-storage` and `qs-flatten-storage`
    report an op inside it whose `qs.chip` names another (a quantized value
    would be read in a layout it was not stored in).

    `qs.gemm_tile_n = 128 | 192 | 256 : i64` on a GEMM or an enclosing operation
    fixes the tile width in N of the per-tensor FP8 GEMM kernels of
    `convert-qs-to-gpu` (otherwise 256 when 128x256 tiles still give every
    multiprocessor of an H100/H200, or on sm_100a a B200, a tile, else
    128; on sm_90a without the GEMM's `fast_accumulate` the same for
    kernels with a block per tile, and 128 for persistent, stream-K and
    split-K ones). It changes speed,
    never results. On sm_90a without `fast_accumulate`, 256 gives tiles
    whose two 128-column chunks are summed and promoted into FP32 in turn.
    192 (sm_90a only) gives 128x192 tiles: per-tensor FP8 promoted in two
    96-column chunks (or, with `fast_accumulate`, summed whole), and FP8
    block GEMMs whose B has 128x128 blocks, each 8-column group of a chunk
    taking the scale of its own B block (a 96-column chunk may straddle
    two). On sm_90a it also applies to MXFP8 GEMMs as 128 (128x128 tiles,
    two 64-column chunks promoted in turn; the default is 128x64); other
    sm_90a block-scaled GEMMs, and MXFP8 otherwise, reject it. On sm_100a
    every family takes 128 or 256: block-scaled GEMMs default to 128x128
    tiles, and with 256 run N = 256 MMAs whose B scale factors are two
    chunks of 128 rows per k-step.

    `qs.gemm_persistent = N : i64` (N >= 1) on a GEMM or an enclosing
    operation runs the GEMM kernels persistently: min(N, tiles)
    blocks, block b computing output tiles b, b + N, b + 2N, ... (at most
    one block fits a multiprocessor: N = 132 fills an H100/H200; fewer
    leave multiprocessors to concurrent kernels, as TE's `sm_margin`).
    Each block's producer streams the next tile's k-tiles while its
    consumers run the previous tile's epilogue (sm_100a: the MMA thread
    sums each tile into one of two tensor-memory accumulator buffers in
    turn while four epilogue warps store the other; block-scaled 128x256
    tiles have one buffer, which leaves tensor memory for their scale
    factors). Absent: one block per tile. It changes
    speed, never results. N is fixed
    when the kernel is compiled: past the multiprocessor count of the GPU it
    runs on (132 on an H100 SXM, H200 or GH200; 114 on an H100 PCIe, 78 on
    an H20), the blocks that do not fit run as a second wave after whole
    blocks' worth of tiles, so set N to at most that count (the ping-pong
    default is the `multiprocessors` option of convert-qs-to-gpu and
    qs-nvptx-pipeline: 132 unless told, the device's own under qs-run
    and Python's run_cuda).

    `qs.gemm_cluster = 1 | 2 : i64` on a GEMM or an enclosing operation:
    with 2, the sm_90a GEMM kernels (every family) run in clusters of two
    blocks computing vertically adjacent tiles that share their B tile;
    each block loads half of B with TMA multicast into both blocks' shared
    memory, halving B's L2-to-SM traffic (as CUTLASS's 2x1 clusters). It
    changes speed, never results; MN-major operands (MXFP8 dgrad/wgrad,
    FP8 on Blackwell layouts: transposed in shared memory) and sm_100a
    reject it.
    With `qs.gemm_persistent = N` as well, the persistent grid is N rounded
    down to an even count (at least 2), the two blocks of a cluster walking
    the tile pairs together.

    `qs.gemm_schedule = "cooperative" | "pingpong"` on a GEMM or an
    enclosing operation picks how the sm_90a per-tensor FP8 kernel's two
    consumer warpgroups share the work: "cooperative" (the default) splits
    each 128 x N tile between them (64 rows each); "pingpong" gives each
    its own 128 x 128 tiles, alternately (CUTLASS's ping-pong kernels), so
    one's epilogue overlaps the other's tensor-core work. Ping-pong kernels
    are persistent (`qs.gemm_persistent`, default one block per
    multiprocessor: 132 unless the `multiprocessors` option says) with 128-wide
    tiles and need the GEMM's `fast_accumulate` (no registers are left to
    promote into); other families, MN-major operands, `qs.gemm_tile_n =
    256` and sm_100a reject it. It changes speed, never results.

    `qs.quantize_stores = "coalesced" | "direct"` on a quantize or an
    enclosing operation picks how the GPU quantize kernels (both chips)
    store codes. "coalesced" (the default): row-wise blocks of 32 to 128
    elements (MXFP8, FP8 1x128) are split over 16-element lanes that meet
    by warp shuffles, each lane storing its 16 codes, and transposed
    column-wise codes (per-tensor FP8 transpose, NVFP4, FP8 1x128 of an
    f32 input) are staged in shared memory and stored in consecutive
    16-byte chunks of a transpose row, so that a warp's stores cover whole
    32-byte sectors; both usages of per-tensor FP8 and of 2-D blocks (FP8
    128x128, NVFP4 16x16), where an element has one scale in either,
    encode each element once and store the column-wise codes as the
    row-wise codes transposed through shared memory. "direct": each
    thread stores the codes of the blocks it owns straight from registers,
    each usage encoding its own (the kernels before 2026-12-04). It
    changes speed, never results; it exists to time the two against each
    other.

    `qs.gemm_scale_loads = "ahead" | "in_tile"` on a GEMM or an
    enclosing operation picks when the sm_90a FP8 block GEMM kernel with
    128x128-block B (1x128 x 128x128: fprop, dgrad) in 128-wide tiles loads
    its scales. "ahead" (the default there): each consumer thread loads the
    next k-tile's two row scales of A and block scale of B while a k-tile
    runs and carries them into the next, so that the loads' latency hides
    behind a whole k-tile. "in_tile": each k-tile loads its own scales
    before its wgmmas (the kernel before 2026-12-05). Other GEMMs load
    within the k-tile; "ahead" on them is an error (1x128 x 1x128 carries
    32 column scales per thread and k-tile, 128x192 tiles spill, MXFP8 and
    NVFP4 load packed codes, sm_100a moves scales by TMA). It changes
    speed, never results; it exists to time the two against each other.

    `qs.gemm_promotion = "overlapped" | "in_tile"` on a GEMM or an
    enclosing operation picks when the sm_90a GEMM kernels that promote
    (per-tensor FP8 without `fast_accumulate`, whose FP8 wgmma keeps only
    about 14 bits of a running sum, FP8 block scaling and MXFP8) add a
    wgmma group's partial sums (a k-tile's, a 128x192 tile's 96-column
    chunk of one, or two of an MXFP8 k-tile's four 32-blocks) into their
    FP32 totals. "overlapped" (the default where the
    kernel can): each group is issued into one of two sets of partial
    accumulators before the previous group, in the other set, is promoted
    (after `wgmma.wait_group 1`), so the tensor cores run while the
    consumer warpgroups promote; runs of 1 to 4 k-tiles are straight-line
    code, the tensor cores waiting only for the promotion of a run's last
    group. "in_tile": each group is waited for (`wgmma.wait_group 0`) and
    promoted before the next is issued (the kernel before 2026-12-05). It
    exists for 128- and 192-wide tiles (per-tensor FP8 then picks 128-wide
    tiles where it would pick 128x256 ones) of K-major operands, with
    1x128 x 128x128 blocks for FP8 block scaling, and for MXFP8's 64-wide
    tiles; "overlapped" elsewhere is an error (128x256 tiles, and MXFP8's
    128x128, leave no registers for a second partial set, 1x128 x 1x128
    spills, sm_100a accumulates in tensor memory). The sums and their order are
    the same either way: it changes speed, never results.

    `qs.gemm_mx_scaling = "convert" | "promote" | "dequantize"` on a GEMM or an enclosing
    operation picks how the sm_90a GEMM kernel applies MXFP8's E8M0 block
    scales (Hopper has no block-scaled MMA). "convert" (the default): the
    consumer warpgroups convert each half k-tile of both operands, every
    code times its block's scale, to K-major bf16 tiles in shared memory
    (exact: a code has at most 4 significant bits and times a power of two
    stays in FP32's, hence bf16's, exponent range) and bf16 wgmma sums all
    of K in FP32, in 128x128 tiles; nothing is promoted. MN-major operands
    (column-wise data: dgrad, wgrad) are transposed by the same
    conversion (4-byte loads of four rows' codes, regrouped along K).
    "promote": FP8 wgmma, each 32-block summed into fresh accumulators and
    promoted into FP32 totals with its two scales, in 128x64 tiles
    (128x128 with `qs.gemm_tile_n = 128`, and by default for MN-major
    operands, which are first copied transposed as FP8); a GEMM that
    carries a `qs.gemm_promotion` without "convert" is promoted too. Both
    are held to the same GEMM bound (docs/Numerics.md); they differ in
    FP32 summation order (and "convert" rounds products
    below 2^-126 to bf16's subnormal precision). "dequantize": before the
    GEMM, one kernel per operand writes the values "convert" computes
    (same instructions, same bf16 values) as a K-major bf16 matrix in a
    workspace in global memory, once per element instead of once per
    output tile that reads it (MN-major data transposed on the way), and
    the GEMM is the per-tensor FP8 kernel's on bf16 operands: 64-element
    k-tiles (128-byte rows, as FP8's 128-element ones), m64nNk16 bf16
    wgmmas summing in FP32, per-tensor FP8's tiles (128x256 where they fill
    the GPU) and every per-tensor schedule (persistent, multicast pairs,
    ping-pong, split-K of 64-element k-tiles, stream-K, the TMA-store
    epilogue); it costs 2 (M + N) K bytes of workspace and the pre-passes'
    traffic. "dequantize" applies to NVFP4 operands as well (f16 values,
    exact; each operand's amax / 6E as the per-tensor scale_inv; a
    row-scaled NVFP4 operand is an error), which "convert" and "promote"
    leave as they are (the sm_90a kernel converts NVFP4 to f16). No effect
    on other families or on sm_100a, whose tensor cores apply the scales;
    with "convert" or "dequantize", a `qs.gemm_promotion` on the same GEMM
    is an error.

    `qs.gemm_epilogue = "direct" | "tma"` on a GEMM or an enclosing
    operation picks how the GEMM kernels (both chips, every family and
    schedule) write D: "direct" stores each thread's
    accumulator values from registers (sm_100a: from tensor memory through
    registers); "tma" stages them 128 bytes of columns at a time in
    128-byte-swizzled shared-memory buffers (sm_90a: each consumer's 64
    rows, two buffers per consumer, 32 KiB in all; sm_100a: each warp's 32
    rows, two buffers per warp in the stage ring, which the block no
    longer reads by then) and writes them with TMA bulk tensor stores,
    which clip at D's edges and leave the threads free as soon as they are
    issued (CUTLASS's TMA epilogue). D's rows must be multiples of 16 bytes
    (TMA's rule). Absent: "tma" for sm_90a per-tensor FP8 and FP8 block
    1x128 x 128x128 kernels with a block per tile (not persistent, ping-pong, multicast or split-K)
    whose tiles fill the GPU, D's rows multiples of 16 bytes, no
    accumulate operand and no quantizer or amax in the epilogue (measured
    faster there on an H200), else "direct". It changes speed, never
    results.

    `qs.gemm_split_k = S : i64` (S >= 1) on a GEMM or an enclosing
    operation splits the GEMM kernels' K (sm_90a and sm_100a, every
    family): each output tile's k-tiles (128 elements of K; sm_100a NVFP4:
    256) are cut into S equal ranges, each computed by its own block (or
    persistent iteration), so S times as many blocks share the work (for
    small M, where the output tiles alone leave most multiprocessors
    idle; cuBLASLt's split-K). Each block stores its FP32 partial result,
    alpha applied, into an [S, M, N] workspace; a second kernel sums the S
    planes of each element in order (the same sums on every run), adds
    bias and C and converts to D's type. S must divide the number of
    k-tiles; with `qs.gemm_epilogue = "tma"` it needs
    `qs.gemm_split_k_reduce = "fused"` (then each tile's last unit writes
    D through the TMA staging; the reduction kernel would write D instead
    of the GEMM kernel). The sum of K is FP32 in either case but
    in another order, so results may differ in the last bits within the
    GEMM's error bound (docs/Numerics.md); 1: no split. Absent: on
    sm_90a, a GEMM whose default tiles are fewer than the multiprocessors
    (and without `qs.gemm_persistent`, `qs.gemm_schedule = "pingpong"`,
    `qs.gemm_cluster = 2`, `qs.gemm_epilogue = "tma"` or
    `qs.gemm_split_k_reduce = "fused"`) splits as "auto" would, S-splits
    only, where the model makes it more than 10% faster (split-K by
    default); elsewhere no split.
    `qs.gemm_split_k = "auto"` lets the kernels' cost model pick S: the
    divisor of the k-tile count up to 16 that minimizes a wave model of
    the time (output tiles x S work units in waves of one per
    multiprocessor, each unit's k-tiles at the time measured per k-tile on
    an H200 (sm_100a: the chip's FP8 peak) plus a fixed cost, no faster
    than the operands stream in from HBM, and for S > 1 the workspace's
    bytes through HBM and the second launch, or with the fused reduction
    each tile's last unit summing its S planes alone; docs/GPU.md), 1
    where no split pays and with `qs.gemm_epilogue = "tma"` without the
    fused reduction. Where stream-K ("stream", below)
    applies to the GEMM (its rules, which "auto" never breaks; sm_90a
    only: sm_100a stream-K is unmeasured), the model
    also times it (each block's k-tiles and segments and the planes it
    stores and sums; the slowest block counts) and picks it if it is the
    fastest: for GEMMs whose last wave leaves most multiprocessors idle
    and whose K is long enough to pay for the planes (8192^3 in 128x128
    tiles on 132 multiprocessors: 31.03 waves; the H200 ran it 2.5%
    slower than unsplit, so "auto" stays opt-in).

    `qs.gemm_split_k = "stream"` (sm_90a cooperative schedule, and
    sm_100a) is stream-K: the kernel is persistent (`qs.gemm_persistent` blocks, by
    default one per multiprocessor, at most one per k-tile) and, unless the
    blocks divide the output tiles, the last tiles (all if fewer than two
    waves, else one wave plus the remainder) are shared: their k-tiles are
    cut into one contiguous, equal (within one k-tile) range per block, so
    the last wave does not leave multiprocessors idle; each block then
    computes its share of the remaining tiles whole. A tile computed by
    several blocks is finished as with `qs.gemm_split_k_reduce = "fused"`:
    each stores its FP32 partial result into its plane of a workspace
    (the most blocks on one tile x the shared tiles x 128 x tile width
    FP32 values) and counts itself done on the tile's counter; the last
    sums the planes in K order, adds bias and C and stores D. Results of
    shared tiles may differ in the last bits within the GEMM's error bound;
    whole tiles are the unsplit kernel's (with `qs.gemm_epilogue = "tma"`,
    D goes through the TMA staging, the planes directly). It rejects
    ping-pong, clusters, `qs.gemm_split_k_reduce = "kernel"`; on sm_90a
    MXFP8 with `qs.gemm_tile_n = 128`, and MXFP8 or FP8 block 1x128 x
    1x128 with `qs.gemm_epilogue = "tma"` (ptxas spills); launches of
    one compiled GEMM must not overlap.

    `qs.gemm_split_k_reduce = "kernel" | "fused"` on a GEMM or an
    enclosing operation picks who sums a split GEMM's planes: "kernel"
    (the default) launches the reduction kernel above after the GEMM
    kernel; "fused" lets the GEMM kernel do it: each work unit, once its
    plane is stored, counts itself done on its output tile's counter (a
    zero-initialized global of the kernel's module, one 32-bit word per
    tile, incremented with `atom.acq_rel.gpu`), and the unit that arrives
    last sums the tile's S planes in plane order, adds bias and C, stores
    D and resets the counter to zero for the next launch (the CUDA
    samples' "last block" reduction, per tile: no second launch, and
    tiles are finished while other units still run). The sums are those of
    "kernel", bit for bit. Launches of one compiled GEMM must not overlap
    (they share the counters: run them on one stream, as qs-run and the
    Python runtime do). Without a split it does nothing. It changes speed,
    never results.

    ### Flattened boundaries

    `qs-flatten-storage` replaces each quantized function argument and result
    by its inner tensors and tags each with `qs.inner = "<name>"`,
    `qs.origin = <original index> : i64` and `qs.type = <quantized type>`
    (TE's flatten context), so other compilers can map buffers back.

    ### Integrity rules

    * Shapes are static with rank >= 1; each quantizer adds its own
      divisibility rules (MXFP8: M and K multiples of 32; NVFP4: multiples of
      16), where `K` is the last dimension and `M` the product of the others.
    * `qs.assemble` accepts exactly the inner tensors the quantizer
      describes, in order, with their exact shapes and element types.
    * A GEMM operand contracted over its last dimension needs its row-wise
      usage, one contracted over its first dimension its column-wise usage.

    Correct:
    ```mlir
    !x = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
    %q = qs.quantize %x : tensor<64x128xbf16> -> !x
    ```
    Incorrect (64x100 is not a multiple of MXFP8's 32-element blocks):
    ```mlir
    !bad = !qs.tensor<64x100xbf16, #qs.mxfp8<>>
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();

    /// Name of the discardable attribute that selects the target chip.
    static constexpr ::llvm::StringLiteral getChipAttrName() {
      return ::llvm::StringLiteral("qs.chip");
    }
    /// Name of the discardable attribute that fixes the GEMM kernels' tile
    /// width in N (128, 192 or 256).
    static constexpr ::llvm::StringLiteral getGemmTileNAttrName() {
      return ::llvm::StringLiteral("qs.gemm_tile_n");
    }
    /// Name of the discardable attribute that makes the GEMM kernels
    /// persistent on a number of blocks.
    static constexpr ::llvm::StringLiteral getGemmPersistentAttrName() {
      return ::llvm::StringLiteral("qs.gemm_persistent");
    }
    /// Name of the discardable attribute that makes pairs of GEMM blocks
    /// share B through TMA multicast.
    static constexpr ::llvm::StringLiteral getGemmClusterAttrName() {
      return ::llvm::StringLiteral("qs.gemm_cluster");
    }
    /// Name of the discardable attribute that picks the sm_90a per-tensor
    /// GEMM kernel's consumer schedule ("cooperative" or "pingpong").
    static constexpr ::llvm::StringLiteral getGemmScheduleAttrName() {
      return ::llvm::StringLiteral("qs.gemm_schedule");
    }
    /// Name of the discardable attribute that picks how the sm_90a GEMM
    /// kernels store D ("direct" or "tma").
    static constexpr ::llvm::StringLiteral getGemmEpilogueAttrName() {
      return ::llvm::StringLiteral("qs.gemm_epilogue");
    }
    /// Name of the discardable attribute that picks when the GEMM kernels
    /// load block scales ("ahead" or "in_tile").
    static constexpr ::llvm::StringLiteral getGemmScaleLoadsAttrName() {
      return ::llvm::StringLiteral("qs.gemm_scale_loads");
    }
    /// Name of the discardable attribute that picks when the GEMM kernels
    /// promote partial sums ("overlapped" or "in_tile").
    static constexpr ::llvm::StringLiteral getGemmPromotionAttrName() {
      return ::llvm::StringLiteral("qs.gemm_promotion");
    }
    /// Name of the discardable attribute that picks how the sm_90a GEMM
    /// kernel applies MXFP8 block scales ("promote" or "convert").
    static constexpr ::llvm::StringLiteral getGemmMxScalingAttrName() {
      return ::llvm::StringLiteral("qs.gemm_mx_scaling");
    }
    /// Name of the discardable attribute that picks how the quantize
    /// kernels store codes ("coalesced" or "direct").
    static constexpr ::llvm::StringLiteral getQuantizeStoresAttrName() {
      return ::llvm::StringLiteral("qs.quantize_stores");
    }
    /// Name of the discardable attribute that splits the GEMM kernels' K
    /// across blocks (split-K with a reduction kernel).
    static constexpr ::llvm::StringLiteral getGemmSplitKAttrName() {
      return ::llvm::StringLiteral("qs.gemm_split_k");
    }
    /// Name of the discardable attribute that picks how split-K's partial
    /// results are summed ("kernel" or "fused").
    static constexpr ::llvm::StringLiteral getGemmSplitKReduceAttrName() {
      return ::llvm::StringLiteral("qs.gemm_split_k_reduce");
    }
    /// Argument/result attributes set by qs-flatten-storage: the inner
    /// tensor's name, the original argument/result index, the quantized type.
    static constexpr ::llvm::StringLiteral getInnerAttrName() {
      return ::llvm::StringLiteral("qs.inner");
    }
    static constexpr ::llvm::StringLiteral getOriginAttrName() {
      return ::llvm::StringLiteral("qs.origin");
    }
    static constexpr ::llvm::StringLiteral getTypeAttrName() {
      return ::llvm::StringLiteral("qs.type");
    }
  }];
}

class QS_Op<string mnemonic, list<Trait> traits = []>
    : Op<QS_Dialect, mnemonic, traits>;

class QS_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<QS_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class QS_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<QS_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// Every quantizer shares syntax, verifier hook and interface.
// `overrides` lists the interface methods with a default implementation that
// the family replaces.
class QS_QuantizerAttr<string name, string attrMnemonic,
                       list<string> overrides = [], list<Trait> traits = []>
    : QS_Attr<name, attrMnemonic, !listconcat(traits,
        [DeclareAttrInterfaceMethods<QS_QuantizerAttrInterface, overrides>])> {
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
  let genVerifyDecl = 1;
}

// Parameters shared by the quantizer attributes.
def QS_Fp8DtypeParameter : AttrOrTypeParameter<"::mlir::Type",
    "FP8 element format of the data: f8E4M3FN (default) or f8E5M2"> {
  let defaultValue = "::mlir::Float8E4M3FNType::get($_ctxt)";
}
class QS_BoolParameter<string default, string desc>
    : DefaultValuedParameter<"bool", default, desc>;
def QS_F32Parameter : AttrOrTypeParameter<"::llvm::APFloat",
    "an IEEE single-precision value"> {
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let defaultValue = "::llvm::APFloat(0.0f)";
  let parser = "::mlir::qs::parseF32Parameter($_parser)";
  let printer = "$_printer.printFloat($_self)";
}

#endif // QS_DIALECT_QS_IR_QSDIALECT_TD
