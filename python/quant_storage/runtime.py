"""Run pipelines, execute functions on the CPU, compile for GPUs."""

import re
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from ._context import check_chip
from ._dtypes import storage_dtype, view_dtype
from .graph import Graph, Module

#: The named pipelines of quant-storage.
PIPELINES = ("qs-storage-pipeline", "qs-cpu-pipeline", "qs-nvptx-pipeline")


def _module(m):
    if isinstance(m, Graph):
        return m.module
    if isinstance(m, Module):
        return m
    hint = " (parse MLIR text with qs.Module.parse)" if isinstance(m, str) else ""
    raise TypeError(f"expected a qs.Graph or qs.Module, got {type(m).__name__}{hint}")


def _name(value, what):
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {value!r}")
    return value


def run_pipeline(module, pipeline):
    """Runs `pipeline` on a Module (or a Graph's module) in place."""
    return _module(module).run_pipeline(_name(pipeline, "the pipeline"))


def _accepted_dtypes(element):
    """The dtypes an argument of `element` may come as: what run_cpu returns
    for it and what TE allocates (uint8 for FP8, E8M0 and packed FP4), bf16
    also as its bits in uint16, i8 also as int8. Nothing else of the same
    width: a float16 array for a bf16 argument would be read as bf16 bits."""
    accepted = [view_dtype(element), storage_dtype(element)]
    accepted += {"bf16": [np.dtype(np.uint16)], "i8": [np.dtype(np.int8)]}.get(element, [])
    return list(dict.fromkeys(accepted))


def _to_bytes(array, flat):
    array = np.asarray(array)
    accepted = _accepted_dtypes(flat["element"])
    if array.dtype not in accepted:
        raise TypeError(f"{_describe(flat)}: expected {' or '.join(map(str, accepted))} "
                        f"elements ({flat['element']}), got {array.dtype}")
    if tuple(array.shape) != tuple(flat["shape"]):
        raise ValueError(f"{_describe(flat)}: expected shape {tuple(flat['shape'])}, "
                         f"got {array.shape}")
    return np.ascontiguousarray(array).tobytes()


def _describe(flat):
    if flat["quantized"]:
        return f"argument {flat['origin']} ({flat['inner']} of {flat['quantized']})"
    return f"argument {flat['origin']}"


def _inner_arguments(arg, names, flat):
    """{inner name: array} of a quantized argument given as a mapping by
    name or as a sequence in interface order (`names`). A name the value
    does not have, a sequence of another length, or one array (not its
    inner tensors) is an error, not ignored."""
    what = f"argument {flat['origin']} ({flat['quantized']})"
    if isinstance(arg, Mapping):
        unknown = [k for k in arg if k not in names]
        if unknown:
            raise KeyError(f"{what} has no inner tensor {', '.join(map(repr, unknown))}; "
                           f"its inner tensors are {', '.join(names)}")
        return dict(arg)
    if isinstance(arg, (np.ndarray, str, bytes)) or not hasattr(arg, "__iter__"):
        raise TypeError(f"{what}: expected its inner tensors ({', '.join(names)}) as a dict "
                        f"by name or a sequence in that order, got {type(arg).__name__}")
    arg = list(arg)
    if len(arg) != len(names):
        raise ValueError(f"{what}: expected {len(names)} inner tensors "
                         f"({', '.join(names)}), got {len(arg)}")
    return dict(zip(names, arg))


def _run(module, function, args, device):
    m = _module(module)._impl
    _name(function, "the function (its name)")
    flat_in = m.flat_inputs(function)
    flat_out = m.flat_results(function)
    origins = sorted({f["origin"] for f in flat_in})
    if len(args) != len(origins):
        raise TypeError(f"@{function} takes {len(origins)} arguments, got {len(args)}")
    inner = {}  # origin -> (its first flat input, its inner names)
    for flat in flat_in:
        if flat["quantized"]:
            inner.setdefault(flat["origin"], (flat, []))[1].append(flat["inner"])
    quantized = {origin: _inner_arguments(args[origin], names, first)
                 for origin, (first, names) in inner.items()}
    buffers = []
    for flat in flat_in:
        arg = args[flat["origin"]]
        if flat["quantized"]:
            arg = quantized[flat["origin"]].get(flat["inner"])
            if arg is None:
                raise KeyError(f"{_describe(flat)} is missing")
        buffers.append(_to_bytes(arg, flat))
    outputs = m.run_cpu(function, buffers) if device == "cpu" else \
        m.run_cuda(function, buffers)
    results = []
    for flat, data in zip(flat_out, outputs):
        array = np.frombuffer(data, dtype=view_dtype(flat["element"])).reshape(flat["shape"]).copy()
        if not flat["quantized"]:
            results.append(array)
            continue
        if not results or not isinstance(results[-1], OrderedDict) or \
                getattr(results[-1], "_origin", None) != flat["origin"]:
            group = OrderedDict()
            group._origin = flat["origin"]
            results.append(group)
        results[-1][flat["inner"]] = array
    return results


