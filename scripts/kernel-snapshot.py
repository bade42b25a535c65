#!/usr/bin/env python3
"""Snapshots the generated kernels, for refactoring the code generators:
writes, for every configuration scripts/kernel-table.py covers, the
qs-nvptx-pipeline output (PTX inside, 4096x4096 operands) for sm_90a and
sm_100a and, for each GEMM configuration, the emulated kernel
(qs-storage-pipeline + convert-qs-to-gpu{emulate=true}, 544x544 operands:
partial tiles) — one file per case, with the compile timings that
gpu-module-to-binary records removed. A change that should not alter the
kernels is checked by snapshotting before and after and comparing:

  scripts/kernel-snapshot.py /tmp/before             # at the old commit
  scripts/kernel-snapshot.py /tmp/after --compare /tmp/before

--compare prints each case that differs and exits 1 if any does.
--only REGEX keeps the cases whose names match (e.g. 'gemm-sm_90a-(0|1)-').
About 40 s on 2 cores for all of them (264 cases on 2026-12-01, split-K and
stream-K included)."""

import argparse
import concurrent.futures
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "kernel_table", os.path.join(ROOT, "scripts", "kernel-table.py"))
kernel_table = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernel_table)

# gpu-module-to-binary records how long LLVM and ptxas took (upstream
# behaviour): not part of the compiled result.
TIMINGS = re.compile(r"\w+TimeInMs = \d+ : i64,? ?")


def cases():
    """(name, module text, qs-opt pipeline arguments) of every case."""
    for chip, gemms in (("sm_90a", kernel_table.GEMM_CASES),
                        ("sm_100a", kernel_table.GEMM_CASES_SM100)):
        for i, (label, out, tile) in enumerate(gemms):
            yield (f"gemm-{chip}-{i}-ptx",
                   kernel_table.gemm_module_text("4096x4096", label, out, tile, chip),
                   [f"--qs-nvptx-pipeline=chip={chip} format=isa"])
            yield (f"gemm-{chip}-{i}-emulated",
                   kernel_table.gemm_module_text("544x544", label, out, tile, chip),
                   ["--qs-storage-pipeline", f"--convert-qs-to-gpu=emulate=true chip={chip}"])
    for chip in ("sm_90a", "sm_100a"):
        for j, (_, attr) in enumerate(kernel_table.CASES):
            for usage, flags in kernel_table.USAGES:
                for op in ("q", "dq"):
                    if op == "dq" and usage != "both":
                        continue
                    text = kernel_table.module_text(
                        "4096x4096", "bf16", kernel_table.with_usage(attr, flags), chip, op == "dq")
                    yield (f"quantize-{chip}-{j}-{usage}-{op}", text,
                           [f"--qs-nvptx-pipeline=chip={chip} format=isa"])


def snapshot(qs_opt, out, case):
    name, text, pipeline = case
    src = os.path.join(out, name + ".input.mlir")
    with open(src, "w") as f:
        f.write(text)
    proc = subprocess.run([qs_opt, src, *pipeline], capture_output=True, text=True)
    # Diagnostics name the input file: without its directory, two snapshots
    # of a case that is an error compare equal.
    output = (proc.stdout + proc.stderr).replace(src, name + ".input.mlir")
    result = f"exit {proc.returncode}\n" + TIMINGS.sub("", output)
    with open(os.path.join(out, name + ".out"), "w") as f:
        f.write(result)
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="directory to write the snapshot to (created)")
    parser.add_argument("--qs-opt", default=os.path.join(ROOT, "build", "bin", "qs-opt"))
    parser.add_argument("--compare", metavar="DIR", help="an earlier snapshot to compare with")
    parser.add_argument("--only", metavar="REGEX", help="the cases whose names match")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    selected = [c for c in cases() if not args.only or re.search(args.only, c[0])]
    if not selected:
        sys.exit(f"kernel-snapshot: no case matches --only {args.only!r}")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        names = list(pool.map(lambda c: snapshot(args.qs_opt, args.out, c), selected))
    print(f"kernel-snapshot: {len(names)} cases in {args.out}")
    if not args.compare:
        return
    differ = 0
    for name in names:
        old = os.path.join(args.compare, name + ".out")
        if not os.path.exists(old):
            print(f"kernel-snapshot: {name}: not in {args.compare}")
            differ += 1
            continue
        with open(old) as f, open(os.path.join(args.out, name + ".out")) as g:
            if f.read() != g.read():
                print(f"kernel-snapshot: {name}: differs")
                differ += 1
    print(f"kernel-snapshot: {differ} of {len(names)} cases differ from {args.compare}")
    if differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
