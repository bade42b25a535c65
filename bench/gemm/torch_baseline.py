#!/usr/bin/env python3
"""cuBLASLt baselines for the GEMM kernels, on the same GPU and shapes as
scripts/device_bundle.py's GEMM bench plans: torch._scaled_mm (cuBLASLt FP8)
with per-tensor scales (E4M3 x E4M3 -> bf16, A [M, K] row-major times B
[N, K] as its column-major transpose: TE's TN fprop), with 1x128 x 128x128
and 1x128 x 1x128 block scales where this PyTorch/CUDA offers them (CUDA
12.9+), and a bf16 torch.matmul
for scale. Prints TFLOP/s (2 M N K / time).

  python3 bench/gemm/torch_baseline.py --shapes 8192x8192x8192,4096x4096x4096

Skips, with the reason printed, whatever the machine lacks."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_timing import timed  # noqa: E402

SHAPES = ("8192x8192x8192,4096x4096x4096,8192x4096x4096,8192x14336x4096,"
          "8192x4096x14336,8192x28672x8192,8192x8192x28672,"
          # Small M (device_bundle.SPLIT_K_BENCH: our kernels with split-K).
          "256x4096x4096,128x8192x8192,128x4096x14336")


def block_scales(torch, m, n, k):
    """Unit scale tensors for torch._scaled_mm(a, b.t(), ...) with a [M, K]
    and b [N, K], in the shapes and strides PyTorch's block-scaling
    dispatch accepts (ATen/native/cuda/ScaledBlas.cpp,
    is_blockwise_1x128_scaling / is_blockwise_128x128_scaling, checked
    on mat1 and on mat2.t() = b with scale_b.t()): a 1x128 scale is
    [rows, ceil(K / 128)] *outer-dim-major* (strides (1, rows)), a 128x128
    one [ceil(rows / 128), ceil(K / 128)] row-major. (A contiguous [M,
    K / 128] 1x128 scale is rejected as "Invalid scaling configuration".)
    Yields (kind, scale_a, scale_b): TE's fprop / dgrad pairing (1x128
    activations x 128x128 weights) and its wgrad pairing (1x128 x 1x128)."""
    kb = (k + 127) // 128
    act = torch.ones(kb, m, device="cuda").t()           # [M, kb], strides (1, M)
    weights = torch.ones((n + 127) // 128, kb, device="cuda")  # [N/128, kb] row-major
    yield "fp8 1x128 x 128x128", act, weights.t()
    yield "fp8 1x128 x 1x128", act, torch.ones(kb, n, device="cuda")  # .t(): strides (1, N)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("gemm torch_baseline: torch is not installed; no cuBLASLt baseline")
        return 0
    if not torch.cuda.is_available():
        print("gemm torch_baseline: torch sees no CUDA device; no cuBLASLt baseline")
        return 0
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'GEMM (cuBLASLt)':<28} {'kind':<22} {'time us':>9} {'TFLOP/s':>8}")
    fp8 = torch.float8_e4m3fn
    block_reason = None
    for shape in args.shapes.split(","):
        m, n, k = map(int, shape.split("x"))
        flops = 2.0 * m * n * k
        a = (torch.randn(m, k, device="cuda") * 0.5).to(fp8)
        b = (torch.randn(n, k, device="cuda") * 0.5).to(fp8)
        one = torch.ones((), device="cuda")
        rows = []
        ms = timed(lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16), args.iters, args.warmup)
        rows.append(("fp8 per-tensor", ms))
        ms = timed(lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                                            out_dtype=torch.bfloat16, use_fast_accum=True),
                   args.iters, args.warmup)
        rows.append(("fp8 per-tensor fast-acc", ms))
        if block_reason is None:
            try:
                for kind, sa, sb in block_scales(torch, m, n, k):
                    ms = timed(lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                                        out_dtype=torch.bfloat16),
                               args.iters, args.warmup)
                    rows.append((kind, ms))
            except Exception as error:  # this PyTorch/CUDA has no block scaling
                block_reason = " ".join(str(error).split())[:300]
                print(f"(no block-scaled cuBLASLt: {block_reason})")
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        rows.append(("bf16 matmul", timed(lambda: x @ w.t(), args.iters, args.warmup)))
        for kind, ms in rows:
            print(f"{shape:<28} {kind:<22} {ms * 1000:>9.1f} {flops / (ms * 1e9):>8.1f}")
        del a, b, x, w
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
