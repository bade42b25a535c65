"""The bundled TE Linear layers (examples/linear_*.mlir: forward and backward
in one function each, quantize and GEMM together) run as a user runs them:
the forward's quantized X and W come back as inner buffers and go into the
backward. Checked against the independent numpy reference
(linear_cases.py): the returned X and W buffers (and delayed scaling's
updated amaxes) byte for byte, Y, dX and dW within the GEMM bound. The
other suites test each op alone; this one tests what connects them (the
storage pipeline's buffers between ops, the usages each GEMM reads, the
forward's results as the backward's arguments)."""

import os

import pytest

import harness as h
import linear_cases as lc

# Kernel chips to emulate: the examples' storage is sm_90a's (no qs.chip);
# qs-run --chip=sm_100a runs Blackwell's kernels on it. The emulated
# kernels run the layers resized to linear_cases.SMALL_SHAPE (the
# emulation of a GEMM is slow); the reference lowering and a GPU run them
# at the examples' own size.
EMULATED = h.KERNELS == "gpu-emulated"
KERNEL_CHIPS = ["sm_90a", "sm_100a"] if EMULATED else [None]
SHAPE = lc.SMALL_SHAPE if EMULATED else lc.SHAPE


@pytest.mark.parametrize("kernel_chip", KERNEL_CHIPS)
@pytest.mark.parametrize("family", lc.FAMILIES)
def test_linear_example(rng, family, kernel_chip):
    extra = [f"--chip={kernel_chip}"] if kernel_chip else []
    fwd, bwd = lc.linear_case(rng, family, SHAPE, tensor_cores=h.KERNELS == "cuda")
    outs, back = lc.run_layer(fwd, bwd, extra)
    for step, results, got_all in (("forward", fwd.results, outs),
                                   ("backward", bwd.results, back)):
        for result, got in zip(results, got_all):
            lc.check_result(result, got, f"{family} {step}")


def test_every_example_is_covered():
    # A new examples/linear_<recipe>.mlir must be added to linear_cases.FAMILIES
    # (or, with the test that runs it, to linear_cases.COVERED_ELSEWHERE).
    found = sorted(f[len("linear_"):-len(".mlir")] for f in os.listdir(lc.EXAMPLES)
                   if f.startswith("linear_") and f.endswith(".mlir"))
    assert found == sorted(lc.FAMILIES + list(lc.COVERED_ELSEWHERE))
