#!/usr/bin/env python3
"""End-to-end CPU demo: quantize one bf16 matrix with every quantizer family
through qs-run (the bit-exact reference lowering), print each inner buffer's
summary and the dequantization error.

    .venv/bin/python examples/quantize_demo.py [path/to/qs-run]
"""

import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QS_RUN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "qs-run")
SHAPE = (256, 512)
QUANTIZERS = {
    "FP8 current scaling (E4M3)": "#qs.fp8_current",
    "MXFP8 (E4M3, 1x32 E8M0)": "#qs.mxfp8",
    "FP8 block 1x128": "#qs.fp8_block<block_scaling_dim = 1>",
    "FP8 block 128x128": "#qs.fp8_block",
    "NVFP4 (E2M1, 1x16 E4M3, RHT)": "#qs.nvfp4<with_rht = true, with_post_rht_amax = true>",
    "NVFP4 4over6 (MSE, E4M3 bound 256)":
        '#qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">',
}


def run(module, inputs, num_outputs, tmp):
    path = os.path.join(tmp, "m.mlir")
    with open(path, "w") as f:
        f.write(module)
    args = [QS_RUN, path, "--function=demo"]
    for i, x in enumerate(inputs):
        np.save(os.path.join(tmp, f"i{i}.npy"), x)
        args.append(f"--input=@{tmp}/i{i}.npy")
    args += [f"--output=@{tmp}/o{i}.npy" for i in range(num_outputs)]
    subprocess.run(args, check=True)
    return [np.load(f"{tmp}/o{i}.npy") for i in range(num_outputs)]


def main():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(SHAPE) * np.exp2(rng.integers(-4, 4, (SHAPE[0], 1)))).astype(np.float32)
    x_bf16 = x.astype(ml_dtypes.bfloat16)
    t = f"tensor<{SHAPE[0]}x{SHAPE[1]}xbf16>"
    tf = f"tensor<{SHAPE[0]}x{SHAPE[1]}xf32>"
    print(f"quantizing a {SHAPE[0]}x{SHAPE[1]} bf16 matrix on the CPU with {QS_RUN}\n")
    for title, attr in QUANTIZERS.items():
        q = f"!qs.tensor<{SHAPE[0]}x{SHAPE[1]}xbf16, {attr}>"
        with tempfile.TemporaryDirectory() as tmp:
            sig = subprocess.run([QS_RUN, "/dev/stdin", "--function=demo", "--print-signature"],
                                 input=f"func.func @demo(%x: {t}) -> {q} {{\n"
                                 f"  %q = qs.quantize %x : {t} -> {q}\n  return %q : {q}\n}}",
                                 capture_output=True, text=True, check=True).stdout
            names = [line.split("'")[1] for line in sig.splitlines() if line.startswith("output")]
            module = f"""func.func @demo(%x: {t}) -> ({q}, {tf}) {{
  %q = qs.quantize %x : {t} -> {q}
  %d = qs.dequantize %q : {q} -> {tf}
  return %q, %d : {q}, {tf}
}}"""
            outs = run(module, [x_bf16.view(np.uint16)], len(names) + 1, tmp)
        print(f"== {title}: {attr}")
        for name, buf in zip(names, outs):
            head = " ".join(f"{v:02x}" if buf.dtype == np.uint8 else f"{v:.4g}"
                            for v in buf.reshape(-1)[:6])
            print(f"   {name:22s} {str(buf.shape):12s} {str(buf.dtype):8s} [{head} ...]")
        ref = x_bf16.astype(np.float32)
        err = np.linalg.norm(outs[-1] - ref) / np.linalg.norm(ref)
        print(f"   dequantization error: {100 * err:.2f}% (relative RMS)\n")


if __name__ == "__main__":
    main()
