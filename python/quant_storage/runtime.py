"""Run pipelines, execute functions on the CPU, compile for GPUs."""

from collections import OrderedDict

import numpy as np

from ._dtypes import view_dtype
from .graph import Graph, Module

#: The named pipelines of quant-storage.
PIPELINES = ("qs-storage-pipeline", "qs-cpu-pipeline")


def _module(m):
    return m.module if isinstance(m, Graph) else m


def run_pipeline(module, pipeline):
    """Runs `pipeline` on a Module (or a Graph's module) in place."""
    return _module(module).run_pipeline(pipeline)


def _to_bytes(array, flat):
    array = np.asarray(array)
    expected = view_dtype(flat["element"])
    if array.dtype.itemsize != flat["width"]:
        raise TypeError(f"{_describe(flat)}: expected elements of {flat['width']} bytes "
                        f"({expected}), got {array.dtype}")
    if tuple(array.shape) != tuple(flat["shape"]):
        raise ValueError(f"{_describe(flat)}: expected shape {tuple(flat['shape'])}, "
                         f"got {array.shape}")
    return np.ascontiguousarray(array).tobytes()


def _describe(flat):
    if flat["quantized"]:
        return f"argument {flat['origin']} ({flat['inner']} of {flat['quantized']})"
    return f"argument {flat['origin']}"


def run_cpu(module, function, *args):
    """Runs `function` of a Module/Graph on the CPU through qs-cpu-pipeline
    (the bit-exact reference numerics; the module is not modified).

    Arguments follow the function's signature: a NumPy array per plain
    tensor (bf16 as ml_dtypes.bfloat16 or uint16), and per quantized value a
    dict {inner name: array} or a sequence in interface order. Results: an
    array per plain tensor, an OrderedDict {inner name: array} per quantized
    value (ml_dtypes views for bf16, FP8 and E8M0; uint8 for packed FP4)."""
    m = _module(module)._impl
    flat_in = m.flat_inputs(function)
    flat_out = m.flat_results(function)
    origins = sorted({f["origin"] for f in flat_in})
    if len(args) != len(origins):
        raise TypeError(f"@{function} takes {len(origins)} arguments, got {len(args)}")
    buffers = []
    for flat in flat_in:
        arg = args[flat["origin"]]
        if flat["quantized"]:
            if isinstance(arg, dict):
                if flat["inner"] not in arg:
                    raise KeyError(f"{_describe(flat)} is missing")
                arg = arg[flat["inner"]]
            else:
                names = [f["inner"] for f in flat_in if f["origin"] == flat["origin"]]
                arg = list(arg)[names.index(flat["inner"])]
        buffers.append(_to_bytes(arg, flat))
    outputs = m.run_cpu(function, buffers)
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


def compile(module, chip="sm_90a"):
    """PTX (and a cubin where ptxas exists) for `chip`. Not available yet:
    the NVPTX pipeline (qs-nvptx-pipeline) is the backend issue's work."""
    raise NotImplementedError(
        "compile(): qs-nvptx-pipeline does not exist yet in this build; "
        "use run_cpu() for the reference numerics")
