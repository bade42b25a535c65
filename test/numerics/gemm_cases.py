"""qs.gemm cases shared by test_gemm.py and scripts/device_bundle.py: the
operands quantized by the numpy reference, the module text, the float64
expected result and the bound within which a result must lie (te-formats.md
§6; docs/Numerics.md):

    |D - R| <= 2^-22 * K * (|A| |B|^T)[m, n] + ulp_out * |R| + tiny_out

with ulp_out = 2^-8 (bf16), 2^-11 (f16), 2^-23 (f32). FP32 accumulation
order differs between implementations, hence a bound, not bytes. Results
of Hopper's tensor cores (on a GPU) get tensor_core_slack on top."""

import numpy as np

import harness as h
import qs_reference as ref

ULP = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f32": 2.0 ** -23}
TINY = {"bf16": 1e-38, "f16": 6e-8, "f32": 1e-44}

# Per family: quantizers of the three Linear tensors (x, w, dy).
FAMILIES = {
    "fp8_current": (dict(), dict(), dict(fp8_dtype="f8E5M2")),
    "fp8_delayed": (dict(), dict(), dict(fp8_dtype="f8E5M2")),
    "mxfp8": (dict(), dict(optimize_for_gemm=True), dict()),
    "fp8_block": (dict(block_scaling_dim=1), dict(block_scaling_dim=2), dict(block_scaling_dim=1)),
    "nvfp4": (dict(with_rht=True), dict(with_2d_quantization=True), dict(with_rht=True)),
    "nvfp4_row_scaled": (dict(row_scaled_nvfp4=True), dict(row_scaled_nvfp4=True),
                         dict(row_scaled_nvfp4=True)),
    # 4over6 (no RHT), E = 256 on x and dy, 448 with 2-D tiles and MSE on w:
    # each operand's amax / 6E in alpha.
    "nvfp4_4over6": (dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256),
                     dict(nvfp4_use_4over6=True, with_2d_quantization=True,
                          nvfp4_4over6_err_mode="MSE"),
                     dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256)),
}

# (name, lhs tensor, rhs tensor, transpose_a, transpose_b): TE's TN, NN, NT.
LAYOUTS = [("fprop_TN", "x", "w", False, True),
           ("dgrad_NN", "dy", "w", False, False),
           ("wgrad_NT", "dy", "x", True, False)]



def gemm_input(rng, shape, extreme=False):
    """Normal values scaled per row and per column, so the row-wise and
    column-wise representations of one tensor really differ. extreme: rows
    1, 2 and 3 (mod 5) scaled by 2^-80, 0 and 2^40 (MXFP8 block scale codes
    far from 127: 0 for a zero block, below 64 and above 191)."""
    rows = np.exp2(rng.integers(-3, 3, size=(shape[0], 1)))
    if extreme:
        rows[1::5], rows[2::5], rows[3::5] = 2.0 ** -80, 0.0, 2.0 ** 40
    cols = np.exp2(rng.integers(-3, 3, size=(1, shape[1])))
    x = (rng.standard_normal(shape) * rows * cols).astype(np.float32)
    return h.to_npy(x, "bf16").view(h.NUMPY_IN["bf16"][0]).astype(np.float32)


def quantized(rng, family, params, shape, chip_tn_only=True, integers=False, positive=False,
              extreme=False):
    """positive: |x| (every product term non-negative); extreme:
    gemm_input's."""
    fam = "nvfp4" if family.startswith("nvfp4") else family
    q = h.quantizer(fam, **params)
    x = gemm_input(rng, shape, extreme)
    if positive:
        x = np.abs(x)
    if integers:  # values -2..2 (amax 2: pow-2 current scale 128, delayed 1)
        x = rng.integers(-2, 3, size=shape).astype(np.float32)
        x.flat[0] = 2.0
    with np.errstate(all="ignore"):
        amax = float(ref.amax(x))
        scale = 1.0 if integers else 448.0 / max(amax, 1e-30)
        bufs, _ = ref.quantize(x, q, "bf16", scale=np.float32(scale),
                               amax_state=np.float32(0), chip_tn_only=chip_tn_only)
    return q, bufs


BLOCK = 1 << 18


