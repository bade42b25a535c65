#!/usr/bin/env python3
"""PyTorch baselines for bench/quantize, on the same GPU: a device-to-device
copy (the ceiling), per-tensor current scaling the way a framework does it
without fused kernels (amax, scale, cast; plus a transposed cast for the
column-wise usage), and, where installed, TransformerEngine's own quantizers
(the kernels TE ships). Prints GB/s with the same byte accounting as
qs-bench-quantize (input read + every output written).

  python3 bench/quantize/torch_baseline.py --sizes 4096,8192,16384

Skips, with the reason printed, whatever the machine lacks (torch, a GPU,
TransformerEngine)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_timing import timed  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="4096,8192,16384")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch_baseline: torch is not installed; no PyTorch baseline")
        return 0
    if not torch.cuda.is_available():
        print("torch_baseline: torch sees no CUDA device; no PyTorch baseline")
        return 0
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'baseline':<34} {'size':>6} {'time us':>10} {'GB/s':>10} {'copy GB/s':>10} {'ratio':>7}")
    fp8 = torch.float8_e4m3fn
    for n in map(int, args.sizes.split(",")):
        x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        nbytes = x.numel() * 2
        copy_ms = timed(lambda: y.copy_(x), args.iters, args.warmup)
        copy_gbs = 2 * nbytes / (copy_ms * 1e6)

        def row():
            amax = x.abs().amax().float()
            scale = 448.0 / amax
            return (x.float() * scale).to(fp8), (1.0 / scale)

        def both():
            amax = x.abs().amax().float()
            scale = 448.0 / amax
            q = (x.float() * scale).to(fp8)
            return q, q.t().contiguous(), (1.0 / scale)

        cases = [("torch copy_ (bf16)", copy_ms, 2 * nbytes),
                 ("torch fp8_current row (unfused)", timed(row, args.iters, args.warmup),
                  nbytes + nbytes // 2),
                 ("torch fp8_current both (unfused)", timed(both, args.iters, args.warmup),
                  nbytes + nbytes)]
        try:
            import transformer_engine.pytorch as te
            from transformer_engine.pytorch import tensor as te_tensor
            quantizers = []
            if hasattr(te_tensor, "Float8CurrentScalingQuantizer"):
                quantizers.append(("TE fp8_current both", te_tensor.Float8CurrentScalingQuantizer(
                    fp8_dtype=te.constants.TE_DType.kFloat8E4M3, device="cuda",
                    rowwise=True, columnwise=True), nbytes + nbytes))
            if hasattr(te_tensor, "MXFP8Quantizer"):
                quantizers.append(("TE mxfp8 both", te_tensor.MXFP8Quantizer(
                    fp8_dtype=te.constants.TE_DType.kFloat8E4M3, rowwise=True,
                    columnwise=True), nbytes + nbytes + 2 * (n * n // 32)))
            for name, qz, moved in quantizers:
                cases.append((name, timed(lambda: qz(x), args.iters, args.warmup), moved))
        except Exception as error:  # not installed, or an API this version lacks
            print(f"torch_baseline: no TransformerEngine baseline ({type(error).__name__}: {error})")
        for name, ms, moved in cases:
            gbs = moved / (ms * 1e6)
            print(f"{name:<34} {n:>6} {ms * 1000:>10.1f} {gbs:>10.0f} {copy_gbs:>10.0f} {100 * gbs / copy_gbs:>6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
