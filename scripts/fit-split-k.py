#!/usr/bin/env python3
"""Fits the sm_90a split-K cost model (GemmSplitKModel.cpp: modelGemmMicros) to a
device run's small-M GEMM times.

Reads the GEMM table of scripts/device-run.py's output (device-run.txt):
rows whose shape has fewer 128x128 tiles than multiprocessors, unsplit
(`sk1`, one block per tile; before split-K by default, 2026-12-05, the
default row) and `skS` (S-split, reduction kernel) for the same shape and
scaling. Grid-searches the model's constants (t_k per family, t_unit, the
operands' streaming rate, the planes' rate, t_launch) and prints the set
with the fewest wrong split-or-not decisions and then the smallest squared
log error, and each pair's measured and modelled times: the numbers to put
into GemmSplitKModel.cpp's kHopper*KTile, kUnitMicros, kLaunchMicros and
kOperandStreamShare (docs/GPU.md, "Split-K or stream-K chosen by a cost
model").

  python3 scripts/fit-split-k.py OUT/device-run.txt [--multiprocessors 132]
"""
import argparse
import itertools
import math
import re
import sys

FAMILIES = {"1x128*128^2": "block", "per-tensor fast": "fast", "per-tensor": "promoting"}
# The grid that chose GemmSplitKModel.cpp's constants (from run 2 of 2026-12-04);
# widen it when a run's fit lands on an edge.
GRID = {
    "fast": [0.34, 0.36, 0.38, 0.40],
    "promoting": [0.44, 0.48, 0.52],
    "block": [0.56, 0.60, 0.64],
    "unit": [0.5, 1.0, 2.0, 3.0],
    "stream": [2.5, 2.8, 3.1, 3.4, 3.8],
    "planes": [3.0, 4.8, 8.0],
    "launch": [1.0, 2.0, 3.0],
}


def read_rows(path, sms):
    """(m, n, k, family, split, micros) of the small-M GEMM rows: `skS`
    rows, and as the unsplit one `sk1` or, where a shape and scaling has
    none, the default row."""
    rows, defaults, in_table = [], [], False
    pattern = re.compile(r"^(\d+)x(\d+)x(\d+)\s+(.*?)\s+(auto|\d+)\s+([\d.]+)\s+[\d.]+\s*$")
    for line in open(path):
        if line.startswith("GEMM (FP8"):
            in_table = True
            continue
        if in_table and line.startswith("GEMM schedules"):
            break
        match = pattern.match(line) if in_table else None
        if not match or match.group(5) != "auto":
            continue
        m, n, k = (int(match.group(i)) for i in (1, 2, 3))
        label = match.group(4).split()
        split = None
        if label and re.fullmatch(r"sk\d+", label[-1]):
            split = int(label.pop()[2:])
        family = FAMILIES.get(" ".join(label))
        if family and math.ceil(m / 128) * math.ceil(n / 128) < sms:
            row = (m, n, k, family, split or 1, float(match.group(6)))
            (rows if split else defaults).append(row)
    unsplit = {r[:4] for r in rows if r[4] == 1}
    return rows + [r for r in defaults if r[:4] not in unsplit]


def model(row, c, sms):
    """modelGemmMicros for sm_90a 128x128 tiles and the reduction kernel."""
    m, n, k, family, split, _ = row
    tiles, k_tiles = math.ceil(m / 128) * math.ceil(n / 128), math.ceil(k / 128)
    waves = math.ceil(tiles * split / sms)
    main = waves * (k_tiles // split * c[family] + c["unit"])
    floor = (m + n) * k / (c["stream"] * 1e6) + c["unit"]
    t = max(main, floor)
    if split > 1:
        t += 2 * split * m * n * 4 / (c["planes"] * 1e6) + c["launch"]
    return t


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("device_run", help="device-run.txt of a device check")
    parser.add_argument("--multiprocessors", type=int, default=132)
    args = parser.parse_args()
    sms = args.multiprocessors
    rows = read_rows(args.device_run, sms)
    pairs = [(a, b) for a in rows for b in rows
             if a[:4] == b[:4] and a[4] == 1 and b[4] > 1]
    if not pairs:
        sys.exit(f"fit-split-k: no small-M default and skS rows of one shape in {args.device_run}")
    best = None
    names = list(GRID)
    for values in itertools.product(*(GRID[name] for name in names)):
        c = dict(zip(names, values))
        wrong = sum((model(a, c, sms) < model(b, c, sms)) != (a[5] < b[5]) for a, b in pairs)
        error = sum(math.log(model(r, c, sms) / r[5]) ** 2 for pair in pairs for r in pair)
        if best is None or (wrong, error) < best[0]:
            best = ((wrong, error), c)
    (wrong, error), c = best
    rms = math.sqrt(error / (2 * len(pairs)))
    print(f"fitted on {len(pairs)} pairs: {wrong} wrong split decisions, {100 * rms:.1f}% RMS")
    print("t_k (us per 128x128x128 k-tile): fast {fast}, promoting {promoting}, "
          "FP8 block {block}".format(**c))
    print("t_unit {unit} us, operands {stream} TB/s, planes {planes} TB/s, "
          "t_launch {launch} us".format(**c))
    print(f"{'shape':<18} {'family':<10} {'S':>3} {'measured':>9} {'model':>7}")
    for pair in pairs:
        for r in pair:
            shape = f"{r[0]}x{r[1]}x{r[2]}"
            print(f"{shape:<18} {r[3]:<10} {r[4]:>3} {r[5]:>9.1f} {model(r, c, sms):>7.1f}")


if __name__ == "__main__":
    main()
