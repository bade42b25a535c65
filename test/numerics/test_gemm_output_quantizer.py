"""qs.gemm with an output quantizer (a quantized result; TE's general_gemm
quantization_params) through qs-run. Each module returns the same GEMM twice:
once into a high-precision tensor of the type the quantizer reads (FP32 when
the quantization is fused: a #qs.fp8_delayed result of per-tensor FP8
operands, cuBLASLt's FP8 output; else the nominal type, TE's GEMM + quantize),
checked against the float64 reference within the GEMM bound, and once
quantized, whose inner tensors must equal, byte for byte, the independent
numpy quantization (qs_reference.py) of that high-precision product, as must
the updated amax of delayed scaling."""

import numpy as np
import pytest

import gemm_cases as gm
import harness as h
import qs_reference as ref
from gemm_cases import LAYOUTS

# (operand family, layout index, output quantizer, nominal output type, bias).
# Under QS_KERNELS=gpu-emulated / cuda the GEMM kernel quantizes a fused
# result in its epilogue (the first three cases; the first with its
# transpose, staged in shared memory).
CASES = [
    ("fp8_delayed", 0, h.quantizer("fp8_delayed"), "bf16", True),
    ("fp8_delayed", 0, h.quantizer("fp8_delayed", columnwise=False), "bf16", True),
    ("fp8_current", 1, h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False),
     "f16", False),
    ("mxfp8", 2, h.quantizer("fp8_delayed"), "bf16", False),
    ("fp8_current", 0, h.quantizer("mxfp8"), "bf16", True),
    ("fp8_block", 1, h.quantizer("fp8_current", columnwise=False), "f32", False),
    ("nvfp4", 0, h.quantizer("nvfp4", columnwise=False), "bf16", False),
    # 4over6 operands (E = 256 x and dY, 2-D w) into a 4over6 result with
    # both usages (E = 256, MSE).
    ("nvfp4_4over6", 2, h.quantizer("nvfp4", nvfp4_use_4over6=True, nvfp4_e4m3_max=256,
                                    nvfp4_4over6_err_mode="MSE"), "bf16", True),
]


def check_output_quantizer(rng, family, layout, qout, nominal, bias, m=64, n=96, k=128,
                           chip=None, attrs=(), fast_accumulate=False, dominant_bias=False):
    """chip: the module's qs.chip (sm_100a: no transpose buffers, so every
    delayed-scaling result of per-tensor operands is fused); attrs: more
    module attributes (GEMM kernel options); dominant_bias: see
    gemm_cases.output_quantizer_case (rows past M would raise the amax)."""
    if chip and h.KERNELS == "cuda":
        pytest.skip("QS_KERNELS=cuda compiles for the device's own chip")
    if fast_accumulate and h.KERNELS == "cuda":
        pytest.skip("QS_KERNELS=cuda: fast_accumulate's random-operand sums are not FP32 "
                    "on Hopper (test_gemm.py checks it with integer operands)")
    c = gm.output_quantizer_case(rng, family, layout, qout, nominal, bias, m, n, k, chip, attrs,
                                 tensor_cores=h.KERNELS == "cuda",
                                 fast_accumulate=fast_accumulate,
                                 dominant_bias=dominant_bias)
    outs = h.run(c.module, "gemm", c.inputs, 1 + len(c.names) + (1 if c.scale is not None else 0))
    d = h.from_npy(outs[0], c.product).astype(np.float64)
    bad = ~(np.abs(d - c.want) <= c.tol)
    assert not bad.any(), f"{c.label} product: {bad.sum()} of {bad.size} outside the bound"
    with np.errstate(all="ignore"):
        expected, updated = ref.quantize(h.from_npy(outs[0], c.product), qout, c.product,
                                         chip_tn_only=chip != "sm_100a", scale=c.scale,
                                         amax_state=c.state)
    for (buf, value), got in zip(expected.items(), outs[1:]):
        region = ref.valid_region(buf, c.want.shape, qout)
        h.assert_bytes_equal(np.asarray(got)[region], np.asarray(value)[region], f"{c.label}: {buf}")
    if c.scale is not None:
        h.assert_bytes_equal(outs[-1], updated, f"{c.label}: updated amax")


@pytest.mark.parametrize("family,layout,qout,nominal,bias", CASES,
                         ids=[f"{c[0]}-{LAYOUTS[c[1]][0]}-{c[2]['family']}" for c in CASES])
def test_gemm_output_quantizer(rng, family, layout, qout, nominal, bias):
    check_output_quantizer(rng, family, LAYOUTS[layout], qout, nominal, bias)


