#!/usr/bin/env bash
# The GPU check, run on the device machine in the repository root (no build
# there: the machine has no LLVM/MLIR). Needs the bundle made here by
#   .venv/bin/python scripts/device_bundle.py device-bundle
# carried along. Replays every check case (quantize/dequantize bytes == the
# numpy reference, GEMM within its bound), times every bench plan (quantize
# against a device-to-device copy, GEMM in TFLOP/s), runs a few checks under
# compute-sanitizer (synccheck, racecheck: the barrier protocols the CPU
# emulation cannot check), and runs the PyTorch / TransformerEngine /
# cuBLASLt baselines. Logs go to $OUT when set.
set -uo pipefail
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee "$out/device.txt"
# Bounded, so that a kernel that hangs (a barrier protocol the emulation
# cannot check) leaves time for the rest; progress.txt's last line names it.
PYTHONUNBUFFERED=1 timeout 330 python3 scripts/device-run.py device-bundle \
  --progress "$out/progress.txt" 2>&1 | tee "$out/device-run.txt"
status=$?
if [ $status -eq 124 ]; then
  echo "device-run: timed out after 330 s while running: $(tail -n 1 "$out/progress.txt")"
fi
# Quantize with both usages, and the GEMM paths with named barriers and
# shared-memory handoffs between threads: per-tensor and FP8 block, NVFP4
# (f16 conversion, double-buffered; 9 k-tiles), MXFP8 fprop and its
# MN-major dgrad/wgrad (transposing copy).
sanitize='^[0-9]+-(fp8_current|mxfp8|nvfp4)-both-256x512-bf16$|^gemm[0-9]+-(fp8_current-fprop_TN-256x320x256|fp8_block-fprop_TN-256x320x256|nvfp4-fprop_TN-320x224x1056|mxfp8-(fprop_TN-256x320x256|dgrad_NN|wgrad_NT))-'
if command -v compute-sanitizer >/dev/null; then
  for tool in synccheck racecheck; do
    echo "=== compute-sanitizer --tool $tool"
    PYTHONUNBUFFERED=1 timeout 150 compute-sanitizer --tool "$tool" --print-limit 20 --error-exitcode 2 \
      python3 scripts/device-run.py device-bundle --no-bench --only "$sanitize" \
      > "$out/sanitizer-$tool.txt" 2>&1
    sanitizer_status=$?
    grep -E "ERROR SUMMARY|^checks:|^FAIL|device-run:" "$out/sanitizer-$tool.txt"
    [ $sanitizer_status -eq 0 ] || { echo "compute-sanitizer $tool: exit $sanitizer_status"; status=1; }
  done
else
  echo "compute-sanitizer not found: no synccheck/racecheck run"
fi
PYTHONUNBUFFERED=1 python3 bench/quantize/torch_baseline.py 2>&1 | tee "$out/torch-baseline.txt"
PYTHONUNBUFFERED=1 python3 bench/gemm/torch_baseline.py 2>&1 | tee "$out/gemm-torch-baseline.txt"
exit $status
