#!/usr/bin/env python3
"""The GEMM kernels against cuBLASLt, from one device run's logs: the GEMM
table of scripts/device-run.py (TFLOP/s per shape, scaling and schedule)
and bench/gemm/torch_baseline.py's (cuBLASLt through torch._scaled_mm, on
the same GPU and shapes). Prints, per shape and scaling, the default
kernel's and the best schedule's TFLOP/s next to cuBLASLt's and their
ratios, then issue 7's goals: >= 1.0x cuBLASLt for per-tensor FP8 at
8192^3 (fast accumulation against cuBLASLt's fast accumulation, the split
accumulator against its default) and DeepGEMM-class FP8 block scaling
(>= 1400 TFLOP/s; cuBLASLt's 1x128 x 128x128 shown beside it).

  python3 scripts/gemm-compare.py OUT/device-run.txt OUT/gemm-torch-baseline.txt

scripts/device-check.sh runs it after the baselines."""

import sys

# Our scaling (device-run.py's names) -> cuBLASLt's kind (torch_baseline.py).
CUBLAS_KIND = {"per-tensor": "fp8 per-tensor", "per-tensor fast": "fp8 per-tensor fast-acc",
               "1x128*128^2": "fp8 1x128 x 128x128"}


def is_schedule(token):
    return token in ("pp", "tma", "direct") or any(
        token.startswith(p) and token[len(p):].isdigit() for p in ("p", "mc", "sk"))


def ours(path):
    """{(shape, scaling): [(schedule, TFLOP/s)], the default first}."""
    runs, table = {}, False
    for line in open(path, errors="replace"):
        if line.startswith("GEMM (FP8 E4M3"):
            table = True
            continue
        if not table:
            continue
        fields = line.split()
        if len(fields) < 5 or "x" not in fields[0] or not fields[0].replace("x", "").isdigit():
            table = table and not line.startswith("GEMM schedules")
            continue
        try:
            tflops = float(fields[-1])
            float(fields[-2])
        except ValueError:
            continue
        tile, label = fields[-3], fields[1:-3]
        scaling = " ".join(t for t in label if not is_schedule(t))
        schedule = [t for t in label if is_schedule(t)] + ([] if tile == "auto" else [f"tile{tile}"])
        entries = runs.setdefault((fields[0], scaling), [])
        name = " ".join(schedule) or "default"
        entries.insert(0 if name == "default" else len(entries), (name, tflops))
    return runs


def cublas(path):
    """{(shape, kind): TFLOP/s} from torch_baseline.py's table."""
    result = {}
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) < 4 or not fields[0].replace("x", "").isdigit() or "x" not in fields[0]:
            continue
        try:
            result[(fields[0], " ".join(fields[1:-2]))] = float(fields[-1])
            float(fields[-2])
        except ValueError:
            continue
    return result


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs, base = ours(sys.argv[1]), cublas(sys.argv[2])
    if not runs:
        print("gemm-compare: no GEMM table in " + sys.argv[1])
        return 1
    if not base:
        print("gemm-compare: no cuBLASLt table in " + sys.argv[2] + " (no PyTorch or GPU there?)")
    print(f"{'GEMM vs cuBLASLt':<20} {'scaling':<18} {'default':>8} {'best':>8} {'(schedule)':<22} "
          f"{'cuBLASLt':>8} {'default/cuBLASLt':>16} {'best/cuBLASLt':>13}")
    for (shape, scaling), entries in runs.items():
        default = dict(entries).get("default")
        best = max(entries, key=lambda e: e[1])
        ref = base.get((shape, CUBLAS_KIND.get(scaling, "")))

        def number(v):
            return "-" if v is None else f"{v:.1f}"

        def ratio(v):
            return f"{v / ref:.2f}x" if ref and v is not None else "-"
        print(f"{shape:<20} {scaling:<18} {number(default):>8} {best[1]:>8.1f} "
              f"{'(' + best[0] + ')':<22} {number(ref):>8} {ratio(default):>16} "
              f"{ratio(best[1]):>13}")
    print("Goals (issue 7):")
    for scaling in ("per-tensor fast", "per-tensor"):
        entries = runs.get(("8192x8192x8192", scaling))
        ref = base.get(("8192x8192x8192", CUBLAS_KIND[scaling]))
        if not entries or not ref:
            print(f"  {scaling} FP8 8192^3 >= 1.0x cuBLASLt: not measured")
            continue
        default, best = dict(entries).get("default", 0.0), max(e[1] for e in entries)
        print(f"  {scaling} FP8 8192^3 >= 1.0x cuBLASLt: default {default / ref:.2f}x, "
              f"best schedule {best / ref:.2f}x: {'met' if best >= ref else 'not met'}"
              f"{'' if default >= ref or best < ref else ' (by a schedule that is not the default)'}")
    block = [e for (shape, scaling), v in runs.items() if scaling == "1x128*128^2" for e in v]
    if block:
        best = max(e[1] for e in block)
        print(f"  FP8 block >= 1400 TFLOP/s (DeepGEMM class): best {best:.1f}: "
              f"{'met' if best >= 1400 else 'not met'}")
    else:
        print("  FP8 block >= 1400 TFLOP/s (DeepGEMM class): not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
