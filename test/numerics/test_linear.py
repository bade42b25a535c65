"""The bundled TE Linear layers (examples/linear_*.mlir: forward and backward
in one function each, quantize and GEMM together) run as a user runs them:
the forward's quantized X and W come back as inner buffers and go into the
backward. Everything is checked against the independent numpy reference:
the returned X and W buffers (and delayed scaling's updated amaxes) byte
for byte, Y, dX and dW within the GEMM bound of gemm_cases.py, computed
from the reference's own quantization of X, W and dY. The other suites
test each op alone; this one tests what connects them (the storage
pipeline's buffers between ops, the usages each GEMM reads, the forward's
results as the backward's arguments)."""

import os
import re

import numpy as np
import pytest

import gemm_cases as gm
import harness as h
import qs_reference as ref

EXAMPLES = os.path.join(h.ROOT, "examples")
FAMILIES = ["fp8_delayed", "fp8_current", "mxfp8", "fp8_block", "nvfp4", "nvfp4_4over6"]
M, N, K = 256, 1024, 512  # tokens, out features, in features (the examples')
# Kernel chips to emulate: the examples' storage is sm_90a's (no qs.chip);
# qs-run --chip=sm_100a runs Blackwell's kernels on it.
KERNEL_CHIPS = ["sm_90a", "sm_100a"] if h.KERNELS == "gpu-emulated" else [None]


def parse_quantizer(text):
    """'#qs.nvfp4<k = v, ...>' -> the harness's quantizer description."""
    family, body = re.fullmatch(r"#qs\.(\w+)(?:<(.*)>)?", text).groups()
    params = {}
    for item in filter(None, (s.strip() for s in (body or "").split(","))):
        key, value = (s.strip() for s in item.split("=", 1))
        if value in ("true", "false"):
            params[key] = value == "true"
        elif value.startswith('"'):
            params[key] = value.strip('"')
        elif re.fullmatch(r"-?\d+", value):
            params[key] = int(value)
        else:  # an element type (fp8_dtype)
            params[key] = value
    q = h.quantizer(family, **params)
    # Read back exactly (a key the harness does not know would be dropped).
    assert h.attr(q) == (text if "<" in text else text + "<>"), (h.attr(q), text)
    return q


def example(family):
    """(module text, {alias: quantizer}) of examples/linear_<family>.mlir."""
    with open(os.path.join(EXAMPLES, f"linear_{family}.mlir")) as f:
        text = f.read()
    aliases = dict(re.findall(r"^!(\w+) = !qs\.tensor<\w+, (#qs\..*)>$", text, re.M))
    assert set(aliases) == {"x", "w", "dy"}, aliases
    return text, {name: parse_quantizer(attr) for name, attr in aliases.items()}


def reference_quantize(x, q, rng):
    """(buffers, updated amax, [scale, amax state] inputs) of the reference;
    delayed scaling gets a scale from x's amax and a random amax state."""
    if q["family"] != "fp8_delayed":
        bufs, _ = ref.quantize(x, q, "bf16")
        return bufs, None, []
    amax = float(ref.amax(x))
    fp8_max = 57344.0 if q["fp8_dtype"] == "f8E5M2" else 448.0
    scale = np.float32(fp8_max / amax * rng.choice([0.25, 0.5, 1.0]))
    state = np.float32(amax * rng.choice([0.5, 1.0, 2.0]))
    bufs, updated = ref.quantize(x, q, "bf16", scale=scale, amax_state=state)
    return bufs, updated, [np.array([scale], np.float32), np.array([state], np.float32)]


def gemm_bound(family, layout, out, lhs, rhs, fast_accumulate=False):
    """(want, tol) of D = op(lhs) op(rhs) from the reference's buffers;
    lhs / rhs: (quantizer, buffers, logical shape). On a GPU the bound
    has Hopper's tensor-core slack on top (gemm_cases.tensor_core_slack)."""
    spec = gm.reference_spec(family, layout, out, lhs, rhs, False, False,
                             h.KERNELS == "cuda", fast_accumulate)
    return gm.gemm_reference(spec, h.npy_inputs(lhs[1]) + h.npy_inputs(rhs[1]))