def test_gemm_output_quantizer_kernels(rng):
    # The fused epilogue in more kernels: sm_100a (tcgen05; every
    # per-tensor delayed result is fused there, both usages in one data
    # buffer) with bias and partial tiles; sm_90a persistent blocks in
    # multicast pairs, and 128x256 tiles, over several tiles with partial
    # edges; sm_100a persistent.
    q = h.quantizer("fp8_delayed")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", True, m=208, n=144, k=160,
                           chip="sm_100a")
    q = h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], q, "bf16", True, m=272, n=320,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[1], h.quantizer("fp8_delayed", columnwise=False),
                           "f32", False, m=144, n=528, k=384, attrs=["qs.gemm_tile_n = 256 : i64"])
    # sm_100a persistent blocks (epilogue warps 4-7, two accumulator
    # buffers).
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], h.quantizer("fp8_delayed"), "bf16",
                           True, m=272, n=256, k=256, chip="sm_100a",
                           attrs=["qs.gemm_persistent = 3 : i64"])


def test_gemm_output_quantizer_transpose(rng):
    # sm_90a results with column-wise usage (TE's default, a transpose
    # buffer on Hopper): each consumer stages its codes in shared memory
    # and reads them back as rows and transposed 16 x 4 blocks. Partial
    # tiles in M and N (multiples of 16), bias, E5M2 with f16, 128x256
    # tiles, persistent multicast pairs, the TMA store (rows by TMA, the
    # transpose read back), ping-pong consumers, stream-K (the last block
    # of a shared tile sums the planes and stages its codes), fused split-K
    # reductions (each tile's last unit; with the TMA store in 128x256
    # tiles, and stream-K with the TMA store; ping-pong consumers with the
    # TMA store), the split-K reduction kernel (64 x 64 tiles through
    # shared memory; partial tiles, bias, and a dgrad into f16 without),
    # split-K "auto" (either reduction);
    # then the fallback (M not a multiple of 16), whose quantize kernels
    # write the same bytes.
    q = h.quantizer("fp8_delayed")
    e5m2 = h.quantizer("fp8_delayed", fp8_dtype="f8E5M2")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=144, k=256)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1], e5m2, "f16", False, m=144, n=528,
                           k=384, attrs=["qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[2], q, "bf16", True, m=272, n=320, k=256,
                           attrs=["qs.gemm_persistent = 3 : i64", "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], e5m2, "bf16", True, m=208, n=272,
                           k=256, attrs=['qs.gemm_epilogue = "tma"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=400, n=272, k=256,
                           attrs=["qs.gemm_persistent = 3 : i64", 'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=272, n=256, k=640,
                           attrs=['qs.gemm_split_k = "stream"', "qs.gemm_persistent = 4 : i64"])
    fused = 'qs.gemm_split_k_reduce = "fused"'
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1], e5m2, "f16", False, m=208, n=144,
                           k=384, attrs=["qs.gemm_split_k = 2 : i64", fused])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=144, n=272, k=768,
                           attrs=["qs.gemm_split_k = 3 : i64", fused, 'qs.gemm_epilogue = "tma"',
                                  "qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", True, m=144, n=272, k=512,
                           attrs=['qs.gemm_split_k = "stream"', "qs.gemm_persistent = 5 : i64",
                                  'qs.gemm_epilogue = "tma"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[1], q, "bf16", True, m=400, n=256, k=272,
                           attrs=["qs.gemm_persistent = 3 : i64", 'qs.gemm_schedule = "pingpong"',
                                  "qs.gemm_split_k = 2 : i64", fused, 'qs.gemm_epilogue = "tma"'],
                           fast_accumulate=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=144, n=144, k=384,
                           attrs=["qs.gemm_split_k = 3 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1], e5m2, "f16", False, m=208, n=256,
                           k=400, attrs=["qs.gemm_split_k = 2 : i64"])
    # Split-K "auto": 16 splits with the reduction kernel, 4 fused.
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=144, n=144,
                           k=2048, attrs=['qs.gemm_split_k = "auto"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=128, n=128,
                           k=8192, attrs=['qs.gemm_split_k = "auto"', fused])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=200, n=144, k=256)


def test_gemm_output_quantizer_pingpong(rng):
    # sm_90a ping-pong consumers (fast_accumulate, persistent): each
    # consumer warpgroup's own 128x128 tiles and epilogue.
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0],
                           h.quantizer("fp8_delayed", columnwise=False), "bf16", True, m=400,
                           n=272, k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                                'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)


def test_gemm_output_quantizer_split_k(rng):
    # The pass that writes D quantizes it where K is split: the split-K
    # reduction kernel (bias; N = 136, groups of 4), each tile's last unit
    # (qs.gemm_split_k_reduce = "fused"), and with stream-K the shared
    # tiles' last blocks and the whole tiles' epilogues, on both chips. The
    # product GEMM runs the same plan, so its FP32 sums are the ones the
    # quantized GEMM quantized.
    q = h.quantizer("fp8_delayed", columnwise=False)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=144, n=136, k=384,
                           attrs=["qs.gemm_split_k = 3 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1],
                           h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False),
                           "f16", False, m=208, n=144, k=384,
                           attrs=["qs.gemm_split_k = 2 : i64",
                                  'qs.gemm_split_k_reduce = "fused"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=272, n=256, k=640,
                           attrs=['qs.gemm_split_k = "stream"', "qs.gemm_persistent = 4 : i64"])
    q = h.quantizer("fp8_delayed")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", True, m=144, n=176, k=512,
                           chip="sm_100a", attrs=["qs.gemm_split_k = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "f32", False, m=272, n=256, k=640,
                           chip="sm_100a",
                           attrs=['qs.gemm_split_k = "stream"', "qs.gemm_persistent = 4 : i64"])


def test_gemm_output_quantizer_tma_store(rng):
    # The TMA-store epilogue stages the FP8 codes (sm_90a: 2 bytes per
    # thread pair; sm_100a: 16 per row) and the TMA store clips the partial
    # tiles: one block per tile, 128x256 tiles with the fused split-K
    # reduction, persistent multicast pairs, stream-K; sm_100a one block
    # per tile and persistent stream-K.
    q = h.quantizer("fp8_delayed", columnwise=False)
    tma = 'qs.gemm_epilogue = "tma"'
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=144, k=256,
                           attrs=[tma])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1],
                           h.quantizer("fp8_delayed", fp8_dtype="f8E5M2", columnwise=False),
                           "f16", False, m=144, n=272, k=384,
                           attrs=[tma, "qs.gemm_tile_n = 256 : i64", "qs.gemm_split_k = 3 : i64",
                                  'qs.gemm_split_k_reduce = "fused"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=272, n=272, k=256,
                           attrs=[tma, "qs.gemm_persistent = 3 : i64", "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=272, n=256, k=640,
                           attrs=[tma, 'qs.gemm_split_k = "stream"', "qs.gemm_persistent = 4 : i64"])
    q = h.quantizer("fp8_delayed")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", True, m=144, n=176, k=512,
                           chip="sm_100a", attrs=[tma])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "f32", False, m=272, n=256, k=640,
                           chip="sm_100a",
                           attrs=[tma, 'qs.gemm_split_k = "stream"', "qs.gemm_persistent = 4 : i64"])


def test_gemm_output_quantizer_amax(rng):
    # Quantizers whose kernels read D once for its global amax alone
    # (current scaling; NVFP4 without the Hadamard transform): the pass
    # that writes D takes that amax instead, from the values as stored (the
    # nominal type), and the quantize kernels skip their amax pass. One
    # block per tile (both usages: the cast kernel writes the transpose
    # too), the split-K reduction kernel, the TMA-store staging, stream-K,
    # sm_100a, and NVFP4.
    q = h.quantizer("fp8_current")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=144, k=256)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[1],
                           h.quantizer("fp8_current", fp8_dtype="f8E5M2", columnwise=False),
                           "f16", False, m=144, n=256, k=376,
                           attrs=["qs.gemm_split_k = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], h.quantizer("fp8_current", columnwise=False),
                           "bf16", True, m=272, n=256, k=640,
                           attrs=['qs.gemm_epilogue = "tma"', 'qs.gemm_split_k = "stream"',
                                  "qs.gemm_persistent = 4 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[2], q, "bf16", False, m=144, n=176, k=512,
                           chip="sm_100a")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], h.quantizer("nvfp4", columnwise=False),
                           "bf16", True, m=272, n=256, k=256, chip="sm_100a",
                           attrs=["qs.gemm_persistent = 3 : i64"])


def test_gemm_output_quantizer_mxfp8(rng):
    # Row-wise MXFP8 results on sm_100a: the tcgen05 epilogue, whose thread
    # holds 32 consecutive columns of a row per tensor-memory load, rounds
    # them to the nominal type and writes their codes and E8M0 scale (the
    # quantize's cast kernel is not launched). Compact and GEMM-swizzled
    # scales (M and N not multiples of 128: the zeroed padding), E5M2,
    # bias, partial tiles, MXFP8 and NVFP4 operands, persistent blocks,
    # 128x256 tiles; then the plans that keep the quantize kernels (split-K,
    # TMA store, both usages), whose bytes must be the same.
    mx = h.quantizer("mxfp8", columnwise=False)
    swizzled = h.quantizer("mxfp8", columnwise=False, optimize_for_gemm=True)
    e5m2 = h.quantizer("mxfp8", columnwise=False, fp8_dtype="f8E5M2", optimize_for_gemm=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", True, m=224, n=160, k=256,
                           chip="sm_100a")
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], swizzled, "bf16", False, m=224, n=160, k=256,
                           chip="sm_100a")
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], e5m2, "bf16", True, m=160, n=288, k=256,
                           chip="sm_100a", attrs=["qs.gemm_persistent = 3 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[2], swizzled, "bf16", True, m=288, n=320,
                           k=256, chip="sm_100a", attrs=["qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], swizzled, "bf16", True, m=224, n=160,
                           k=512, chip="sm_100a", attrs=["qs.gemm_split_k = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", False, m=224, n=160,
                           k=256, chip="sm_100a", attrs=['qs.gemm_epilogue = "tma"'])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], h.quantizer("mxfp8"), "bf16", True,
                           m=224, n=160, k=256, chip="sm_100a")


def test_gemm_output_quantizer_fp8_block(rng):
    # Row-wise FP8 1x128 results on sm_100a: the epilogue reads each
    # block's four 32-column chunks of tensor memory twice, for the block's
    # amax, then for its codes (FP32 scale_inv written with the first).
    # Power-of-two and exact scales, bias, partial tiles (M), 128x256
    # tiles, persistent, per-tensor and MXFP8 operands; then N = 160 (not
    # whole blocks: the quantize kernels).
    q = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False)
    exact = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False,
                        force_pow_2_scales=False, fp8_dtype="f8E5M2")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=256, k=256,
                           chip="sm_100a")
    check_output_quantizer(rng, "mxfp8", LAYOUTS[2], exact, "bf16", False, m=160, n=384, k=256,
                           chip="sm_100a", attrs=["qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], exact, "f32", True, m=272, n=256,
                           k=256, chip="sm_100a", attrs=["qs.gemm_persistent = 3 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=160, k=256,
                           chip="sm_100a")


def test_gemm_output_quantizer_mxfp8_sm90(rng):
    # Row-wise MXFP8 results on sm_90a: a block's 32 columns of a row are
    # spread over a quad of threads, so each consumer warpgroup stages its
    # rows in the nominal type (128 bytes of columns at a time, as the
    # TMA-store epilogue does), then each thread reads one block back and
    # writes its codes and E8M0 scale. Per-tensor operands (128x128
    # tiles, bias, partial tiles in M and N), MXFP8 operands (128x64),
    # 128x256 tiles with an NN layout and swizzled scales, FP32 (one block
    # per staged row) and f16 results, NVFP4 operands in persistent
    # multicast pairs, ping-pong consumers and 128x192 tiles (an odd
    # number of staged chunks).
    mx = h.quantizer("mxfp8", columnwise=False)
    swizzled = h.quantizer("mxfp8", columnwise=False, optimize_for_gemm=True)
    e5m2 = h.quantizer("mxfp8", columnwise=False, fp8_dtype="f8E5M2", optimize_for_gemm=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", True, m=224, n=160, k=256)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], swizzled, "bf16", False, m=224, n=160, k=256)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[2], swizzled, "bf16", True, m=288, n=320,
                           k=256, attrs=["qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], mx, "f32", False, m=160, n=192, k=384)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[1], e5m2, "f16", True, m=224, n=96, k=256)
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], e5m2, "bf16", True, m=288, n=288, k=256,
                           attrs=["qs.gemm_persistent = 3 : i64", "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], swizzled, "bf16", True, m=416, n=288,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", False, m=160, n=416, k=256,
                           attrs=["qs.gemm_tile_n = 192 : i64"])


def test_gemm_output_quantizer_mxfp8_columnwise_sm90(rng):
    # MXFP8 results with column-wise usage (TE's default: both usages) on
    # sm_90a: after the staged chunk's row-wise blocks, each thread reads
    # one column's 32 staged rows back (32 x 1 block) and writes its E8M0
    # scale and its 32 codes in the result's own layout. Both usages with
    # compact scales (bias, partial tiles in M and N); column-wise only
    # with swizzled scales (MXFP8 operands, 128x64 tiles, padding zeroed);
    # FP32 results (32-column chunks); E5M2 f16 results with swizzled
    # scales (NN); 128x256 tiles in persistent multicast pairs; then
    # ping-pong consumers, which keep the quantize kernels for column-wise
    # blocks (their registers would spill), with the same bytes.
    both = h.quantizer("mxfp8")
    columns = h.quantizer("mxfp8", rowwise=False, optimize_for_gemm=True)
    e5m2 = h.quantizer("mxfp8", fp8_dtype="f8E5M2", optimize_for_gemm=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=224, n=160,
                           k=256)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], columns, "bf16", False, m=224, n=160, k=256)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], both, "f32", True, m=160, n=192, k=384)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[1], e5m2, "f16", False, m=224, n=96,
                           k=256)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[2], columns, "bf16", True, m=288, n=512,
                           k=256, attrs=["qs.gemm_tile_n = 256 : i64",
                                         "qs.gemm_persistent = 3 : i64",
                                         "qs.gemm_cluster = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], e5m2, "f16", True, m=416, n=288,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)


def test_gemm_output_quantizer_mxfp8_columnwise_sm100(rng):
    # MXFP8 results with column-wise usage on sm_100a: a column's 32 rows
    # are the 32 lanes of an epilogue warp, so each warp stages its rows in
    # the nominal type (the TMA-store epilogue's buffers: in the ring, or
    # after it when persistent), then its lanes read the row-wise and the
    # column-wise blocks back. Both usages with compact scales (bias,
    # partial tiles); column-wise only with swizzled scales, persistent;
    # FP32 results; E5M2 with 128x256 tiles (NT); NVFP4 operands; then
    # split-K and the TMA store, which keep the quantize kernels.
    both = h.quantizer("mxfp8")
    columns = h.quantizer("mxfp8", rowwise=False, optimize_for_gemm=True)
    e5m2 = h.quantizer("mxfp8", fp8_dtype="f8E5M2", optimize_for_gemm=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=224, n=160,
                           k=256, chip="sm_100a")
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], columns, "bf16", False, m=288, n=160,
                           k=256, chip="sm_100a", attrs=["qs.gemm_persistent = 3 : i64"])
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], both, "f32", True, m=160, n=192, k=384,
                           chip="sm_100a")
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[2], e5m2, "f16", True, m=288, n=320,
                           k=256, chip="sm_100a", attrs=["qs.gemm_tile_n = 256 : i64"])
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], both, "bf16", False, m=160, n=288, k=256,
                           chip="sm_100a")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=224, n=160,
                           k=512, chip="sm_100a", attrs=["qs.gemm_split_k = 2 : i64"])
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], columns, "bf16", False, m=224, n=160,
                           k=256, chip="sm_100a", attrs=['qs.gemm_epilogue = "tma"'])


def test_gemm_output_quantizer_fp8_block_sm90(rng):
    # Row-wise FP8 1x128 results on sm_90a: each consumer stages 128
    # columns of its rows (both staging buffers of 64 bf16 / f16 columns),
    # then threads 0-63 read a row's block back twice (amax, then the codes
    # 32 at a time). Per-tensor (128x128 with bias; fast 128x256 in
    # persistent multicast pairs; ping-pong), FP8 block and NVFP4 operands,
    # MXFP8 operands in 128x128 tiles; power-of-two and exact E5M2 scales;
    # then the plans that keep the quantize kernels (FP32 result: a block
    # is four staged chunks; MXFP8's default 128x64 tiles; 128x192).
    q = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False)
    exact = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False,
                        force_pow_2_scales=False, fp8_dtype="f8E5M2")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=384, k=256)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], exact, "f16", False, m=160, n=256,
                           k=384)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[2], q, "bf16", True, m=160, n=256, k=256,
                           attrs=["qs.gemm_tile_n = 128 : i64"])
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], exact, "bf16", False, m=272, n=512,
                           k=256, attrs=["qs.gemm_tile_n = 256 : i64",
                                         "qs.gemm_persistent = 3 : i64",
                                         "qs.gemm_cluster = 2 : i64"],
                           fast_accumulate=True)
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], q, "bf16", True, m=144, n=384, k=256)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], exact, "bf16", True, m=400, n=384,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], q, "f32", False, m=144, n=256, k=256)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], q, "bf16", False, m=160, n=256, k=256)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[0], q, "bf16", False, m=144, n=384, k=256,
                           attrs=["qs.gemm_tile_n = 192 : i64"])


