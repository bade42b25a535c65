#!/usr/bin/env python3
"""Random differential testing of what qs-run executes: configurations
drawn at random are run through qs-run (the emulated GPU kernels, or the
CPU reference lowering) and compared with the independent numpy reference
(test/numerics/qs_reference.py, gemm_cases.py), for a time budget. The
pytest suites check chosen combinations; this draws from all of them
(docs/Testing.md, "Numerics sweep"):

* quantize: family, every quantizer option, rank-1..3 shapes of odd and
  aligned sizes, bf16/f16/f32 input, the layout chip, the kernels' chip,
  coalesced or direct stores, delayed scaling's scale and amax state,
  stochastic rounding's rng state; every byte of every inner tensor;
  a qs.bias_grad of the same input beside it (one in five, bit for bit);
* dequantize (bit for bit) and update_usage (every byte) of the same
  quantizers;
* gemm: family (the Linear recipes of gemm_cases.py), layout (TN/NN/NT),
  output type, M/N/K with partial tiles, bias, accumulate, fast
  accumulation, and every kernel option (tile width, persistent grid,
  multicast pairs, ping-pong, TMA-store epilogue, split-K/stream-K and
  its reduction, scale loads, promotion, MX scaling) on either chip, for
  GPUs of 4, 8 or 132 multiprocessors; the result within the documented
  bound; gemm_quantized: the same with an output quantizer;
* linear: a bundled TE Linear layer (examples/linear_*.mlir, every recipe)
  resized to a random M x N x K, forward then backward from the forward's
  buffers, on either chip's kernels (test/numerics/linear_cases.py).

  .venv/bin/python scripts/numerics-sweep.py --seconds 600
      [--op quantize|gemm|dequantize|update_usage|gemm_quantized|linear|all]
      [--seed N] [--kernels gpu-emulated|reference] [--out DIR]

A configuration the verifier or a kernel rule rejects is counted with its
diagnostic (not a failure); one the numpy reference cannot express must be
rejected by qs too. A mismatch, a crash or a run that fails without a
diagnostic is a failure: its configuration (whose seeds give the input)
and the message with the module go to --out (default /tmp/qs-sweep), and
the command that replays exactly that case (--replay SEED:INDEX, with the
same --op) is printed. Exit status 1 when any case failed.
"""

import argparse
import collections
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "numerics"))

CHIPS = ["sm_90a", "sm_100a"]
NOMINALS = ["bf16", "f16", "f32"]
USAGES = [dict(columnwise=False), dict(rowwise=False), {}]
FP8 = ["f8E4M3FN", "f8E5M2"]


# --mutate: every compared result is corrupted, so every compared case must
# fail (the comparisons are not vacuous).
MUTATE = False


def pick(r, choices, p=None):
    return choices[r.choice(len(choices), p=p)]


