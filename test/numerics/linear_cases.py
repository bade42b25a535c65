"""The bundled TE Linear layers (examples/linear_*.mlir) as check cases,
shared by test_linear.py and scripts/device_bundle.py: the example's text
(optionally with other M, N, K), random inputs, and what each result of
linear_fwd and linear_bwd must be by the independent numpy reference: the
quantized X and W (and delayed scaling's updated amaxes) byte for byte, Y,
dX and dW within the GEMM bound of gemm_cases.py, computed from the
reference's own quantization of X, W and dY."""

import os
import re

import numpy as np

import gemm_cases as gm
import harness as h
import qs_reference as ref

EXAMPLES = os.path.join(h.ROOT, "examples")
FAMILIES = ["fp8_delayed", "fp8_current", "mxfp8", "fp8_block", "nvfp4", "nvfp4_4over6"]
# examples/linear_<name>.mlir that are not a recipe of FAMILIES, and the
# test that runs each.
COVERED_ELSEWHERE = {
    "operands": "the quantize step alone: NVPTX/kernel-table-module.test, the demo",
    "bias": "MXFP8 with a bias: test_bias_grad.py::test_linear_bias_example",
}
SHAPE = (256, 1024, 512)  # the examples' tokens M, out features N, in features K
# A fifth of the bytes and work: the device bundle's checks and the
# emulated kernels' run (the CPU's emulation of a GEMM is slow).
SMALL_SHAPE = (128, 384, 256)


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


def example(family, shape=SHAPE):
    """(module text, {"x"|"w"|"dy": quantizer}) of examples/linear_<family>.mlir,
    its tensors resized to `shape` (M, N, K)."""
    with open(os.path.join(EXAMPLES, f"linear_{family}.mlir")) as f:
        text = f.read()
    aliases = dict(re.findall(r"^!(\w+) = !qs\.tensor<\w+, (#qs\..*)>$", text, re.M))
    assert set(aliases) == {"x", "w", "dy"}, aliases
    m, n, k = shape
    sizes = {"256x512": f"{m}x{k}", "1024x512": f"{n}x{k}", "256x1024": f"{m}x{n}"}
    text = re.sub(r"\b(256x512|1024x512|256x1024)x", lambda g: sizes[g.group(1)] + "x", text)
    return text, {name: parse_quantizer(attr) for name, attr in aliases.items()}


def reference_quantize(x, q, rng):
    """(buffers, updated amax or None, [scale, amax state] inputs) of the
    reference; delayed scaling gets a scale from x's amax and a random amax
    state."""
    if q["family"] != "fp8_delayed":
        bufs, _ = ref.quantize(x, q, "bf16")
        return bufs, None, []
    amax = float(ref.amax(x))
    fp8_max = 57344.0 if q["fp8_dtype"] == "f8E5M2" else 448.0
    scale = np.float32(fp8_max / amax * rng.choice([0.25, 0.5, 1.0]))
    state = np.float32(amax * rng.choice([0.5, 1.0, 2.0]))
    bufs, updated = ref.quantize(x, q, "bf16", scale=scale, amax_state=state)
    return bufs, updated, [np.array([scale], np.float32), np.array([state], np.float32)]


class Step:
    """One function of the layer: `function` of `module` with `inputs`
    (qs-run's arrays); `results`, one per output: ("bytes", name, array)
    or ("gemm", name, spec, operands), spec gemm_cases.reference_spec's
    and operands the reference buffers it reads, in its order."""

    def __init__(self, module, function, inputs, results, saved=0):
        self.module, self.function, self.inputs, self.results = module, function, inputs, results
        # The backward's inputs 1..saved are the forward's results 1..saved
        # (X's and W's buffers).
        self.saved = saved


def linear_case(rng, family, shape=SHAPE, tensor_cores=False):
    """(forward Step, backward Step) of the layer; the backward's inputs
    hold the reference's X and W buffers (the forward's results must equal
    them: run_layer passes those instead, Step.saved). tensor_cores: the
    GEMM bounds get Hopper's slack (on a GPU)."""
    module, q = example(family, shape)
    m, n, k = shape
    fam = "nvfp4" if family.startswith("nvfp4") else family
    x, w, dy = (gm.gemm_input(rng, s) for s in ((m, k), (n, k), (m, n)))
    xb, x_amax, x_state = reference_quantize(x, q["x"], rng)
    wb, w_amax, w_state = reference_quantize(w, q["w"], rng)
    dyb, dy_amax, dy_state = reference_quantize(dy, q["dy"], rng)
    delayed = family == "fp8_delayed"

    def gemm(name, layout, out, lhs, rhs, fast=False):
        spec = gm.reference_spec(fam, gm.LAYOUTS[layout], out, lhs, rhs, False, False,
                                 tensor_cores, fast)
        return ("gemm", name, spec, h.npy_inputs(lhs[1]) + h.npy_inputs(rhs[1]))

    def buffers(what, bufs):
        return [("bytes", f"{what} {name}", np.ascontiguousarray(b)) for name, b in bufs.items()]

    amaxes = [("bytes", "updated amax of X", x_amax), ("bytes", "updated amax of W", w_amax)]
    # Y = X W^T; the examples' fprop accumulates fast where TE's does
    # (per-tensor FP8): on the CPU the bound stays FP32's.
    fwd = Step(module, "linear_fwd",
               [h.to_npy(x, "bf16"), h.to_npy(w, "bf16")] + x_state + w_state,
               [gemm("Y", 0, "bf16", (q["x"], xb, (m, k)), (q["w"], wb, (n, k)),
                     fast=family in ("fp8_current", "fp8_delayed"))]
               + buffers("X", xb) + buffers("W", wb) + (amaxes if delayed else []))
    # dX = dY W, dW = dY^T X.
    bwd = Step(module, "linear_bwd",
               [h.to_npy(dy, "bf16")] + h.npy_inputs(xb) + h.npy_inputs(wb) + dy_state,
               [gemm("dX", 1, "bf16", (q["dy"], dyb, (m, n)), (q["w"], wb, (n, k))),
                gemm("dW", 2, "f32", (q["dy"], dyb, (m, n)), (q["x"], xb, (m, k)))]
               + ([("bytes", "updated amax of dY", dy_amax)] if delayed else []),
               saved=len(xb) + len(wb))
    return fwd, bwd


def run_layer(fwd, bwd, extra_args=()):
    """Runs the layer as a user does: the forward, then the backward on the
    forward's own returned X and W buffers (not the reference's). Returns
    (forward outputs, backward outputs) as qs-run wrote them; raises
    harness.QSRunError when qs-run fails."""
    outs = h.run(fwd.module, fwd.function, fwd.inputs, len(fwd.results), extra_args)
    n = bwd.saved
    back = h.run(bwd.module, bwd.function, [bwd.inputs[0]] + outs[1:1 + n] + bwd.inputs[1 + n:],
                 len(bwd.results), extra_args)
    return outs, back


def check_result(result, got, what=""):
    """Raises AssertionError if output `got` is not what `result` says."""
    if result[0] == "bytes":
        _, name, want = result
        if want.dtype == np.float32:
            h.assert_floats_equal(got, want, f"{what} {name}")
        else:
            h.assert_bytes_equal(got, want, f"{what} {name}")
        return
    _, name, spec, operands = result
    case = gm.GemmCase()
    case.want, case.tol = gm.gemm_reference(spec, operands)
    case.out, case.label = spec["out"], f"{what} {name}"
    bad, message = gm.outside_bound(case, got)
    assert not bad, message
