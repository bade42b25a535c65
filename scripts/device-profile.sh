#!/usr/bin/env bash
# Nsight Compute (ncu) on a few quantize bench plans of a device bundle, run
# on the lent GPU machine after scripts/device-check.sh: why a kernel is
# below copy bandwidth (DRAM throughput, achieved occupancy, warp stall
# reasons), which the event timings alone do not say.
#   bash scripts/device-profile.sh [BUNDLE] [PLAN_REGEX] [SECONDS]
#   bash scripts/device-profile.sh --summarize NCU_REPORT   # the lines only
# BUNDLE: a bundle directory or device-bundle.tar.gz (default); PLAN_REGEX:
# the bench plans (scripts/device-run.py --only; default: 16384^2 plans
# whose kernels changed since the H200 profile of 2026-12-04 without being
# timed: the staged column-wise stores, FP8 1x128 column pairs, MXFP8 row
# lanes, the NVFP4 encode, RHT butterflies, SR by directed roundings,
# 4over6 without div.rn, the column-wise codes transposed from the row-wise
# ones: per-tensor and 16x16 NVFP4 with both usages); SECONDS: the whole
# run's limit (default 150).
# Each plan's kernels run twice (device-run's first run and one timed call,
# no rotation); every quantize, dequantize and update_usage launch is
# profiled (not the timing's spin kernel), the clocks left alone
# (--clock-control none, METHOD.md). The report goes to $OUT/ncu.txt (or
# /tmp), a line per launch to stdout.
set -uo pipefail
# summarize FILE: one line per profiled launch: name, duration, DRAM
# throughput, achieved occupancy, registers (whatever order ncu prints its
# sections in).
summarize() {
  awk 'function flush() { if (name != "") printf "%-24s %14s  DRAM %6s%%  occupancy %6s%%  registers %s\n", name, dur, dram, occ, regs
                        name = dur = dram = occ = regs = "" }
     /^  qs_[A-Za-z0-9_]+ \(/ { flush(); name = $1 }
     /^    Duration / { dur = $NF " " $(NF-1) }
     /^    DRAM Throughput / { dram = $NF }
     /^    Achieved Occupancy / { occ = $NF }
     /^    Registers Per Thread / { regs = $NF }
     END { flush() }' "$1"
}
if [ "${1:-}" = --summarize ]; then
  summarize "${2:?--summarize needs an ncu report}"
  exit
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle="${1:-device-bundle.tar.gz}"
plans="${2:-^(fp8_current-col|fp8_delayed-both|fp8_block_1x128-both|mxfp8-row|nvfp4-row|nvfp4_16x16-both|nvfp4_rht-col|nvfp4_sr-row|nvfp4_4over6-row)-16384\$}"
limit="${3:-150}"
python="${PYTHON:-python3}"
out="${OUT:-/tmp}"
if ! command -v ncu >/dev/null; then
  echo "device-profile: ncu not found: no profile"
  exit 0
fi
if [ -f "$bundle" ]; then
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  tar -xzf "$bundle" -C "$unpacked" || { echo "device-profile: cannot unpack $bundle"; exit 1; }
  bundle=$unpacked
fi
timeout "$limit" ncu --clock-control none -k 'regex:^qs_(quantize|dequantize|update_usage)' \
  --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section MemoryWorkloadAnalysis --section WarpStateStats \
  "$python" "$root/scripts/device-run.py" "$bundle" --only "$plans" \
  --iters 1 --warmup 0 --rotate-mib 0 --case-timeout 0 > "$out/ncu.txt" 2>&1
status=$?
[ $status -eq 124 ] && echo "device-profile: stopped after $limit s"
summarize "$out/ncu.txt"
exit $status
