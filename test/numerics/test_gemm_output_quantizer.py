"""qs.gemm with an output quantizer (a quantized result; TE's general_gemm
quantization_params) through qs-run. Each module returns the same GEMM twice:
once into a high-precision tensor of the type the quantizer reads (FP32 when
the quantization is fused: a #qs.fp8_delayed result of per-tensor FP8
operands, cuBLASLt's FP8 output; else the nominal type, TE's GEMM + quantize),
checked against the float64 reference within the GEMM bound, and once
quantized, whose inner tensors must equal, byte for byte, the independent
numpy quantization (qs_reference.py) of that high-precision product, as must
the updated amax of delayed scaling."""

import numpy as np
import pytest

import gemm_cases as gm
import harness as h
import qs_reference as ref
from gemm_cases import FAMILIES, LAYOUTS

# (operand family, layout index, output quantizer, nominal output type, bias).
# Under QS_KERNELS=gpu-emulated / cuda the GEMM kernel quantizes a fused,
# row-wise-only result in its epilogue (the second and third cases; the
# first needs a transpose, which the quantize kernel writes).
CASES = [
    ("fp8_delayed", 0, h.quantizer("fp8_delayed"), "bf16", True),
    ("fp8_delayed", 0, h.quantizer("fp8_delayed", columnwise=False), "bf16", True),
    ("fp8_current", 1, h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False),
     "f16", False),
    ("mxfp8", 2, h.quantizer("fp8_delayed"), "bf16", False),
    ("fp8_current", 0, h.quantizer("mxfp8"), "bf16", True),
    ("fp8_block", 1, h.quantizer("fp8_current", columnwise=False), "f32", False),
    ("nvfp4", 0, h.quantizer("nvfp4", columnwise=False), "bf16", False),
]


def fused(family, q):
    return q["family"] == "fp8_delayed" and family in ("fp8_current", "fp8_delayed")


def check_output_quantizer(rng, family, layout, qout, nominal, bias, m=64, n=96, k=128,
                           chip=None, attrs=()):
    """chip: the module's qs.chip (sm_100a: no transpose buffers, so every
    delayed-scaling result of per-tensor operands is fused); attrs: more
    module attributes (GEMM kernel options)."""
    if chip and h.KERNELS == "cuda":
        pytest.skip("QS_KERNELS=cuda compiles for the device's own chip")
    name, lhs, rhs, ta, tb = layout
    tn_only = chip != "sm_100a"
    shapes = {"x": (m, k), "w": (n, k), "dy": (m, n)}
    params = dict(zip(("x", "w", "dy"), FAMILIES[family]))
    qa, a = gm.quantized(rng, family, params[lhs], shapes[lhs], tn_only)
    qb, b = gm.quantized(rng, family, params[rhs], shapes[rhs], tn_only)
    op_a = ref.gemm_operand(a, shapes[lhs], qa, contracts_last=not ta)
    op_b = ref.gemm_operand(b, shapes[rhs], qb, contracts_last=tb)
    rows, cols = op_a.shape[0], op_b.shape[0]
    want = op_a @ op_b.T
    inputs = h.npy_inputs(a) + h.npy_inputs(b)
    at, bt = h.qtype(shapes[lhs], "bf16", qa), h.qtype(shapes[rhs], "bf16", qb)
    args = [f"%a: {at}", f"%b: {bt}"]
    extra = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    if bias:
        bias_v = h.random_input(rng, (cols,), "bf16", specials=False, exponents=(-3, 2))
        inputs.append(h.to_npy(bias_v, "bf16"))
        bt_ = h.ttype((cols,), "bf16")
        args.append(f"%bias: {bt_}")
        extra += f" bias(%bias : {bt_})"
        want = want + bias_v.astype(np.float64)[None, :]
    product = "f32" if fused(family, qout) else nominal
    pt = h.ttype((rows, cols), product)
    qt = h.qtype((rows, cols), nominal, qout)
    s1 = "tensor<1xf32>"
    delayed = qout["family"] == "fp8_delayed"
    state = scale = None
    if delayed:
        with np.errstate(divide="ignore"):
            # Some products saturate: scale up to 2x past 448 / amax.
            scale = np.float32(448.0 / np.abs(want).max() * rng.uniform(0.5, 2.0))
        state = np.float32(rng.uniform(0.0, 2.0) * np.abs(want).max())
        inputs += [np.array([scale], np.float32), np.array([state], np.float32)]
        args += [f"%s: {s1}", f"%am: {s1}"]
    qresults = f"{qt}, {s1}" if delayed else qt
    qnames = "%q, %am2" if delayed else "%q"
    recipe = f" scale(%s : {s1}) amax(%am : {s1})" if delayed else ""
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
    outs = h.run(module, "gemm", inputs, 1 + len(names) + (1 if delayed else 0))
    d = h.from_npy(outs[0], product).astype(np.float64)
    tol = (2.0 ** -22 * k * (np.abs(op_a) @ np.abs(op_b).T) + gm.ULP[product] * np.abs(want)
           + gm.TINY[product])
    if h.KERNELS == "cuda" and tn_only:  # Hopper's tensor cores (gemm_cases.py)
        tol = tol + gm.tensor_core_slack(op_a, op_b, family, False)
    bad = ~(np.abs(d - want) <= tol)
    assert not bad.any(), f"{family} {name} product: {bad.sum()} of {bad.size} outside the bound"
    with np.errstate(all="ignore"):
        expected, updated = ref.quantize(h.from_npy(outs[0], product), qout, product,
                                         chip_tn_only=tn_only, scale=scale, amax_state=state)
    label = f"{family} {name} -> {qt}"
    for (buf, value), got in zip(expected.items(), outs[1:]):
        region = ref.valid_region(buf, (rows, cols), qout)
        h.assert_bytes_equal(np.asarray(got)[region], np.asarray(value)[region], f"{label}: {buf}")
    if delayed:
        h.assert_bytes_equal(outs[-1], updated, f"{label}: updated amax")


@pytest.mark.parametrize("family,layout,qout,nominal,bias", CASES,
                         ids=[f"{c[0]}-{LAYOUTS[c[1]][0]}-{c[2]['family']}" for c in CASES])
def test_gemm_output_quantizer(rng, family, layout, qout, nominal, bias):
    h.require_kernels(qout, nominal)
    check_output_quantizer(rng, family, LAYOUTS[layout], qout, nominal, bias)


def test_gemm_output_quantizer_kernels(rng):
    # The fused epilogue in more kernels: sm_100a (tcgen05; every
    # per-tensor delayed result is fused there, both usages in one data
    # buffer) with bias and partial tiles; sm_90a persistent blocks in
    # multicast pairs, and 128x256 tiles, over several tiles with partial
    # edges.
    q = h.quantizer("fp8_delayed")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", True, m=208, n=144, k=160,
                           chip="sm_100a")
    q = h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], q, "bf16", True, m=272, n=320,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[1], h.quantizer("fp8_delayed", columnwise=False),
                           "f32", False, m=144, n=528, k=384, attrs=["qs.gemm_tile_n = 256 : i64"])