def test_gemm_output_quantizer_fp8_block_columnwise_sm90(rng):
    # FP8 1x128 results with column-wise usage on sm_90a (TE's default for
    # 1-D block scaling: both usages; the column-wise data is transposed,
    # [N, M], in 1 x 128 blocks along M): a column's block is the 128 rows
    # of both consumers, so the consumers stage each pass of 128 columns
    # and meet at a 256-thread barrier; threads 64-127 of each read one
    # column's 128 values back (amax, FP32 scale_inv, then 16 codes per
    # 16-byte store into the transpose) while threads 0-63 read the row
    # blocks. Both usages (power-of-two scales, bias, partial tiles in M
    # and N); column-wise only with exact E5M2 scales (f16, FP8 block
    # operands, NN); fast 128x256 tiles in persistent multicast pairs
    # (whose padding tile past M has no blocks); NVFP4 operands; then the
    # plans that keep the quantize kernels
    # (M not a multiple of 16, ping-pong consumers), same bytes; sm_100a
    # (fused too: test_gemm_output_quantizer_fp8_block_columnwise_sm100).
    both = h.quantizer("fp8_block", block_scaling_dim=1)
    columns = h.quantizer("fp8_block", block_scaling_dim=1, rowwise=False,
                          force_pow_2_scales=False, fp8_dtype="f8E5M2")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=208, n=384,
                           k=256)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], columns, "f16", False, m=160, n=256,
                           k=384)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], both, "bf16", False, m=272, n=512,
                           k=256, attrs=["qs.gemm_tile_n = 256 : i64",
                                         "qs.gemm_persistent = 3 : i64",
                                         "qs.gemm_cluster = 2 : i64"],
                           fast_accumulate=True)
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], both, "bf16", True, m=144, n=384, k=256)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=200, n=256,
                           k=256)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], columns, "bf16", True, m=400, n=384,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64",
                                         'qs.gemm_schedule = "pingpong"'],
                           fast_accumulate=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=208, n=256,
                           k=256, chip="sm_100a")


def test_gemm_output_quantizer_fp8_block_columnwise_sm100(rng):
    # FP8 1x128 results with column-wise usage on sm_100a: a column's 128
    # rows are the four epilogue warps' 32 each, so every warp stages a
    # pass (both of its buffers: 128 columns of the nominal type) and the
    # four meet at a 128-thread barrier before and after their fills; then
    # lane l of warp w reads its row's 1x128 block and column 32 w + l's
    # 128 x 1 block (amax, FP32 scale_inv, codes transposed, 16 per
    # 16-byte store). Both usages (power-of-two scales, bias, partial
    # tiles in M); column-wise only with exact E5M2 scales (f16, MXFP8
    # operands, NN); persistent blocks (a pass's barriers across units);
    # 128x256 tiles with FP8 block operands (NT); NVFP4 operands; then the
    # plans that keep the quantize kernels (an FP32 result, whose pass
    # would need four buffers; M not a multiple of 16), same bytes.
    both = h.quantizer("fp8_block", block_scaling_dim=1)
    columns = h.quantizer("fp8_block", block_scaling_dim=1, rowwise=False,
                          force_pow_2_scales=False, fp8_dtype="f8E5M2")
    sm100 = dict(chip="sm_100a")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=208, n=384,
                           k=256, **sm100)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[1], columns, "f16", False, m=160, n=256,
                           k=384, **sm100)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], both, "bf16", True, m=400, n=256,
                           k=256, attrs=["qs.gemm_persistent = 3 : i64"], **sm100)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[2], both, "bf16", False, m=272, n=512,
                           k=256, attrs=["qs.gemm_tile_n = 256 : i64"], **sm100)
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], both, "bf16", True, m=144, n=384, k=256,
                           **sm100)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "f32", True, m=208, n=256,
                           k=256, **sm100)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=200, n=256,
                           k=256, **sm100)