def draw_dim(r, align, free=0.25):
    """A dimension: a multiple of `align`, or with probability `free` any
    size (partial blocks and tiles)."""
    if r.random() < free:
        return int(r.integers(1, 200))
    return int(align * r.integers(1, max(2, 384 // align)))


def draw_config(r):
    family = pick(r, ["fp8_current", "fp8_delayed", "mxfp8", "fp8_block", "nvfp4"],
                  p=[0.15, 0.1, 0.2, 0.2, 0.35])
    params = dict(pick(r, USAGES))
    align = {"fp8_current": 16, "fp8_delayed": 16, "mxfp8": 32, "fp8_block": 16, "nvfp4": 16}[family]
    if family in ("fp8_current", "fp8_delayed", "mxfp8", "fp8_block"):
        params["fp8_dtype"] = pick(r, FP8, p=[0.75, 0.25])
    if family == "fp8_current" or family == "fp8_block":
        if r.random() < 0.3:
            params["force_pow_2_scales"] = family == "fp8_current"
        if r.random() < 0.2:
            params["amax_epsilon"] = float(pick(r, [1e-3, 1e-2, 0.5]))
    if family == "fp8_block":
        params["block_scaling_dim"] = int(pick(r, [1, 2]))
    if family == "mxfp8":
        params["with_2d_quantization"] = bool(r.random() < 0.25)
        params["optimize_for_gemm"] = bool(r.random() < 0.4)
    if family == "nvfp4":
        params["with_rht"] = bool(r.random() < 0.25)
        params["with_2d_quantization"] = bool(r.random() < 0.3)
        params["stochastic_rounding"] = bool(r.random() < 0.2)
        params["row_scaled_nvfp4"] = bool(r.random() < 0.1)
        params["optimize_for_gemm"] = bool(r.random() < 0.3)
        params["with_random_sign_mask"] = bool(r.random() < 0.8)
        if r.random() < 0.25:
            params["nvfp4_use_4over6"] = True
            params["nvfp4_e4m3_max"] = int(pick(r, [448, 256]))
            params["nvfp4_4over6_err_mode"] = pick(r, ["MAE", "MSE"])
        # The verifier's exclusions (its diagnostics have their own tests).
        if params.get("nvfp4_use_4over6"):
            params.update(with_rht=False, stochastic_rounding=False)
        if params["row_scaled_nvfp4"]:
            params.update(with_rht=False, with_2d_quantization=False, stochastic_rounding=False)
    rank = int(pick(r, [1, 2, 3], p=[0.1, 0.7, 0.2]))
    # NVFP4 needs M (the leading dimensions' product) a multiple of 16:
    # mostly so, sometimes not (the rule's diagnostic).
    lead = 16 if family == "nvfp4" and r.random() < 0.9 else align
    # Per-tensor and block FP8 take any shape; MXFP8 and NVFP4 whole blocks
    # (rarely otherwise: their rules' diagnostics).
    free = 0.3 if family.startswith("fp8") else 0.03
    shape = [draw_dim(r, lead, free) for _ in range(rank - 1)] + [draw_dim(r, align, free)]
    if rank == 3:
        shape[0] = int(r.integers(1, 4))
    while int(np.prod(shape)) > 96 * 1024:
        shape[-1] = max(1, shape[-1] // 2)
    nominal = pick(r, NOMINALS, p=[0.5, 0.2, 0.3])
    if params.get("with_rht"):
        nominal = "bf16"  # TE's RHT kernels take bf16 (a verifier rule)
    config = dict(op="quantize", family=family, params=params, shape=shape, nominal=nominal,
                  chip=pick(r, CHIPS), kernel_chip=pick(r, CHIPS + [None], p=[0.4, 0.4, 0.2]),
                  direct=bool(r.random() < 0.2),
                  specials=bool(r.random() < 0.8),
                  exponents=pick(r, [(-12, 12), (-40, 40), (-130, -100), (100, 127)],
                                 p=[0.7, 0.15, 0.075, 0.075]),
                  input_seed=int(r.integers(0, 2**31)))
    if family == "fp8_delayed":
        config["scale"] = float(pick(r, [r.uniform(0.5, 64.0), 0.0, 2.0**-130, 3e38]))
        config["amax_state"] = float(r.uniform(0.0, 10.0))
    if params.get("stochastic_rounding"):
        config["rng"] = [int(r.integers(-2**63, 2**63 - 1, dtype="int64")),
                         int(r.integers(-2**63, 2**63 - 1, dtype="int64"))]
    # TE's amax reduction (2026-12-07): the quantize given its global
    # amaxes (the input's own times a factor each: 1, another, 0 or inf),
    # and qs.amax of the input beside it.
    if family == "fp8_current" or (family == "nvfp4" and not params["row_scaled_nvfp4"]):
        count = 2 if params.get("with_rht") else 1
        if r.random() < 0.25:
            config["given_amax"] = [float(pick(r, [1.0, r.uniform(0.1, 8.0), 0.0, np.inf],
                                               p=[0.4, 0.4, 0.1, 0.1])) for _ in range(count)]
        config["amax_op"] = bool(r.random() < 0.25)
    # qs.bias_grad of the same input after the quantize (TE's
    # bgrad_quantize; the GPU's cast kernel writes its chunk sums).
    if rank >= 2 and r.random() < 0.2:
        config["bias_grad"] = pick(r, NOMINALS)
    return config


def draw_gemm_config(r):
    import gemm_cases as gm
    family = pick(r, list(gm.FAMILIES))
    layout = int(r.integers(0, 3))
    # MXFP8 and NVFP4 operands need every dimension a multiple of 32
    # (blocks of 32, packed rows of 16 bytes), TMA 16-byte rows; mostly so.
    align = 32 if family.startswith(("mxfp8", "nvfp4")) else 16
    def dim(hi, free=False):
        if free or (align == 16 and r.random() < 0.05):
            return int(r.integers(1, hi))
        return int(align * r.integers(1, hi // align + 1))
    # M is free in fprop (TN: neither contracted nor a TMA row length).
    free_m = align == 16 and layout == 0 and r.random() < 0.5
    opts = dict(m=dim(320, free=free_m), n=dim(320), k=dim(1100),
                bias=bool(r.random() < 0.3), accumulate=bool(r.random() < 0.2),
                needed_usage_only=bool(r.random() < 0.3), extreme=bool(r.random() < 0.1))
    if family in ("fp8_current", "fp8_delayed") and r.random() < 0.3:
        opts["fast_accumulate"] = True
    # Each kernel option where it applies (mostly; the rules' diagnostics
    # are the fuzzer's and the -verify-diagnostics tests' job).
    per_tensor = family in ("fp8_current", "fp8_delayed")
    chip = pick(r, CHIPS)
    kernel_chip = pick(r, CHIPS + [None], p=[0.3, 0.3, 0.4])
    hopper = (kernel_chip or chip) == "sm_90a"
    contracted = opts[["k", "n", "m"][layout]]  # fprop x w^T, dgrad dy w, wgrad dy^T x
    k_tiles = -(-contracted // (256 if align == 32 else 128))  # as the kernels' rule counts
    splits = [s for s in (2, 3, 4) if k_tiles % s == 0]
    maybe = {"persistent": [2, 3, 132], "epilogue": ["tma"],
             "split_k": splits + ["auto", "stream"]}
    if per_tensor or not hopper:  # sm_90a block-scaled kernels: fixed widths
        maybe["tile_n"] = [128, 192, 256] if hopper else [128, 256]
    if splits:
        maybe["split_k_reduce"] = ["kernel", "fused"]
    if layout == 0 and hopper:  # multicast pairs: K-major operands
        maybe["cluster"] = [2]
    if per_tensor and opts.get("fast_accumulate") and hopper:
        maybe["schedule"] = ["pingpong"]
    if (per_tensor or family == "fp8_block") and hopper:
        maybe["promotion"] = ["overlapped", "in_tile"]
    if family == "fp8_block" and hopper:
        maybe["scale_loads"] = ["ahead", "in_tile"]
    if family == "mxfp8":
        maybe["mx_scaling"] = ["promote", "convert", "dequantize"]
    if family.startswith("nvfp4"):
        maybe["mx_scaling"] = ["dequantize"]
    for key, values in maybe.items():
        if r.random() < 0.2:
            opts[key] = pick(r, values)
    if "split_k_reduce" in opts and "split_k" not in opts:
        opts["split_k"] = pick(r, splits)
    if "split_k" in opts and "epilogue" in opts and r.random() < 0.8:
        del opts["epilogue"]  # split-K writes D in its reduction (a rule)
    # NVFP4 GEMMs produce f32 or bf16 (TE's rule: a diagnostic for f16).
    out = pick(r, ["f32", "bf16"] if family.startswith("nvfp4") else ["f32", "bf16", "f16"])
    if opts["extreme"] and out == "f16":
        # Rows scaled by 2^40 overflow f16; gemm_cases' bound compares with
        # the unrounded float64 product (the suites use f32 and bf16 there).
        out = "bf16"
    return dict(op="gemm", family=family, layout=layout, out=out, chip=chip,
                kernel_chip=kernel_chip,
                multiprocessors=int(pick(r, [4, 8, 132])), opts=opts,
                input_seed=int(r.integers(0, 2**31)))


def run_gemm_case(config, h, kernels):
    import gemm_cases as gm
    r = np.random.default_rng(config["input_seed"])
    try:
        with np.errstate(all="ignore"):
            case = gm.gemm_case(r, config["family"], gm.LAYOUTS[config["layout"]],
                                config["out"], chip=config["chip"], **config["opts"])
    except Exception as e:
        return "unreferenced", f"{type(e).__name__}: {e}"
    extra = kernel_args(config, kernels)
    try:
        (got,) = h.run(case.module, "gemm", case.inputs, 1, extra)
    except h.QSRunError as e:
        return classify_error(str(e))
    if MUTATE:  # a result element far outside the bound
        case.want = case.want.copy()
        case.want.flat[0] += 4 * case.tol.flat[0] + max(1.0, 4 * abs(case.want.flat[0]))
    with np.errstate(all="ignore"):
        bad, message = gm.outside_bound(case, got)
    if bad:
        return "failed", f"{message}\n{case.module}"
    return "ok", ""


def classify_error(text):
    """('rejected', the diagnostic) for a run that stopped at a diagnostic;
    ('failed', text) for a crash or a failure without one."""
    # Sanitizer reports (a qs-run of build-asan/): UBSan's "runtime error:"
    # exits with code 1 like a diagnostic.
    crashed = any(s in text for s in ("Assertion", "LLVM ERROR", "Stack dump",
                                      "PLEASE submit", "Segmentation", "Sanitizer",
                                      "runtime error:"))
    code = text.split("(", 1)[1].split(")", 1)[0] if "(" in text else ""
    if not crashed and "error:" in text and code == "1":
        line = next(l for l in text.splitlines() if "error:" in l)
        return "rejected", line.split("error:", 1)[1].strip()
    return "failed", text[:4000]


def build_case(config, h):
    """(module text, inputs, reference buffers, updated amax, quantizer,
    qs.amax's reference result or None, qs.bias_grad's reference result
    (its .npy array) or None) of a config."""
    import qs_reference as ref
    family, shape, nominal = config["family"], tuple(config["shape"]), config["nominal"]
    q = h.quantizer(family, **config["params"])
    r = np.random.default_rng(config["input_seed"])
    with np.errstate(all="ignore"):
        x = h.random_input(r, shape, nominal, specials=config["specials"],
                           exponents=tuple(config["exponents"]))
    t, qt = h.ttype(shape, nominal), h.qtype(shape, nominal, q)
    attrs = ' attributes {qs.quantize_stores = "direct"}' if config["direct"] else ""
    args, operands, inputs = [f"%x: {t}"], "", [h.to_npy(x, nominal)]
    results, returns = [qt], ["%q"]
    kwargs = {}
    if family == "fp8_delayed":
        s = "tensor<1xf32>"
        args += [f"%s: {s}", f"%a: {s}"]
        operands = f" scale(%s : {s}) amax(%a : {s})"
        inputs += [np.array([config["scale"]], np.float32),
                   np.array([config["amax_state"]], np.float32)]
        results.append(s)
        returns.append("%amax")
        kwargs.update(scale=np.float32(config["scale"]),
                      amax_state=np.float32(config["amax_state"]))
    if "rng" in config:
        args.append("%rng: tensor<2xi64>")
        operands += " rng(%rng : tensor<2xi64>)"
        inputs.append(np.array(config["rng"], dtype=np.int64))
        kwargs["rng"] = tuple(config["rng"])
    a = f"tensor<{len(config.get('given_amax', [])) or (2 if q.get('with_rht') else 1)}xf32>"
    own = None
    if "given_amax" in config or config.get("amax_op"):
        try:
            with np.errstate(all="ignore"):
                own = ref.global_amaxes(x, q)
        except Exception:  # shapes outside the reference's blocks: own stays None
            pass
    if "given_amax" in config:
        factors = np.array(config["given_amax"], np.float32)
        with np.errstate(all="ignore"):  # inf * 0 in the branch not taken
            g = (np.where(np.isfinite(factors), (own if own is not None else 1) * factors,
                          factors).astype(np.float32))
        args.append(f"%g: {a}")
        operands += f" amax(%g : {a})"
        inputs.append(g)
        kwargs["global_amax"] = g if g.size > 1 else g[0]
    lhs = ", ".join(returns)
    rtypes = ", ".join(results)
    amax_line = ""
    if config.get("amax_op"):
        amax_line = f"\n  %am = qs.amax %x as {qt} : {t} -> {a}"
        results.append(a)
        returns.append("%am")
    bias_grad = None
    if config.get("bias_grad"):
        r1 = h.ttype((shape[-1],), config["bias_grad"])
        amax_line += f"\n  %db = qs.bias_grad %x : {t} -> {r1}"
        results.append(r1)
        returns.append("%db")
        with np.errstate(all="ignore"):
            bias_grad = h.to_npy(ref.bias_grad(x), config["bias_grad"])
    body = f"""func.func @quantize({', '.join(args)}) -> ({', '.join(results)}){attrs} {{
  {lhs} = qs.quantize %x{operands} : {t} -> {rtypes}{amax_line}
  return {', '.join(returns)} : {', '.join(results)}
}}"""
    module = f'module attributes {{qs.chip = "{config["chip"]}"}} {{\n{body}\n}}'
    try:
        with np.errstate(all="ignore"):
            expected, updated = ref.quantize(x, q, nominal,
                                             chip_tn_only=config["chip"] != "sm_100a", **kwargs)
    except Exception as e:
        raise Unreferenced(f"{type(e).__name__}: {e}", module, inputs) from None
    if config.get("amax_op") and own is None:
        raise Unreferenced("the reference has no global amaxes for this shape", module, inputs)
    return (module, inputs, expected, updated, q, own if config.get("amax_op") else None,
            bias_grad)


class Unreferenced(Exception):
    """The numpy reference cannot express a configuration (shapes outside
    its blocks); carries the module, whose run must then be rejected."""

    def __init__(self, message, module, inputs):
        super().__init__(message)
        self.module, self.inputs = module, inputs


def kernel_args(config, kernels):
    """qs-run's options for the configuration's kernels."""
    extra = []
    if kernels == "gpu-emulated":
        if "multiprocessors" in config:
            extra.append(f"--multiprocessors={config['multiprocessors']}")
        if config.get("kernel_chip"):
            extra.append(f"--chip={config['kernel_chip']}")
    return extra


def unary_module(chip, function, op, arg, result):
    """A module of qs.chip `chip` whose @function applies `op` (one operand,
    one result of the types given) to its argument."""
    return f"""module attributes {{qs.chip = "{chip}"}} {{
func.func @{function}(%a: {arg}) -> {result} {{
  %r = {op} %a : {arg} -> {result}
  return %r : {result}
}}
}}"""


def draw_dequantize_config(r):
    """A quantize configuration whose reference buffers are dequantized
    (the row-wise representation if present, else the column-wise one)."""
    config = draw_config(r)
    config.update(op="dequantize", out=pick(r, ["f32", "bf16", "f16"]))
    return config


def expect_rejected(h, module, function, inputs, config, kernels, why):
    """For a configuration the numpy reference cannot express: qs must
    reject it too ('rejected' with its diagnostic); else 'unreferenced'
    (a configuration only qs takes, reported, not a failure). Without
    inputs the module's verification decides."""
    try:
        h.run(module, function, inputs, 1, extra_args=kernel_args(config, kernels))
    except h.QSRunError as err:
        return classify_error(str(err))
    # An Unreferenced already names the reference's exception.
    return "unreferenced", str(why) if isinstance(why, Unreferenced) else \
        f"{type(why).__name__}: {why}"


def run_dequantize_case(config, h, kernels):
    import ml_dtypes
    import qs_reference as ref
    shape, out = tuple(config["shape"]), config["out"]
    q = h.quantizer(config["family"], **config["params"])
    qt, t = h.qtype(shape, config["nominal"], q), h.ttype(shape, out)
    module = unary_module(config["chip"], "dequantize", "qs.dequantize", qt, t)
    try:
        _, _, buffers, _, q, _, _ = build_case(config, h)
    except Exception as e:  # the quantized type's shape is outside the reference
        return expect_rejected(h, module, "dequantize", [], config, kernels, e)
    try:
        with np.errstate(all="ignore"):
            want = ref.dequantize(buffers, shape, q)
    except Exception as e:  # no reference dequantization (NVFP4 column-wise only)
        return expect_rejected(h, module, "dequantize", h.npy_inputs(buffers), config, kernels, e)
    try:
        (got,) = h.run(module, "dequantize", h.npy_inputs(buffers), 1,
                       extra_args=kernel_args(config, kernels))
    except h.QSRunError as e:
        return classify_error(str(e))
    with np.errstate(all="ignore"):
        if out == "bf16":
            want = want.astype(ml_dtypes.bfloat16).astype(np.float32)
        elif out == "f16":
            want = want.astype(np.float16).astype(np.float32)
    got = h.from_npy(got, out)
    if MUTATE:
        got = got.copy()
        got.flat[0] = 2.0 if want.flat[0] == 1.0 else 1.0
    try:
        h.assert_floats_equal(got, want, f"dequantize -> {out}")
    except AssertionError as e:
        return "failed", f"{e}\n{module}"
    return "ok", ""


def draw_update_config(r):
    """update_usage creating the column-wise representation from the
    row-wise one (the transitions TE derives exactly: the per-tensor FP8
    transpose, 128x128 block FP8, 16x16 NVFP4), keeping the row-wise or not."""
    family, params = pick(r, [("fp8_current", {}), ("fp8_delayed", {}),
                              ("fp8_block", dict(block_scaling_dim=2)),
                              ("nvfp4", dict(with_2d_quantization=True))])
    params = dict(params)
    if family.startswith("fp8"):
        params["fp8_dtype"] = pick(r, FP8, p=[0.75, 0.25])
    if family == "nvfp4":
        params["optimize_for_gemm"] = bool(r.random() < 0.3)
        if r.random() < 0.3:
            params.update(nvfp4_use_4over6=True, nvfp4_e4m3_max=int(pick(r, [448, 256])),
                          nvfp4_4over6_err_mode=pick(r, ["MAE", "MSE"]))
    align = 16
    rank = int(pick(r, [1, 2, 3], p=[0.1, 0.75, 0.15]))
    shape = [draw_dim(r, align) for _ in range(rank)]
    if rank == 3:
        shape[0] = int(r.integers(1, 4))
    while int(np.prod(shape)) > 96 * 1024:
        shape[-1] = max(1, shape[-1] // 2)
    return dict(op="update_usage", family=family, params=params, shape=shape,
                keep_rowwise=bool(r.random() < 0.6), chip=pick(r, CHIPS),
                kernel_chip=pick(r, CHIPS + [None], p=[0.4, 0.4, 0.2]),
                input_seed=int(r.integers(0, 2**31)))


def run_update_case(config, h, kernels):
    import qs_reference as ref
    family, shape, nominal = config["family"], tuple(config["shape"]), "bf16"
    params = config["params"]
    row = h.quantizer(family, columnwise=False, **params)
    both = h.quantizer(family, rowwise=config["keep_rowwise"], **params)
    r = np.random.default_rng(config["input_seed"])
    tn_only = config["chip"] != "sm_100a"
    reference_error = None
    try:
        with np.errstate(all="ignore"):
            x = h.random_input(r, shape, nominal)
            kw = dict(scale=np.float32(2.0), amax_state=np.float32(0), chip_tn_only=tn_only)
            source, _ = ref.quantize(x, row, nominal, **kw)
            want, _ = ref.quantize(x, both, nominal, **kw)
            if params.get("nvfp4_use_4over6"):
                # TE's nibble transpose of the row-wise tiles (test_update_usage.py).
                want["columnwise_data"], want["columnwise_scale_inv"] = \
                    ref.nvfp4_2d_columnwise_from_rowwise(source, shape, both)
    except Exception as e:
        reference_error = e
    a, b = h.qtype(shape, nominal, row), h.qtype(shape, nominal, both)
    module = unary_module(config["chip"], "update", "qs.update_usage", a, b)
    if reference_error:
        return expect_rejected(h, module, "update", [], config, kernels, reference_error)
    try:
        outs = h.run(module, "update", h.npy_inputs(source), len(want),
                     extra_args=kernel_args(config, kernels))
    except h.QSRunError as e:
        return classify_error(str(e))
    if MUTATE:
        outs[0] = outs[0].copy()
        outs[0].view(np.uint8).reshape(-1)[0] ^= 1
    try:
        for (name, expected), got in zip(want.items(), outs):
            region = ref.valid_region(name, shape, both)
            h.assert_bytes_equal(np.asarray(got)[region], np.asarray(expected)[region], name)
    except AssertionError as e:
        return "failed", f"{e}\n{module}"
    return "ok", ""


def run_case(config, h, kernels):
    """'ok', ('rejected', message) or ('failed', message)."""
    import qs_reference as ref
    extra = kernel_args(config, kernels)
    try:
        module, inputs, expected, updated, q, amaxes, bias_grad = build_case(config, h)
    except Unreferenced as e:  # a block rule: qs must reject it too
        return expect_rejected(h, e.module, "quantize", e.inputs, config, kernels, e)
    n = (len(expected) + (updated is not None) + (amaxes is not None)
         + (bias_grad is not None))
    try:
        outs = h.run(module, "quantize", inputs, n, extra_args=extra)
    except h.QSRunError as e:
        return classify_error(str(e))
    shape = tuple(config["shape"])
    if MUTATE:  # one bit of the first result byte flipped
        outs[0] = outs[0].copy()
        outs[0].view(np.uint8).reshape(-1)[0] ^= 1
    try:
        for (name, want), got in zip(expected.items(), outs):
            region = ref.valid_region(name, shape, q)
            h.assert_bytes_equal(got[region], np.asarray(want)[region], name)
            h.assert_bytes_equal(got, want, f"{name} (padding)")
        if updated is not None:
            h.assert_bytes_equal(outs[len(expected)], updated, "updated amax")
        if amaxes is not None:
            h.assert_bytes_equal(outs[len(expected) + (updated is not None)], amaxes, "qs.amax")
        if bias_grad is not None:
            h.assert_bytes_equal(outs[-1], bias_grad, "qs.bias_grad")
    except AssertionError as e:
        return "failed", f"{e}\n{module}"
    return "ok", ""


KERNEL_ATTRS = {"tile_n": "qs.gemm_tile_n = {} : i64", "persistent": "qs.gemm_persistent = {} : i64",
                "cluster": "qs.gemm_cluster = {} : i64", "schedule": 'qs.gemm_schedule = "{}"',
                "epilogue": 'qs.gemm_epilogue = "{}"', "scale_loads": 'qs.gemm_scale_loads = "{}"',
                "promotion": 'qs.gemm_promotion = "{}"', "mx_scaling": 'qs.gemm_mx_scaling = "{}"',
                "split_k_reduce": 'qs.gemm_split_k_reduce = "{}"'}


def draw_gemm_quantized_config(r):
    """qs.gemm with an output quantizer (TE's quantization_params): a GEMM
    configuration (its kernel options as module attributes) whose result is
    quantized by a random quantizer; the product within the GEMM bound,
    the quantized result byte for byte the numpy quantization of that
    product (test_gemm_output_quantizer.py's check)."""
    config = draw_gemm_config(r)
    opts = config["opts"]
    qfamily = pick(r, ["fp8_delayed", "fp8_current", "mxfp8", "fp8_block", "nvfp4"],
                   p=[0.3, 0.2, 0.2, 0.15, 0.15])
    qparams = dict(pick(r, USAGES))
    if qfamily == "fp8_block":
        qparams["block_scaling_dim"] = int(pick(r, [1, 2]))
    if qfamily in ("fp8_delayed", "fp8_current", "mxfp8") and r.random() < 0.3:
        qparams["fp8_dtype"] = "f8E5M2"
    if qfamily == "mxfp8" and r.random() < 0.3:
        qparams["optimize_for_gemm"] = True
    if qfamily == "nvfp4" and r.random() < 0.3:
        qparams.update(nvfp4_use_4over6=True, nvfp4_e4m3_max=int(pick(r, [448, 256])))
    # The result's rows and columns: whole blocks of its quantizer.
    rows_key, cols_key = [("m", "n"), ("m", "k"), ("n", "k")][config["layout"]]
    if qfamily in ("mxfp8", "nvfp4"):
        for key in (rows_key, cols_key):
            opts[key] = max(32, opts[key] // 32 * 32)
        contracted = opts[["k", "n", "m"][config["layout"]]]
        width = 256 if config["family"].startswith(("mxfp8", "nvfp4")) else 128
        if isinstance(opts.get("split_k"), int) and -(-contracted // width) % opts["split_k"]:
            del opts["split_k"]  # no longer divides the k-tiles
            opts.pop("split_k_reduce", None)
    attrs = [KERNEL_ATTRS[k].format(v) for k, v in opts.items() if k in KERNEL_ATTRS]
    if "split_k" in opts:
        v = opts["split_k"]
        attrs.append(f'qs.gemm_split_k = "{v}"' if isinstance(v, str) else
                     f"qs.gemm_split_k = {v} : i64")
    nominal = pick(r, ["bf16", "f32"] if config["family"].startswith("nvfp4")
                   else ["bf16", "f16", "f32"])
    # Quantizers with one global amax: sometimes one GEMM whose product is
    # returned beside its qs.amax and the quantize given it, or beside its
    # quantize (output_quantizer_case's product_uses).
    uses = None
    if qfamily in ("fp8_current", "nvfp4"):
        uses = pick(r, [None, "amax", "quantize"], p=[0.6, 0.25, 0.15])
    config.update(op="gemm_quantized", qout=dict(family=qfamily, **qparams), nominal=nominal,
                  product_uses=uses,
                  attrs=attrs, bias=bool(opts["bias"]),
                  dims=dict(m=opts["m"], n=opts["n"], k=opts["k"]),
                  fast_accumulate=bool(opts.get("fast_accumulate")),
                  needed_usage_only=bool(opts["needed_usage_only"]))
    del config["opts"], config["out"]
    return config


def run_gemm_quantized_case(config, h, kernels):
    import gemm_cases as gm
    import qs_reference as ref
    r = np.random.default_rng(config["input_seed"])
    qd = dict(config["qout"])
    qout = h.quantizer(qd.pop("family"), **qd)
    try:
        with np.errstate(all="ignore"):
            c = gm.output_quantizer_case(
                r, config["family"], gm.LAYOUTS[config["layout"]], qout, config["nominal"],
                config["bias"], chip=config["chip"], attrs=config["attrs"],
                needed_usage_only=config["needed_usage_only"],
                fast_accumulate=config["fast_accumulate"],
                product_uses=config.get("product_uses"), **config["dims"])
    except Exception as e:
        return "unreferenced", f"{type(e).__name__}: {e}"
    given = config.get("product_uses") == "amax"  # outs[1]: the qs.amax
    n = 1 + given + len(c.names) + (1 if c.scale is not None else 0)
    try:
        outs = h.run(c.module, "gemm", c.inputs, n, extra_args=kernel_args(config, kernels))
    except h.QSRunError as e:
        return classify_error(str(e))
    if MUTATE:
        outs[1] = outs[1].copy()
        outs[1].view(np.uint8).reshape(-1)[0] ^= 1
    d = h.from_npy(outs[0], c.product).astype(np.float64)
    with np.errstate(all="ignore"):
        bad = ~(np.abs(d - c.want) <= c.tol)
        if bad.any():
            return "failed", f"{c.label} product: {bad.sum()} of {bad.size} outside the bound\n{c.module}"
        product = h.from_npy(outs[0], c.product)
        amax = np.array([ref.amax(product)], np.float32)
        expected, updated = ref.quantize(product, qout, c.product,
                                         chip_tn_only=config["chip"] != "sm_100a",
                                         scale=c.scale, amax_state=c.state,
                                         **({"global_amax": amax[0]} if given else {}))
    try:
        if given:
            h.assert_bytes_equal(outs[1], amax, "qs.amax of the product")
        for (buf, value), got in zip(expected.items(), outs[1 + given:]):
            region = ref.valid_region(buf, c.want.shape, qout)
            h.assert_bytes_equal(np.asarray(got)[region], np.asarray(value)[region], buf)
        if c.scale is not None:
            h.assert_bytes_equal(outs[-1], updated, "updated amax")
    except AssertionError as e:
        return "failed", f"{c.label}: {e}\n{c.module}"
    return "ok", ""


def draw_linear_config(r):
    """A bundled Linear layer at a random size: dimensions multiples of 32
    for the block-scaled recipes (their blocks and packed rows), of 16 for
    per-tensor and FP8 block scaling (16-byte TMA rows), now and then any."""
    import linear_cases as lc
    family = pick(r, lc.FAMILIES)
    align = 16 if family in ("fp8_current", "fp8_delayed", "fp8_block") else 32
    def dim(hi):
        if r.random() < 0.05:
            return int(r.integers(1, hi))
        return int(align * r.integers(1, hi // align + 1))
    return dict(op="linear", family=family, shape=[dim(320), dim(320), dim(640)],
                kernel_chip=pick(r, CHIPS + [None], p=[0.3, 0.3, 0.4]),
                multiprocessors=int(pick(r, [4, 8, 132])), input_seed=int(r.integers(0, 2**31)))


def run_linear_case(config, h, kernels):
    import linear_cases as lc
    r = np.random.default_rng(config["input_seed"])
    extra = kernel_args(config, kernels)
    try:
        with np.errstate(all="ignore"):
            fwd, bwd = lc.linear_case(r, config["family"], tuple(config["shape"]))
    except Exception as e:  # a size the reference cannot express: qs must reject it
        module, _ = lc.example(config["family"], tuple(config["shape"]))
        return expect_rejected(h, module, "linear_fwd", [], config, kernels, e)
    try:
        outs, back = lc.run_layer(fwd, bwd, extra)
    except h.QSRunError as e:
        return classify_error(str(e))
    if MUTATE:  # the first element of each of Y's rows far off
        outs[0] = outs[0].copy()
        outs[0].view(np.uint8)[..., :2] ^= np.uint8(0x7F)
    try:
        with np.errstate(all="ignore"):
            for step, results in (("forward", zip(fwd.results, outs)),
                                  ("backward", zip(bwd.results, back))):
                for result, got in results:
                    lc.check_result(result, got, f"{config['family']} {step}")
    except AssertionError as e:
        return "failed", f"{e}\n{fwd.module}"
    return "ok", ""


# op: (draw a configuration, run and compare it)
OPS = {"quantize": (draw_config, run_case), "gemm": (draw_gemm_config, run_gemm_case),
       "dequantize": (draw_dequantize_config, run_dequantize_case),
       "update_usage": (draw_update_config, run_update_case),
       "gemm_quantized": (draw_gemm_quantized_config, run_gemm_quantized_case),
       "linear": (draw_linear_config, run_linear_case)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--cases", type=int, default=0, help="stop after this many (0: the time budget)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--op", default="all",
                    choices=["quantize", "gemm", "dequantize", "update_usage", "gemm_quantized",
                             "linear", "all"])
    ap.add_argument("--kernels", default="gpu-emulated", choices=["gpu-emulated", "reference"])
    ap.add_argument("--jit-opt-level", default="0")
    ap.add_argument("--out", default="/tmp/qs-sweep")
    ap.add_argument("--replay", help="SEED:INDEX: run only case INDEX of seed SEED (drawn with "
                                     "the same --op), verbosely")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--mutate", action="store_true",
                    help="corrupt every result: each compared case must fail (exit 0 when all do)")
    a = ap.parse_args()
    global MUTATE
    MUTATE = a.mutate
    os.environ["QS_KERNELS"] = a.kernels
    os.environ.setdefault("QS_RUNTIME_CHECKS", "1")
    if a.jit_opt_level:
        os.environ["QS_JIT_OPT_LEVEL"] = a.jit_opt_level
    import harness as h

    only = None
    if a.replay:
        seed, only = (int(v) for v in a.replay.split(":"))
    else:
        seed = a.seed if a.seed is not None else int(time.time()) % 2**31
    r = np.random.default_rng(seed)
    counts = collections.Counter()
    reasons = collections.Counter()
    failures = []
    start = time.time()
    index = 0
    while True:
        op = a.op if a.op != "all" else pick(r, list(OPS), p=[0.35, 0.25, 0.1, 0.1, 0.1, 0.1])
        config = OPS[op][0](r)
        if only is not None and index != only:
            index += 1
            continue
        status, message = OPS[op][1](config, h, a.kernels)
        counts[status] += 1
        if status in ("rejected", "unreferenced"):
            reasons[message[:160]] += 1
        if a.verbose or only is not None or (status == "failed" and not MUTATE):
            print(f"case {seed}:{index} {status}: {json.dumps(config)}", flush=True)
            if message and (status == "failed" or a.verbose or only is not None):
                print("  " + message.replace("\n", "\n  "), flush=True)
        if status == "failed" and not MUTATE:
            os.makedirs(a.out, exist_ok=True)
            path = os.path.join(a.out, f"case-{seed}-{index}.json")
            with open(path, "w") as f:
                json.dump(dict(config=config, message=message), f, indent=1)
            failures.append(f"{seed}:{index}")
        index += 1
        if only is not None or (a.cases and index >= a.cases) or \
                (not a.cases and time.time() - start >= a.seconds):
            break
    elapsed = time.time() - start
    print(f"numerics-sweep: seed {seed}, {index if only is None else 1} cases in {elapsed:.0f} s "
          f"({a.kernels} kernels): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for msg, n in reasons.most_common(12):
        print(f"  {n:4d} x {msg}")
    if MUTATE:
        caught = counts["failed"]
        print(f"mutation: {caught} of {caught + counts['ok']} compared cases caught")
        return 0 if counts["ok"] == 0 else 1
    if failures:
        print(f"failed: {' '.join(failures)}; replay one with "
              f"--op {a.op} --kernels {a.kernels} --replay SEED:INDEX")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
