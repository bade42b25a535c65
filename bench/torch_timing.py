"""CUDA-event timing shared by the PyTorch baselines of bench/quantize and
bench/gemm."""


def timed(fn, iters, warmup):
    """Mean milliseconds of `iters` calls of fn after `warmup` calls."""
    import torch
    for _ in range(warmup):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters
