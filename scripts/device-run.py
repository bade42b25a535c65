#!/usr/bin/env python3
"""Replays a bundle made by scripts/device_bundle.py on a CUDA device, with
nothing but the CUDA driver (ctypes on libcuda.so.1), numpy and, for the
GEMM checks, ml_dtypes:

  check/  every case: inputs copied in, the plan's launches and copies run,
          results compared byte for byte with the numpy reference's bytes
          (NaN equal to NaN for dequantized values); GEMM results within
          the bound of test/numerics/gemm_cases.py, whose expected values
          and bound are recomputed here from the inputs;
  bench/  every plan: random normal bf16 input, the kernels timed with CUDA
          events (the median of --iters calls after --warmup, queued
          behind a spin kernel so that host launch gaps do not count;
          quantize plans and copies cycle through buffer sets of
          --rotate-mib in all, so that no input is read from L2), GB/s =
          (input bytes + every result's bytes) / time, next to a
          device-to-device copy of the input measured in the same run
          (2 x bytes / time).

  python3 scripts/device-run.py BUNDLE [--iters 20] [--warmup 3] [--rotate-mib 150]
                                [--only REGEX] [--no-bench] [--progress FILE]
                                [--case-timeout 20] [--max-lost 6]

Order: the checks, the quantize bench plans, then the GEMM bench plans,
the default schedules first. --only keeps the checks and bench plans whose
names match REGEX (none matching is an error); --no-bench skips the bench
plans (as under compute-sanitizer, scripts/device-check.sh); --progress
appends each case's name to FILE before it runs.

The cases run in a worker process watched by this one: a check that has not
finished after --case-timeout seconds (a bench plan: 3x) is a kernel that
hangs (a barrier protocol gone wrong): the worker is killed, the case
reported "LOST", and a new worker goes on after it (the GPU is usable again
once the process is gone), skipping the GEMM bench plans of the lost GEMM
check's family and kernel options (fast, pers, mc, pp, tma, promote, dequantize, t256/t192/t128); likewise after a sticky
CUDA error (an illegal address: the context is unusable), reported as the
case's failure. After --max-lost lost cases the rest is not run.
--case-timeout 0 runs everything in this process without a watchdog (under
compute-sanitizer); a sticky error then ends the run.
Exit code 1 if any check fails or the device is unusable."""

import argparse
import contextlib
import ctypes
import itertools
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

# The repository (test/numerics: the GEMM checks' reference).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# CUDA errors after which the context is unusable (every later call fails):
# illegal address, launch timeout, assert, stack error, illegal
# instruction, misaligned address, invalid address space, invalid PC,
# launch failed.
STICKY_ERRORS = {700, 702, 710, 714, 715, 716, 717, 718, 719}


# The spin kernel (lib/Runtime/spin.ptx, shared with libQSCUDARuntime's
# qsCudaSpin): keeps the GPU busy while the host queues a timed loop.
SPIN_PTX_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "lib",
                             "Runtime", "spin.ptx")


class CudaError(RuntimeError):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


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
        # Multiprocessors: the bundle's plans assume the chip's data-sheet
        # count (sm_90a 132, sm_100a 148; convert-qs-to-gpu multiprocessors).
        sms = ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(sms), 16, dev)
        self.name = (f"{name.value.decode()} (compute capability {major.value}.{minor.value}, "
                     f"{sms.value} multiprocessors)")
        self._events = []
        self._spin = None  # the spin kernel's function, once loaded (False: unavailable)

    def call(self, fn, *args):
        result = getattr(self.lib, fn)(*args)
        if result != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(result, ctypes.byref(text))
            raise CudaError(f"{fn} failed: {text.value.decode() if text.value else result}",
                            result)

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
        buf = ctypes.create_string_buffer(image)  # + a NUL: PTX text must end with one
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
        """Median milliseconds of `iters` calls of fn after `warmup`: an
        event before and after each call, the calls queued behind a spin
        kernel (SPIN_PTX_PATH) that keeps the GPU busy until the host has
        queued them all, so the host's launch rate (ctypes: ~10-20 us a
        launch, a 4096^2 quantize takes ~15 us on an H200) does not leave
        gaps between the kernels that would count as their time."""
        for _ in range(warmup):
            fn()
        started = time.perf_counter()
        fn()  # one more, timed on the host: how long queuing a call takes
        host_ms = (time.perf_counter() - started) * 1e3
        self.sync()
        events = self.events(iters + 1)
        self.spin(min(max(2 * iters * host_ms + 1.0, 2.0), 500.0))
        self.call("cuEventRecord", events[0], None)
        for i in range(iters):
            fn()
            self.call("cuEventRecord", events[i + 1], None)
        self.call("cuEventSynchronize", events[-1])
        return float(np.median([self.elapsed_ms(a, b) for a, b in zip(events, events[1:])]))

    def events(self, n):
        """n reusable events (timing enabled)."""
        while len(self._events) < n:
            self._events.append(self.event())
        return self._events[:n]

    def spin(self, ms):
        """Queues a one-thread kernel that spins for `ms` milliseconds on
        %globaltimer (no spin where SPIN_PTX_PATH cannot be read or loaded:
        the timings then include the host's launch gaps, said once)."""
        if self._spin is None:
            try:
                with open(SPIN_PTX_PATH, "rb") as f:
                    self._spin = self.function(self.load(f.read()), "qs_spin")
            except (OSError, CudaError) as error:
                self._spin = False
                print(f"device-run: no spin kernel ({error}): small cases' timings include "
                      f"host launch gaps", file=sys.stderr)
        if self._spin:
            self.launch(self._spin, 1, 1, [int(ms * 1e6)])

    def elapsed_ms(self, start, end):
        ms = ctypes.c_float()
        self.call("cuEventElapsedTime", ctypes.byref(ms), start, end)
        return ms.value


def free_all(cuda, pointers):
    """Frees every allocation, also after one failed (a lost context);
    returns the first error, if any."""
    first = None
    for p in pointers:
        try:
            cuda.free(p)
        except CudaError as e:
            first = first or e
    return first


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

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        """Frees the buffers and the module. After an error the freeing may
        fail too (a lost context): the first error is the one reported."""
        first = free_all(self.cuda, self.buffers)
        try:
            self.cuda.call("cuModuleUnload", self.module)
        except CudaError as e:
            first = first or e
        if first and kind is None:
            raise first
        return False


def fp8_codes(values, fp8):
    """FP8 codes (uint8) of float32 `values`: round to nearest even on the
    format's grid (subnormals included), finite values and infinities
    saturated to the largest finite magnitude (cvt.rn.satfinite), sign
    kept, NaN 0x7F; fp8 "f8E4M3FN" or "f8E5M2". Written here with numpy
    alone (the device machine has no ml_dtypes), independently of
    qs_reference.py."""
    mant, bias, largest = (3, 7, 448.0) if fp8 == "f8E4M3FN" else (2, 15, 57344.0)
    v = np.asarray(values, np.float32).astype(np.float64)
    sign = np.signbit(v).astype(np.uint8) << 7
    a = np.minimum(np.abs(np.nan_to_num(v, nan=0.0)), 2 * largest)
    with np.errstate(divide="ignore"):
        e = np.maximum(np.floor(np.log2(np.where(a > 0, a, 1.0))), 1 - bias)
    step = np.exp2(e - mant)
    q = np.minimum(np.rint(a / step) * step, largest)  # rint: half to even
    with np.errstate(divide="ignore"):
        qe = np.floor(np.log2(np.where(q > 0, q, 1.0)))
    normal = q >= 2.0 ** (1 - bias)
    field = np.where(normal, qe + bias, 0).astype(np.int64)
    fraction = np.where(normal, q / np.exp2(qe) - 1, q / 2.0 ** (1 - bias)) * 2 ** mant
    codes = ((field << mant) | np.rint(fraction).astype(np.int64)).astype(np.uint8) | sign
    return np.where(np.isnan(v), np.uint8(0x7F) | sign, codes).astype(np.uint8)


def current_scale(amax, fp8):
    """Current scaling's scale from the tensor's amax (te-formats.md,
    defaults: no power-of-2 rounding, epsilon 0): largest / amax in float32,
    1 where amax is 0 or not finite, the float32 maximum where the division
    overflows."""
    largest = np.float32(448.0 if fp8 == "f8E4M3FN" else 57344.0)
    amax = np.float32(amax)
    if amax == 0 or not np.isfinite(amax):
        return np.float32(1.0)
    with np.errstate(over="ignore"):
        scale = np.float32(largest / amax)
    return np.float32(np.finfo(np.float32).max) if np.isinf(scale) else scale


