"""Checks device-run.py's own FP8 encoder and output-quantizer expectations
(the device machine has numpy only) against qs_reference.py: random values
over 40 binades, zeros, infinities, the saturation boundaries and
subnormals, for E4M3 and E5M2; then quantized_results() of a product
against ref.quantize with the same scale and amax state.
  python3 derived_quantize.py DEVICE_RUN_PY NUMERICS_DIR"""
import importlib.util
import sys

import numpy as np

spec = importlib.util.spec_from_file_location("device_run", sys.argv[1])
device_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(device_run)
sys.path.insert(0, sys.argv[2])
import harness as h  # noqa: E402
import qs_reference as ref  # noqa: E402

rng = np.random.default_rng(7)
x = (rng.standard_normal(100000) * np.exp2(rng.integers(-20, 20, 100000))).astype(np.float32)
edges = [0.0, -0.0, np.inf, -np.inf, 448, 464, 465, -480, 57344, 61440, 61441, 2.0 ** -9,
         2.0 ** -10, 1.5 * 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -18]
x = np.concatenate([x, np.array(edges, np.float32)])
for fp8 in ("f8E4M3FN", "f8E5M2"):
    got = device_run.fp8_codes(x, fp8)
    want = np.asarray(ref.fp8_rn_sat(x, fp8)).view(np.uint8)
    print(f"{fp8}: {int((got != want).sum())} of {x.size} codes differ")

product = (rng.standard_normal((64, 96)) * 30).astype(np.float32)
scale, state = np.float32(5.5), np.float32(-1.0)
case = {"quantized": {"scale_input": 0, "state_input": 1, "fp8": "f8E4M3FN"}}
got = device_run.quantized_results(case, product, [np.array([scale]), np.array([state])])
q = h.quantizer("fp8_delayed")
want, updated = ref.quantize(product, q, "f32", scale=scale, amax_state=state)
for name in ("data", "transpose", "scale_inv"):
    same = np.asarray(got[name]).view(np.uint8) == np.asarray(want[name]).view(np.uint8)
    print(f"{name}: {'equal' if same.all() else 'differs'}")
same = got["updated_amax"].view(np.uint32) == updated.view(np.uint32)
print(f"updated_amax: {'equal' if same.all() else 'differs'}")

# Current scaling (a #qs.fp8_current result: the scale from the product's
# own amax), E4M3 and E5M2, of bf16-rounded values as the GEMM stores them.
bf16 = ((product.view(np.uint32) + 0x8000) & 0xFFFF0000).view(np.float32)
for fp8 in ("f8E4M3FN", "f8E5M2"):
    case = {"quantized": {"current": True, "fp8": fp8}}
    got = device_run.quantized_results(case, bf16, [])
    want, _ = ref.quantize(bf16, h.quantizer("fp8_current", fp8_dtype=fp8), "f32")
    for name in ("data", "transpose", "scale_inv"):
        same = np.asarray(got[name]).view(np.uint8) == np.asarray(want[name]).view(np.uint8)
        print(f"current {fp8} {name}: {'equal' if same.all() else 'differs'}")

# Block-scaled results (block_results): MXFP8 with both usages, E4M3 and
# E5M2 (compact scales), and FP8 1x128 with both usages (power-of-two
# scales; the column-wise codes transposed), of
# bf16 values [128, 256] (no scale padding) whose blocks span 40 binades,
# with a zero block.
blocks = (rng.standard_normal((128, 256)) *
          np.exp2(rng.integers(-20, 20, (128, 1)))).astype(np.float32)
blocks[:32, :32] = 0.0
blocks = ((blocks.view(np.uint32) + 0x8000) & 0xFFFF0000).view(np.float32)
for family, fp8, params in (("mxfp8", "f8E4M3FN", {}), ("mxfp8", "f8E5M2", {}),
                            ("fp8_block", "f8E4M3FN", dict(block_scaling_dim=1))):
    q = h.quantizer(family, fp8_dtype=fp8, **params)
    spec = {"blocks": family, "fp8": fp8, "rowwise": q["rowwise"],
            "columnwise": q["columnwise"]}
    got = device_run.quantized_results({"quantized": spec}, blocks, [])
    want, _ = ref.quantize(blocks, q, "bf16")
    for name in want:
        same = np.asarray(got[name]).view(np.uint8) == np.asarray(want[name]).view(np.uint8)
        print(f"{family} {fp8} {name}: {'equal' if same.all() else 'differs'}")