def test_gemm_output_quantizer_block_split_k(rng):
    # Block-scaled results of a split-K GEMM: the reduction kernel
    # (qs_gemm_split_k_reduce_blocks) sums the planes of a 32 x 128 tile
    # (128 x 128 with FP8 128 x 1 column blocks), stages the values rounded
    # to the nominal type in shared memory, then takes each row block's and
    # column block's amax, scale and codes. MXFP8 both usages (bias,
    # partial tiles in M and N, 3 splits), row-wise with swizzled E5M2
    # scales from an FP32 product; FP8 1x128 both usages (M not a multiple
    # of 128), column-wise only with exact E5M2 scales (f16, NN), row-wise
    # of an FP32 product; sm_100a MXFP8 and FP8 1x128 both usages; the
    # plan that keeps the quantize kernels (FP8 128 x 1 blocks of an FP32
    # product), same bytes; split-K "auto".
    mx = h.quantizer("mxfp8")
    e5m2 = h.quantizer("mxfp8", columnwise=False, fp8_dtype="f8E5M2", optimize_for_gemm=True)
    both = h.quantizer("fp8_block", block_scaling_dim=1)
    rows = h.quantizer("fp8_block", block_scaling_dim=1, columnwise=False)
    columns = h.quantizer("fp8_block", block_scaling_dim=1, rowwise=False,
                          force_pow_2_scales=False, fp8_dtype="f8E5M2")
    split2, split3 = ["qs.gemm_split_k = 2 : i64"], ["qs.gemm_split_k = 3 : i64"]
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", True, m=224, n=160,
                           k=384, attrs=split3)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], e5m2, "f32", False, m=160, n=192,
                           k=384, attrs=split2)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=208, n=384,
                           k=512, attrs=split2)
    check_output_quantizer(rng, "fp8_block", LAYOUTS[1], columns, "f16", False, m=160, n=256,
                           k=384, attrs=split2)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], rows, "f32", True, m=160, n=256, k=256,
                           attrs=split2)
    check_output_quantizer(rng, "mxfp8", LAYOUTS[0], mx, "bf16", True, m=224, n=160, k=512,
                           attrs=split2, chip="sm_100a")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=208, n=256,
                           k=512, attrs=split2, chip="sm_100a")
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "f32", True, m=208, n=256,
                           k=256, attrs=split2)
    # Split-K "auto" (8 splits here; it leaves stream-K out for a block
    # quantizer).
    auto = ['qs.gemm_split_k = "auto"']
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], mx, "bf16", True, m=160, n=160,
                           k=2048, attrs=auto)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], both, "bf16", True, m=144, n=256,
                           k=2048, attrs=auto)


def test_gemm_output_quantizer_rows_past_m(rng):
    # The last tile row's rows past M (M = 144: 16 of 128 inside) compute
    # bias-only values that no amax may count: the epilogue's running
    # max|D| (delayed scaling's amax update, current scaling's and NVFP4's
    # global amax) and the 128x1 column blocks' amax (sm_90a FP8 1x128,
    # column-wise). dominant_bias makes every such value larger than
    # anything inside D, so counting them changes the amax, the scales and
    # the codes. Delayed scaling with its transpose (sm_90a), with the TMA
    # store; current scaling; FP8 1x128 with both usages; then sm_100a
    # (last: QS_KERNELS=cuda skips the rest of the test there): delayed
    # scaling, NVFP4 persistent, FP8 1x128 with both usages. Without the
    # masks each case fails.
    tma = 'qs.gemm_epilogue = "tma"'
    delayed = h.quantizer("fp8_delayed")
    shape = dict(m=144, n=256, k=256, dominant_bias=True)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], delayed, "bf16", True, **shape)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], delayed, "bf16", True, attrs=[tma],
                           **shape)
    check_output_quantizer(rng, "fp8_delayed", LAYOUTS[0], h.quantizer("fp8_current"), "bf16",
                           True, **shape)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0],
                           h.quantizer("fp8_block", block_scaling_dim=1), "bf16", True, **shape)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0], delayed, "bf16", True,
                           chip="sm_100a", **shape)
    check_output_quantizer(rng, "nvfp4", LAYOUTS[0], h.quantizer("nvfp4", columnwise=False),
                           "bf16", True, chip="sm_100a", attrs=["qs.gemm_persistent = 2 : i64"],
                           **shape)
    check_output_quantizer(rng, "fp8_current", LAYOUTS[0],
                           h.quantizer("fp8_block", block_scaling_dim=1), "bf16", True,
                           chip="sm_100a", **shape)


def check_product_amax(rng, family, layout, qout, nominal, bias, m, n, k, chip=None, attrs=(),
                       dominant_bias=False, uses="amax"):
    """The GEMM's product returned beside (uses "amax") its qs.amax and the
    quantize given that amax, or ("quantize") its quantize
    (gm.output_quantizer_case's product_uses): the amax equals the
    reference's max |D| of the product as returned, the quantize equals the
    numpy quantization of the product with that amax."""
    if chip and h.KERNELS == "cuda":
        pytest.skip("QS_KERNELS=cuda compiles for the device's own chip")
    c = gm.output_quantizer_case(rng, family, layout, qout, nominal, bias, m, n, k, chip, attrs,
                                 tensor_cores=h.KERNELS == "cuda", dominant_bias=dominant_bias,
                                 product_uses=uses)
    given = uses == "amax"
    outs = h.run(c.module, "gemm", c.inputs, 1 + given + len(c.names))
    d = h.from_npy(outs[0], c.product)
    bad = ~(np.abs(d.astype(np.float64) - c.want) <= c.tol)
    assert not bad.any(), f"{c.label} product: {bad.sum()} of {bad.size} outside the bound"
    stored = d.astype(np.float32)
    amax = np.array([ref.amax(stored)], np.float32)
    if given:
        h.assert_bytes_equal(outs[1], amax, f"{c.label}: qs.amax")
    with np.errstate(all="ignore"):
        expected, _ = ref.quantize(stored, qout, c.product, chip_tn_only=chip != "sm_100a",
                                   global_amax=amax[0])
    for (buf, value), got in zip(expected.items(), outs[1 + given:]):
        region = ref.valid_region(buf, c.want.shape, qout)
        h.assert_bytes_equal(np.asarray(got)[region], np.asarray(value)[region], f"{c.label}: {buf}")


