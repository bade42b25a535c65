#!/usr/bin/env bash
# Builds qs-fuzz (ASan + UBSan + libFuzzer; build dir build-fuzz, or
# $QS_FUZZ_BUILD_DIR) and fuzzes for $1 seconds (default 240) on $QS_FUZZ_JOBS
# processes (default 1). Seeds: every chunk of the lit tests and the examples
# (MLIR text), plus generator seeds; dictionary tools/qs-fuzz/qs.dict. The
# corpus grows in build-fuzz/corpus and survives between runs; a crash is
# written to build-fuzz/crashes/ and fails the script (a slow input, over
# 10 s, is written there too but only named). For hours:
#   QS_FUZZ_JOBS=2 bash scripts/fuzz.sh 36000
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds="${1:-240}"
jobs="${QS_FUZZ_JOBS:-1}"
"$root/scripts/bootstrap.sh"

build="${QS_FUZZ_BUILD_DIR:-$root/build-fuzz}"
"$root/scripts/configure.sh" "$build" -DQS_ENABLE_FUZZER=ON \
  -DQS_ENABLE_UNITTESTS=OFF -DQS_ENABLE_BINDINGS_PYTHON=OFF
ninja -C "$build" qs-fuzz

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds" "$build/corpus" "$build/crashes"
"$root/.venv/bin/python" "$root/scripts/fuzz-seeds.py" "$root" "$seeds"

# Leak checking is off here (the target keeps one context for many inputs,
# which per-input leak checks would report); scripts/test-sanitizers.sh
# checks leaks at process exit.
fuzzer_flags=(-max_total_time="$seconds" -dict="$root/tools/qs-fuzz/qs.dict"
              -timeout=60 -rss_limit_mb=6144 -max_len=8192 -detect_leaks=0
              -print_final_stats=1 -artifact_prefix="$build/crashes/")
log="$build/fuzz.log"
cd "$build"
rm -f "$build"/fuzz-*.log
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
set +e
"$build/bin/qs-fuzz" "${fuzzer_flags[@]}" "${parallel[@]}" "$build/corpus" "$seeds" > "$log" 2>&1
status=$?
set -e
# With -jobs, each job logs to fuzz-N.log and the parent only echoes them.
logs=("$log")
[ "$jobs" -gt 1 ] && logs=("$build"/fuzz-*.log)
grep -hE "^#[0-9]+[[:space:]]+(INITED|DONE)|ERROR|invariant violated|^qs-fuzz:" "${logs[@]}" || true
# libFuzzer's artifacts: crash-, leak-, timeout- and oom- files are
# failures; slow-unit- files (an input over 10 s, e.g. many kernels through
# NVPTX codegen under ASan on a loaded machine) are reported, not failures.
failures=$(cd "$build/crashes" && ls crash-* leak-* timeout-* oom-* 2>/dev/null || true)
slow=$(cd "$build/crashes" && ls slow-unit-* 2>/dev/null || true)
[ -n "$slow" ] && echo "fuzz: slow inputs (over 10 s; not failures): $slow"
if [ "$status" -ne 0 ] || [ -n "$failures" ]; then
  echo "fuzz: FAILED (exit $status); crashes: $failures" >&2
  echo "fuzz: reproduce with QS_FUZZ_PRINT=1 $build/bin/qs-fuzz <crash file>" >&2
  exit 1
fi
executions=$(grep -h 'stat::number_of_executed_units' "${logs[@]}" | awk '{s += $2} END {print s}')
echo "fuzz: no crash in $seconds s on $jobs process(es): $executions executions"
