#!/usr/bin/env bash
# README command 1: install, build, and run the demo on the bundled examples.
# For every TE Linear model in examples/: the verified IR, the inner buffers
# of each quantized function argument and result, and the IR after
# qs-storage-pipeline (usages inferred, GEMM-swizzled scales chosen, proto
# ops expanded into explicit buffers, every !qs.tensor flattened); then a bf16
# matrix quantized with every family on the CPU (bit-exact reference numerics),
# with each inner buffer's summary and the dequantization error; then the
# GPU kernels of the Linear layers' quantize step compiled for sm_90a and
# sm_100a with the per-kernel ptxas table, and, where a CUDA device exists,
# the device check against the CPU reference and the bandwidth table.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
qs_opt="${QS_BUILD_DIR:-$root/build}/bin/qs-opt"

for model in "$root"/examples/*.mlir; do
  name=$(basename "$model")
  echo "=== $name: verified IR (before)"
  "$qs_opt" "$model"
  echo "=== $name: inner buffers of every quantized argument and result"
  "$qs_opt" "$model" --qs-describe-storage=metadata=true -o /dev/null
  echo "=== $name: after qs-storage-pipeline"
  "$qs_opt" "$model" --qs-storage-pipeline
  echo
done

echo "=== CPU numerics: quantize a bf16 matrix with every family (qs-run)"
"$root/.venv/bin/python" "$root/examples/quantize_demo.py" \
  "${QS_BUILD_DIR:-$root/build}/bin/qs-run"

build="${QS_BUILD_DIR:-$root/build}"
echo
echo "=== GPU kernels: the quantize step of every bundled Linear layer"
echo "    (examples/linear_operands.mlir) through qs-nvptx-pipeline for sm_90a and"
echo "    sm_100a; registers, shared memory and spills from ptxas -v"
python3 "$root/scripts/kernel-table.py" --qs-opt "$build/bin/qs-opt" \
  --module "$root/examples/linear_operands.mlir"

if device=$("$build/bin/qs-run" --cuda-info 2>&1); then
  echo
  echo "=== On the GPU ($device): every family x usage, GPU bytes == CPU reference"
  QS_KERNELS=cuda QS_RUN="$build/bin/qs-run" "$root/.venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/test/numerics/test_quantize.py" -k "not tiny"
  echo "=== Bandwidth (bf16 8192x8192; GB/s vs a device-to-device copy)"
  "$build/bin/qs-bench-quantize" --sizes 8192
else
  echo
  echo "=== No GPU here ($device)."
  echo "    On a machine with one this also checks the kernels against the CPU"
  echo "    reference and prints their bandwidth (docs/GPU.md)."
fi
