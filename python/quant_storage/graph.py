"""Build functions of qs ops from Python, through the C API builders.

    g = Graph()
    f = g.function("fprop", [TensorSpec((256, 512), "bf16"), TensorSpec((1024, 512), "bf16")])
    x, w = f.args
    qx = f.quantize(x, MXFP8Quantizer())
    qw = f.quantize(w, MXFP8Quantizer())
    y = f.gemm(qw, qx, layout="TN")          # TE general_gemm(W, X, "TN") = X W^T
    f.returns(y)
    print(g)

Every op is verified as it is built; a violated rule raises QSError with the
dialect's diagnostic. Each op carries the Python call site that built it as
its location (`loc("script.py":12:1)`), so diagnostics, from the builders and
from later pipelines, point at the user's line.
"""

import os
import sys

from . import _qs
from ._context import check_chip, default_context
from ._dtypes import nominal
from .quantizers import DType, Quantizer, _fp8
from .spec import TensorSpec


class Value:
    """An SSA value of a function under construction."""

    def __init__(self, impl):
        self._impl = impl

    @property
    def type(self):
        return self._impl.type

    @property
    def shape(self):
        return tuple(self.type.shape)

    @property
    def dtype(self):
        return self.type.element_type

    @property
    def is_quantized(self):
        return self.type.is_quantized

    @property
    def quantizer(self):
        q = self.type.quantizer
        return Quantizer.from_attr(q) if q is not None else None

    def __repr__(self):
        return f"Value({self.type})"


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _site():
    """(file, line) of the first caller outside this package."""
    frame = sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno


def _impl(value, what, optional=False):
    """The binding value behind a Value argument; TypeError for anything else."""
    if value is None and optional:
        return None
    if not isinstance(value, Value):
        raise TypeError(f"{what} must be a Value of this function, got {value!r}")
    return value._impl


def _flat2d(shape):
    m = 1
    for d in shape[:-1]:
        m *= d
    return m, shape[-1]