def run_cpu(module, function, *args):
    """Runs `function` of a Module/Graph on the CPU through qs-cpu-pipeline
    (the bit-exact reference numerics; the module is not modified).

    Arguments follow the function's signature: a NumPy array per plain
    tensor (bf16 as ml_dtypes.bfloat16 or uint16), and per quantized value a
    dict {inner name: array} or a sequence in interface order. Results: an
    array per plain tensor, an OrderedDict {inner name: array} per quantized
    value (ml_dtypes views for bf16, FP8 and E8M0; uint8 for packed FP4)."""
    return _run(module, function, args, "cpu")


def cuda_device():
    """(True, "NAME (sm_XXa)") for the CUDA device run_cuda uses, or
    (False, why there is none)."""
    from . import _qs
    return _qs.cuda_device()


def run_cuda(module, function, *args):
    """Same as run_cpu, on CUDA device 0: qs-nvptx-pipeline for the device's
    chip (sm_90a or sm_100a), the generated kernels, inputs copied to the
    device and results back. Raises QSError saying why if there is no usable
    device (the CUDA driver is loaded at run time)."""
    return _run(module, function, args, "cuda")


class Compiled:
    """The result of compile(): the lowered module's text (`ir`), the
    gpu.binary object (`binary`: PTX text for format="isa", a cubin for
    "bin", a fatbin for "fatbin"), `ptx` (the PTX text when format is
    "isa", else None), the kernel names (`kernels`) and, per GEMM in
    order, the kernel plan it got (`gemm_plans`: qs-nvptx-pipeline's
    report-gemm-plans text, e.g. "sm_90a wgmma kernel, 128x128 tiles
    (1 x 1), 6-stage ring, 32 k-tiles of 128 in 16 splits of 2 (split-K
    "auto"), ...")."""

    def __init__(self, chip, fmt, ir, binary, gemm_plans=()):
        self.chip, self.format, self.ir, self.binary = chip, fmt, ir, binary
        self.gemm_plans = list(gemm_plans)
        self.ptx = binary.decode() if fmt == "isa" else None
        import re
        # Launches in the host code name every kernel, in launch order.
        self.kernels = list(dict.fromkeys(re.findall(r"@qs_kernels::@(\w+)", ir)))

    def __repr__(self):
        return (f"Compiled(chip={self.chip!r}, format={self.format!r}, "
                f"kernels={self.kernels!r}, {len(self.binary)} bytes)")


def _unescape(text):
    import re
    # MLIR prints string bytes outside printable ASCII as \XX.
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 2 < len(text) + 1 and re.match(r"[0-9A-Fa-f]{2}", text[i + 1:i + 3]):
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        elif c == "\\" and i + 1 < len(text):
            out.append(ord(text[i + 1]))
            i += 2
        else:
            out.extend(c.encode())
            i += 1
    return bytes(out)


def compile(module, chip=None, format="isa", multiprocessors=None):
    """Compiles a clone of a Module/Graph with qs-nvptx-pipeline for `chip`
    ("sm_90a" or "sm_100a"; default: the module's qs.chip, else "sm_90a"):
    `format` "isa" (PTX text, needs no CUDA),
    "bin" (cubin) or "fatbin" (both; these need ptxas, found through
    CUDA_HOME, PATH or /usr/local/cuda). Returns a Compiled; raises QSError
    with the diagnostics if the module has ops without GPU kernels or the
    chip is not supported. `multiprocessors`: the target GPU's streaming
    multiprocessors, which the GEMM plans fill (tile width, ping-pong
    grid, split-K "auto"); default the chip's data-sheet count (sm_90a
    132, as an H100/H200 SXM; sm_100a 148); run_cuda uses the device's."""
    import re
    if format not in ("isa", "bin", "fatbin"):
        raise ValueError(f"format must be isa, bin or fatbin, got {format!r}")
    if multiprocessors is not None and (isinstance(multiprocessors, bool)
                                        or not isinstance(multiprocessors, int)):
        raise TypeError(f"multiprocessors must be an int, got {multiprocessors!r}")
    if multiprocessors is not None and multiprocessors < 1:
        raise ValueError(f"multiprocessors must be at least 1, got {multiprocessors}")
    if chip is not None:
        check_chip(chip)
    m = _module(module).clone()
    if chip is None:
        named = re.match(r'module attributes \{[^}]*qs\.chip = "(\w+)"', str(m))
        chip = named.group(1) if named else "sm_90a"
    sms = f" multiprocessors={multiprocessors}" if multiprocessors else ""
    m.run_pipeline(f"qs-nvptx-pipeline{{chip={chip} format={format}{sms} "
                   f"report-gemm-plans=true}}")
    marker = "remark: GEMM kernel plan: "
    plans = [d.split(marker, 1)[1] for d in m.diagnostics() if marker in d]
    ir = str(m)
    found = re.search(r'gpu\.binary @qs_kernels\s*\[#gpu\.object<.*?(?:assembly = |bin = |\}, )"((?:[^"\\]|\\.)*)">\s*\]', ir)
    binary = _unescape(found.group(1)) if found else b""
    return Compiled(chip, format, ir, binary, plans)
