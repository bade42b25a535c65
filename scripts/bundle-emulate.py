#!/usr/bin/env python3
"""Replays the checks of a device bundle (scripts/device_bundle.py) on this
machine: each check's module (module.mlir) runs through qs-run with the
emulated GPU kernels (--kernels=gpu-emulated: the kernels the GPU runs,
executed on the CPU) on the bundle's inputs, and scripts/device-run.py's own
evaluate() judges the results, as it will on the GPU. A check that fails
here has wrong expectations in the bundle (or a kernel the emulation
already gets wrong), not a GPU problem: run this before spending device
time (docs/GPU.md, "Launch plans and the device check").

  scripts/bundle-emulate.py BUNDLE [--only REGEX] [--qs-run PATH] [--jobs N] [--jit-opt-level N]
                                   [--runtime-checks]

Prints one line per check (PASS, or FAIL with device-run.py's problems) and
a summary; exit code 1 if any check fails."""

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_device_run():
    spec = importlib.util.spec_from_file_location(
        "device_run", os.path.join(ROOT, "scripts", "device-run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def emulate(directory, qs_run, runtime_checks, jit_opt_level):
    """(case, result bytes, error): the check's results from the emulated
    kernels, or why there are none."""
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    module = os.path.join(directory, "module.mlir")
    if not os.path.exists(module):
        return case, None, "no module.mlir (a bundle made before 2026-12-03)"
    with tempfile.TemporaryDirectory() as tmp:
        outs = [os.path.join(tmp, f"out{j}.npy") for j in range(len(case["results"]))]
        args = [qs_run, module, "--function=f", "--kernels=gpu-emulated"]
        args += [f"--input=@{os.path.join(directory, f'in{i}.npy')}"
                 for i in range(case["inputs"])]
        args += [f"--output=@{p}" for p in outs]
        if runtime_checks:
            args.append("--runtime-checks")
        if jit_opt_level is not None:
            args.append(f"--jit-opt-level={jit_opt_level}")
        proc = subprocess.run(args, capture_output=True, text=True)
        if proc.returncode != 0:
            return case, None, f"qs-run failed ({proc.returncode}): {proc.stderr.strip()[:2000]}"
        results = [np.ascontiguousarray(np.load(p)).view(np.uint8).reshape(-1) for p in outs]
    return case, results, None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle")
    parser.add_argument("--only", default=None, help="checks whose names match REGEX")
    parser.add_argument("--qs-run", default=os.path.join(ROOT, "build", "bin", "qs-run"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runtime-checks", action="store_true",
                        help="qs-run --runtime-checks (every memref access bounds-checked)")
    parser.add_argument("--jit-opt-level", type=int, choices=range(4), default=None,
                        help="qs-run --jit-opt-level (LLVM's optimization level for the "
                             "JIT; default: qs-run's, 2)")
    args = parser.parse_args()
    check_dir = os.path.join(args.bundle, "check")
    if not os.path.isdir(check_dir):
        sys.exit(f"bundle-emulate: {args.bundle} has no check/ (not a device bundle)")
    names = sorted(n for n in os.listdir(check_dir)
                   if args.only is None or re.search(args.only, n))
    if not names:
        sys.exit(f"bundle-emulate: no check matches {args.only!r}")
    device_run = load_device_run()
    start = time.monotonic()
    passed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(emulate, os.path.join(check_dir, n), args.qs_run,
                               args.runtime_checks, args.jit_opt_level) for n in names]
        for name, future in zip(names, futures):
            case, results, error = future.result()
            problems = ([error] if error else
                        device_run.evaluate(case, os.path.join(check_dir, name), results))
            if problems:
                print(f"FAIL {name}: " + "; ".join(problems), flush=True)
            else:
                passed += 1
                print(f"PASS {name}", flush=True)
    print(f"emulated: {passed} of {len(names)} checks as the numpy reference says "
          f"({time.monotonic() - start:.0f} s)")
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