class Function:
    """A func.func being built. Values come from `args` and the op methods;
    `returns(...)` finishes it."""

    def __init__(self, graph, name, inputs):
        self.graph = graph
        self.name = name
        if not isinstance(name, str):
            raise TypeError(f"a function's name must be a str, got {name!r}")
        if isinstance(inputs, (TensorSpec, str, bytes)) or not hasattr(inputs, "__iter__"):
            raise TypeError(f"inputs must be a sequence of TensorSpecs, got {inputs!r}")
        types = [self._type(s, "an input") for s in inputs]
        self._impl = graph.module.add_function(name, types, _site())
        self.args = [Value(self._impl.arg(i)) for i in range(len(types))]

    @property
    def _context(self):
        return self.graph.context

    @staticmethod
    def _type(spec, what="a spec"):
        if isinstance(spec, TensorSpec):
            return spec.mlir_type()
        if isinstance(spec, _qs.Type):
            return spec
        raise TypeError(f"{what} must be a TensorSpec, got {spec!r}")

    def _tensor(self, shape, dtype):
        return self._context.ranked_tensor_type(list(shape), nominal(dtype))

    def empty(self, spec):
        """qs.empty of a quantized TensorSpec."""
        return Value(self._impl.empty(self._type(spec, "empty()'s spec"), _site()))

    def quantize(self, x, quantizer, scale=None, amax=None, rng=None, *, stores=None):
        """qs.quantize x (a high-precision value) with `quantizer`. Delayed
        scaling (Float8Quantizer) takes `scale` and `amax` values and returns
        (quantized, updated amax). Current scaling
        (Float8CurrentScalingQuantizer) and NVFP4 without row scales may
        take `amax` alone: the global amaxes to scale with instead of the
        ones the quantize computes (TE's with_amax_reduction: the elementwise
        maximum of every rank's `amax(part, quantizer)`, all-reduced by the
        caller; a (1,) float32 value, (2,) for NVFP4 with RHT). NVFP4 with
        stochastic_rounding takes `rng`, a (2,) int64 value holding (seed,
        offset) (TensorSpec((2,), "int64")).

        Kernel option (speed only, never results; docs/GPU.md), set as the
        op's qs.quantize_stores attribute when given: `stores`
        ("coalesced", the default: a warp's code stores cover whole 32-byte
        sectors, through warp shuffles and shared-memory staging; "direct":
        each thread stores its own blocks' codes from registers)."""
        _impl(x, "quantize()'s input")
        if stores is not None and not isinstance(stores, str):
            raise TypeError(f"quantize option stores must be a str, got {stores!r}")
        if not isinstance(quantizer, Quantizer):
            raise TypeError(f"quantize() needs a Quantizer, got {quantizer!r}")
        if x.is_quantized:
            raise TypeError(f"quantize() takes a high-precision tensor, got {x.type}")
        spec = TensorSpec(x.shape, x.dtype, quantizer, chip=self.graph.chip, context=self._context)
        q, updated = self._impl.quantize(x._impl, spec.mlir_type(),
                                         _impl(scale, "scale", optional=True),
                                         _impl(amax, "amax", optional=True),
                                         _impl(rng, "rng", optional=True),
                                         [("stores", stores)] if stores is not None else [],
                                         _site())
        if updated is not None:
            return Value(q), Value(updated)
        return Value(q)

    def amax(self, x, quantizer):
        """qs.amax: the global amaxes quantize(x, quantizer) computes, as a
        float32 value of shape (1,) (max|x|; current scaling, NVFP4) or
        (2,) (max|x|, max|RHT(x^T)|; NVFP4 with RHT), for TE's amax
        reduction: all-reduce (MAX) it across the ranks and pass the result
        to quantize(..., amax=...). QSError for quantizers without them."""
        _impl(x, "amax()'s input")
        if not isinstance(quantizer, Quantizer):
            raise TypeError(f"amax() needs a Quantizer, got {quantizer!r}")
        if x.is_quantized:
            raise TypeError(f"amax() takes a high-precision tensor, got {x.type}")
        spec = TensorSpec(x.shape, x.dtype, quantizer, chip=self.graph.chip, context=self._context)
        return Value(self._impl.amax(x._impl, spec.mlir_type(), _site()))

    def bias_grad(self, dy, dtype=None):
        """qs.bias_grad: the bias gradient of a Linear layer, the column sums
        of `dy` folded to 2-D (TE's tex.bgrad_quantize returns it next to
        the quantized dY), a 1-D value of dy's last dimension and element
        type `dtype` (default dy's own, as TE's). The FP32 additions run in
        the op's fixed order (chunks of 32 rows), so every lowering gives
        the same bits."""
        _impl(dy, "bias_grad()'s input")
        if dy.is_quantized:
            raise TypeError(f"bias_grad() takes a high-precision tensor, got {dy.type}")
        out = self._tensor((dy.shape[-1],) if dy.shape else (), dtype or nominal(dy.dtype))
        return Value(self._impl.bias_grad(dy._impl, out, _site()))

    def amax_and_scale_update(self, history, scale, amax=None, *, fp8_dtype=DType.kFloat8E4M3,
                              margin=0, amax_compute_algo="max"):
        """qs.amax_and_scale_update: TE's delayed-scaling recipe step for one
        tensor (tex.fused_amax_and_scale_update_after_reduction). `history`
        is the amax history, a (L,) float32 value whose element 0 is the
        step's amax (the amax state quantize(..., scale, amax) updates);
        `scale` the (1,) float32 scale the step used; `amax` optionally the
        all-reduced amax of the step (used where it is not 0.0, as TE's
        reduction buffer). Returns (rolled history, new scale):
        (fp8_max 2^-margin) / the history's maximum ("max") or the step's
        amax ("most_recent"), the old scale where that amax is 0, negative,
        infinite or NaN. `fp8_dtype`, `margin` and `amax_compute_algo` are
        the DelayedScaling recipe's (the dtype of the tensor's role: E4M3,
        or E5M2 for gradients under HYBRID)."""
        dtype = _fp8(fp8_dtype)
        if not isinstance(margin, int) or isinstance(margin, bool):
            raise TypeError(f"margin must be an int, got {margin!r}")
        if not isinstance(amax_compute_algo, str):
            raise TypeError(f"amax_compute_algo must be a str, got {amax_compute_algo!r}")
        h, s = self._impl.amax_and_scale_update(
            _impl(history, "amax_and_scale_update()'s history"),
            _impl(scale, "amax_and_scale_update()'s scale"),
            _impl(amax, "amax", optional=True),
            self._context.parse_type(dtype.value), margin, amax_compute_algo, _site())
        return Value(h), Value(s)

    ACTIVATIONS = ("gelu", "qgelu", "silu", "relu", "srelu")

    def _elementwise(self, kind, operands, dtype, what):
        for i, v in enumerate(operands):
            _impl(v, f"{what}'s operand {i}")
            if v.is_quantized:
                raise TypeError(f"{what} takes high-precision tensors, got {v.type}")
        out = self._tensor(operands[0].shape, dtype or nominal(operands[0].dtype))
        return Value(self._impl.elementwise(kind, [v._impl for v in operands], out, _site()))

    def activation(self, name, x, dtype=None):
        """TE's activation `name` ("gelu", "qgelu", "silu", "relu", "srelu";
        transformer_engine/common/util/math.h, in f32) of `x` (bf16, f16 or
        f32), rounded to `dtype` (default x's). A linalg op between the qs
        ops: loops on the CPU, a kernel on the GPU; tanh and exp are
        qs-approximate-math's polynomials, the same bits on both."""
        if name not in self.ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(self.ACTIVATIONS)}, got {name!r}")
        return self._elementwise(name, [x], dtype, f"activation({name!r})")

    def dactivation(self, name, dy, x, dtype=None):
        """The backward of activation `name`: dact(x) * dy in f32 (TE's
        dgelu, dqgelu, dsilu, drelu, dsrelu), rounded to `dtype` (default
        dy's)."""
        if name not in self.ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(self.ACTIVATIONS)}, got {name!r}")
        return self._elementwise("d" + name, [dy, x], dtype, f"dactivation({name!r})")

    def add(self, a, b, dtype=None):
        """a + b in f32, rounded to `dtype` (default a's); `b` has a's shape
        or is 1-D of a's last dimension (a bias, broadcast over the rows)."""
        return self._elementwise("add", [a, b], dtype, "add()")

    def sub(self, a, b, dtype=None):
        """a - b in f32 (as add())."""
        return self._elementwise("sub", [a, b], dtype, "sub()")

    def mul(self, a, b, dtype=None):
        """a * b in f32 (as add())."""
        return self._elementwise("mul", [a, b], dtype, "mul()")

    def cast(self, x, dtype):
        """x rounded to `dtype` (bf16, f16 or f32; round to nearest even)."""
        return self._elementwise("cast", [x], dtype, "cast()")

    def dequantize(self, q, dtype="f32"):
        return Value(self._impl.dequantize(_impl(q, "dequantize()'s input"), self._tensor(q.shape, dtype), _site()))

    def update_usage(self, q, rowwise=None, columnwise=None):
        """TE's update_usage: the same tensor with other representations."""
        _impl(q, "update_usage()'s input")
        if not q.is_quantized:
            raise TypeError(f"update_usage() takes a quantized tensor, got {q.type}")
        quantizer = q.quantizer
        quantizer.set_usage(rowwise=rowwise, columnwise=columnwise)
        spec = TensorSpec(q.shape, q.dtype, quantizer, context=self._context)
        return Value(self._impl.update_usage(q._impl, spec.mlir_type(), _site()))

    def gemm(self, a, b, layout=None, *, transpose_a=False, transpose_b=False, out_dtype=None,
             bias=None, accumulate=None, fast_accumulate=False, quantizer=None, scale=None,
             amax=None, tile_n=None, persistent=None, cluster=None, schedule=None, epilogue=None,
             split_k=None, split_k_reduce=None, scale_loads=None, promotion=None,
             mx_scaling=None):
        """qs.gemm. With `layout` ("TN", "NN", "NT") the arguments follow TE's
        general_gemm(A, B, layout), which computes op(B) op(A): it builds
        qs.gemm(B, A) with transpose_a = (layout[1] == "T") and transpose_b =
        (layout[0] == "T"). Without `layout`, qs.gemm(a, b) with the given
        transposes: result = op(a) op(b).

        `fast_accumulate` lets the tensor cores sum in their own precision
        (qs.gemm's fast_accumulate; TE's use_split_accumulator=False, which
        TE uses for fprop): on sm_90a the per-tensor FP8 kernel then sums all
        of K in the tensor core instead of promoting each 128-wide block of
        K into FP32.

        `quantizer` (TE's general_gemm quantization_params) quantizes the
        result: a quantized tensor of logical dtype `out_dtype` (qs.gemm's
        output quantizer). A delayed-scaling quantizer (Float8Quantizer)
        also takes `scale` and `amax` values and returns (result, updated
        amax); with per-tensor FP8 operands it quantizes the FP32 product
        directly (cuBLASLt's FP8 output), otherwise the product rounded to
        `out_dtype` (TE's unfused GEMM + quantize).

        Kernel options (speed only, never results; docs/GPU.md), each set as
        the op's qs.gemm_<option> attribute when given: `tile_n` (128 or 256,
        per-tensor FP8, also without fast_accumulate; 192 on sm_90a for
        per-tensor FP8 and for FP8 block GEMMs whose B has 128x128 blocks;
        128 for MXFP8 on sm_90a; on sm_100a 128 or 256 for every family),
        `persistent` (blocks of the persistent kernels, e.g. 132 for an
        H100/H200, 148 for a B200), `cluster` (2: pairs of blocks
        sharing B by TMA multicast, sm_90a), `schedule` ("cooperative" or
        "pingpong": each consumer warpgroup its own 128x128 tiles; sm_90a
        per-tensor FP8), `epilogue` ("direct" or "tma": D staged in shared
        memory and written by TMA stores; sm_90a, rows of D in multiples of
        16 bytes), `split_k` (S: each output tile's K in S ranges of
        128-wide k-tiles, one block each, FP32 partial results summed in
        order by a second kernel; S must divide ceil(K / 128); for grids
        that would leave multiprocessors idle, e.g. small M; without
        `split_k`, sm_90a GEMMs whose tiles leave multiprocessors idle
        split where the cost model gains more than 10% (never stream-K),
        and 1 keeps one block per tile; "auto": the
        kernels' cost model picks S, none where it would not pay; "stream":
        stream-K (both chips), persistent blocks sharing the last tiles'
        k-tiles evenly, the shared tiles summed by their last block),
        `split_k_reduce` ("kernel": the second kernel sums the planes;
        "fused": each output tile's last unit sums them in the GEMM kernel,
        the same bytes without a second launch; launches of one compiled
        GEMM must then not overlap), `scale_loads` ("ahead", the default
        where it applies: the sm_90a FP8 block kernel with 128x128-block B
        in 128-wide tiles loads each k-tile's scales while the previous one
        runs; "in_tile": in the k-tile that uses them), `promotion`
        ("overlapped", the default where it applies: the sm_90a kernels that
        promote, per-tensor FP8 without fast_accumulate and FP8 block with
        128x128-block B, in 128- or 192-wide tiles, MXFP8 in 64-wide
        ones, promote a k-tile's partial sums
        while the next k-tile's wgmmas run; per-tensor FP8 then takes
        128-wide tiles; "in_tile": each k-tile waited for and promoted
        within its iteration), `mx_scaling` (sm_90a MXFP8: "convert", the
        default: the codes times their E8M0 scales converted to K-major bf16
        tiles in shared memory, MN-major ones (dgrad, wgrad) transposed on
        the way, and summed by bf16 wgmma in 128x128 tiles, no promotion;
        "promote": FP8 wgmma, each 32-block's partial sums promoted with
        their scales, MN-major operands first copied transposed;
        "dequantize": a pre-pass kernel per operand writes the same bf16
        values, K-major, to global memory once, and a bf16 GEMM with the
        per-tensor kernel's tiles and schedules reads them with TMA; NVFP4
        likewise in f16)."""
        if layout is not None:
            if layout not in ("TN", "NN", "NT", "TT"):
                raise ValueError(f"layout must be one of TN, NN, NT, TT, got {layout!r}")
            a, b = b, a
            transpose_a, transpose_b = layout[1] == "T", layout[0] == "T"
        _impl(a, "gemm operand a")
        _impl(b, "gemm operand b")
        am, ak = _flat2d(a.shape)
        bm, bk = _flat2d(b.shape)
        n = bm if transpose_b else bk
        shape = (ak, n) if transpose_a else tuple(a.shape[:-1]) + (n,)
        if quantizer is None:
            out = self._tensor(shape, out_dtype or a.dtype)
        elif isinstance(quantizer, Quantizer):
            out = TensorSpec(shape, out_dtype or a.dtype, quantizer, chip=self.graph.chip,
                             context=self._context).mlir_type()
        else:
            raise TypeError(f"gemm()'s quantizer must be a Quantizer, got {quantizer!r}")
        options = []
        for name, value in (("tile_n", tile_n), ("persistent", persistent), ("cluster", cluster),
                            ("split_k", split_k)):
            if value is None:
                continue
            if name == "split_k" and isinstance(value, str):
                if value not in ("auto", "stream"):
                    raise ValueError('gemm option split_k must be an int, "auto" or "stream", '
                                     f"got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"gemm option {name} must be an int"
                                + (', "auto" or "stream"' if name == "split_k" else "")
                                + f", got {value!r}")
            options.append((name, value))
        for name, value in (("schedule", schedule), ("epilogue", epilogue),
                            ("split_k_reduce", split_k_reduce), ("scale_loads", scale_loads),
                            ("promotion", promotion), ("mx_scaling", mx_scaling)):
            if value is None:
                continue
            if not isinstance(value, str):
                raise TypeError(f"gemm option {name} must be a str, got {value!r}")
            options.append((name, value))
        y, updated = self._impl.gemm(a._impl, b._impl, transpose_a, transpose_b,
                                     _impl(bias, "bias", optional=True),
                                     _impl(accumulate, "accumulate", optional=True), out,
                                     _impl(scale, "scale", optional=True),
                                     _impl(amax, "amax", optional=True),
                                     bool(fast_accumulate), options, _site())
        if updated is not None:
            return Value(y), Value(updated)
        return Value(y)

    def assemble(self, inner, spec):
        """qs.assemble: a quantized value from its inner tensors."""
        return Value(self._impl.assemble([_impl(v, "an inner tensor") for v in inner], self._type(spec, "assemble()'s spec"), _site()))

    def disassemble(self, q):
        """qs.disassemble: the inner tensors, in interface order."""
        return [Value(v) for v in self._impl.disassemble(_impl(q, "disassemble()'s input"), _site())]

    def returns(self, *values):
        """Finishes the function with func.return of `values`."""
        self._impl.finish([_impl(v, "a returned value") for v in values], _site())


