#!/usr/bin/env bash
# The GPU check, run on the device machine in the repository root (no build
# there: the machine has no LLVM/MLIR). Needs the bundle made here by
#   .venv/bin/python scripts/device_bundle.py device-bundle
# carried along packed (device-bundle.tar.gz, unpacked here into a
# temporary directory) or as the directory itself. Replays every check case
# (quantize/dequantize bytes == the numpy reference, GEMM within its bound),
# times every bench plan (quantize against a device-to-device copy, GEMM in
# TFLOP/s), runs a few checks under
# compute-sanitizer (synccheck, racecheck: the barrier protocols the CPU
# emulation cannot check), and runs the PyTorch / TransformerEngine /
# cuBLASLt baselines (before the sanitizers). Logs go to $OUT when set.
#   bash scripts/device-check.sh [BUNDLE]   # default: device-bundle.tar.gz
# $PYTHON (default python3) needs numpy.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bundle="${1:-device-bundle.tar.gz}"
python="${PYTHON:-python3}"
out="${OUT:-/tmp}"
# The device tool gives one command 600 s: every step after the replay gets
# at most what is left of 570 s, and is skipped (saying so) when under 30 s.
limit=570
left() { echo $((limit - SECONDS)); }
if [ -f "$bundle" ]; then
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  "$python" -c 'import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))' \
    "$bundle" "$unpacked" || { echo "device-check: cannot unpack $bundle"; exit 1; }
  bundle=$unpacked
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1 | tee "$out/device.txt"
# A kernel that hangs (a barrier protocol the emulation cannot check) costs
# device-run.py's --case-timeout (20 s a check, 60 s a bench plan): it
# kills the worker process, reports the case LOST and goes on after it. The
# whole replay is bounded too; progress.txt names every case as it starts.
rm -f "$out/progress.txt"
# The SM clock, power and temperature every 500 ms during the replay
# (TFLOP/s and GB/s say little without the clock they ran at), summarized
# after it into device.txt (the samples stay in a temporary file: $OUT
# brings back 8 files at most).
samples=$(mktemp)
sampler=
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,utilization.gpu \
    --format=csv,noheader,nounits -lms 500 > "$samples" 2>/dev/null &
  sampler=$!
fi
# The replay's bound: on the H200 (2026-12-04) 161-280 s for 192 checks
# and 159 bench plans; the bundle has 210 and 215 since 2026-12-06 (237
# checks since 2026-12-07: 12 small Linear-layer plans, 4 given-amax
# quantizes), so 390 s, which
# leaves the baselines and sanitizers what they took then (39 and 78 s). A
# replay cut short loses the last GEMM schedules first.
replay_limit=390
PYTHONUNBUFFERED=1 timeout "$replay_limit" "$python" "$root/scripts/device-run.py" "$bundle" \
  --progress "$out/progress.txt" 2>&1 | tee "$out/device-run.txt"
status=$?
if [ $status -eq 124 ]; then
  echo "device-run: timed out after $replay_limit s while running:" \
    "$(tail -n 1 "$out/progress.txt" 2>/dev/null || echo '(no case started)')"
fi
if [ -n "$sampler" ]; then
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  awk -F', *' '$5 + 0 > 50 { n++; s += $2; if (!lo || $2 < lo) lo = $2; if ($2 > hi) hi = $2
                             if ($3 > p) p = $3; if ($4 > t) t = $4 }
    END { if (n) printf "GPU while busy (%d samples of 0.5 s): SM clock %d-%d MHz (mean %d), " \
                        "power up to %.0f W, temperature up to %d C\n", n, lo, hi, s / n, p, t
          else print "GPU samples: none with the GPU busy" }' "$samples" | tee -a "$out/device.txt"
else
  echo "nvidia-smi not found: no clock/power samples"
fi
rm -f "$samples"
# The cuBLASLt / PyTorch baselines next (GEMM first: issue 7 compares with
# it in the same run), before the sanitizers, so that a long replay cannot
# starve them; each gets at most 90 s.
replay_s=$SECONDS
for baseline in gemm quantize; do
  budget=$(( $(left) < 90 ? $(left) : 90 ))
  if [ "$budget" -lt 30 ]; then
    echo "=== $baseline baseline skipped: $SECONDS s used"
    continue
  fi
  PYTHONUNBUFFERED=1 timeout "$budget" "$python" "$root/bench/$baseline/torch_baseline.py" 2>&1 |
    tee "$out/$baseline-torch-baseline.txt"