def tensor_core_slack(op_a, op_b, family, fast_accumulate):
    """What Hopper's tensor cores may add to the FP32 bound. Each MMA
    k-step (32 elements; NVFP4's f16 wgmma: 16, modelled alike) adds its
    products to the running sum as one fixed-point sum: every addend (the
    running sum and each product) is aligned to the largest one's exponent
    e and truncated to 13 bits below it (multiples of 2^(e-13)), and the
    result is kept in 13 mantissa bits (e8m13, truncated), until the kernel
    promotes the partial into FP32 registers: every 128-wide k-tile
    (per-tensor without fast_accumulate, FP8 block), every 32-block
    (MXFP8), never (per-tensor with fast_accumulate, NVFP4).

    The slack is what that can lose, per step, with T the largest addend's
    magnitude: min(|t|, 2^-13 T) for each addend t that may be inexact, plus
    2^-13 of the sum's magnitude. The kernel multiplies raw codes and
    applies the operands' scales later (per step they are common factors),
    so the rule holds in ratios to T: a product of two FP8 codes has at
    most 8 significant bits and is exact on the grid when |t| >= 2^-5 T
    (NVFP4's f16 products, at most 12 bits: 2^-1 T); the running sum (14
    bits) is exact only when it is the largest. Computed from the operands
    (data-dependent: far below what a wrong or missing k-tile changes).
    Until 2026-12-04 the slack counted the running sum's truncation only
    (2^-12 of each partial): the first H200 run found 8 of 103 GEMM checks
    with 1 to 19 elements outside it, in cancelling sums (docs/Numerics.md)."""
    k = op_a.shape[1]
    nvfp4 = family.startswith("nvfp4")
    step = 16 if nvfp4 else 32
    exact_above = 2.0 ** (-1 if nvfp4 else -5)
    chunk = {"fp8_block": 128, "mxfp8": 32}.get(family)
    if chunk is None:
        chunk = k if fast_accumulate or nvfp4 else 128
    rows, cols = op_a.shape[0], op_b.shape[0]
    slack = np.zeros((rows, cols))
    block = max(1, BLOCK // max(1, cols * step))  # rows per pass
    # float32 products: a bound, not a value (rounding them moves it by
    # 2^-24 of itself); half the memory traffic of float64.
    a32, b32 = op_a.astype(np.float32), op_b.astype(np.float32)
    for r0 in range(0, rows, block):
        a = a32[r0:r0 + block]
        out = slack[r0:r0 + block]
        for c0 in range(0, k, chunk):
            partial = np.zeros(out.shape)
            for j in range(c0, min(c0 + chunk, k), step):
                products = a[:, None, j:j + step] * b32[None, :, j:j + step]
                run = np.abs(partial).astype(np.float32)
                partial += products.sum(axis=-1, dtype=np.float64)
                np.abs(products, out=products)
                top = np.maximum(run, products.max(axis=-1))
                unit = np.float32(2.0 ** -13) * top
                # Products at or above exact_above * T are exact: they lose nothing.
                lost = np.minimum(products, unit[..., None])
                lost[products >= exact_above * top[..., None]] = 0
                out += lost.sum(axis=-1, dtype=np.float64)
                out += np.where(run < top, np.minimum(run, unit), 0)
                out += 2.0 ** -13 * np.abs(partial)
    return slack


class GemmCase:
    """module (text; function @gemm), inputs (qs-run's arrays), want
    (float64 [rows, cols]), tol (same shape), out (result element type)."""


def gemm_case(rng, family, layout, out, m=64, n=96, k=128, bias=False, accumulate=False,
              tile_n=None, chip=None, needed_usage_only=False, persistent=None,
              cluster=None, schedule=None, fast_accumulate=False, integers=False,
              tensor_cores=False, epilogue=None, split_k=None, split_k_reduce=None,
              scale_loads=None, promotion=None, extreme=False, mx_scaling=None):
    """With needed_usage_only, each operand carries only the usage its
    contraction reads (smaller inputs); persistent: qs.gemm_persistent;
    cluster: qs.gemm_cluster; schedule: qs.gemm_schedule; epilogue:
    qs.gemm_epilogue; split_k: qs.gemm_split_k (S, "auto" or "stream"); split_k_reduce:
    qs.gemm_split_k_reduce ("kernel" or "fused"); scale_loads:
    qs.gemm_scale_loads ("ahead" or "in_tile"); promotion:
    qs.gemm_promotion ("overlapped" or "in_tile"); mx_scaling:
    qs.gemm_mx_scaling ("promote" or "convert"); extreme: the first
    operand's rows at extreme scales (gemm_input); fast_accumulate:
    qs.gemm's flag (sm_90a per-tensor FP8: the tensor core sums all of K).
    integers (per-tensor FP8): operands whose values are integers in
    [-2, 2] with power-of-two scales, so that every partial sum (below 4 K)
    is exact in any accumulator keeping 13 bits or more: a device check of
    fast_accumulate kernels whose result must still meet the FP32 bound.
    tensor_cores: the bound of a result from Hopper's tensor cores
    (tensor_core_slack: the device check, QS_KERNELS=cuda) instead of the
    FP32 bound alone (the CPU reference and the emulation)."""
    name, lhs, rhs, ta, tb = layout
    shapes = {"x": (m, k), "w": (n, k), "dy": (m, n)}
    params = dict(zip(("x", "w", "dy"), FAMILIES[family]))
    if needed_usage_only:
        for tensor, rowwise in ((lhs, not ta), (rhs, tb)):
            params[tensor] = {**params[tensor], "rowwise": rowwise, "columnwise": not rowwise}
    tn_only = chip != "sm_100a"
    if integers:
        assert family in ("fp8_current", "fp8_delayed") and k < 2048
        if family == "fp8_current":
            params = {t: {**p, "force_pow_2_scales": True} for t, p in params.items()}
    qa, a = quantized(rng, family, params[lhs], shapes[lhs], tn_only, integers,
                      extreme=extreme)
    qb, b = quantized(rng, family, params[rhs], shapes[rhs], tn_only, integers)
    rows, cols = shapes[lhs][1 if ta else 0], shapes[rhs][0 if tb else 1]
    inputs = h.npy_inputs(a) + h.npy_inputs(b)
    at, bt = h.qtype(shapes[lhs], "bf16", qa), h.qtype(shapes[rhs], "bf16", qb)
    rt = h.ttype((rows, cols), out)
    args = [f"%a: {at}", f"%b: {bt}"]
    extra = ""
    if bias:
        bias_v = h.random_input(rng, (cols,), "bf16", specials=False, exponents=(-3, 2))
        inputs.append(h.to_npy(bias_v, "bf16"))
        args.append(f"%bias: {h.ttype((cols,), 'bf16')}")
        extra += f" bias(%bias : {h.ttype((cols,), 'bf16')})"
    if accumulate:
        acc = h.random_input(rng, (rows, cols), out, specials=False, exponents=(-3, 2))
        inputs.append(h.to_npy(acc, out))
        args.append(f"%acc: {rt}")
        extra += f" accumulate(%acc : {rt})"
    flags = ((" transpose_a" if ta else "") + (" transpose_b" if tb else "")
             + (" fast_accumulate" if fast_accumulate else ""))
    module = f"""func.func @gemm({', '.join(args)}) -> {rt} {{
  %d = qs.gemm %a, %b{flags}{extra} : {at}, {bt} -> {rt}
  return %d : {rt}
}}"""
    # The module's GEMM options: strings as strings, the rest as i64.
    options = (("gemm_tile_n", tile_n), ("gemm_persistent", persistent),
               ("gemm_cluster", cluster), ("gemm_schedule", schedule),
               ("gemm_epilogue", epilogue), ("gemm_scale_loads", scale_loads),
               ("gemm_promotion", promotion), ("gemm_mx_scaling", mx_scaling),
               ("gemm_split_k", split_k), ("gemm_split_k_reduce", split_k_reduce),
               ("chip", chip))
    attrs = [f'qs.{key} = "{value}"' if isinstance(value, str) else f"qs.{key} = {int(value)} : i64"
             for key, value in options if value]
    if attrs:
        module = f"module attributes {{{', '.join(attrs)}}} {{\n{module}\n}}"
    case = GemmCase()
    case.module, case.inputs, case.out = module, inputs, out
    case.reference = reference_spec(family, layout, out, (qa, a, shapes[lhs]),
                                    (qb, b, shapes[rhs]), bias, accumulate,
                                    tensor_cores and chip != "sm_100a", fast_accumulate)
    case.want, case.tol = gemm_reference(case.reference, inputs)
    case.label = f"{family} {name} -> {out}"
    return case


def reference_spec(family, layout, out, lhs, rhs, bias, accumulate, slack, fast_accumulate):
    """gemm_reference's spec (JSON-serializable): lhs / rhs are (quantizer,
    reference buffers, logical shape); slack: tensor_core_slack's."""
    return {"family": family, "transpose_a": layout[3], "transpose_b": layout[4], "out": out,
            **{side: {"quantizer": q, "buffers": list(bufs), "shape": list(shape)}
               for side, (q, bufs, shape) in (("lhs", lhs), ("rhs", rhs))},
            "bias": bool(bias), "accumulate": bool(accumulate),
            "tensor_core_slack": bool(slack), "fast_accumulate": bool(fast_accumulate)}


def gemm_reference(spec, inputs):
    """(want, tol) of a GEMM case (float64 [rows, cols]) from its qs-run
    inputs and `spec` (GemmCase.reference, JSON-serializable): the
    operands' buffers (in the order of spec["lhs"/"rhs"]["buffers"]), then
    bias and C as stored. scripts/device-run.py calls it on the GPU
    machine with the bundle's inputs (the bundle carries spec, not the
    float64 results: they would take half of its size)."""
    operands = []
    rest = list(inputs)
    for side, contracts_last in (("lhs", not spec["transpose_a"]),
                                 ("rhs", spec["transpose_b"])):
        s = spec[side]
        bufs = dict(zip(s["buffers"], rest[:len(s["buffers"])]))
        rest = rest[len(s["buffers"]):]
        operands.append(ref.gemm_operand(bufs, tuple(s["shape"]), s["quantizer"],
                                         contracts_last=contracts_last))
    op_a, op_b = operands
    want = op_a @ op_b.T
    bound = 2.0 ** -22 * op_a.shape[1] * (np.abs(op_a) @ np.abs(op_b).T)
    if spec["tensor_core_slack"]:
        bound = bound + tensor_core_slack(op_a, op_b, spec["family"], spec["fast_accumulate"])
    out = spec["out"]
    if spec["bias"]:
        want = want + h.from_npy(rest.pop(0), "bf16").astype(np.float64)[None, :]
    if spec["accumulate"]:
        want = want + h.from_npy(rest.pop(0), out).astype(np.float64).reshape(want.shape)
    assert not rest, f"gemm_reference: {len(rest)} inputs left over"
    return want, bound + ULP[out] * np.abs(want) + TINY[out]


def outside_bound(case, got):
    """(count, message) of result elements outside the bound."""
    got = h.from_npy(got, case.out).astype(np.float64).reshape(case.want.shape)
    err = np.abs(got - case.want)
    bad = ~(err <= case.tol)
    if not bad.any():
        return 0, ""
    worst = np.nanmax(err / (np.abs(case.want) + 1e-30))
    return int(bad.sum()), (f"{case.label}: {bad.sum()} of {bad.size} outside the bound; "
                            f"worst rel err {worst:.3g}")


def output_quantization_fused(family, q):
    """Whether qs.gemm quantizes the FP32 product (a #qs.fp8_delayed result of
    per-tensor FP8 operands) rather than the product rounded to the nominal
    type."""
    return q["family"] == "fp8_delayed" and family in ("fp8_current", "fp8_delayed")


def output_quantizer_case(rng, family, layout, qout, nominal, bias, m=64, n=96, k=128,
                          chip=None, attrs=(), tensor_cores=False, needed_usage_only=False,
                          fast_accumulate=False, dominant_bias=False, product_uses=None):
    """qs.gemm with output quantizer `qout` (a quantizer description) and
    nominal type `nominal`, in a function @gemm returning the same GEMM
    twice: into its product type (.product: f32 when the quantization is
    fused, else `nominal`; .want / .tol as GemmCase, tensor_cores adds the
    Hopper slack), then quantized (.names: its inner tensors), and for
    delayed scaling the updated amax (.scale / .state: the inputs given,
    else None). chip: the module's qs.chip (sm_100a: no transpose
    buffers); attrs: more module attributes (GEMM kernel options);
    needed_usage_only and fast_accumulate as gemm_case (no integer
    operands: not for a Hopper device check). dominant_bias (with bias):
    non-negative operands and bias[n] = -max_m (A B)[m, n] rounded to
    bf16, so every D[m, n] = (A B)[m, n] + bias[n] is smaller in magnitude
    than bias[n] (where the product is positive): the bias-only values a
    kernel computes for rows past M would raise any amax that counted
    them (delayed scaling: with an amax history of 0). product_uses (a
    quantizer with one global amax): the GEMM once, into `nominal`, and
    @gemm returns the product and, with "amax", its qs.amax (`as` the
    quantized type) and the qs.quantize of the product given that amax
    (TE's amax reduction with one rank); with "quantize", the qs.quantize
    of the product (a second use of it)."""
    name, lhs, rhs, ta, tb = layout
    tn_only = chip != "sm_100a"
    shapes = {"x": (m, k), "w": (n, k), "dy": (m, n)}
    params = dict(zip(("x", "w", "dy"), FAMILIES[family]))
    if needed_usage_only:
        for tensor, rowwise in ((lhs, not ta), (rhs, tb)):
            params[tensor] = {**params[tensor], "rowwise": rowwise, "columnwise": not rowwise}
    qa, a = quantized(rng, family, params[lhs], shapes[lhs], tn_only, positive=dominant_bias)
    qb, b = quantized(rng, family, params[rhs], shapes[rhs], tn_only, positive=dominant_bias)
    rows, cols = shapes[lhs][1 if ta else 0], shapes[rhs][0 if tb else 1]
    product = "f32" if output_quantization_fused(family, qout) else nominal
    spec = reference_spec(family, layout, product, (qa, a, shapes[lhs]), (qb, b, shapes[rhs]),
                          bias, False, tensor_cores and tn_only, False)
    inputs = h.npy_inputs(a) + h.npy_inputs(b)
    at, bt = h.qtype(shapes[lhs], "bf16", qa), h.qtype(shapes[rhs], "bf16", qb)
    args = [f"%a: {at}", f"%b: {bt}"]
    extra = ((" transpose_a" if ta else "") + (" transpose_b" if tb else "")
             + (" fast_accumulate" if fast_accumulate else ""))
    if bias:
        bias_v = h.random_input(rng, (cols,), "bf16", specials=False, exponents=(-3, 2))
        if dominant_bias:
            ab = gemm_reference({**spec, "bias": False}, inputs)[0]
            bias_v = h.from_npy(h.to_npy(-ab.max(axis=0), "bf16"), "bf16")
        inputs.append(h.to_npy(bias_v, "bf16"))
        bt_ = h.ttype((cols,), "bf16")
        args.append(f"%bias: {bt_}")
        extra += f" bias(%bias : {bt_})"
    want, tol = gemm_reference(spec, inputs)
    pt = h.ttype((rows, cols), product)
    qt = h.qtype((rows, cols), nominal, qout)
    s1 = "tensor<1xf32>"
    delayed = qout["family"] == "fp8_delayed"
    state = scale = None
    if delayed:
        with np.errstate(divide="ignore"):
            # Some products saturate: scale up to 2x past 448 / amax.
            scale = np.float32(448.0 / np.abs(want).max() * rng.uniform(0.5, 2.0))
        # dominant_bias: no history, so the updated amax is D's own.
        state = np.float32(0.0 if dominant_bias else
                           rng.uniform(0.0, 2.0) * np.abs(want).max())
        inputs += [np.array([scale], np.float32), np.array([state], np.float32)]
        args += [f"%s: {s1}", f"%am: {s1}"]
    qresults = f"{qt}, {s1}" if delayed else qt
    qnames = "%q, %am2" if delayed else "%q"
    recipe = f" scale(%s : {s1}) amax(%am : {s1})" if delayed else ""
    if product_uses == "amax":
        assert not delayed and product == nominal, "a quantizer with a global amax"
        module = f"""func.func @gemm({', '.join(args)}) -> ({pt}, {s1}, {qt}) {{
  %d = qs.gemm %a, %b{extra} : {at}, {bt} -> {pt}
  %g = qs.amax %d as {qt} : {pt} -> {s1}
  %q = qs.quantize %d amax(%g : {s1}) : {pt} -> {qt}
  return %d, %g, %q : {pt}, {s1}, {qt}
}}"""
    elif product_uses == "quantize":
        assert not delayed and product == nominal, "a quantizer with a global amax"
        module = f"""func.func @gemm({', '.join(args)}) -> ({pt}, {qt}) {{
  %d = qs.gemm %a, %b{extra} : {at}, {bt} -> {pt}
  %q = qs.quantize %d : {pt} -> {qt}
  return %d, %q : {pt}, {qt}
}}"""
    else:
        module = f"""func.func @gemm({', '.join(args)}) -> ({pt}, {qresults}) {{
  %d = qs.gemm %a, %b{extra} : {at}, {bt} -> {pt}
  {qnames} = qs.gemm %a, %b{extra}{recipe} : {at}, {bt} -> {qresults}
  return %d, {qnames} : {pt}, {qresults}
}}"""
    attrs = ([f'qs.chip = "{chip}"'] if chip else []) + list(attrs)
    if attrs:
        module = f"module attributes {{{', '.join(attrs)}}} {{\n{module}\n}}"
    with np.errstate(all="ignore"):
        # The buffers' names and count: quantize anything of the shape.
        names = list(ref.quantize(np.zeros((rows, cols), np.float32), qout, product,
                                  chip_tn_only=tn_only, scale=np.float32(1),
                                  amax_state=np.float32(0))[0])
    case = GemmCase()
    case.module, case.inputs, case.want, case.tol = module, inputs, want, tol
    case.product, case.names, case.scale, case.state = product, names, scale, state
    case.label = f"{family} {name} -> {qt}"
    return case
