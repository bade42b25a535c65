#!/usr/bin/env bash
# The GPU check, run on the device machine in the repository root (no build
# there: the machine has no LLVM/MLIR). Needs the bundle made here by
#   .venv/bin/python scripts/device_bundle.py device-bundle
# carried along. Replays every check case (quantize/dequantize bytes == the
# numpy reference, GEMM within its bound), times every bench plan (quantize
# against a device-to-device copy, GEMM in TFLOP/s), and runs the PyTorch /
# TransformerEngine / cuBLASLt baselines. Logs go to $OUT when set.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee "$out/device.txt"
PYTHONUNBUFFERED=1 python3 scripts/device-run.py device-bundle 2>&1 | tee "$out/device-run.txt"
status=$?
PYTHONUNBUFFERED=1 python3 bench/quantize/torch_baseline.py 2>&1 | tee "$out/torch-baseline.txt"
PYTHONUNBUFFERED=1 python3 bench/gemm/torch_baseline.py 2>&1 | tee "$out/gemm-torch-baseline.txt"
exit $status