done
# The GEMM kernels against cuBLASLt from the two logs (no GPU time),
# appended to device-run.txt.
if [ -f "$out/gemm-torch-baseline.txt" ]; then
  "$python" "$root/scripts/gemm-compare.py" "$out/device-run.txt" "$out/gemm-torch-baseline.txt" 2>&1 |
    tee -a "$out/device-run.txt"
fi
# This run against the last one recorded in bench/results (no GPU time),
# appended to device-run.txt: every row's change, the slower ones listed.
previous=$(ls "$root"/bench/results/*/*device-run.txt 2>/dev/null | sort | tail -n 1)
if [ -n "$previous" ]; then
  echo "=== against ${previous#"$root"/}"
  "$python" "$root/scripts/compare-runs.py" "$previous" "$out/device-run.txt" 2>&1 |
    tee -a "$out/device-run.txt" | tail -n 25
fi
# Quantize with both usages, and the GEMM paths with named barriers and
# shared-memory handoffs between threads: per-tensor (split accumulator,
# and fast_accumulate with 128x256 tiles) and FP8 block, NVFP4
# (f16 conversion, double-buffered; 9 k-tiles), MXFP8 fprop and its
# MN-major dgrad/wgrad (transposing copy), and the persistent kernels (the
# stage ring across a block's tiles), multicast pairs (barriers across
# two blocks) and ping-pong consumers (one reader per stage), among them the
# chunked promotions of 256-wide split tiles, MXFP8's 128-wide tiles and
# FP8 block's 192-wide ones (persistent and multicast checks; MXFP8's
# 128-wide dgrad is left out), and the TMA-store epilogue's staging
# handoff (named barriers 4/5, bulk-group waits) in the cooperative and
# ping-pong kernels, split-K's persistent units (multicast pairs,
# ping-pong); and since 2026-12-03 the epilogues that stage an output
# quantizer's values and read them back across threads (gemmq00: the FP8
# transpose; gemmq04: FP8 1x128 blocks both ways, the column blocks
# across both consumers): 33 checks, about the 150 s a tool gets (the
# gemmq ones last). In one process (--case-timeout 0),
# the one compute-sanitizer watches (REGEX: Python's re).
sanitize='^[0-9]+-(fp8_current|mxfp8|nvfp4)-both-256x512-bf16$|^gemm[0-9]+-(fp8_current-fprop_TN-256x320x256|fp8_block-fprop_TN-256x320x256|nvfp4-fprop_TN-320x224x1056|mxfp8-(fprop_TN-256x320x256|dgrad_NN|wgrad_NT))-(?!.*-t128)|^gemm[0-9]+-fp8_current-fprop_TN-144x656x304-f16-fast$|^gemm[0-9]+-.*-(pers[0-9]+|mc[0-9]+|pp)(-sk[0-9]+)?(-promote|-dequantize)?$|^gemm[0-9]+-fp8_current-.*-tma$|^gemmq0[04]-'
baselines_s=$((SECONDS - replay_s))
if command -v compute-sanitizer >/dev/null; then
  for tool in synccheck racecheck; do
    echo "=== compute-sanitizer --tool $tool"
    budget=$(( $(left) < 150 ? $(left) : 150 ))
    if [ "$budget" -lt 30 ]; then echo "skipped: $SECONDS s used"; continue; fi
    PYTHONUNBUFFERED=1 timeout "$budget" compute-sanitizer --tool "$tool" --print-limit 20 --error-exitcode 2 \
      "$python" "$root/scripts/device-run.py" "$bundle" --no-bench --only "$sanitize" --case-timeout 0 \
      > "$out/sanitizer-$tool.txt" 2>&1
    sanitizer_status=$?
    grep -E "ERROR SUMMARY|^checks:|^FAIL|device-run:" "$out/sanitizer-$tool.txt"
    [ $sanitizer_status -eq 0 ] || { echo "compute-sanitizer $tool: exit $sanitizer_status"; status=1; }
  done
else
  echo "compute-sanitizer not found: no synccheck/racecheck run"
fi
# Where the device time went (for sizing later runs: the device tool gives
# a session 15 minutes, the machine's start included).
echo "device-check: ${SECONDS} s in all: unpack and replay ${replay_s} s," \
  "baselines ${baselines_s} s, sanitizers $((SECONDS - replay_s - baselines_s)) s" |
  tee -a "$out/device.txt"
exit $status