def block_results(spec, product):
    """{result name: expected bytes} of a block-scaled output quantizer
    (case["quantized"]["blocks"]) from the product the quantize reads
    (float32 values of the nominal type, [M, N]; the bundle's shapes leave
    no scale padding: M and N multiples of 128). "mxfp8": 1x32 row and
    32x1 column blocks (compact E8M0 scales, te-formats.md section 3.c:
    e = the smallest power of two >= f32(amax * f32(1 / fp8_max)),
    codes of x * 2^(127 - e)); "fp8_block": 1x128 row blocks (power-of-two
    FP32 scales: f32(fp8_max / amax) with its mantissa cleared, 1 for a
    zero block; scale_inv [N / 128, M]) and 128x1 column blocks (codes
    transposed, [N, M]; scale_inv [M / 128, N])."""
    fp8 = spec["fp8"]
    largest = np.float32(448.0 if fp8 == "f8E4M3FN" else 57344.0)
    m, n = product.shape
    a = np.abs(product)
    out = {}
    if spec["blocks"] == "mxfp8":
        def e8m0(block_amax):
            p = (block_amax * (np.float32(1.0) / largest)).astype(np.float32)
            frac, exp = np.frexp(p.astype(np.float64))
            e = np.where(frac == 0.5, exp - 1, exp) + 127
            return np.where(p == 0, 0, np.clip(e, 0, 254)).astype(np.uint8)

        def mult(e):
            return np.ldexp(np.float32(1.0), 127 - e.astype(np.int32)).astype(np.float32)
        if spec["rowwise"]:
            e = e8m0(a.reshape(m, n // 32, 32).max(axis=2))
            out["rowwise_data"] = fp8_codes(product * np.repeat(mult(e), 32, 1), fp8)
            out["rowwise_scale_inv"] = e
        if spec["columnwise"]:
            e = e8m0(a.reshape(m // 32, 32, n).max(axis=1))
            out["columnwise_data"] = fp8_codes(product * np.repeat(mult(e), 32, 0), fp8)
            out["columnwise_scale_inv"] = e
        return out
    def block_scale(block_amax):
        with np.errstate(divide="ignore", over="ignore"):
            scale = (largest / block_amax).astype(np.float32)
        scale = np.where(np.isinf(scale), np.float32(3.3895313892515355e38), scale)
        scale = (scale.view(np.uint32) & np.uint32(0xFF800000)).view(np.float32)
        return np.where(block_amax == 0, np.float32(1.0), scale).astype(np.float32)
    if spec.get("rowwise", True):
        scale = block_scale(a.reshape(m, n // 128, 128).max(axis=2))
        out["rowwise_data"] = fp8_codes(product * np.repeat(scale, 128, 1), fp8)
        out["rowwise_scale_inv"] = np.ascontiguousarray((np.float32(1.0) / scale).T)
    if spec.get("columnwise", False):
        scale = block_scale(a.reshape(m // 128, 128, n).max(axis=1))
        out["columnwise_data"] = np.ascontiguousarray(
            fp8_codes(product * np.repeat(scale, 128, 0), fp8).T)
        out["columnwise_scale_inv"] = (np.float32(1.0) / scale).astype(np.float32)
    return out


def quantized_results(case, product, inputs):
    """{result name: expected bytes} of a GEMM's per-tensor output
    quantizer (case["quantized"]), from the same plan's high-precision
    product (float32 values, [rows, cols]): the FP8 data (and transpose),
    scale_inv = 1 / scale and, for delayed scaling, the updated amax
    max(state, max |product|) (a state that is not > 0 counts as +0);
    current scaling's scale comes from max |product| (current_scale), which
    is also its qs.amax ("amax", where the check has one: output_quantizer_case's
    product_uses "amax", the quantize given that amax)."""
    spec = case["quantized"]
    if spec.get("blocks"):
        return block_results(spec, product)
    if spec.get("current"):
        amax = np.fmax.reduce(np.abs(product).reshape(-1), initial=np.float32(0.0))
        scale = current_scale(amax, spec["fp8"])
        codes = fp8_codes(product * scale, spec["fp8"])
        return {"data": codes, "transpose": np.ascontiguousarray(codes.T),
                "scale_inv": np.array([np.float32(1.0) / scale], np.float32),
                "amax": np.array([amax], np.float32)}
    scale = np.float32(inputs[spec["scale_input"]].reshape(-1)[0])
    state = np.float32(inputs[spec["state_input"]].reshape(-1)[0])
    codes = fp8_codes(product * scale, spec["fp8"])
    amax = np.float32(0.0) if not state > 0 else state
    amax = np.fmax(amax, np.fmax.reduce(np.abs(product).reshape(-1), initial=0.0)).astype(
        np.float32)
    return {"data": codes, "transpose": np.ascontiguousarray(codes.T),
            "scale_inv": np.array([np.float32(1.0) / scale], np.float32),
            "updated_amax": np.array([amax], np.float32)}


def gemm_reference(entry, inputs):
    """(want, tol, problem) of a bounded GEMM result: the float64 expected
    values and bound of test/numerics/gemm_cases.py (gemm_reference, which
    needs ml_dtypes besides numpy), recomputed from `inputs` (the reference
    buffers of its operands, then bias and C) and entry["reference"];
    problem (want and tol None) when that fails or its sums differ from the
    ones the bundle recorded (entry["want_abs_sum"], entry["tol_sum"]:
    another numpy reference, whose environment differs, and the check
    would say nothing about the kernels)."""
    try:
        sys.path.insert(0, os.path.join(ROOT, "test", "numerics"))
        try:
            import gemm_cases
        finally:
            sys.path.pop(0)
        want, tol = gemm_cases.gemm_reference(entry["reference"], inputs)
    except Exception as e:  # noqa: BLE001 (reported as the check's problem)
        return None, None, f"reference not computed here ({type(e).__name__}: {e})"
    for what, got, recorded in (("sum |want|", float(np.abs(want).sum()), entry["want_abs_sum"]),
                                ("sum of the bound", float(tol.sum()), entry["tol_sum"])):
        if not abs(got - recorded) <= 1e-9 * abs(recorded):
            return None, None, (f"reference recomputed here differs from the bundle's: {what} "
                                f"{got!r}, bundle {recorded!r}")
    return want, tol, None


def check(cuda, directory):
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    with Plan(cuda, directory) as plan:
        for i in range(case["inputs"]):
            buf, p = plan.argument(i)
            cuda.to_device(p, np.load(os.path.join(directory, f"in{i}.npy")))
        plan.run()
        cuda.sync()
        results = []
        for j in range(len(case["results"])):
            buf, p = plan.argument(case["inputs"] + j)
            results.append(cuda.to_host(p, buf["bytes"]))
    return evaluate(case, directory, results)


def bound_problems(name, got, want, tol, out):
    """The problems of GEMM result `name` (its bytes `got`, of type `out`)
    against the reference `want` and its elementwise bound `tol`."""
    values = got.view({"bf16": np.uint16, "f16": np.float16, "f32": np.float32}[out])
    if out == "bf16":
        values = (values.astype(np.uint32) << 16).view(np.float32)
    values = values.reshape(want.shape)
    bad = ~(np.abs(values.astype(np.float64) - want) <= tol)
    if not bad.any():
        return []
    k = int(np.argmax(bad))
    return [f"{name}: {int(bad.sum())} of {bad.size} outside the bound, first at {k}: "
            f"got {values.reshape(-1)[k]!r}, expected {want.reshape(-1)[k]!r}"
            + "".join(f"\n  {name}: {line}" for line in gemm_failure_detail(bad, values))]


def evaluate(case, directory, results):
    """The problems (empty: the check passes) of a check case's results
    (their bytes, uint8, in the order of case["results"]): from the device
    (check), or from the emulated kernels (scripts/bundle-emulate.py)."""
    problems = []
    derived = {}
    for j, name in enumerate(case["results"]):
        got = results[j]
        if name in derived:  # from this run's product (quantized_results)
            want = derived[name]
        elif case.get("quantized") and j == 0:
            # The product an output quantizer reads: its expected bytes
            # follow from it; checked here against the float64
            # reference's max and mean |value| (the bundle's size is
            # limited; the same kernels' values are bounded in the GEMM
            # checks).
            values = got.view({"bf16": np.uint16, "f16": np.float16,
                               "f32": np.float32}[case["out"]])
            if case["out"] == "bf16":
                values = (values.astype(np.uint32) << 16).view(np.float32)
            values = values.astype(np.float32).reshape(case["product"]["shape"])
            inputs = [np.load(os.path.join(directory, f"in{i}.npy"))
                      for i in range(case["inputs"])]
            derived = quantized_results(case, values, inputs)
            magnitude = np.abs(values.astype(np.float64))
            for what, got_stat, want_stat in (
                    ("max", magnitude.max(), case["product"]["max_abs"]),
                    ("mean", magnitude.mean(), case["product"]["mean_abs"])):
                if not abs(got_stat - want_stat) <= 1e-2 * want_stat:
                    problems.append(f"{name}: {what} |product| {got_stat:.6g}, expected "
                                    f"{want_stat:.6g} (within 1%)")
            continue
        elif case.get("reference"):  # GEMM: within the bound of gemm_cases.py
            inputs = [np.load(os.path.join(directory, f"in{i}.npy"))
                      for i in range(case["inputs"])]
            want, tol, problem = gemm_reference(case, inputs)
            problems.extend([f"{name}: {problem}"] if problem else
                            bound_problems(name, got, want, tol, case["out"]))
            continue
        elif str(j) in case.get("references", {}):  # a GEMM result among others (Linear)
            entry = case["references"][str(j)]
            operands = [np.load(os.path.join(directory, f)) for f in entry["operands"]]
            want, tol, problem = gemm_reference(entry, operands)
            problems.extend([f"{name}: {problem}"] if problem else
                            bound_problems(name, got, want, tol, entry["reference"]["out"]))
            continue
        elif case.get("bound"):
            problems.append(f"{name}: a bounded GEMM result without its reference spec "
                            "(a bundle from before 2026-12-03: make it again)")
            continue
        else:
            want = np.load(os.path.join(directory, f"want{j}.npy"))
        want_bytes = np.ascontiguousarray(want).view(np.uint8).reshape(-1)
        if got.size != want_bytes.size:
            problems.append(f"{name}: {got.size} bytes, expected {want_bytes.size}")
            continue
        if case.get("nan_equal"):
            g = got.view(np.float32)
            w = want_bytes.view(np.float32)
            same = (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))
        else:
            same = got == want_bytes
        if not same.all():
            k = int(np.argmin(same))
            problems.append(f"{name}: {int((~same).sum())} of {same.size} differ, first at "
                            f"{k}: got {got[k] if not case.get('nan_equal') else g[k]!r}, "
                            f"expected {want_bytes[k] if not case.get('nan_equal') else w[k]!r}"
                            + "".join(f"\n  {name}: {line}" for line in runs_detail(
                                ~same, g if case.get("nan_equal") else got,
                                "values" if case.get("nan_equal") else "bytes")))
    return problems


def ranges(indices, most=8):
    """Sorted integers as "0-63, 128-191" (at most `most` ranges)."""
    if len(indices) == 0:
        return "none"
    breaks = np.flatnonzero(np.diff(indices) != 1)
    starts = np.concatenate(([indices[0]], indices[breaks + 1]))
    ends = np.concatenate((indices[breaks], [indices[-1]]))
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts[:most], ends[:most]))
    return text + (f", ... ({len(starts)} ranges)" if len(starts) > most else "")


def gemm_failure_detail(bad, values):
    """Where a GEMM result is wrong, for a diagnosis from one device run:
    the bad rows and columns, their residues modulo the tile's 64 rows
    (a consumer's half) and 128 columns (a store chunk, a 128-byte
    swizzle row of bf16), what the bad values are, and a map of 64x64
    blocks ('#' holds a bad element)."""
    m, n = bad.shape
    rows, cols = np.flatnonzero(bad.any(axis=1)), np.flatnonzero(bad.any(axis=0))
    got = values[bad].astype(np.float64)
    lines = [f"bad rows {ranges(rows)}; bad columns {ranges(cols)}",
             f"bad rows mod 64: {ranges(np.unique(rows % 64))}; "
             f"bad columns mod 128: {ranges(np.unique(cols % 128))}",
             f"bad values: {np.mean(got == 0):.0%} zero, {np.mean(np.isnan(got)):.0%} NaN, "
             f"{np.mean(np.isinf(got)):.0%} infinite"]
    bm, bn = -(-m // 64), -(-n // 64)
    if bm <= 32 and bn <= 64:
        blocks = np.zeros((bm * 64, bn * 64), bool)
        blocks[:m, :n] = bad
        blocks = blocks.reshape(bm, 64, bn, 64).any(axis=(1, 3))
        lines.append("64x64 blocks ('#': some bad):")
        lines += ["  " + "".join("#" if b else "." for b in row) for row in blocks]
    return lines


def runs_detail(bad, got, unit):
    """Where a byte-compared result differs: its runs of bad elements (the
    first 8), how many bad elements are zero, and the share of bad
    elements in each 32nd of the buffer."""
    indices = np.flatnonzero(bad)
    parts = np.array_split(bad, min(32, bad.size))
    shares = "".join("." if not p.any() else "#" if p.mean() > 0.9 else str(int(p.mean() * 10))
                     for p in parts)
    return [f"bad {unit} {ranges(indices)}",
            f"bad {unit}: {np.mean(got[indices] == 0):.0%} zero; by 32nds of the buffer "
            f"('.' none, 0-9 tenths, '#' over 90%): {shares}"]


_RANDOM_BF16 = {}


def random_bf16(n):
    """n random normal bf16 values (bits), made once per n: the 16384^2
    inputs take seconds of host time, and 18 plans share each size."""
    if n not in _RANDOM_BF16:
        x = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
        _RANDOM_BF16.clear()
        _RANDOM_BF16[n] = (x.view(np.uint32) >> 16).astype(np.uint16)
    return _RANDOM_BF16[n]


def bench(cuda, directory, iters, warmup, rotate_bytes=0):
    """The quantize plan's time on random bf16 input. With rotate_bytes,
    as many copies of the plan's buffers as make up that many bytes
    (input + results), used in turn: an input that fits in L2 (a 4096^2
    bf16 tensor is 32 MiB, an H100/H200 L2 50 MB) would otherwise be
    timed from the cache (METHOD.md: rotate among input sets)."""
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    with contextlib.ExitStack() as stack:
        plan = stack.enter_context(Plan(cuda, directory))
        buf = plan.argument(0)[0]
        moved = buf["bytes"] + sum(b["bytes"] for b in plan.plan["buffers"]
                                   if b["argument"] >= case["inputs"])
        plans = [plan] + [stack.enter_context(Plan(cuda, directory))
                          for _ in range(rotations(rotate_bytes, moved) - 1)]
        for plan in plans:
            cuda.to_device(plan.argument(0)[1], random_bf16(buf["bytes"] // 2))
            if case["inputs"] == 3:  # delayed: scale 1, amax state 0
                cuda.to_device(plan.argument(1)[1], np.array([1.0], np.float32))
                cuda.to_device(plan.argument(2)[1], np.array([0.0], np.float32))
        turn = itertools.cycle(plans)
        ms = cuda.time_ms(lambda: next(turn).run(kernels_only=True), iters, warmup)
        kernels = sum(1 for s in plan.plan["steps"] if "kernel" in s)
        return case, moved, ms, kernels


def rotations(rotate_bytes, set_bytes):
    """How many buffer sets of set_bytes make up rotate_bytes (1 to 16)."""
    return max(1, min(16, -(-rotate_bytes // max(set_bytes, 1))))


def gemm_bench(cuda, directory, iters, warmup):
    """TFLOP/s of a GEMM plan on random FP8 operands (unit scales: every
    input buffer of 4-byte elements after an operand's data)."""
    with open(os.path.join(directory, "case.json")) as f:
        case = json.load(f)
    with Plan(cuda, directory) as plan:
        rng = np.random.default_rng(1)
        family = case.get("family", "fp8_current")
        per_operand = 3 if family == "nvfp4" else 2  # data, scales (, amax)
        for i in range(case["inputs"]):
            buf, p = plan.argument(i)
            role = i % per_operand
            if i >= 2 * per_operand:  # an output quantizer's scale (1/64), amax state (0)
                value = 1.0 / 64 if i == 2 * per_operand else 0.0
                cuda.to_device(p, np.array([value], np.float32))
            elif role == 2:  # NVFP4 amax: global factor 2688 / 2688 = 1
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


def copy_gbs(cuda, nbytes, iters, warmup, rotate_bytes=0):
    """A device-to-device copy's GB/s (2 x nbytes / time), with as many
    source/destination pairs as make up rotate_bytes, used in turn (as
    bench's buffer sets)."""
    pointers = []
    try:
        for _ in range(rotations(rotate_bytes, 2 * nbytes)):
            pointers += [cuda.malloc(nbytes), cuda.malloc(nbytes)]
        turn = itertools.cycle(list(zip(pointers[0::2], pointers[1::2])))

        def copy():
            a, b = next(turn)
            cuda.copy(b, a, nbytes)
        ms = cuda.time_ms(copy, iters, warmup)
    except CudaError:
        free_all(cuda, pointers)
        raise
    error = free_all(cuda, pointers)
    if error:
        raise error
    return 2 * nbytes / (ms * 1e6)


# Kernel options in a GEMM check's name: persistent, multicast, a tile width
# other than the default, as its own option per width (-t256: per-tensor
# split-accumulator 128x256, -t192: 128x192, -t128: MXFP8 128x128;
# fast_accumulate's tile width is not named: its checks and plans match
# whatever their width), ping-pong, fast_accumulate, the TMA-store epilogue,
# split-K (skf: with the fused reduction), stream-K (skstream: strm).
SCHEDULE_TOKEN = re.compile(
    r"-(pers|mc)[0-9]+|-(sk)[0-9]+(f?)\b|-(t[0-9]+)|-(pp|fast|tma|promote|dequantize)\b"
    r"|-sk(stream)\b")
# One kernel per group: per-tensor FP8 delayed or current, NVFP4 with a
# global or row-scaled amax.
KERNEL_FAMILY = {"fp8_delayed": "fp8_current", "nvfp4_row_scaled": "nvfp4"}


def check_schedule(name):
    """(kernel family, kernel options) of a GEMM check's name
    (gemm30-fp8_current-fprop_TN-384x384x400-bf16-fast-pers5: fp8_current,
    {"fast", "pers"}); None for a quantize check."""
    m = re.match(r"gemm[0-9]+-([a-z0-9_]+)-", name)
    if not m:
        return None
    tail = "-" + name.split("-", 5)[-1]
    return (KERNEL_FAMILY.get(m.group(1), m.group(1)),
            {a or (sk + f) or t or b or ("strm" if st else "")
             for a, sk, f, t, b, st in SCHEDULE_TOKEN.findall(tail)})


def plan_schedule(case):
    """(kernel family, kernel options) of a GEMM bench plan's case.json."""
    options = {k for k, key in (("pers", "persistent"), ("mc", "cluster"),
                                ("fast", "fast_accumulate"), ("sk", "split_k"))
               if case.get(key)}
    if case.get("tile_n") and not case.get("fast_accumulate"):
        options.add(f"t{case['tile_n']}")
    if case.get("schedule") == "pingpong":
        options.add("pp")
    if case.get("epilogue") in ("tma", "direct"):
        options.add(case["epilogue"])
    if case.get("scale_loads") == "in_tile":
        options.add("intile")
    if case.get("promotion") == "in_tile":
        options.add("serial")
    if case.get("mx_scaling") in ("promote", "dequantize"):
        options.add(case["mx_scaling"])
    if case.get("split_k_reduce") == "fused":
        options.discard("sk")
        options.add("skf")
    if case.get("split_k") == "stream":
        options.discard("sk")
        options.add("strm")
    family = case.get("family", "fp8_current")
    return KERNEL_FAMILY.get(family, family), options


def work_list(bundle, only, no_bench):
    """[(kind, name)] in the order they run: the checks, the quantize bench
    plans, then the GEMM plans with the defaults first (the comparison with
    cuBLASLt), then one option, then combinations: a schedule that hangs
    costs the least there."""
    pattern = re.compile(only) if only else None

    def listing(sub):
        d = os.path.join(bundle, sub)
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        return [n for n in names if not pattern or pattern.search(n)]
    work = [("check", n) for n in listing("check")]
    if no_bench:
        return work
    plans = listing("bench")
    work += [("quantize", n) for n in plans if not n.startswith("gemm-")]
    cases = {}
    for n in plans:
        if n.startswith("gemm-"):
            with open(os.path.join(bundle, "bench", n, "case.json")) as f:
                cases[n] = json.load(f)
    options = ("tile_n", "persistent", "cluster", "schedule", "epilogue", "split_k",
               "scale_loads", "promotion", "mx_scaling")
    work += [("gemm", n) for n in sorted(cases, key=lambda n: (
        sum(bool(cases[n].get(k)) for k in options), n))]
    return work


class Report:
    """Prints the results as they come (from this process or from worker
    processes): FAIL / LOST / SKIP lines, the checks' count, the quantize
    table (sorted, once its plans are done), the GEMM table (row by row) and
    its schedule summary."""
    PHASES = ("check", "quantize", "gemm")

    def __init__(self, work, progress=None):
        self.kind = dict((name, kind) for kind, name in work)
        self.checks = sum(1 for kind, _ in work if kind == "check")
        self.progress = progress
        self.phase = -1
        self.failures = 0
        self.passed = 0
        self.lost = []
        self.rows = []
        self.schedules = {}  # (shape, scaling) -> [(schedule, TFLOP/s)], the default first
        self.device_name = None

    def device(self, name):
        if self.device_name is None:
            print(f"device: {name}")
        self.device_name = name

    def start(self, name):
        if self.progress:
            with open(self.progress, "a") as f:
                f.write(name + "\n")
        self._enter(self.PHASES.index(self.kind[name]))

    def _enter(self, phase):
        while self.phase < phase:
            if self.phase >= 0:
                self._close(self.PHASES[self.phase])
            self.phase += 1

    def _close(self, phase):
        if phase == "check":
            print(f"checks: {self.passed} of {self.checks} as the numpy reference says "
                  f"(quantize/dequantize bit-exact, GEMM within its bound)")
        # uu: an update_usage creating the column-wise representation; dq:
        # a dequantize of the row-wise representation to bf16; bg: the bias
        # gradient (qs.bias_grad) of a bf16 tensor.
        # ew: an element-wise kernel (qs-elementwise-to-gpu), bf16 in and out.
        order = {"row": 0, "col": 1, "both": 2, "uu": 3, "dq": 4, "bg": 5, "ew": 6}
        if phase == "quantize" and self.rows:
            print(f"{'family':<18} {'usage':<5} {'size':>6} {'kernels':>7} {'MiB':>6} "
                  f"{'time us':>9} {'GB/s':>7} {'copy GB/s':>9} {'ratio':>7}")
            for r in sorted(self.rows, key=lambda r: (r[2], r[0], order[r[1]])):
                print(f"{r[0]:<18} {r[1]:<5} {r[2]:>6} {r[3]:>7} {r[4]:>6.0f} {r[5]:>9.1f} "
                      f"{r[6]:>7.0f} {r[7]:>9.0f} {r[8]:>6.1f}%")
            self._stores_summary()
        if phase == "gemm":
            self._schedule_summary()

    def _stores_summary(self):
        # The -direct plans (qs.quantize_stores = "direct") against the same
        # family, usage and size with the default coalesced stores: which
        # the default should be (QuantizePhases.cpp's splitsRowBlocks /
        # QuantizeColumnPhases.cpp's stagesColumnCodes).
        times = {(r[0], r[1], r[2]): r[5] for r in self.rows}
        pairs = [(key, times[(key[0][:-len("-direct")],) + key[1:]], t)
                 for key, t in sorted(times.items())
                 if key[0].endswith("-direct") and (key[0][:-len("-direct")],) + key[1:] in times]
        if not pairs:
            return
        print("quantize stores: coalesced (the default) against direct, time us")
        for (family, usage, size), coalesced, direct in pairs:
            family = family[:-len("-direct")]
            gain = f"{100 * (direct / coalesced - 1):+.1f}%" if coalesced > 0 else "n/a"
            print(f"{family:<18} {usage:<5} {size:>6} coalesced {coalesced:>9.1f} direct "
                  f"{direct:>9.1f} (direct {gain})")

    def _schedule_summary(self):
        # Which schedule (qs.gemm_tile_n / _persistent / _cluster /
        # _schedule) wins where there is a choice: what the defaults should
        # become (docs/GPU.md).
        choices = {k: v for k, v in self.schedules.items()
                   if len(v) > 1 and v[0][0] == "default"}
        if choices:
            print("GEMM schedules: the fastest per shape and scaling, against the default")
        for (shape, scaling), entries in choices.items():
            base = entries[0][1]
            best = max(entries, key=lambda e: e[1])  # ties: the first, the default
            gain = f"{100 * (best[1] / base - 1):+.1f}%" if base > 0 else "n/a"
            print(f"{shape:<28} {scaling:<30} {best[0]:<14} {best[1]:>8.1f} TFLOP/s "
                  f"(default {base:.1f}, {gain}; tried: {', '.join(e[0] for e in entries)})")

    def check(self, name, problems):
        if problems:
            self.failures += 1
            # Each problem's first line on the FAIL line, its detail after.
            print(f"FAIL {name}: " + "; ".join(p.split("\n")[0] for p in problems))
            for p in problems:
                for line in p.split("\n")[1:]:
                    print(line)
        else:
            self.passed += 1

    def failed(self, name, error):
        self.failures += 1
        print(f"FAIL {'bench ' if self.kind[name] != 'check' else ''}{name}: {error}")

    def lost_case(self, name, why):
        self.failures += 1
        self.lost.append(name)
        print(f"LOST {name}: {why}")

    def skipped(self, name, why):
        print(f"SKIP {name}: {why}")

    def quantize(self, name, case, moved, ms, kernels, copy):
        gbs = moved / (ms * 1e6)
        self.rows.append((case["family"], case["usage"], case["n"], kernels, moved / 2**20,
                          ms * 1000, gbs, copy, 100 * gbs / copy))

    def gemm(self, name, case, ms, tflops):
        scaling = {"fp8_block": "1x128*128^2", "mxfp8": "mxfp8",
                   "nvfp4": "nvfp4"}.get(case.get("family"), "per-tensor")
        if case.get("fast_accumulate"):
            scaling += " fast"
        if case.get("layout", "TN") != "TN":
            scaling += " " + case["layout"]
        if case.get("current_output"):  # E4M3 out, current scaling: amax by the GEMM
            scaling += " cur-out"
        elif case.get("output_quantizer"):  # E4M3 out: in the GEMM unless sep
            scaling += " fp8-out"
        schedule = " ".join(([f"p{case['persistent']}"] if case.get("persistent") else [])
                            + ([f"mc{case['cluster']}"] if case.get("cluster") else [])
                            + (["pp"] if case.get("schedule") == "pingpong" else [])
                            + ([case["epilogue"]] if case.get("epilogue") in ("tma", "direct")
                               else [])
                            + (["sep"] if case.get("separate_quantize") else [])
                            + (["kept"] if case.get("kept_product") else [])
                            + (["in_tile"] if case.get("scale_loads") == "in_tile" else [])
                            + (["serial"] if case.get("promotion") == "in_tile" else [])
                            + ([case["mx_scaling"]] if case.get("mx_scaling")
                               in ("promote", "dequantize") else [])
                            + (["stream"] if case.get("split_k") == "stream" else
                               [f"sk{case['split_k']}"
                                + ("f" if case.get("split_k_reduce") == "fused" else "")]
                               if case.get("split_k") else [])
                            + ([f"tile{case['tile_n']}"] if case.get("tile_n") else []))
        shape = "x".join(map(str, case["gemm"]))
        if not self.schedules:
            print(f"{'GEMM (FP8 E4M3, bf16 out)':<28} {'scaling':<30} {'tile N':>6} "
                  f"{'time us':>9} {'TFLOP/s':>8}")
        entries = self.schedules.setdefault((shape, scaling), [])
        entries.insert(0 if not schedule else len(entries), (schedule or "default", tflops))
        label = scaling + "".join(f" {s}" for s in schedule.split() if not s.startswith("tile"))
        print(f"{shape:<28} {label:<30} {case['tile_n'] or 'auto':>6} "
              f"{ms * 1000:>9.1f} {tflops:>8.1f}")

    def finish(self):
        self._enter(len(self.PHASES))
        if self.lost:
            print(f"device-run: {len(self.lost)} case(s) did not finish: {', '.join(self.lost)}")
        return 1 if self.failures else 0


def run_work(cuda, bundle, work, args, emit):
    """Runs `work` in order, emit(method, *arguments) for the Report. Returns
    the name of the case after which the CUDA context is lost (a sticky
    error: nothing more can run in this process), else None."""
    copies = {}
    for kind, name in work:
        emit("start", name)
        directory = os.path.join(bundle, "check" if kind == "check" else "bench", name)
        try:
            if kind == "check":
                emit("check", name, check(cuda, directory))
            elif kind == "gemm":
                emit("gemm", name, *gemm_bench(cuda, directory, args.iters, args.warmup))
            else:
                rotate = int(args.rotate_mib * 2**20)
                case, moved, ms, kernels = bench(cuda, directory, args.iters, args.warmup, rotate)
                n = case["n"]
                if n not in copies:
                    copies[n] = copy_gbs(cuda, n * n * 2, args.iters, args.warmup, rotate)
                emit("quantize", name, case, moved, ms, kernels, copies[n])
        except CudaError as error:
            emit("failed", name, str(error))
            if error.code in STICKY_ERRORS:
                return name
        except RuntimeError as error:
            emit("failed", name, str(error))
    return None


WORKER_RECORD = "@device-run "
CONTEXT_LOST = 3  # a worker's exit code after a sticky CUDA error
NO_DEVICE = 2  # ... when it finds no usable device (it says why)


def worker(args):
    """--worker: runs the [kind, name] list in args.worker, one JSON record
    per line on stdout for the supervising process."""
    with open(args.worker) as f:
        work = [tuple(w) for w in json.load(f)]

    def emit(*record):
        sys.stdout.write(WORKER_RECORD + json.dumps(record) + "\n")
        sys.stdout.flush()
    try:
        cuda = Cuda()
    except (OSError, RuntimeError) as error:
        print(f"device-run: no usable CUDA device ({error})", flush=True)
        return NO_DEVICE
    emit("device", cuda.name)
    return CONTEXT_LOST if run_work(cuda, args.bundle, work, args, emit) else 0


def kill_with_parent():
    """The worker dies with the supervisor (a hung kernel must not keep the
    GPU busy after the supervisor was stopped): PR_SET_PDEATHSIG."""
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def supervise(args, work, report):
    """Runs `work` in worker processes: one that has not finished a check in
    --case-timeout seconds (a bench plan: three times that) is killed, the
    case reported LOST, and a new worker goes on after it, skipping the GEMM
    bench plans with the family and the kernel options of a lost GEMM check
    (they would hang too). A sticky CUDA error ends a worker the same way
    (its failure already reported), as does any other exit past its first
    case. Stops after --max-lost.
    False if the first worker found no usable device."""
    timeouts = {"check": args.case_timeout, "quantize": 3 * args.case_timeout,
                "gemm": 3 * args.case_timeout}
    families = {}  # GEMM bench plan -> (family, options)
    for kind, name in work:
        if kind == "gemm":
            with open(os.path.join(args.bundle, "bench", name, "case.json")) as f:
                families[name] = plan_schedule(json.load(f))
    hung_schedules = []
    remaining = list(work)
    worker = {"proc": None}

    def stop(signum, frame):
        if worker["proc"]:
            worker["proc"].kill()
        print(f"device-run: stopped by signal {signum}")
        report.finish()
        sys.stdout.flush()
        os._exit(124)
    signal.signal(signal.SIGTERM, stop)
    with tempfile.TemporaryDirectory() as tmp:
        list_path = os.path.join(tmp, "work.json")
        while remaining:
            with open(list_path, "w") as f:
                json.dump(remaining, f)
            command = [sys.executable, os.path.abspath(__file__), args.bundle, "--worker",
                       list_path, "--iters", str(args.iters), "--warmup", str(args.warmup),
                       "--rotate-mib", str(args.rotate_mib)]
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, preexec_fn=kill_with_parent)
            worker["proc"] = proc
            current, last, pending = None, None, b""
            deadline = time.monotonic() + timeouts["gemm"]  # starting up
            hung = False
            while True:
                ready, _, _ = select.select([proc.stdout], [], [],
                                            max(0.0, deadline - time.monotonic()))
                if not ready:
                    hung = True
                    proc.kill()
                    break
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    text = line.decode(errors="replace")
                    if not text.startswith(WORKER_RECORD):
                        print(text)
                        continue
                    method, *arguments = json.loads(text[len(WORKER_RECORD):])
                    getattr(report, method)(*arguments)
                    if method == "start":
                        current = last = arguments[0]
                        deadline = time.monotonic() + timeouts[report.kind[current]]
                    elif method != "device":
                        current = None
                        deadline = time.monotonic() + timeouts["gemm"]
            code = proc.wait()
            worker["proc"] = None
            sys.stdout.flush()
            if current is not None:
                seconds = timeouts[report.kind[current]]
                report.lost_case(current, f"no result after {seconds} s: killed (a hang?)"
                                 if hung else f"its worker process exited with code {code}")
                schedule = check_schedule(current)
                if schedule and schedule[1]:
                    hung_schedules.append((current, schedule))
            elif last is None:  # the worker did not get to any case
                if code == NO_DEVICE:
                    return False
                print(f"device-run: the worker process "
                      + (f"did not start in {timeouts['gemm']} s" if hung else
                         f"exited with code {code} before its first case")
                      + ": nothing more runs")
                report.failures += 1
                return True
            elif hung or code not in (0, CONTEXT_LOST):
                print(f"device-run: the worker process "
                      + ("stopped answering" if hung else f"exited with code {code}")
                      + f" after {last}: a new one goes on after it")
                report.failures += 1
            done = [n for _, n in remaining].index(last) + 1
            remaining = remaining[done:]
            if len(report.lost) >= args.max_lost and remaining:
                print(f"device-run: {len(report.lost)} cases did not finish; the remaining "
                      f"{len(remaining)} are not run")
                return True
            kept = []
            for kind, name in remaining:
                same = [c for c, (family, options) in hung_schedules
                        if kind == "gemm" and families[name][0] == family
                        and options <= families[name][1]]
                if same:
                    report.skipped(name, f"the GEMM check {same[0]} with its family and kernel "
                                   f"options did not finish")
                else:
                    kept.append((kind, name))
            remaining = kept
    return True


def main():
    # One write(2) per line: device-check.sh runs this unbuffered
    # (PYTHONUNBUFFERED=1, so that progress shows), where print() writes its
    # arguments, separators and newline separately, and a worker's driver
    # output on the shared stderr (the stand-in libcuda's "fake-cuda: load
    # ptx") could land inside a table row, which gemm-compare.py then did
    # not parse (seen in CI, 2026-12-04). Line buffering keeps each line whole.
    sys.stdout.reconfigure(line_buffering=True, write_through=False)
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rotate-mib", type=float, default=150,
                        help="quantize plans and copies cycle through as many buffer sets as "
                             "make up this many MiB, so that no input is timed from L2 "
                             "(default: %(default)s, 3x an H100/H200's 50 MB L2; 0: one set)")
    parser.add_argument("--only", help="regular expression of the case and plan names to run")
    parser.add_argument("--no-bench", action="store_true", help="checks only")
    parser.add_argument("--progress", help="file to append each case's name to before it runs")
    parser.add_argument("--case-timeout", type=float, default=20,
                        help="seconds a check may take (bench plans: 3x) before its worker "
                             "process is killed; 0: everything in this process, no watchdog")
    parser.add_argument("--max-lost", type=int, default=6,
                        help="stop after this many cases did not finish")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    work = work_list(args.bundle, args.only, args.no_bench)
    if not work:
        print(f"device-run: no check or bench plan in {args.bundle}"
              + (f" matches --only {args.only!r}" if args.only else
                 " (a bundle is made by scripts/device_bundle.py)"))
        return 1
    report = Report(work, args.progress)
    if args.case_timeout > 0:
        return report.finish() if supervise(args, work, report) else 1
    try:
        cuda = Cuda()
    except (OSError, RuntimeError) as error:
        print(f"device-run: no usable CUDA device ({error})")
        return 1
    report.device(cuda.name)
    lost_after = run_work(cuda, args.bundle, work, args,
                          lambda method, *a: getattr(report, method)(*a))
    if lost_after:
        left = len(work) - [n for _, n in work].index(lost_after) - 1
        print(f"device-run: the CUDA context is lost after {lost_after}: the remaining {left} "
              f"are not run (with --case-timeout, a new process goes on after it)")
        report.failures += 1
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
