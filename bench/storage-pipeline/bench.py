#!/usr/bin/env python3
"""Compile-time benchmark of qs-storage-pipeline on synthetic models.

Generates models of N TransformerEngine Linear layers (forward and backward,
families cycling through FP8 delayed, FP8 current, MXFP8, FP8 block and
NVFP4), runs `qs-opt --qs-storage-pipeline` and, on the same modules,
`qs-opt --canonicalize`, single-threaded, and prints per-pass times, time
per proto-level op and the scaling exponent (least-squares slope of
log(time) over log(N)).

    .venv/bin/python bench/storage-pipeline/bench.py [--sizes 10,100,1000,10000]

Goal (issue): exponent <= 1.1 and the storage passes at most 2x
canonicalize's time. Results go to docs/performance.md.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

FAMILIES = [
    ("fp8_delayed", "#qs.fp8_delayed", "#qs.fp8_delayed", "#qs.fp8_delayed<fp8_dtype = f8E5M2>"),
    ("fp8_current", "#qs.fp8_current", "#qs.fp8_current", "#qs.fp8_current<fp8_dtype = f8E5M2>"),
    ("mxfp8", "#qs.mxfp8", "#qs.mxfp8", "#qs.mxfp8"),
    ("fp8_block", "#qs.fp8_block<block_scaling_dim = 1>", "#qs.fp8_block", "#qs.fp8_block<block_scaling_dim = 1>"),
    ("nvfp4", "#qs.nvfp4<with_rht = true, with_post_rht_amax = true>",
     "#qs.nvfp4<with_2d_quantization = true>", "#qs.nvfp4<with_rht = true, with_post_rht_amax = true>"),
]
T, H = 128, 256  # tokens, hidden size (shapes do not affect compile time)


def generate(layers):
    """One function: forward through all layers, then backward in reverse.
    Returns (module text, number of proto-level qs ops)."""
    act = f"tensor<{T}x{H}xbf16>"
    wt = f"tensor<{H}x{H}xbf16>"
    s = "tensor<1xf32>"
    lines, ops = [], 0
    args = [f"%x: {act}", f"%dy: {act}", f"%s: {s}", f"%a: {s}"]
    args += [f"%w{i}: {wt}" for i in range(layers)]
    lines.append(f"func.func @model({', '.join(args)}) -> ({act}, {act}) {{")

    def quantize(name, src, shape, attr):
        nonlocal ops
        ops += 1
        ty = f"!qs.tensor<{shape}xbf16, {attr}>"
        if attr.startswith("#qs.fp8_delayed"):
            lines.append(f"  %{name}, %{name}_amax = qs.quantize %{src} scale(%s : {s}) amax(%a : {s}) "
                         f": tensor<{shape}xbf16> -> {ty}, {s}")
        else:
            lines.append(f"  %{name} = qs.quantize %{src} : tensor<{shape}xbf16> -> {ty}")
        return ty

    def gemm(name, a, ta, b, tb, flags, out):
        nonlocal ops
        ops += 1
        lines.append(f"  %{name} = qs.gemm %{a}, %{b}{flags} : {ta}, {tb} -> {out}")

    cur = "x"
    saved = []
    for i in range(layers):
        _, fx, fw, fdy = FAMILIES[i % len(FAMILIES)]
        tx = quantize(f"qx{i}", cur, f"{T}x{H}", fx)
        tw = quantize(f"qw{i}", f"w{i}", f"{H}x{H}", fw)
        gemm(f"y{i}", f"qx{i}", tx, f"qw{i}", tw, " transpose_b", act)
        saved.append((tx, tw, fdy))
        cur = f"y{i}"
    grad = "dy"
    for i in reversed(range(layers)):
        tx, tw, fdy = saved[i]
        tdy = quantize(f"qdy{i}", grad, f"{T}x{H}", fdy)
        gemm(f"dx{i}", f"qdy{i}", tdy, f"qw{i}", tw, "", act)
        gemm(f"dw{i}", f"qdy{i}", tdy, f"qx{i}", tx, " transpose_a", f"tensor<{H}x{H}xf32>")
        grad = f"dx{i}"
    lines.append(f"  return %{cur}, %{grad} : {act}, {act}")
    lines.append("}")
    return "\n".join(lines) + "\n", ops


TIMING = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.+?)\s*$")


def run(qs_opt, path, pipeline):
    """Runs qs-opt single-threaded with pass timing; returns {pass: seconds}."""
    cmd = [qs_opt, path, f"--pass-pipeline=builtin.module({pipeline})", "-o", os.devnull,
           "--mlir-disable-threading", "--mlir-timing", "--mlir-timing-display=list"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"qs-opt failed on {path}:\n{proc.stderr}")
    times = {}
    for line in proc.stderr.splitlines():
        m = TIMING.match(line)
        if m:
            times[m.group(2)] = times.get(m.group(2), 0.0) + float(m.group(1))
    return times


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(max(y, 1e-9)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den if den else float("nan")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_opt = os.path.join(here, "..", "..", "build", "bin", "qs-opt")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10,100,1000,10000")
    p.add_argument("--qs-opt", default=default_opt)
    p.add_argument("--repeat", type=int, default=3, help="best of N runs")
    args = p.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]

    storage = ("qs-infer-usage,qs-select-scale-layout,qs-expand-storage,canonicalize,"
               "qs-flatten-storage,canonicalize")
    passes = ["QSInferUsagePass", "QSSelectScaleLayoutPass", "QSExpandStoragePass",
              "QSFlattenStoragePass", "Canonicalizer"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            text, ops = generate(n)
            path = os.path.join(tmp, f"model{n}.mlir")
            with open(path, "w") as f:
                f.write(text)
            best, canon = None, None
            for _ in range(args.repeat):
                t = run(args.qs_opt, path, storage)
                c = run(args.qs_opt, path, "canonicalize").get("Canonicalizer", 0.0)
                if best is None or sum(t.get(k, 0) for k in passes) < sum(best.get(k, 0) for k in passes):
                    best = t
                canon = c if canon is None else min(canon, c)
            qs_time = sum(best.get(k, 0.0) for k in passes[:4])
            rows.append((n, ops, best, qs_time, best.get("Canonicalizer", 0.0), canon))

    print(f"{'layers':>7} {'qs ops':>7} {'infer':>8} {'select':>8} {'expand':>8} {'flatten':>8} "
          f"{'qs total':>9} {'us/op':>7} {'canon(pipe)':>11} {'canon(in)':>10} {'qs/canon':>8}")
    for n, ops, t, qs_time, canon_pipe, canon in rows:
        print(f"{n:>7} {ops:>7} {t.get('QSInferUsagePass', 0):8.4f} {t.get('QSSelectScaleLayoutPass', 0):8.4f} "
              f"{t.get('QSExpandStoragePass', 0):8.4f} {t.get('QSFlattenStoragePass', 0):8.4f} "
              f"{qs_time:9.4f} {1e6 * qs_time / ops:7.2f} {canon_pipe:11.4f} {canon:10.4f} "
              f"{qs_time / canon if canon else float('nan'):8.2f}")
    if len(rows) > 1:
        xs = [r[0] for r in rows]
        print(f"scaling exponent: qs passes {slope(xs, [r[3] for r in rows]):.3f}, "
              f"canonicalize on the input {slope(xs, [r[5] for r in rows]):.3f}")
    print("times in seconds (best of %d), single-threaded; 'qs total' = infer + select + expand + "
          "flatten; 'canon(pipe)' = the two canonicalize runs inside the pipeline; "
          "'canon(in)' = canonicalize alone on the input module" % args.repeat)


if __name__ == "__main__":
    main()
