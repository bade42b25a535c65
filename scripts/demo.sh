#!/usr/bin/env bash
# README command 1: install, build, and run the demo on the bundled examples.
# For every TE Linear model in examples/: the verified IR, the inner buffers
# of each quantized function argument and result, and the IR after
# qs-storage-pipeline (usages inferred, GEMM-swizzled scales chosen, proto
# ops expanded into explicit buffers, every !qs.tensor flattened); then a bf16
# matrix quantized with every family on the CPU (bit-exact reference numerics),
# with each inner buffer's summary and the dequantization error; then the
# GPU kernels of the Linear layers' quantize step compiled for sm_90a and
# sm_100a, and of whole Linear layers (quantize + GEMMs; per-tensor FP8, FP8
# block, NVFP4 with wgmma for sm_90a; every family with tcgen05 for
# sm_100a),
# with the per-kernel ptxas table, and, where a CUDA device
# exists, the device checks against the CPU reference and the bandwidth table.
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
for family in fp8_current fp8_delayed fp8_block mxfp8 nvfp4 nvfp4_4over6; do
  echo
  echo "=== GPU kernels: the whole Linear layer with $family (fwd: quantizes +"
  echo "    fprop GEMM; bwd: quantize dY + dgrad and wgrad GEMMs), sm_90a and sm_100a (sm_90a:"
  echo "    wgmma + TMA; sm_100a: tcgen05 block-scaled MMA + TMA; the GEMMs also"
  echo "    take ~180-192 KiB of dynamic shared memory, not in 'smem'; then each"
  echo "    GEMM's kernel plan: tiles, stage ring, k-tiles, schedule, grid)"
  python3 "$root/scripts/kernel-table.py" --qs-opt "$build/bin/qs-opt" \
    --chips sm_90a,sm_100a --module "$root/examples/linear_$family.mlir"
done
echo
echo "=== GPU kernels: a Linear layer with a bias (examples/linear_bias.mlir, MXFP8;"
echo "    fwd: the bias added in the fprop GEMM's epilogue; bwd: the quantize of dY"
echo "    also writes the bias gradient's chunk sums, then qs_bias_grad sums them)"
python3 "$root/scripts/kernel-table.py" --qs-opt "$build/bin/qs-opt" \
  --chips sm_90a,sm_100a --module "$root/examples/linear_bias.mlir"
echo "    (MXFP8's backward reads column-wise data, which keeps the tensor's layout:"
echo "    sm_100a reads it MN-major, sm_90a transposes it while converting it to bf16"
echo "    in shared memory for wgmma, which reads K-major FP8 operands only; docs/GPU.md)"
echo
echo "=== GPU kernels: TE's MLP block (examples/mlp_fp8_current.mlir, FP8 current"
echo "    scaling; fwd: fc1, GELU, fc2; bwd: dgrad/wgrad of both with dGELU between;"
echo "    the GELU and dGELU are element-wise kernels of their own, qs_elementwise*)"
python3 "$root/scripts/kernel-table.py" --qs-opt "$build/bin/qs-opt" \
  --chips sm_90a,sm_100a --module "$root/examples/mlp_fp8_current.mlir"

if device=$("$build/bin/qs-run" --cuda-info 2>&1); then
  echo
  echo "=== On the GPU ($device): every family x usage, GPU bytes == CPU reference"
  QS_KERNELS=cuda QS_RUN="$build/bin/qs-run" "$root/.venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/test/numerics/test_quantize.py" -k "not tiny"
  echo "=== On the GPU: GEMMs of every family with a kernel (every layout, edges) vs the CPU reference"
  QS_KERNELS=cuda QS_RUN="$build/bin/qs-run" "$root/.venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/test/numerics/test_gemm.py"
  echo "=== On the GPU: the bundled Linear layers, forward then backward, vs the CPU reference"
  QS_KERNELS=cuda QS_RUN="$build/bin/qs-run" "$root/.venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/test/numerics/test_linear.py" "$root/test/numerics/test_bias_grad.py"
  echo "=== On the GPU: element-wise kernels (activations, casts) vs the CPU reference, the MLP block"
  QS_KERNELS=cuda QS_RUN="$build/bin/qs-run" "$root/.venv/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/test/numerics/test_elementwise.py"
  echo "=== Bandwidth (bf16 8192x8192; GB/s vs a device-to-device copy)"
  "$build/bin/qs-bench-quantize" --sizes 8192
  case "$device" in
    *sm_100a*)
      echo "=== GEMM (MXFP8 fprop, tcgen05, 8192^3; TFLOP/s)"
      "$build/bin/qs-bench-gemm" --family=mxfp8 --shapes 8192x8192x8192 ;;
    *)
      echo "=== GEMM (per-tensor FP8 fprop, 8192^3 with each tile width; TFLOP/s)"
      "$build/bin/qs-bench-gemm" --shapes 8192x8192x8192 ;;
  esac
else
  echo
  echo "=== No GPU here ($device)."
  echo "    On a machine with one this also checks the kernels against the CPU"
  echo "    reference and prints their bandwidth (docs/GPU.md)."
fi
