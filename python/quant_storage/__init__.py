"""quant_storage: TransformerEngine-style quantized tensors in the qs MLIR
dialect, from Python (nanobind bindings of the quant-storage C API).

    import quant_storage as qs
    spec = qs.TensorSpec((64, 128), "bf16", qs.MXFP8Quantizer(columnwise=False))
    spec.inner_tensor_specs()   # {'rowwise_data': ((64, 128), uint8), 'rowwise_scale_inv': ((128, 4), uint8)}
"""

from ._qs import QSError, Context
from .quantizers import (DType, Quantizer, Float8Quantizer, Float8CurrentScalingQuantizer,
                         MXFP8Quantizer, Float8BlockQuantizer, NVFP4Quantizer)
from .spec import TensorSpec
from .recipe import DelayedScaling, Format
from .graph import Graph, Function, Module, Value
from .runtime import (PIPELINES, Compiled, compile, cuda_device, run_cpu, run_cuda,
                      run_pipeline)
from ._context import default_context

__all__ = [
    "QSError", "Context", "DType", "Quantizer", "Float8Quantizer",
    "Float8CurrentScalingQuantizer", "MXFP8Quantizer", "Float8BlockQuantizer",
    "NVFP4Quantizer", "DelayedScaling", "Format", "TensorSpec", "Graph", "Function", "Module", "Value", "PIPELINES",
    "run_pipeline", "run_cpu", "run_cuda", "cuda_device", "compile", "Compiled",
    "default_context",
]
