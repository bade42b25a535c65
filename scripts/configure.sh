#!/usr/bin/env bash
# Configures a build directory once (nothing if it already has build.ninja):
# Ninja, Debian's LLVM/MLIR 22 with clang-22 and lld, ccache when present,
# the project's .venv as Python. Usage: configure.sh BUILD_DIR [CMAKE_ARGS...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$1"
shift
llvm=/usr/lib/llvm-22
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${QS_BUILD_TYPE:-Release}" \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DPython3_EXECUTABLE="$root/.venv/bin/python" \
    "$@" >/dev/null
fi
