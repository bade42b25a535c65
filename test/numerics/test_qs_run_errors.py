"""qs-run on bad input: wrong counts, dtypes, shapes, malformed or truncated
.npy files, missing files, unknown functions, options the reference cannot
lower. Every case exits non-zero with a message naming the argument, and
never crashes. Also the .npy element types it reads as raw bits: the
unsigned integers of the width, and ml_dtypes' void-typed arrays."""

import os
import subprocess

import numpy as np
import pytest

import harness as h

MODULE = """func.func @f(%x: tensor<4x32xbf16>) -> !qs.tensor<4x32xbf16, #qs.fp8_current<columnwise = false>> {
  %q = qs.quantize %x : tensor<4x32xbf16> -> !qs.tensor<4x32xbf16, #qs.fp8_current<columnwise = false>>
  return %q : !qs.tensor<4x32xbf16, #qs.fp8_current<columnwise = false>>
}
func.func private @external(tensor<4xf32>)
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
"""


def qs_run(tmp_path, *args, module=MODULE):
    path = tmp_path / "m.mlir"
    path.write_text(module)
    proc = subprocess.run([h.QS_RUN, str(path), *args], capture_output=True, text=True)
    assert proc.returncode != 0 or "--print-signature" in args, proc.stderr
    assert "Stack dump" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    return proc


def good_input(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((4, 32), np.uint16))
    return f"--input=@{p}"


def outputs(tmp_path, n=2):
    return [f"--output=@{tmp_path / f'o{i}.npy'}" for i in range(n)]


def test_print_signature(tmp_path):
    proc = qs_run(tmp_path, "--function=f", "--print-signature")
    assert "input 0: arg 0 : tensor<4x32xbf16> (.npy <u2 (4, 32))" in proc.stdout
    assert "output 1: result 0 'scale_inv' of" in proc.stdout


def test_wrong_counts(tmp_path):
    proc = qs_run(tmp_path, "--function=f", good_input(tmp_path), *outputs(tmp_path, 1))
    assert "takes 1 --input and 2 --output files, got 1 and 1" in proc.stderr
    assert "output 0: result 0 'data' of" in proc.stderr


def test_wrong_dtype(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((4, 32), np.float32))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "--input 0 (arg 0): expected a <u2 array for elements of type bf16, got <f4" in proc.stderr


def test_wrong_shape(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((32, 4), np.uint16))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "--input 0 (arg 0): expected shape (4, 32), got (32, 4)" in proc.stderr


def test_missing_at(tmp_path):
    proc = qs_run(tmp_path, "--function=f", "--input=x.npy", *outputs(tmp_path))
    assert "--input 0 (arg 0): expected @FILE.npy, got 'x.npy'" in proc.stderr


def test_missing_file(tmp_path):
    proc = qs_run(tmp_path, "--function=f", f"--input=@{tmp_path / 'nope.npy'}",
                  *outputs(tmp_path))
    assert "--input 0 (arg 0): cannot open" in proc.stderr


@pytest.mark.parametrize("content", [b"", b"not a numpy file at all", b"\x93NUMPY\x01\x00\x10\x00{'descr': 'x'}  \n",
                                     b"\x93NUMPY\x09\x00\x00\x00"])
def test_malformed_npy(tmp_path, content):
    p = tmp_path / "x.npy"
    p.write_bytes(content)
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "--input 0 (arg 0):" in proc.stderr


DEQUANTIZE = """func.func @dq(%q: !qs.tensor<32x32xbf16, #qs.mxfp8<columnwise = false>>) -> tensor<32x32xf32> {
  %x = qs.dequantize %q : !qs.tensor<32x32xbf16, #qs.mxfp8<columnwise = false>> -> tensor<32x32xf32>
  return %x : tensor<32x32xf32>
}
"""


def test_ml_dtypes_arrays(tmp_path):
    # ml_dtypes' bfloat16 and FP8 / E8M0 arrays are saved with the void
    # type strings '<V2' and '|V1'; qs-run reads them as the raw bits of
    # uint16 / uint8, the same results as the unsigned-integer files.
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 32)).astype(ml_dtypes.bfloat16)
    results = []
    for name, array in (("bits", x.view(np.uint16)), ("ml", x)):
        p = tmp_path / f"x_{name}.npy"
        np.save(p, array)
        outs = [tmp_path / f"{name}_{i}.npy" for i in range(2)]
        proc = subprocess.run([h.QS_RUN, *_module(tmp_path), "--function=f", f"--input=@{p}",
                               *[f"--output=@{o}" for o in outs]], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        results.append([np.load(o) for o in outs])
    assert np.array_equal(results[0][0], results[1][0])
    assert np.array_equal(results[0][1], results[1][1])
    codes = rng.integers(0, 256, (32, 32), dtype=np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0  # no NaN codes
    scales = np.full((128, 4), 127, np.uint8)  # compact, padded to 128 x 4
    scales[:32, 0] = rng.integers(110, 145, 32)
    got = []
    for name, data, scale in (("bits", codes, scales),
                              ("ml", codes.view(ml_dtypes.float8_e4m3fn),
                               scales.view(ml_dtypes.float8_e8m0fnu))):
        pd, ps, po = (tmp_path / f"dq_{name}_{k}.npy" for k in ("d", "s", "o"))
        np.save(pd, data)
        np.save(ps, scale)
        proc = subprocess.run([h.QS_RUN, *_module(tmp_path, DEQUANTIZE, "dq.mlir"), "--function=dq",
                               f"--input=@{pd}", f"--input=@{ps}", f"--output=@{po}"],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        got.append(np.load(po))
    assert np.array_equal(got[0], got[1])
    want = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32) * np.exp2(
        scales[:32, :1].astype(np.float32) - 127)
    assert np.array_equal(got[0], want)


def test_other_void_types(tmp_path):
    # Void types of other widths are not raw bits of any argument type.
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((4, 32), np.dtype("V4")))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "--input 0 (arg 0):" in proc.stderr and "not a valid .npy file" in proc.stderr


def _module(tmp_path, text=MODULE, name="m.mlir"):
    path = tmp_path / name
    path.write_text(text)
    return [str(path)]


def test_truncated_npy(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((4, 32), np.uint16))
    p.write_bytes(p.read_bytes()[:-10])
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "is truncated" in proc.stderr


def test_fortran_order(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, np.asfortranarray(np.zeros((4, 32), np.uint16)))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path))
    assert "Fortran-ordered" in proc.stderr


def test_unknown_function(tmp_path):
    proc = qs_run(tmp_path, "--function=g", good_input(tmp_path))
    assert "no function @g with a body" in proc.stderr
    proc = qs_run(tmp_path, "--function=external")
    assert "no function @external with a body" in proc.stderr


def test_dynamic_shape(tmp_path):
    proc = qs_run(tmp_path, "--function=dynamic")
    assert "qs-run cannot pass argument 0 of type 'tensor<?xf32>': the shape must be static" in proc.stderr


def test_unwritable_output(tmp_path):
    proc = qs_run(tmp_path, "--function=f", good_input(tmp_path),
                  f"--output=@{tmp_path}/no/such/dir/o.npy", *outputs(tmp_path, 1))
    assert "--output 0 (result 0 'data' of" in proc.stderr and "cannot write" in proc.stderr


