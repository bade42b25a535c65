"""qs.update_usage that creates a representation, through qs-run, against the
numpy reference: the per-tensor FP8 transpose, and column-wise from row-wise
for 128x128 block FP8 and 16x16 NVFP4 (which must equal quantizing the
column-wise representation directly; with 4over6 TE's nibble transpose of
the row-wise one), every byte, padding included. Under
QS_KERNELS=gpu-emulated / cuda: the update_usage GPU kernel."""

import numpy as np
import pytest

import harness as h
import qs_reference as ref

# Shapes of one and several 64x64 tiles of the GPU kernel, rows of 16, 8,
# 4, 2 and 1 bytes' multiples (its vector widths), partial tiles.
CASES = [
    ("fp8_current", {}, (3, 40, 72)),
    ("fp8_current", {}, (5, 33)),
    ("fp8_current", dict(fp8_dtype="f8E5M2"), (200, 300)),
    ("fp8_current", {}, (130, 258)),
    ("fp8_delayed", {}, (64, 128)),
    ("fp8_delayed", {}, (1, 1)),
    ("fp8_block", dict(block_scaling_dim=2), (300, 200)),
    ("fp8_block", dict(block_scaling_dim=2), (2, 130, 256)),
    ("fp8_block", dict(block_scaling_dim=2), (520, 36)),
    ("nvfp4", dict(with_2d_quantization=True), (64, 128)),
    ("nvfp4", dict(with_2d_quantization=True), (48, 80)),
    ("nvfp4", dict(with_2d_quantization=True), (272, 32)),
    ("nvfp4", dict(with_2d_quantization=True, optimize_for_gemm=True), (144, 160)),
    # Compact column-wise scales of 36 blocks (the 32-block jobs' second
    # partly outside) and 16 jobs over 9 blocks (two rounds); swizzled: one
    # 128 x 4 tile per data tile.
    ("nvfp4", dict(with_2d_quantization=True), (576, 48)),
    ("nvfp4", dict(with_2d_quantization=True, optimize_for_gemm=True), (576, 48)),
    # One tile, 16 compact jobs over 2 blocks: 8 rounds (the most a block
    # takes; ScaleJobs).
    ("nvfp4", dict(with_2d_quantization=True), (16, 144)),
    ("nvfp4", dict(with_2d_quantization=True, nvfp4_use_4over6=True), (80, 48)),
    ("nvfp4", dict(with_2d_quantization=True, nvfp4_use_4over6=True, nvfp4_e4m3_max=256,
                   nvfp4_4over6_err_mode="MSE", optimize_for_gemm=True), (144, 160)),
]


def update_case(rng, family, params, shape, keep_rowwise=True):
    """The row-wise source quantized by the reference, the expected
    buffers of the result (row-wise kept or not), the module and the
    result's quantizer."""
    nominal = "bf16"
    row = h.quantizer(family, columnwise=False, **params)
    both = h.quantizer(family, rowwise=keep_rowwise, **params)
    x = h.random_input(rng, shape, nominal)
    with np.errstate(all="ignore"):
        source, _ = ref.quantize(x, row, nominal, scale=np.float32(2.0), amax_state=np.float32(0))
        want, _ = ref.quantize(x, both, nominal, scale=np.float32(2.0), amax_state=np.float32(0))
    if params.get("nvfp4_use_4over6"):
        # TE's nibble transpose, not a column-wise quantization (whose tile
        # choices may differ on near-ties).
        want["columnwise_data"], want["columnwise_scale_inv"] = \
            ref.nvfp4_2d_columnwise_from_rowwise(source, shape, both)
    a, b = h.qtype(shape, nominal, row), h.qtype(shape, nominal, both)
    module = f"""func.func @update(%q: {a}) -> {b} {{
  %r = qs.update_usage %q : {a} -> {b}
  return %r : {b}
}}"""
    return source, want, module, both


# The result keeps the row-wise representation or drops it (qs-infer-usage
# narrows an update_usage whose consumers read column-wise only; the GPU
# kernel then reads a representation the result lacks).
@pytest.mark.parametrize("keep_rowwise", [True, False], ids=["both", "col"])
@pytest.mark.parametrize("family,params,shape", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_create_columnwise(rng, family, params, shape, keep_rowwise):
    source, want, module, both = update_case(rng, family, params, shape, keep_rowwise)
    outs = h.run(module, "update", h.npy_inputs(source), len(want))
    for (name, expected), got in zip(want.items(), outs):
        region = ref.valid_region(name, shape, both)
        h.assert_bytes_equal(np.asarray(got)[region], np.asarray(expected)[region],
                             f"update_usage {family}{params} {name}")
        # The created scales' padding is zero, as a quantize leaves it.
        h.assert_bytes_equal(got, expected, f"update_usage {family}{params} {name} (padding)")


@pytest.mark.parametrize("family,params,shape",
                         [c for c in CASES if c[0] in ("fp8_block", "nvfp4")
                          and not c[1].get("optimize_for_gemm")],
                         ids=lambda c: str(c))
def test_source_padding_ignored(rng, family, params, shape):
    # TE leaves the padding of compact scale buffers uninitialised
    # (te-formats.md §9; swizzled ones it zeroes): the created
    # representation must not read it. The source's scale padding is
    # filled with a nonzero byte; the created buffers must equal those from
    # zero padding, their own padding zero.
    source, want, module, both = update_case(rng, family, params, shape)
    row = h.quantizer(family, columnwise=False, **params)
    name = "rowwise_scale_inv"
    scales = np.array(source[name], copy=True)
    valid = np.zeros(scales.shape, bool)
    valid[ref.valid_region(name, shape, row)] = True
    assert not valid.all(), "the case has no scale padding"
    scales.view(np.uint8).reshape(scales.shape + (-1,))[~valid] = 0x3C
    source[name] = scales
    outs = h.run(module, "update", h.npy_inputs(source), len(want))
    for (out, expected), got in zip(want.items(), outs):
        if not out.startswith("columnwise"):
            # The source's own buffers pass through, padding and all.
            region = ref.valid_region(out, shape, both)
            got, expected = np.asarray(got)[region], np.asarray(expected)[region]
        h.assert_bytes_equal(got, expected, f"update_usage {family}{params} {out}")
