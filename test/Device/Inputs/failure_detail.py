"""Prints device-run.py's failure details for synthetic results: a GEMM
whose second consumer half (rows 64-127 of each 128-row tile) is wrong in
the second 128-column chunk, and a byte buffer wrong in its second half.
  python3 failure_detail.py DEVICE_RUN_PY"""
import importlib.util
import sys

import numpy as np

spec = importlib.util.spec_from_file_location("device_run", sys.argv[1])
device_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(device_run)

m, n = 256, 320
bad = np.zeros((m, n), bool)
for tile in range(0, m, 128):
    bad[tile + 64:tile + 128, 128:256] = True
values = np.where(bad, np.nan, 1.0).astype(np.float32)
values[70, 130] = 0.0
for line in device_run.gemm_failure_detail(bad, values):
    print("GEMM", line)
got = np.arange(64, dtype=np.uint8)
wrong = np.zeros(64, bool)
wrong[32:] = True
wrong[40] = False
for line in device_run.runs_detail(wrong, got, "bytes"):
    print("BYTES", line)