class Graph:
    """A module of functions built from Python. `chip` sets the module's
    qs.chip (TE's TN-only rule for per-tensor FP8)."""

    def __init__(self, chip=None, context=None):
        self.context = context or default_context()
        self.chip = check_chip(chip) if chip is not None else "sm_90a"
        if chip is not None:
            self.module = Module.parse(f'module attributes {{qs.chip = "{chip}"}} {{}}',
                                       self.context)
        else:
            self.module = Module(self.context.create_module())

    def function(self, name, inputs):
        return Function(self, name, inputs)

    def __str__(self):
        return str(self.module)


class Module:
    """A module: print it, parse text back, verify, run pipelines on it,
    execute its functions on the CPU."""

    def __init__(self, impl):
        self._impl = impl

    @staticmethod
    def parse(text, context=None):
        return Module((context or default_context()).parse_module(text))

    def add_function(self, name, types, site=None):
        return self._impl.add_function(name, types, site)

    def __str__(self):
        return str(self._impl)

    def verify(self):
        self._impl.verify()

    def clone(self):
        return Module(self._impl.clone())

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline on the module in place (e.g.
        "qs-storage-pipeline"); raises QSError with the diagnostics."""
        self._impl.run_pipeline(pipeline)
        return self

    def diagnostics(self):
        """What the last run_pipeline reported without failing (remarks
        such as qs-nvptx-pipeline's report-gemm-plans, warnings), as
        "location: severity: message" strings."""
        return list(self._impl.diagnostics())
