#!/usr/bin/env python3
"""PyTorch baselines for bench/quantize, on the same GPU: a device-to-device
copy (the ceiling), per-tensor current scaling the way a framework does it
without fused kernels (amax, scale, cast; plus a transposed cast for the
column-wise usage), the same fused by torch.compile (Inductor's Triton
kernels, as torchao's float8 training gets them), and, where installed,
TransformerEngine's own quantizers (the kernels TE ships). Prints GB/s with the same byte accounting as
qs-bench-quantize (input read + every output written).

  python3 bench/quantize/torch_baseline.py --sizes 4096,8192,16384

Skips, with the reason printed, whatever the machine lacks (torch, a GPU,
TransformerEngine)."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_timing import timed  # noqa: E402


def current_row(x):
    """FP8 current scaling, row-wise: amax, scale, cast (E4M3)."""
    import torch
    amax = x.abs().amax().float()
    scale = 448.0 / amax
    return (x.float() * scale).to(torch.float8_e4m3fn), (1.0 / scale)


def current_both(x):
    """... and the column-wise (transposed) copy."""
    q, scale_inv = current_row(x)
    return q, q.t().contiguous(), scale_inv


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="4096,8192,16384")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the torch.compile baselines")
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
    copies = {}
    for n in map(int, args.sizes.split(",")):
        x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        nbytes = x.numel() * 2
        copy_ms = timed(lambda: y.copy_(x), args.iters, args.warmup)
        copy_gbs = 2 * nbytes / (copy_ms * 1e6)

        cases = [("torch copy_ (bf16)", copy_ms, 2 * nbytes),
                 ("torch fp8_current row (unfused)",
                  timed(lambda: current_row(x), args.iters, args.warmup), nbytes + nbytes // 2),
                 ("torch fp8_current both (unfused)",
                  timed(lambda: current_both(x), args.iters, args.warmup), nbytes + nbytes)]
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
        copies[n] = copy_gbs
    # torch.compile'd casts (Inductor's fused Triton kernels: how torchao's
    # float8 training gets its casts), after every eager row so that a
    # slow compile (the step's time limit) costs only these rows; one
    # dynamic-shape compile per function.
    if not args.no_compile:
        try:
            compiled = {name: torch.compile(fn, dynamic=True)
                        for name, fn in (("row", current_row), ("both", current_both))}
        except Exception as error:  # no Inductor / Triton here
            print(f"torch_baseline: no torch.compile baseline ({type(error).__name__}: {error})")
            return 0
        for n in map(int, args.sizes.split(",")):
            x = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
            nbytes = x.numel() * 2
            for name, moved in (("row", nbytes + nbytes // 2), ("both", nbytes + nbytes)):
                try:
                    ms = timed(lambda: compiled[name](x), args.iters, args.warmup)
                except Exception as error:
                    print(f"torch_baseline: torch.compile {name} failed "
                          f"({type(error).__name__}: {str(error).splitlines()[0][:200]})")
                    return 0
                gbs = moved / (ms * 1e6)
                label = f"torch.compile fp8_current {name}"
                print(f"{label:<34} {n:>6} {ms * 1000:>10.1f} {gbs:>10.0f} {copies[n]:>10.0f} "
                      f"{100 * gbs / copies[n]:>6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