def check_within(got, bound, out, what):
    case = gm.GemmCase()
    case.want, case.tol, case.out, case.label = bound[0], bound[1], out, what
    bad, message = gm.outside_bound(case, got)
    assert not bad, message


def check_buffers(outs, bufs, what):
    """Compares the leading outputs with `bufs`; returns the others."""
    assert len(outs) >= len(bufs), what
    for (name, want), got in zip(bufs.items(), outs):
        h.assert_bytes_equal(got, want, f"{what} {name}")
    return outs[len(bufs):]


@pytest.mark.parametrize("kernel_chip", KERNEL_CHIPS)
@pytest.mark.parametrize("family", FAMILIES)
def test_linear_example(rng, family, kernel_chip):
    module, q = example(family)
    extra = [f"--chip={kernel_chip}"] if kernel_chip else []
    fam = "nvfp4" if family.startswith("nvfp4") else family
    x, w, dy = (gm.gemm_input(rng, s) for s in ((M, K), (N, K), (M, N)))
    xb, x_amax, x_state = reference_quantize(x, q["x"], rng)
    wb, w_amax, w_state = reference_quantize(w, q["w"], rng)
    dyb, dy_amax, dy_state = reference_quantize(dy, q["dy"], rng)
    delayed = family == "fp8_delayed"

    # Forward: Y = X W^T, and X, W as TE saves them for the backward.
    inputs = [h.to_npy(x, "bf16"), h.to_npy(w, "bf16")] + x_state + w_state
    outs = h.run(module, "linear_fwd", inputs, 1 + len(xb) + len(wb) + 2 * delayed, extra)
    y, rest = outs[0], outs[1:]
    rest = check_buffers(rest, xb, f"{family} forward X")
    rest = check_buffers(rest, wb, f"{family} forward W")
    if delayed:
        h.assert_floats_equal(rest[0], x_amax, f"{family} updated amax of X")
        h.assert_floats_equal(rest[1], w_amax, f"{family} updated amax of W")
    # The examples' fprop accumulates fast where TE's does (per-tensor FP8):
    # on the CPU the bound stays FP32's, on a GPU the slack covers all of K.
    fast = family in ("fp8_current", "fp8_delayed")
    check_within(y, gemm_bound(fam, gm.LAYOUTS[0], "bf16", (q["x"], xb, (M, K)),
                               (q["w"], wb, (N, K)), fast), "bf16", f"{family} Y")

    # Backward, from the forward's own buffers: dX = dY W, dW = dY^T X.
    n_x, n_w = len(xb), len(wb)
    saved = outs[1:1 + n_x + n_w]
    inputs = [h.to_npy(dy, "bf16")] + saved + dy_state
    outs = h.run(module, "linear_bwd", inputs, 2 + delayed, extra)
    dx, dw = outs[:2]
    if delayed:
        h.assert_floats_equal(outs[2], dy_amax, f"{family} updated amax of dY")
    check_within(dx, gemm_bound(fam, gm.LAYOUTS[1], "bf16", (q["dy"], dyb, (M, N)),
                                (q["w"], wb, (N, K))), "bf16", f"{family} dX")
    check_within(dw, gemm_bound(fam, gm.LAYOUTS[2], "f32", (q["dy"], dyb, (M, N)),
                                (q["x"], xb, (M, K))), "f32", f"{family} dW")


def test_every_example_is_covered():
    # A new examples/linear_<recipe>.mlir must be added to FAMILIES.
    found = sorted(f[len("linear_"):-len(".mlir")] for f in os.listdir(EXAMPLES)
                   if f.startswith("linear_") and f != "linear_operands.mlir")
    assert found == sorted(FAMILIES)
