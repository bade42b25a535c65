#!/usr/bin/env bash
# README command 1: install, build, and run the demo on the bundled examples.
# For every TE Linear model in examples/: the verified IR, the inner buffers
# of each quantized function argument and result, and the IR after
# qs-storage-pipeline (usages inferred, GEMM-swizzled scales chosen, proto
# ops expanded into explicit buffers, every !qs.tensor flattened); then a bf16
# matrix quantized with every family on the CPU (bit-exact reference numerics),
# with each inner buffer's summary and the dequantization error.
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
