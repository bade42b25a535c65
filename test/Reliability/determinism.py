"""Determinism: every pipeline, run on every bundled example (and the lit
inputs of the passes), prints byte-identical output across runs and with or
without multithreading. Usage: determinism.py QS_OPT SRC_ROOT."""

import glob
import os
import re
import subprocess
import sys

PIPELINES = [
    "--qs-describe-storage",
    "--qs-infer-usage",
    "--qs-select-scale-layout",
    "--qs-storage-pipeline",
    "--qs-storage-pipeline=flatten=false",
    "--qs-storage-pipeline=infer-usage=false select-scale-layout=false",
    "--pass-pipeline=builtin.module(qs-storage-pipeline,convert-qs-to-linalg)",
    "--qs-cpu-pipeline",
]

# The GPU backend, on the examples without GEMMs and on the MLP block
# (GEMMs and element-wise kernels).
GPU_PIPELINES = [
    "--qs-nvptx-host-pipeline=chip=sm_90a",
    "--qs-nvptx-pipeline=chip=sm_90a format=isa",
    "--qs-nvptx-pipeline=chip=sm_100a format=isa",
    "--qs-cpu-pipeline=emulate-gpu-kernels=true",
]
GPU_EXAMPLES = ("linear_operands.mlir", "delayed_scaling_recipe.mlir", "mlp_fp8_current.mlir")

# gpu-module-to-binary records how long LLVM and ptxas took in the binary's
# properties (upstream behaviour): not part of the compiled result.
TIMINGS = re.compile(rb"\w+TimeInMs = \d+ : i64,? ?")


def run(qs_opt, path, pipeline, *extra):
    r = subprocess.run([qs_opt, path, pipeline, "--mlir-print-debuginfo", *extra],
                       capture_output=True)
    return r.returncode, TIMINGS.sub(b"", r.stdout), r.stderr


def main():
    qs_opt, root = sys.argv[1], sys.argv[2]
    inputs = sorted(glob.glob(os.path.join(root, "examples", "*.mlir")))
    checked, differ = 0, []
    for path in inputs:
        pipelines = PIPELINES + (GPU_PIPELINES if os.path.basename(path) in GPU_EXAMPLES else [])
        for pipeline in pipelines:
            first = run(qs_opt, path, pipeline)
            if first[0] != 0:
                differ.append(f"{path} {pipeline}: failed: {first[2].decode()[:300]}")
                continue
            for extra in ((), ("--mlir-disable-threading",), (), ("--mlir-disable-threading",), ()):
                if run(qs_opt, path, pipeline, *extra) != first:
                    differ.append(f"{os.path.basename(path)} {pipeline} {' '.join(extra)}: output differs")
            checked += 1
    for d in differ:
        print("nondeterministic:", d)
    print(f"determinism: {checked} example x pipeline pairs, each run 6 times, "
          f"{len(differ)} differences")
    return 1 if differ or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