def test_gemm_product_amax(rng):
    # qs.amax of a GEMM's product (TE's amax reduction of a GEMM output,
    # then its quantize given the reduced amax), and a quantize of a
    # product that has another use: the pass that writes D takes max |D|
    # (no amax kernel reads D back) while D stays a result. Both usages
    # with bias; the split-K reduction kernel (f16, E5M2); stream-K with
    # the TMA store; rows past M computing larger bias-only values
    # (dominant_bias: counting them changes the amax); sm_100a and NVFP4
    # (persistent); then the quantize of a kept product (current scaling
    # both usages, NVFP4 on sm_100a with 4over6).
    q = h.quantizer("fp8_current")
    check_product_amax(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=144, k=256)
    check_product_amax(rng, "fp8_delayed", LAYOUTS[1],
                       h.quantizer("fp8_current", fp8_dtype="f8E5M2", columnwise=False),
                       "f16", False, m=144, n=256, k=376, attrs=["qs.gemm_split_k = 2 : i64"])
    check_product_amax(rng, "fp8_current", LAYOUTS[0], h.quantizer("fp8_current", columnwise=False),
                       "bf16", True, m=272, n=256, k=640,
                       attrs=['qs.gemm_epilogue = "tma"', 'qs.gemm_split_k = "stream"',
                              "qs.gemm_persistent = 4 : i64"])
    check_product_amax(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=144, n=256, k=256,
                       dominant_bias=True)
    check_product_amax(rng, "fp8_current", LAYOUTS[2], q, "bf16", False, m=144, n=176, k=512,
                       chip="sm_100a")
    check_product_amax(rng, "nvfp4", LAYOUTS[0], h.quantizer("nvfp4", columnwise=False), "bf16",
                       True, m=272, n=256, k=256, chip="sm_100a",
                       attrs=["qs.gemm_persistent = 3 : i64"])
    check_product_amax(rng, "fp8_current", LAYOUTS[0], q, "bf16", True, m=208, n=144, k=256,
                       uses="quantize")
    check_product_amax(rng, "fp8_current", LAYOUTS[0],
                       h.quantizer("nvfp4", nvfp4_use_4over6=True, nvfp4_e4m3_max=256), "bf16",
                       True, m=160, n=256, k=256, chip="sm_100a", uses="quantize")


def test_gemm_product_quantize_stochastic(rng):
    # A kept product's NVFP4 quantize with stochastic rounding: lowered as
    # given the amax the GEMM took, with its rng state; its bytes equal
    # those of a quantize (in a module of its own) of the product the run
    # returned, with the same state (the reference lowering's under
    # QS_KERNELS=reference).
    q0, q = h.quantizer("nvfp4"), h.quantizer("nvfp4", stochastic_rounding=True)
    for chip in ("sm_100a", "sm_90a"):
        if h.KERNELS == "cuda":
            pytest.skip("QS_KERNELS=cuda compiles for the device's own chip")
        c = gm.output_quantizer_case(rng, "fp8_current", LAYOUTS[0], q0, "bf16", True, 128, 256,
                                     256, chip=chip, product_uses="quantize")
        t0, t = h.qtype((128, 256), "bf16", q0), h.qtype((128, 256), "bf16", q)
        module = (c.module.replace(t0, t)
                  .replace("qs.quantize %d :", "qs.quantize %d rng(%s : tensor<2xi64>) :")
                  .replace("%bias: tensor<256xbf16>)", "%bias: tensor<256xbf16>, %s: tensor<2xi64>)"))
        state = np.array([1234, 64], np.int64)
        outs = h.run(module, "gemm", c.inputs + [state], 1 + len(c.names))
        alone = f"""module attributes {{qs.chip = "{chip}"}} {{
func.func @q(%d: tensor<128x256xbf16>, %s: tensor<2xi64>) -> {t} {{
  %h = qs.quantize %d rng(%s : tensor<2xi64>) : tensor<128x256xbf16> -> {t}
  return %h : {t}
}}
}}"""
        want = h.run(alone, "q", [outs[0], state], len(c.names))
        for name, got, w in zip(c.names, outs[1:], want):
            h.assert_bytes_equal(got, w, f"{chip} {name}")
