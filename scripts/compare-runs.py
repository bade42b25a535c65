#!/usr/bin/env python3
"""Compares two device runs (the `device-run.txt` of scripts/device-check.sh):
every quantize row (family, usage, size) and GEMM row (shape, plan label,
tile) the two have in common, old against new, and the rows only one has.

  python3 scripts/compare-runs.py OLD/device-run.txt NEW/device-run.txt \
      [--threshold 3]

Printed: quantize rows' kernel times and shares of the device-to-device copy
measured in the same run ("% of copy"); GEMM rows' TFLOP/s and, for the
rows the "GEMM vs cuBLASLt" table compares, the ratio to cuBLASLt. A row
that moved by more than --threshold per cent is marked `faster` or `SLOWER`:
on the same device by its own time / TFLOP/s (cuBLASLt's times move between
runs too), on different devices (an H100's 3.35 TB/s against an H200's 4.8)
by the ratios, which stay comparable. The summary counts the marks and
lists the slower rows, the ones to look at first (each default has its
switch: GPU.md, docs/performance.md).

Rows are matched by their printed labels: a plan whose label changed between
the runs (a new schedule name) is listed as new, its old self as gone."""

import argparse
import re
import sys

QUANTIZE = re.compile(
    r"^(\S+)\s+(row|col|both|uu|dq)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+([\d.]+)%$")
GEMM = re.compile(r"^(\d+x\d+x\d+)\s+(.+?)\s+(auto|\d+)\s+([\d.]+)\s+([\d.]+)$")
CUBLAS = re.compile(r"^(\d+x\d+x\d+)\s+(.+?)\s+([\d.]+)\s+([\d.]+) \((.+?)\)\s+([\d.]+|-)\s+")


def parse(path):
    """{'device': str | None, 'quantize': {key: (time us, % of copy)},
    'gemm': {key: (time us, TFLOP/s)}, 'cublas': {(shape, scaling): TFLOP/s}}"""
    run = {"device": None, "quantize": {}, "gemm": {}, "cublas": {}}
    section = None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip()
            if line.startswith("device: ") and run["device"] is None:
                run["device"] = line[len("device: "):]
            if line.startswith("family ") and "ratio" in line:
                section = "quantize"
                continue
            if line.startswith("GEMM (FP8"):
                section = "gemm"
                continue
            if line.startswith("GEMM vs cuBLASLt"):
                section = "cublas"
                continue
            if line.startswith("GEMM schedules") or line.startswith("quantize stores"):
                section = None
                continue
            if section == "quantize" and (m := QUANTIZE.match(line)):
                run["quantize"][(m[1], m[2], int(m[3]))] = (float(m[6]), float(m[9]))
            elif section == "gemm" and (m := GEMM.match(line)):
                run["gemm"][(m[1], m[2], m[3])] = (float(m[4]), float(m[5]))
            elif section == "cublas" and (m := CUBLAS.match(line)) and m[6] != "-":
                run["cublas"][(m[1], m[2])] = float(m[6])
    return run


def change(old, new):
    return 100.0 * (new / old - 1.0) if old > 0 else 0.0


def mark(delta, threshold, higher_is_better=True):
    better = delta if higher_is_better else -delta
    if better > threshold:
        return "faster"
    if better < -threshold:
        return "SLOWER"
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=3.0,
                        help="per cent a row must move to be marked (default 3)")
    args = parser.parse_args()
    old, new = parse(args.old), parse(args.new)
    if not (old["quantize"] or old["gemm"]) or not (new["quantize"] or new["gemm"]):
        empty = args.old if not (old["quantize"] or old["gemm"]) else args.new
        print(f"compare-runs: no quantize or GEMM table in {empty}")
        return 1
    same_device = old["device"] == new["device"]
    print(f"compare-runs: old {args.old} ({old['device'] or 'device not named'})")
    print(f"compare-runs: new {args.new} ({new['device'] or 'device not named'})")
    if not same_device:
        print("compare-runs: different devices: only the ratios (% of copy, x cuBLASLt) "
              "are marked")
    slower, faster = [], []

    print(f"\n{'quantize':<18} {'usage':<5} {'size':>6} {'old us':>9} {'new us':>9} "
          f"{'time':>7} {'old %':>6} {'new %':>6}")
    for key in sorted(old["quantize"].keys() & new["quantize"].keys(),
                      key=lambda k: (k[2], k[0], k[1])):
        (t0, r0), (t1, r1) = old["quantize"][key], new["quantize"][key]
        # The time on the same device; else % of copy, comparable across them.
        m = (mark(change(t0, t1), args.threshold, higher_is_better=False) if same_device
             else mark(change(r0, r1), args.threshold))
        row = f"{key[0]:<18} {key[1]:<5} {key[2]:>6} {t0:>9.1f} {t1:>9.1f} " \
              f"{change(t0, t1):>+6.1f}% {r0:>5.1f}% {r1:>5.1f}% {m}"
        print(row.rstrip())
        (slower if m == "SLOWER" else faster if m == "faster" else []).append(row)

    print(f"\n{'GEMM':<18} {'plan':<34} {'tile':>5} {'old TF/s':>9} {'new TF/s':>9} "
          f"{'change':>7} {'old xcuBLASLt':>13} {'new':>6}")
    for key in sorted(old["gemm"].keys() & new["gemm"].keys()):
        (_, f0), (_, f1) = old["gemm"][key], new["gemm"][key]
        # The cuBLASLt ratio of a shape and scaling's default row (the one
        # the "GEMM vs cuBLASLt" table compares).
        scaling = key[1]
        c0, c1 = old["cublas"].get((key[0], scaling)), new["cublas"].get((key[0], scaling))
        ratios = f"{f0 / c0:>12.2f}x {f1 / c1:>5.2f}x" if c0 and c1 else ""
        # TFLOP/s on the same device (cuBLASLt's own times move between
        # runs); else the ratio to cuBLASLt, where both runs have it.
        m = (mark(change(f0, f1), args.threshold) if same_device
             else mark(change(f0 / c0, f1 / c1), args.threshold) if c0 and c1 else "")
        row = f"{key[0]:<18} {key[1]:<34} {key[2]:>5} {f0:>9.1f} {f1:>9.1f} " \
              f"{change(f0, f1):>+6.1f}% {ratios} {m}"
        print(re.sub(r"\s+$", "", row))
        (slower if m == "SLOWER" else faster if m == "faster" else []).append(row)

    for kind in ("quantize", "gemm"):
        gone = sorted(old[kind].keys() - new[kind].keys(), key=str)
        added = sorted(new[kind].keys() - old[kind].keys(), key=str)
        if gone:
            print(f"\n{kind} rows only in the old run ({len(gone)}): "
                  + ", ".join(" ".join(map(str, k)) for k in gone))
        if added:
            print(f"\n{kind} rows only in the new run ({len(added)}): "
                  + ", ".join(" ".join(map(str, k)) for k in added))

    common = (len(old["quantize"].keys() & new["quantize"].keys())
              + len(old["gemm"].keys() & new["gemm"].keys()))
    print(f"\ncompare-runs: {common} rows in both runs: {len(faster)} faster, "
          f"{len(slower)} slower by more than {args.threshold:g}%")
    for row in slower:
        print("  SLOWER: " + re.sub(r"\s+", " ", row.replace("SLOWER", "")).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
