#!/usr/bin/env bash
# The whole test suite (lit, gtest, C API, Python) on a build compiled with
# AddressSanitizer + UndefinedBehaviorSanitizer (build dir build-asan, or
# $QS_ASAN_BUILD_DIR). Everything of ours links the shared ASan runtime,
# which is preloaded into every process of the run so that the Python
# extension, loaded into an uninstrumented python, is checked too. Any
# report fails the test that triggered it. The build does not use
# precompiled headers, so it also finds a missing #include.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/bootstrap.sh"

build="${QS_ASAN_BUILD_DIR:-$root/build-asan}"
llvm=/usr/lib/llvm-22
"$root/scripts/configure.sh" "$build" -DQS_SANITIZERS=ON
# Without precompiled headers (also on a tree configured before the option
# existed): this build also checks that every file includes what it uses,
# which the PCH of the other builds would hide (docs/Development.md).
cmake "$build" -DQS_PRECOMPILE_HEADERS=OFF > /dev/null
ninja -C "$build"

runtime=$("$llvm/bin/clang" -print-file-name=libclang_rt.asan-x86_64.so)
# allow_user_poisoning=0: libMLIR.so is not instrumented; see docs/Testing.md.
# Leaks: python and lit are not ours; LSan reports at exit are suppressed for
# them (scripts/lsan.supp) and fail the test for everything else.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
LD_PRELOAD="$runtime" "$llvm/bin/lit" -sv "$build/test"
