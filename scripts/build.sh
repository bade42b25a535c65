#!/usr/bin/env bash
# Bootstraps (see bootstrap.sh), configures build/ once, and builds
# everything with Ninja against Debian's LLVM/MLIR 22 (libMLIR.so, lld).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh"

build="${QS_BUILD_DIR:-$root/build}"
# ccache comes from CMakeLists.txt when installed (bootstrap.sh installs it).
"$root/scripts/configure.sh" "$build" ${QS_CMAKE_ARGS:-}
ninja -C "$build"
