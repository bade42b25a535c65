#!/usr/bin/env python3
"""Replays a bundle made by scripts/device_bundle.py on a CUDA device, with
nothing but the CUDA driver (ctypes on libcuda.so.1) and numpy:

  check/  every case: inputs copied in, the plan's launches and copies run,
          results compared byte for byte with the numpy reference's bytes
          (NaN equal to NaN for dequantized values);
  bench/  every plan: random normal bf16 input, the kernels timed with CUDA
          events (mean of --iters after --warmup), GB/s = (input bytes +
          every result's bytes) / time, next to a device-to-device copy of
          the input measured in the same run (2 x bytes / time).

  python3 scripts/device-run.py BUNDLE [--iters 20] [--warmup 3]
                                [--only REGEX] [--no-bench] [--progress FILE]

--only keeps the checks and bench plans whose names match REGEX (none
matching is an error); --no-bench skips the bench plans (as under
compute-sanitizer, scripts/device-check.sh); --progress appends each case's
name to FILE before it runs (after a hang, the last line names the case).
Exit code 1 if any check fails or the device is unusable."""

import argparse
import ctypes
import json
import os
import re
import sys

import numpy as np


class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.call("cuInit", 0)
        dev = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(dev), 0)
        self.ctx = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), dev)
        self.call("cuCtxSetCurrent", self.ctx)
        name = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", name, 256, dev)
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(major), 75, dev)
        self.call("cuDeviceGetAttribute", ctypes.byref(minor), 76, dev)
        self.name = f"{name.value.decode()} (compute capability {major.value}.{minor.value})"

    def call(self, fn, *args):
        result = getattr(self.lib, fn)(*args)
        if result != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(result, ctypes.byref(text))
            raise RuntimeError(f"{fn} failed: {text.value.decode() if text.value else result}")

    def malloc(self, n):
        p = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(max(n, 1)))
        return p.value

    def free(self, p):
        self.call("cuMemFree_v2", ctypes.c_uint64(p))

    def to_device(self, p, array):
        a = np.ascontiguousarray(array)
        self.call("cuMemcpyHtoD_v2", ctypes.c_uint64(p), a.ctypes.data_as(ctypes.c_void_p),
                  ctypes.c_size_t(a.nbytes))

    def to_host(self, p, n):
        out = np.empty(n, np.uint8)
        self.call("cuMemcpyDtoH_v2", out.ctypes.data_as(ctypes.c_void_p), ctypes.c_uint64(p),
                  ctypes.c_size_t(n))
        return out

    def copy(self, dst, src, n):
        self.call("cuMemcpyDtoD_v2", ctypes.c_uint64(dst), ctypes.c_uint64(src), ctypes.c_size_t(n))

    def load(self, image):
        module = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image, len(image))
        self.call("cuModuleLoadData", ctypes.byref(module), buf)
        return module

    def function(self, module, name):
        f = ctypes.c_void_p()
        self.call("cuModuleGetFunction", ctypes.byref(f), module, name.encode())
        return f

    def launch(self, f, grid, block, pointers, shared=0):
        holders = [ctypes.c_uint64(p) for p in pointers]
        params = (ctypes.c_void_p * len(holders))(
            *[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        if shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self.call("cuFuncSetAttribute", f, 8, shared)
        self.call("cuLaunchKernel", f, grid, 1, 1, block, 1, 1, shared, None, params, None)

    def tensor_map(self, map_ptr, global_ptr, rows, cols, box_rows, box_cols, swizzle):
        """The GEMM kernels' TMA descriptor (libQSCUDARuntime's
        qsCudaEncodeTensorMap2D): UINT8 [rows, cols] row-major, 128-byte
        (swizzle 128) or no swizzle, 128-byte L2 promotion, zero fill;
        copied to map_ptr."""
        storage = (ctypes.c_uint8 * 192)()  # CUtensorMap must be 64-byte aligned
        address = (ctypes.addressof(storage) + 63) // 64 * 64
        encoded = ctypes.c_void_p(address)
        u64x2, u32x2 = ctypes.c_uint64 * 2, ctypes.c_uint32 * 2
        self.call("cuTensorMapEncodeTiled", encoded, 0, 2, ctypes.c_void_p(global_ptr),
                  u64x2(cols, rows), (ctypes.c_uint64 * 1)(cols), u32x2(box_cols, box_rows),
                  u32x2(1, 1), 0, 3 if swizzle else 0, 2, 0)
        self.call("cuMemcpyHtoD_v2", ctypes.c_uint64(map_ptr), encoded, ctypes.c_size_t(128))

    def sync(self):
        self.call("cuCtxSynchronize")

    def event(self):
        e = ctypes.c_void_p()
        self.call("cuEventCreate", ctypes.byref(e), 0)
        return e

    def time_ms(self, fn, iters, warmup):
        """Mean milliseconds of `iters` calls of fn after `warmup` (events)."""
        for _ in range(warmup):
            fn()
        start, end = self.event(), self.event()
        self.call("cuEventRecord", start, None)
        for _ in range(iters):
            fn()
        self.call("cuEventRecord", end, None)
        return self.elapsed_ms(start, end) / iters

    def elapsed_ms(self, start, end):
        self.call("cuEventSynchronize", end)
        ms = ctypes.c_float()
        self.call("cuEventElapsedTime", ctypes.byref(ms), start, end)
        return ms.value


class Plan:
    def __init__(self, cuda, directory):
        self.cuda = cuda
        with open(os.path.join(directory, "plan.json")) as f:
            self.plan = json.load(f)
        with open(os.path.join(directory, "kernels.bin"), "rb") as f:
            self.module = cuda.load(f.read())
        self.functions = {s["kernel"]: cuda.function(self.module, s["kernel"])
                          for s in self.plan["steps"] if "kernel" in s}
        self.buffers = [cuda.malloc(b["bytes"]) for b in self.plan["buffers"]]
        # Tensor maps depend on buffer addresses only: timed runs reuse them.
        self.maps_ready = False

    def argument(self, i):
        for b, p in zip(self.plan["buffers"], self.buffers):
            if b["argument"] == i:
                return b, p
        raise KeyError(i)

    def run(self, kernels_only=False):
        for s in self.plan["steps"]:
            if "copy" in s:
                if not kernels_only:
                    c = s["copy"]
                    self.cuda.copy(self.buffers[c["dst"]], self.buffers[c["src"]], c["bytes"])
                continue
            if "tensormap" in s:
                if not (kernels_only and self.maps_ready):
                    t = s["tensormap"]
                    self.cuda.tensor_map(self.buffers[t["map"]], self.buffers[t["global"]],
                                         t["rows"], t["cols"], t["box_rows"], t["box_cols"],
                                         t["swizzle"])
                continue
            self.cuda.launch(self.functions[s["kernel"]], s["grid"], s["block"],
                             [self.buffers[a] for a in s["args"]], s.get("shared", 0))
        self.maps_ready = True

    def free(self):
        for p in self.buffers:
            self.cuda.free(p)
        self.cuda.call("cuModuleUnload", self.module)


def check(cuda, directory):
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    plan = Plan(cuda, directory)
    try:
        for i in range(case["inputs"]):
            buf, p = plan.argument(i)
            cuda.to_device(p, np.load(os.path.join(directory, f"in{i}.npy")))
        plan.run()
        cuda.sync()
        problems = []
        for j, name in enumerate(case["results"]):
            want = np.load(os.path.join(directory, f"want{j}.npy"))
            buf, p = plan.argument(case["inputs"] + j)
            got = cuda.to_host(p, buf["bytes"])
            if case.get("bound"):  # GEMM: within the bound of gemm_cases.py
                # The bound as bfloat16 bits, rounded up (device_bundle.py).
                tol = (np.load(os.path.join(directory, f"tol{j}.npy")).astype(np.uint32)
                       << 16).view(np.float32)
                values = got.view({"bf16": np.uint16, "f16": np.float16,
                                   "f32": np.float32}[case["out"]])
                if case["out"] == "bf16":
                    values = (values.astype(np.uint32) << 16).view(np.float32)
                err = np.abs(values.astype(np.float64).reshape(want.shape) - want)
                bad = ~(err <= tol)
                if bad.any():
                    k = int(np.argmax(bad))
                    problems.append(f"{name}: {int(bad.sum())} of {bad.size} outside the bound, "
                                    f"first at {k}: got {values.reshape(-1)[k]!r}, "
                                    f"expected {want.reshape(-1)[k]!r}")
                continue
            want_bytes = np.ascontiguousarray(want).view(np.uint8).reshape(-1)
            if case.get("nan_equal"):
                g = got.view(np.float32)
                w = want_bytes.view(np.float32)
                same = (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))
            else:
                same = got == want_bytes
            if got.size != want_bytes.size:
                problems.append(f"{name}: {got.size} bytes, expected {want_bytes.size}")
            elif not same.all():
                k = int(np.argmin(same))
                problems.append(f"{name}: {int((~same).sum())} of {same.size} differ, first at "
                                f"{k}: got {got[k] if not case.get('nan_equal') else g[k]!r}, "
                                f"expected {want_bytes[k] if not case.get('nan_equal') else w[k]!r}")
        return problems
    finally:
        plan.free()


def bench(cuda, directory, iters, warmup):
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    plan = Plan(cuda, directory)
    try:
        buf, p = plan.argument(0)
        rng = np.random.default_rng(1)
        x = rng.standard_normal(buf["bytes"] // 2, dtype=np.float32)
        cuda.to_device(p, (x.view(np.uint32) >> 16).astype(np.uint16))
        if case["inputs"] == 3:  # delayed: scale 1, amax state 0
            cuda.to_device(plan.argument(1)[1], np.array([1.0], np.float32))
            cuda.to_device(plan.argument(2)[1], np.array([0.0], np.float32))
        moved = buf["bytes"] + sum(b["bytes"] for b in plan.plan["buffers"]
                                   if b["argument"] >= case["inputs"])
        ms = cuda.time_ms(lambda: plan.run(kernels_only=True), iters, warmup)
        kernels = sum(1 for s in plan.plan["steps"] if "kernel" in s)
        return case, moved, ms, kernels
    finally:
        plan.free()


def gemm_bench(cuda, directory, iters, warmup):
    """TFLOP/s of a GEMM plan on random FP8 operands (unit scales: every
    input buffer of 4-byte elements after an operand's data)."""
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    plan = Plan(cuda, directory)
    try:
        rng = np.random.default_rng(1)
        family = case.get("family", "fp8_current")
        per_operand = 3 if family == "nvfp4" else 2  # data, scales (, amax)
        for i in range(case["inputs"]):
            buf, p = plan.argument(i)
            role = i % per_operand
            if role == 2:  # NVFP4 amax: global factor 2688 / 2688 = 1
                cuda.to_device(p, np.array([2688.0], np.float32))
            elif role == 1 and family in ("mxfp8", "nvfp4"):  # 1.0: E8M0 127, E4M3 0x38
                cuda.to_device(p, np.full(buf["bytes"], 127 if family == "mxfp8" else 0x38,
                                          np.uint8))
            elif role == 1:  # scale_inv: per-tensor, or FP8 block scales
                cuda.to_device(p, np.ones(buf["bytes"] // 4, np.float32))
            elif family == "nvfp4":  # any byte is two E2M1 codes
                cuda.to_device(p, rng.integers(0, 256, buf["bytes"], dtype=np.uint8))
            else:  # finite E4M3 codes of magnitude < 2
                cuda.to_device(p, (rng.integers(0, 256, buf["bytes"], dtype=np.uint8) & 0xBF))
        plan.run()
        ms = cuda.time_ms(lambda: plan.run(kernels_only=True), iters, warmup)
        m, n, k = case["gemm"]
        return case, ms, 2.0 * m * n * k / (ms * 1e9)
    finally:
        plan.free()


def copy_gbs(cuda, nbytes, iters, warmup):
    a, b = cuda.malloc(nbytes), cuda.malloc(nbytes)
    ms = cuda.time_ms(lambda: cuda.copy(b, a, nbytes), iters, warmup)
    cuda.free(a)
    cuda.free(b)
    return 2 * nbytes / (ms * 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", help="regular expression of the case and plan names to run")
    parser.add_argument("--no-bench", action="store_true", help="checks only")
    parser.add_argument("--progress", help="file to append each case's name to before it runs")
    args = parser.parse_args()

    def starting(name):
        if args.progress:
            with open(args.progress, "a") as f:
                f.write(name + "\n")
    only = re.compile(args.only) if args.only else None

    def listing(directory):
        names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
        return [n for n in names if not only or only.search(n)]
    try:
        cuda = Cuda()
    except (OSError, RuntimeError) as error:
        print(f"device-run: no usable CUDA device ({error})")
        return 1
    print(f"device: {cuda.name}")
    failures = 0
    check_dir = os.path.join(args.bundle, "check")
    bench_dir = os.path.join(args.bundle, "bench")
    cases = listing(check_dir)
    plans = [] if args.no_bench else listing(bench_dir)
    if only and not cases and not plans:
        print(f"device-run: no check or bench plan in {args.bundle} matches --only {args.only!r}")
        return 1
    for name in cases:
        starting(name)
        try:
            problems = check(cuda, os.path.join(check_dir, name))
        except RuntimeError as error:
            problems = [str(error)]
        if problems:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(problems))
    print(f"checks: {len(cases) - failures} of {len(cases)} as the numpy reference says "
          f"(quantize/dequantize bit-exact, GEMM within its bound)")
    gemms = [p for p in plans if p.startswith("gemm-")]
    plans = [p for p in plans if not p.startswith("gemm-")]
    if gemms:
        print(f"{'GEMM (FP8 E4M3, bf16 out)':<28} {'scaling':<22} {'tile N':>6} {'time us':>9} "
              f"{'TFLOP/s':>8}")
    schedules = {}  # (shape, scaling) -> [(schedule, TFLOP/s)], the default first
    for name in gemms:
        starting(name)
        try:
            case, ms, tflops = gemm_bench(cuda, os.path.join(bench_dir, name), args.iters,
                                          args.warmup)
        except RuntimeError as error:
            failures += 1
            print(f"FAIL bench {name}: {error}")
            continue
        scaling = {"fp8_block": "1x128*128^2", "mxfp8": "mxfp8",
                   "nvfp4": "nvfp4"}.get(case.get("family"), "per-tensor")
        if case.get("layout", "TN") != "TN":
            scaling += " " + case["layout"]
        schedule = " ".join(([f"p{case['persistent']}"] if case.get("persistent") else [])
                            + ([f"mc{case['cluster']}"] if case.get("cluster") else [])
                            + (["pp"] if case.get("schedule") == "pingpong" else [])
                            + ([f"tile{case['tile_n']}"] if case.get("tile_n") else []))
        shape = "x".join(map(str, case["gemm"]))
        entries = schedules.setdefault((shape, scaling), [])
        entries.insert(0 if not schedule else len(entries), (schedule or "default", tflops))
        label = scaling + "".join(f" {s}" for s in schedule.split() if not s.startswith("tile"))
        print(f"{shape:<28} {label:<22} {case['tile_n'] or 'auto':>6} "
              f"{ms * 1000:>9.1f} {tflops:>8.1f}")
    # Which schedule (qs.gemm_tile_n / _persistent / _cluster) wins where
    # there is a choice: what the defaults should become (docs/GPU.md).
    choices = {k: v for k, v in schedules.items() if len(v) > 1 and v[0][0] == "default"}
    if choices:
        print("GEMM schedules: the fastest per shape and scaling, against the default")
    for (shape, scaling), entries in choices.items():
        base = entries[0][1]
        best = max(entries, key=lambda e: e[1])  # ties: the first, the default
        gain = f"{100 * (best[1] / base - 1):+.1f}%" if base > 0 else "n/a"
        print(f"{shape:<28} {scaling:<22} {best[0]:<14} {best[1]:>8.1f} TFLOP/s "
              f"(default {base:.1f}, {gain}; tried: {', '.join(e[0] for e in entries)})")
    if plans:
        print(f"{'family':<16} {'usage':<5} {'size':>6} {'kernels':>7} {'MiB':>6} {'time us':>9} "
              f"{'GB/s':>7} {'copy GB/s':>9} {'ratio':>7}")
    copies = {}
    rows = []
    for name in plans:
        starting(name)
        try:
            case, moved, ms, kernels = bench(cuda, os.path.join(bench_dir, name), args.iters, args.warmup)
        except RuntimeError as error:
            failures += 1
            print(f"FAIL bench {name}: {error}")
            continue
        n = case["n"]
        if n not in copies:
            copies[n] = copy_gbs(cuda, n * n * 2, args.iters, args.warmup)
        gbs = moved / (ms * 1e6)
        rows.append((case["family"], case["usage"], n, kernels, moved / 2**20, ms * 1000, gbs,
                     copies[n], 100 * gbs / copies[n]))
    order = {"row": 0, "col": 1, "both": 2}
    for r in sorted(rows, key=lambda r: (r[2], r[0], order[r[1]])):
        print(f"{r[0]:<16} {r[1]:<5} {r[2]:>6} {r[3]:>7} {r[4]:>6.0f} {r[5]:>9.1f} {r[6]:>7.0f} "
              f"{r[7]:>9.0f} {r[8]:>6.1f}%")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