def test_one_file_for_two_outputs(tmp_path):
    # The second result would silently replace the first.
    same = tmp_path / "o.npy"
    proc = qs_run(tmp_path, "--function=f", good_input(tmp_path), f"--output=@{same}",
                  f"--output=@{tmp_path}/./o.npy")
    assert (f"--output 1 and --output 0 name the same file '{tmp_path}/./o.npy': each result "
            "needs its own") in proc.stderr, proc.stderr
    assert not same.exists()
    # A character device such as /dev/null takes any number of results.
    ok = subprocess.run([h.QS_RUN, str(tmp_path / "m.mlir"), "--function=f", good_input(tmp_path),
                         "--output=@/dev/null", "--output=@/dev/null"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr


SR_TYPE = "!qs.tensor<16x32xbf16, #qs.nvfp4<stochastic_rounding = true, columnwise = false>>"


def test_stochastic_rounding_needs_an_rng_state(tmp_path):
    # Without rng(...) the module is rejected with the rule and a location.
    module = f"""func.func @f(%x: tensor<16x32xbf16>) -> {SR_TYPE} {{
  %q = qs.quantize %x : tensor<16x32xbf16> -> {SR_TYPE}
  return %q : {SR_TYPE}
}}"""
    p = tmp_path / "x.npy"
    np.save(p, np.zeros((16, 32), np.uint16))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", *outputs(tmp_path, 3), module=module)
    assert "m.mlir:2:8: error: 'qs.quantize' op with stochastic rounding" in proc.stderr
    assert "needs an rng(...) operand: a tensor<2xi64> holding (seed, offset)" in proc.stderr
    # The rng state is an int64 .npy of shape (2,).
    module = f"""func.func @f(%x: tensor<16x32xbf16>, %r: tensor<2xi64>) -> {SR_TYPE} {{
  %q = qs.quantize %x rng(%r : tensor<2xi64>) : tensor<16x32xbf16> -> {SR_TYPE}
  return %q : {SR_TYPE}
}}"""
    r = tmp_path / "r.npy"
    np.save(r, np.array([1, 2], np.int32))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", f"--input=@{r}",
                  *outputs(tmp_path, 3), module=module)
    assert "--input 1 (arg 1): expected a <i8 array for elements of type i64, got <i4" in proc.stderr
    np.save(r, np.array([1, 2, 3], np.int64))
    proc = qs_run(tmp_path, "--function=f", f"--input=@{p}", f"--input=@{r}",
                  *outputs(tmp_path, 3), module=module)
    assert "--input 1 (arg 1): expected shape (2,), got (3,)" in proc.stderr


def test_bad_device(tmp_path):
    proc = qs_run(tmp_path, "--function=f", "--device=tpu")
    assert "--device=tpu is not one of: cpu, cuda" in proc.stderr


def test_cuda_without_a_device(tmp_path):
    # On a machine without a CUDA driver or device, --device=cuda says so.
    info = subprocess.run([h.QS_RUN, "--cuda-info"], capture_output=True, text=True)
    if info.returncode == 0:
        pytest.skip(f"a CUDA device is present ({info.stdout.strip()})")
    assert "no CUDA device" in info.stderr or "compute capability" in info.stderr
    x = np.zeros((4, 32), np.uint16)
    with pytest.raises(h.QSRunError, match="qs-run: (no CUDA device|.*compute capability)"):
        h.run(MODULE, "f", [x], 2, extra_args=("--device=cuda",))


def test_kernels_option(tmp_path):
    proc = qs_run(tmp_path, "--function=f", "--kernels=fast")
    assert "--kernels=fast is not one of: reference, gpu-emulated" in proc.stderr


def test_parse_error(tmp_path):
    proc = qs_run(tmp_path, "--function=f", module="func.func @f(")
    assert "error:" in proc.stderr


def test_multiprocessors_option(tmp_path):
    # --multiprocessors plans the kernels of --export-cuda-plan or
    # --kernels=gpu-emulated for a GPU of that many multiprocessors; the
    # reference lowering has no kernels and --device=cuda uses the device's.
    proc = qs_run(tmp_path, "--function=f", "--multiprocessors=4", good_input(tmp_path),
                  *outputs(tmp_path))
    assert ("--multiprocessors applies to --export-cuda-plan and --kernels=gpu-emulated "
            "only (--device=cuda plans for the device's multiprocessors)") in proc.stderr
    assert proc.returncode != 0


def test_chip_option(tmp_path):
    # --chip picks the kernels of --export-cuda-plan or --kernels=gpu-emulated;
    # the reference lowering has none.
    proc = qs_run(tmp_path, "--function=f", "--chip=sm_90a", good_input(tmp_path),
                  *outputs(tmp_path))
    assert "--chip applies to --export-cuda-plan and --kernels=gpu-emulated only" in proc.stderr
    # The kernels exist for sm_90a and sm_100a.
    for mode in ("--kernels=gpu-emulated", f"--export-cuda-plan={tmp_path / 'plan'}"):
        proc = qs_run(tmp_path, "--function=f", "--chip=sm_80", mode, good_input(tmp_path),
                      *outputs(tmp_path))
        assert "--chip=sm_80 is not one of: sm_90a, sm_100a" in proc.stderr, proc.stderr
