#!/usr/bin/env bash
# Bootstraps (see bootstrap.sh), configures build/ once, and builds
# everything with Ninja against Debian's LLVM/MLIR 22 (libMLIR.so, lld).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh"

build="${QS_BUILD_DIR:-$root/build}"
llvm=/usr/lib/llvm-22
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${QS_BUILD_TYPE:-Release}" \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DPython3_EXECUTABLE="$root/.venv/bin/python" \
    ${QS_CMAKE_ARGS:-} >/dev/null
fi
ninja -C "$build"
