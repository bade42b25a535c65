#!/usr/bin/env python3
"""Prepares, on the build machine, everything the GPU machine needs to check
and time the generated kernels without MLIR or LLVM there (it has no
libMLIR, and nothing can be installed on it): launch plans
(qs-run --export-cuda-plan: buffers, launches, copies, the cubin/fatbin) and,
for the correctness cases, the inputs and the bytes the independent numpy
reference expects. scripts/device-run.py replays it all on the device.

  scripts/device_bundle.py OUT_DIR [--chip sm_90a] [--bench-sizes 4096,8192,16384]
                           [--gemm-bench 8192x8192x8192,...]

OUT_DIR is emptied first if it holds an earlier bundle (check/ and bench/
only); any other non-empty directory is an error. OUT_DIR.tar.gz, the
bundle packed, is what travels to the device (scripts/device-check.sh
unpacks it there); it must stay under --limit-mib (61).

Layout: OUT_DIR/check/<case>/{plan.json,kernels.bin,module.mlir,in*.npy,[want*.npy],[ref*.npy],case.json}
        (GEMM checks carry no want*.npy: device-run.py recomputes the
        expected values and their bound from the inputs; linear-* checks
        from the files case.json's "references" names, ref*.npy those
        that are neither an input nor a want; <case>: <nnn> quantize, am
        qs.amax, bg qs.bias_grad, su qs.amax_and_scale_update, ew the
        element-wise kernels of qs-elementwise-to-gpu, dq
        dequantize, uu update_usage, gemm/gemmq GEMMs, linear-* layers)
        OUT_DIR/bench/<family>-<usage>-<n>/{plan.json,kernels.bin,case.json}
          (usage uu: an update_usage creating the column-wise representation;
          dq: a dequantize to bf16; bg: a qs.bias_grad; ew: an element-wise
          kernel, bf16 in and out)
        OUT_DIR/bench/gemm-<m>x<n>x<k>[-<schedule>...]/{plan.json,kernels.bin,case.json}"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import ml_dtypes
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "numerics"))
import elementwise_cases as ew  # noqa: E402
import harness as h  # noqa: E402
import qs_reference as ref  # noqa: E402
from gemm_cases import LAYOUTS, gemm_case, gemm_reference, output_quantizer_case  # noqa: E402
from linear_cases import FAMILIES as LINEAR_FAMILIES, SMALL_SHAPE as LINEAR_SHAPE, linear_case  # noqa: E402

QS_RUN = os.path.join(ROOT, "build", "bin", "qs-run")
QS_OPT = os.path.join(ROOT, "build", "bin", "qs-opt")

# (family, params, shape, nominal) for the bit-exact checks: every family and
# usage, aligned and unaligned shapes, bf16 and f32 inputs.
CHECKS = []
for family, params, shapes in [
        ("fp8_current", {}, [(256, 512), (3, 40, 72)]),
        ("fp8_current", dict(fp8_dtype="f8E5M2", force_pow_2_scales=True), [(64, 96)]),
        ("mxfp8", {}, [(256, 512), (2, 32, 96)]),
        ("mxfp8", dict(optimize_for_gemm=True), [(160, 192)]),
        ("fp8_block", dict(block_scaling_dim=1), [(256, 384), (300, 200)]),
        ("nvfp4", {}, [(256, 512), (48, 80)]),
        ("nvfp4", dict(optimize_for_gemm=True), [(144, 160)])]:
    for shape in shapes:
        for usage, flags in [("both", {}), ("row", dict(columnwise=False)),
                             ("col", dict(rowwise=False))]:
            for nominal in ("bf16", "f32"):
                # f32 inputs of the large aligned shapes with both usages
                # only (the bundle travels: 64 MiB with the tree; f32 x
                # one usage runs at the small shapes).
                if nominal == "f32" and usage != "both" and len(shapes) > 1 and shape == shapes[0]:
                    continue
                CHECKS.append((family, {**params, **flags}, shape, nominal, usage))
# The options' kernels: 128x128 FP8 blocks (bf16; f32 in dynamic shared
# memory), 2-D MXFP8 and NVFP4, RHT, row-scaled NVFP4, f16 input.
for family, params, shape, nominal, usage in [
        ("fp8_block", {}, (256, 384), "bf16", "both"),
        ("fp8_block", dict(columnwise=False), (256, 384), "bf16", "row"),
        ("fp8_block", dict(rowwise=False), (300, 200), "bf16", "col"),
        ("fp8_block", {}, (300, 200), "f32", "both"),
        ("fp8_block", dict(rowwise=False), (256, 384), "f32", "col"),
        ("mxfp8", dict(with_2d_quantization=True), (64, 96), "bf16", "both"),
        ("nvfp4", dict(with_2d_quantization=True), (64, 96), "bf16", "both"),
        ("nvfp4", dict(with_rht=True), (64, 128), "bf16", "both"),
        ("nvfp4", dict(row_scaled_nvfp4=True), (32, 48), "bf16", "both"),
        ("fp8_current", {}, (64, 128), "f16", "both"),
        # Stochastic rounding: the rng state is a second input.
        ("nvfp4", dict(stochastic_rounding=True), (256, 512), "bf16", "both"),
        ("nvfp4", dict(stochastic_rounding=True, with_rht=True), (64, 128), "bf16", "both"),
        ("nvfp4", dict(stochastic_rounding=True, with_2d_quantization=True), (64, 96), "f32",
         "both"),
        # RHT with 16x16 tiles (column-wise tile scales from the transformed
        # values; since 2026-12-04), partial 64x64 tiles; and with SR.
        ("nvfp4", dict(with_rht=True, with_2d_quantization=True), (208, 176), "bf16", "both"),
        ("nvfp4", dict(stochastic_rounding=True, with_rht=True, with_2d_quantization=True),
         (64, 96), "bf16", "both"),
        # The unsigned transform H16 / 4 (with_random_sign_mask=False).
        ("nvfp4", dict(with_rht=True, with_random_sign_mask=False), (128, 192), "bf16",
         "both"),
        # 4over6 (since 2026-12-04): 1x16 blocks (MAE, E = 448), 16x16 tiles
        # (MSE, E = 256; the error phase, partial 64x64 tiles), row-scaled.
        ("nvfp4", dict(nvfp4_use_4over6=True), (256, 512), "bf16", "both"),
        ("nvfp4", dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256, nvfp4_4over6_err_mode="MSE",
                       with_2d_quantization=True), (208, 176), "bf16", "both"),
        ("nvfp4", dict(nvfp4_use_4over6=True, row_scaled_nvfp4=True), (32, 48), "f32",
         "both")]:
    CHECKS.append((family, params, shape, nominal, usage))
# 4over6 on values without specials (since 2026-12-06): the kernels divide
# by 6 and 6E without div.rn while the operands lie in [2^-64, 2^64]
# (ConstantDivision.h), which inputs holding infinities or 3e38 (a global
# amax that puts every sf G outside) hardly reach; regions scaled by
# 2^-80..2^-62 put blocks on both sides of the bound. The sixth element:
# h.random_input's options.
for params, shape in [(dict(nvfp4_use_4over6=True), (256, 512)),
                      (dict(nvfp4_use_4over6=True, nvfp4_e4m3_max=256,
                            nvfp4_4over6_err_mode="MSE", with_2d_quantization=True),
                       (208, 176))]:
    for data in (dict(specials=False), dict(specials=False, exponents=(-80, -62))):
        CHECKS.append(("nvfp4", params, shape, "bf16", "both", data))
# 2-D blocks with both usages, the column-wise codes transposed from the
# row-wise ones by byte permutes (2026-12-06): NVFP4 16x16 in partial
# tiles both ways (FP8 128x128 above: 256x384 bf16, 300x200 f32).
CHECKS.append(("nvfp4", dict(with_2d_quantization=True), (208, 176), "bf16", "both"))
# Current scaling and NVFP4 given their global amax (TE's amax reduction,
# since 2026-12-07: the init kernel copies it, no amax kernel): params'
# "given_amax" is the given amax as a multiple of the input's own.
CHECKS += [("fp8_current", dict(given_amax=2.5), (256, 512), "bf16", "both",
            dict(specials=False)),
           ("fp8_current", dict(given_amax=0.25, fp8_dtype="f8E5M2"), (3, 40, 72), "f32", "both",
            dict(specials=False)),
           ("nvfp4", dict(given_amax=3.0), (256, 512), "bf16", "both", dict(specials=False)),
           ("nvfp4", dict(given_amax=0.5, with_2d_quantization=True), (208, 176), "bf16", "both",
            dict(specials=False)),
           # NVFP4 with RHT given both amaxes (max |x|, max |RHT(x^T)|;
           # 2026-12-07): a pair of factors.
           ("nvfp4", dict(given_amax=(2.0, 0.5), with_rht=True), (256, 512), "bf16", "both",
            dict(specials=False))]
# f16 input converted by cvt.f32.f16 (2026-12-06; the emulation decodes it
# in software; per-tensor f16 above): MXFP8, FP8 1x128's column-pair tile,
# NVFP4 rounded to nearest and stochastically.
CHECKS += [("mxfp8", {}, (2, 32, 96), "f16", "both"),
           ("fp8_block", dict(block_scaling_dim=1, rowwise=False), (300, 200), "f16", "col"),
           ("nvfp4", {}, (48, 80), "f16", "both"),
           ("nvfp4", dict(stochastic_rounding=True), (64, 128), "f16", "both")]


# Quantize bench plans (family label, usage) also built with
# qs.quantize_stores = "direct" at the largest size: the kernels whose
# stores the coalesced default (2026-12-04) changed, and those with both
# usages whose column-wise codes are the row-wise ones transposed (2-D and
# per-tensor, 2026-12-06; "direct" encodes each usage on its own).
DIRECT_STORES_BENCH = {("mxfp8", "row"), ("mxfp8", "both"), ("mxfp8_swizzled", "row"),
                       ("fp8_block_1x128", "row"), ("fp8_block_1x128", "both"),
                       ("fp8_current", "col"), ("fp8_current", "both"),
                       ("fp8_delayed", "col"), ("fp8_delayed", "both"),
                       ("nvfp4", "col"), ("nvfp4_rht", "col"),
                       ("fp8_block_128x128", "both"), ("nvfp4_16x16", "both")}

# (family, params, shape) for dequantize: reference inner tensors in.
# qs.amax (2026-12-07): the quantize's own amax kernels alone, into a
# tensor<1xf32> (max |x|) or with RHT a tensor<2xf32> (max |x|,
# max |RHT(x^T)|), on finite inputs (distinct amaxes) and on inputs with
# specials (NaN ignored, infinities kept). The fifth element:
# h.random_input's options.
AMAX_CHECKS = [("fp8_current", {}, (256, 512), "bf16", dict(specials=False)),
               ("fp8_current", {}, (3, 40, 72), "f32", {}),
               ("nvfp4", dict(with_rht=True), (256, 512), "bf16", dict(specials=False)),
               ("nvfp4", dict(with_rht=True, with_2d_quantization=True, rowwise=False),
                (208, 176), "bf16", {})]

# qs.bias_grad (input shape, input type, result type, random_input
# options[, (family, params) of a quantize of the same input before it]):
# the reference's column sums in the op's order, bit for bit; with a
# quantize (TE's bgrad_quantize) its cast kernel writes the chunk sums, and
# its inner tensors are checked too.
BIAS_GRAD_CHECKS = [((512, 1024), "bf16", "bf16", dict(specials=False)),
                    ((2048, 192), "bf16", "f32", dict(specials=False)),
                    ((3, 100, 56), "f16", "f16", {}),
                    ((300, 33), "f32", "bf16", {}),
                    ((512, 1024), "bf16", "bf16", dict(specials=False), ("mxfp8", {})),
                    ((300, 200), "bf16", "bf16", {},
                     ("fp8_block", dict(block_scaling_dim=1))),
                    ((256, 512), "bf16", "f32", {}, ("nvfp4", dict(with_rht=True)))]

# qs.amax_and_scale_update (history length, fp8 "e4m3"/"e5m2", margin,
# algo, given amax or None, special values in the history): the
# reference's rolled history and scale, bit for bit.
SCALE_UPDATE_CHECKS = [(1024, "e4m3", 0, "max", 2.5, False),
                       (1500, "e5m2", 1, "max", None, True),
                       (16, "e4m3", -2, "most_recent", 0.0, True)]

DEQUANTIZE_CHECKS = [
    ("fp8_current", {}, (256, 512)), ("fp8_current", dict(rowwise=False), (3, 40, 72)),
    ("mxfp8", {}, (256, 512)), ("mxfp8", dict(rowwise=False, optimize_for_gemm=True), (160, 192)),
    ("fp8_block", dict(block_scaling_dim=1), (300, 200)),
    ("fp8_block", dict(block_scaling_dim=1, rowwise=False), (2, 70, 130)),
    ("nvfp4", {}, (256, 512)),
    # E5M2 codes decoded by cvt.rn.f16x2.e5m2x2 (16-code chunks of rows,
    # since 2026-12-06).
    ("fp8_current", dict(fp8_dtype="f8E5M2"), (64, 96)),
    # bf16 and f16 outputs by cvt.rn.bf16x2.f32 / cvt.rn.f16x2.f32 and the
    # NaN fix-up (KernelEnv::packFromF32Pair, since 2026-12-06), compared
    # bytewise with the reference's NaN (bf16 0x7FC0, f16 0x7E00); a fourth
    # item is the output type (f32 if absent), a fifth makes the inputs
    # h.code_sweep's with that factor: every code byte, NaN and zero block
    # scales, outputs that overflow f16 or are subnormal.
    ("nvfp4", {}, (256, 512), "bf16"), ("nvfp4", {}, (256, 512), "f16"),
    ("fp8_current", {}, (256, 512), "bf16"), ("mxfp8", {}, (256, 512), "f16"),
    ("nvfp4", {}, (32, 512), "f32", 3e5), ("nvfp4", {}, (32, 512), "bf16", 3e5),
    ("nvfp4", {}, (32, 512), "f16", 1e-36), ("fp8_current", {}, (32, 512), "f16", 300.0),
    ("fp8_current", {}, (32, 512), "bf16", 1e-40),
    ("fp8_current", dict(fp8_dtype="f8E5M2"), (32, 512), "f16", 3.0),
    # The column-wise representation (codes read per element) to bf16 pairs.
    ("mxfp8", dict(rowwise=False, optimize_for_gemm=True), (160, 192), "bf16"),
]

# update_usage creating column-wise from row-wise (the reference's row-wise
# inner tensors in, every inner tensor of the result compared bytewise).
UPDATE_USAGE_CHECKS = [
    ("fp8_current", {}, (256, 512)), ("fp8_current", {}, (3, 40, 72)),
    ("fp8_block", dict(block_scaling_dim=2), (300, 200)),
    ("nvfp4", dict(with_2d_quantization=True), (256, 512)),
    ("nvfp4", dict(with_2d_quantization=True, optimize_for_gemm=True), (144, 160)),
]


# (family, layout, out, m, n, k, bias, accumulate, tile_n[, persistent,
# cluster, schedule, fast, epilogue, split_k]) for the GEMM checks (within the bound of
# gemm_cases.py): every layout, edges in M, N and K, the shared-memory ring
# wrapping, E4M3 x E5M2. Per-tensor FP8 without fast_accumulate promotes
# each k-tile into FP32 (128-wide tiles by default, -t256 checks in two
# promoted chunks); with it (`fast`, last field; ping-pong needs it) the
# tensor core sums all of K in
# its own precision (about 14 bits on Hopper), so those checks use
# integer-valued operands (gemm_cases.py `integers`) whose partial sums
# are exact in it: the FP32 bound still holds. Every bound adds the slack
# of Hopper's 13-bit FP8 accumulation between promotions
# (gemm_cases.tensor_core_slack; docs/Numerics.md).
FAST = (None, None, None, True)
GEMM_CHECKS = [("fp8_current", layout, out, *shape, bias, acc, tile, *extra)
               for layout in range(3)
               for out, shape, bias, acc, tile, extra in [
                   ("bf16", (256, 320, 256), False, False, None, ()),
                   ("f32", (304, 208, 1040 if layout == 0 else 400), True, True, None, ()),
                   ("f16", (144, 656, 304), True, False, 256, FAST)]]
GEMM_CHECKS += [("fp8_delayed", layout, "bf16", 256, 320, 256, True, False, None)
                for layout in range(3)]
GEMM_CHECKS += [("fp8_block", layout, out, *shape, bias, acc, None)
                for layout in range(3)
                for out, shape, bias, acc in [
                    ("bf16", (256, 320, 256), False, False),
                    ("f32", (304, 208, 1040 if layout == 0 else 400), True, True)]]
# NVFP4 (converted to f16 in shared memory): RHT x and dY, 16x16 w, every
# layout; K = 1056 ends with two 16-blocks in its last k-tile.
GEMM_CHECKS += [("nvfp4", layout, out, *shape, bias, acc, None)
                for layout in range(3)
                for out, shape, bias, acc in [
                    ("bf16", (256, 320, 256), False, False),
                    ("f32", (320, 224, 1056 if layout == 0 else 416), True, True)]]
GEMM_CHECKS += [("nvfp4_row_scaled", layout, "bf16", 256, 320, 256, True, False, None)
                for layout in (0, 2)]
# MXFP8: compact x / dY scales, swizzled w scales; K = 1056 ends with one
# 32-block in its last k-tile; dgrad and wgrad read column-wise (MN-major)
# data, transposed by the conversion to bf16.
GEMM_CHECKS += [("mxfp8", 0, out, *shape, bias, acc, None)
                for out, shape, bias, acc in [
                    ("bf16", (256, 320, 256), False, False),
                    ("f32", (320, 224, 1056), True, True)]]
GEMM_CHECKS += [("mxfp8", 1, "bf16", 224, 1056, 352, True, False, None),
                ("mxfp8", 2, "bf16", 224, 544, 352, True, False, None)]
# Persistent kernels (qs.gemm_persistent, last field): blocks loop over
# up to 6 tiles each, the stage ring wrapping inside and across tiles (the
# barrier phases the emulation cannot check).
GEMM_CHECKS += [("fp8_current", 0, "bf16", 384, 384, 400, True, False, None, 5),
                ("fp8_current", 1, "bf16", 384, 512, 400, False, False, 256, 1, None, None, True),
                ("fp8_block", 0, "bf16", 512, 384, 656, False, False, None, 3),
                ("mxfp8", 1, "bf16", 256, 512, 416, True, False, None, 3),
                ("nvfp4", 0, "bf16", 512, 384, 544, False, False, None, 3)]
# Pairs of blocks multicasting B (qs.gemm_cluster, last field): 3 tile rows
# (the last pair's second block past M), 9 k-tiles (N 256 since
# 2026-12-03, 384 before: room for the block-output checks); 256-wide tiles.
GEMM_CHECKS += [("fp8_current", 0, "bf16", 384, 256, 1040, True, False, None, None, 2),
                ("fp8_current", 0, "f32", 256, 512, 256, False, False, 256, None, 2, None, True)]
# ... also persistent: 5 -> 4 blocks (2 pairs) over 12 tiles (5 tile rows,
# the last pair row's second half past M; 2 tile columns), 3 tiles of 4
# k-tiles each (the 6-stage ring wraps).
GEMM_CHECKS += [("fp8_current", 0, "bf16", 640, 256, 400, True, False, None, 5, 2)]
# Block-scaled pairs (each consumer frees every stage in its k-loop, in
# both blocks): FP8 block and MXFP8 alone, NVFP4 persistent (3 -> 2 blocks).
GEMM_CHECKS += [("fp8_block", 0, "bf16", 384, 256, 656, False, False, None, None, 2),
                ("mxfp8", 0, "bf16", 384, 192, 512, True, False, None, None, 2),
                ("nvfp4", 0, "bf16", 384, 256, 544, False, False, None, 3, 2)]
# Ping-pong consumers (qs.gemm_schedule = "pingpong", last field): 5
# persistent blocks over 9 tiles (consumer 0 of every block, consumer 1 of
# four), 4 k-tiles each; a dgrad with f32 out; with multicast pairs (5 -> 4
# blocks over 12 tiles). Ping-pong needs fast_accumulate.
GEMM_CHECKS += [("fp8_current", 0, "bf16", 320, 384, 400, True, False, None, 5, None, "pingpong", True),
                ("fp8_current", 1, "f32", 256, 384, 272, False, False, None, 3, None, "pingpong", True),
                ("fp8_current", 0, "bf16", 320, 384, 400, False, False, None, 5, 2, "pingpong", True)]
# fast_accumulate with the default tiles and 9 k-tiles (fprop), integer
# operands: delayed scaling (scale 1) and current scaling (power-of-two
# scales); and the persistent multicast kernel.
GEMM_CHECKS += [("fp8_delayed", 0, "bf16", 256, 320, 1040, True, False, None, None, None, None, True),
                ("fp8_current", 2, "f32", 304, 208, 400, True, True, None, None, None, None, True),
                ("fp8_current", 0, "bf16", 640, 256, 400, True, False, None, 5, 2, None, True)]
# 128x256 tiles without fast_accumulate (names end in -t256): two
# 128-column chunks promoted in turn; a last tile whose second chunk is 16
# columns wide, 4 k-tiles (the last partial) through the 4-stage ring,
# every layout; and persistent multicast pairs (B's halves are the
# promoted chunks; 3 -> 2 blocks over 4 x 2 tiles).
GEMM_CHECKS += [("fp8_current", layout, "bf16", 144, 656, 400, True, False, 256)
                for layout in range(3)]
GEMM_CHECKS += [("fp8_delayed", 2, "f32", 512, 512, 272, False, False, 256, 3, 2)]
# MXFP8 promoted per 32-block (qs.gemm_mx_scaling = "promote", names end
# in -promote) in 128x128 tiles (-t128): each round's two 32-blocks per
# 64-column chunk, promoted in turn; a second tile in N whose second chunk
# is 32 wide; the fprop, the MN-major dgrad (transposing copy), and
# persistent multicast pairs (the wgrad, both operands copied transposed:
# at the end of the list).
P7 = (None, None, None, None, None, None)
GEMM_CHECKS += [("mxfp8", 0, "f32", 320, 224, 1056, True, True, 128, *P7, "promote"),
                ("mxfp8", 1, "bf16", 224, 1056, 352, True, False, 128, *P7, "promote"),
                ("mxfp8", 0, "bf16", 384, 256, 512, True, False, 128, 3, 2, None, None, None,
                 None, "promote")]
# 128x192 tiles (-t192): per-tensor split (two 96-column chunks; a last
# tile whose second chunk is past N) and fast; FP8 block with
# 128x128-block B (chunks straddling two B blocks), fprop, dgrad
# persistent (3 blocks over 6 tiles), and fprop
# persistent in multicast pairs (halves of 96 rows; 2 blocks over 3 tile
# pairs). Small shapes: the bundle is near its size limit.
GEMM_CHECKS += [("fp8_current", 0, "bf16", 144, 464, 400, True, False, 192),
                ("fp8_current", 0, "bf16", 256, 464, 400, True, False, 192, None, None, None, True),
                ("fp8_block", 0, "f32", 144, 464, 656, True, False, 192),
                ("fp8_block", 1, "bf16", 256, 464, 384, False, False, 192, 3),
                ("fp8_block", 0, "bf16", 256, 464, 384, False, False, 192, 3, 2)]
# The TMA-store epilogue (qs.gemm_epilogue = "tma", names end in -tma):
# boxes clipped at D's edges in rows and columns, bias and accumulate;
# FP8 block dgrad persistent (staging buffers reused across tiles), MXFP8
# persistent in multicast pairs (64-wide tiles: one store chunk), NVFP4
# wgrad with f32 out (4 chunks), ping-pong consumers (one block, each
# consumer storing both halves of its tile). Small shapes: the bundle's
# size limit.
GEMM_CHECKS += [("fp8_current", 0, "bf16", 144, 208, 272, True, True, None,
                 None, None, None, None, "tma"),
                ("fp8_block", 1, "f32", 144, 208, 256, True, False, None, 3, None, None, None,
                 "tma"),
                ("mxfp8", 0, "bf16", 160, 96, 128, False, True, None, 2, 2, None, None, "tma"),
                ("nvfp4", 2, "f32", 160, 224, 128, False, False, None, None, None, None, None,
                 "tma"),
                ("fp8_current", 0, "bf16", 256, 128, 144, True, False, None, 1, None,
                 "pingpong", True, "tma")]

# Split-K (qs.gemm_split_k, last field; names end in -sk<S>): FP32
# partial planes and the reduction kernel; "<S>f" (names -sk<S>f): summed
# by each tile's last unit instead (qs.gemm_split_k_reduce = "fused": the
# multicast, ping-pong and NVFP4 cases, and a 16-way split of one tile). Per-tensor fprop with 3 k-tiles
# (the last partial) in 3 ranges, bias and accumulate; fast in persistent
# multicast pairs (3 -> 2 blocks over 2 splits x 2 tiles) and ping-pong (3
# blocks over 4 splits of one tile: one block's consumers take one unit
# each); FP8 block dgrad, MXFP8 and NVFP4 fprop. Small shapes: the
# bundle's size limit.
SK = (None, None, None, None, None)
GEMM_CHECKS += [("fp8_current", 0, "bf16", 128, 64, 272, True, True, None, *SK, 3),
                ("fp8_current", 0, "bf16", 256, 32, 256, True, False, None, 3, 2, None, True,
                 None, "2f"),
                ("fp8_current", 0, "bf16", 128, 32, 512, False, False, None, 3, None,
                 "pingpong", True, None, "4f"),
                ("fp8_block", 1, "f32", 128, 256, 64, True, False, None, *SK, 2),
                ("mxfp8", 0, "bf16", 96, 64, 256, True, False, None, *SK, 2),
                ("nvfp4", 0, "bf16", 96, 64, 256, False, True, None, *SK, "2f"),
                # One output tile in 16 units of one k-tile each: 16 blocks
                # counting on one counter at once (the fused reduction's
                # atomics and fences under contention).
                ("fp8_current", 0, "bf16", 32, 64, 2048, True, False, None, *SK, "16f")]
# Stream-K (qs.gemm_split_k = "stream", last field; persistent grids of 3:
# two tiles' k-tiles cut into three ranges, each tile shared by two
# blocks): per-tensor split accumulator with bias and accumulate, FP8 block
# dgrad (MN-major B through the transposing copy), NVFP4; and one tile
# over 8 blocks of one k-tile each (8 contributors on one counter, more
# than GemmPlan::kUnrolledStreamKPlanes: the summing loop). Small shapes:
# the bundle's size limit.
GEMM_CHECKS += [("fp8_current", 0, "bf16", 128, 144, 384, True, True, None, 3, None, None,
                 None, None, "stream"),
                ("fp8_block", 1, "bf16", 128, 144, 384, False, False, None, 3, None, None,
                 None, None, "stream"),
                ("nvfp4", 0, "bf16", 96, 144, 512, True, False, None, 3, None, None, None,
                 None, "stream"),
                ("fp8_current", 0, "bf16", 32, 64, 1024, True, False, None, 8, None, None,
                 None, None, "stream")]
# NVFP4 4over6 operands (gemm_cases.py "nvfp4_4over6": E = 256 x and dY,
# 2-D MSE w with E = 448): alpha from each operand's amax / 6E; fprop and
# wgrad.
GEMM_CHECKS += [("nvfp4_4over6", layout, "bf16", 256, 320, 256, True, False, None)
                for layout in (0, 2)]
# MXFP8 wgrad promoted per 32-block (qs.gemm_mx_scaling = "promote"): both
# MN-major operands copied transposed as FP8 (by default they are
# converted to bf16: the MXFP8 wgrad check further up).
GEMM_CHECKS += [("mxfp8", 2, "bf16", 224, 544, 352, True, False, None, *P7, "promote")]
# MXFP8 dequantized to bf16 by pre-pass kernels (qs.gemm_mx_scaling =
# "dequantize", names end in -dequantize), then the per-tensor kernel's
# skeleton on 64-element bf16 k-tiles: fprop with bias and C (K ending
# inside a k-tile), dgrad (the MN-major w transposed by its pre-pass) in
# 128x256 tiles, wgrad persistent multicast pairs (both transposed).
GEMM_CHECKS += [("mxfp8", 0, "f32", 320, 224, 1056, True, True, None, *P7, "dequantize"),
                ("mxfp8", 1, "bf16", 224, 1056, 352, True, False, 256, *P7, "dequantize"),
                ("mxfp8", 2, "bf16", 384, 256, 512, True, False, None, 3, 2, None, None, None,
                 None, "dequantize")]
# ... and NVFP4 (f16, amax / 6E as the per-tensor scale_inv): fprop with
# bias and C, wgrad of 4over6 operands in 128x256 tiles.
GEMM_CHECKS += [("nvfp4", 0, "bf16", 320, 224, 1056, True, True, None, *P7, "dequantize"),
                ("nvfp4_4over6", 2, "bf16", 256, 320, 256, True, False, 256, *P7,
                 "dequantize")]
# Multicast pairs (one block per tile) with the TMA-store epilogue:
# per-tensor fast in 128x256 tiles (each block's staged half-tiles stored
# while its partner's loads of B still land in its stages) and FP8 block
# (since 2026-12-06, beside the bench plans `-mc2-tma`).
GEMM_CHECKS += [("fp8_current", 0, "bf16", 256, 512, 384, True, False, 256, None, 2, None, True,
                 "tma"),
                ("fp8_block", 0, "bf16", 384, 256, 512, False, False, None, None, 2, None, None,
                 "tma")]

# GEMMs with an output quantizer (gemm_cases.py output_quantizer_case):
# each module returns the product (FP32 for #qs.fp8_delayed, else bf16; its
# max and mean |value| checked) and the quantized result, whose data,
# scale_inv (and updated amax) device-run.py derives from that same run's
# product. (operand family, layout, output quantizer params, "family"
# defaulting to fp8_delayed, m, n, k, bias, module attributes): the
# epilogue quantizing (one block per tile, E4M3 with both usages: the
# transpose staged and read back, since 2026-12-03; persistent multicast
# pairs, E5M2, row-wise) and a #qs.fp8_current result with both usages (the GEMM
# takes the amax for the quantize kernels, which write the transpose too;
# until 2026-12-02 a delayed dgrad with a transpose, GEMM into FP32 + the
# quantize kernels, which the f32 quantize checks cover). Small (partial
# tiles in M and N): the bundle's size is limited. Then block-scaled
# results the sm_90a epilogue quantizes from its staged rows (2026-12-03):
# MXFP8 with both usages (row and column blocks) and FP8 1x128 rows (since
# 2026-12-03 with both usages: 128 x 1 column blocks, transposed), in
# shapes without scale padding (M, N multiples of 128), two 128x128 tiles.
OUTPUT_QUANTIZER_CHECKS = [
    ("fp8_current", 0, dict(), 144, 160, 128, True, ()),
    ("fp8_delayed", 0, dict(fp8_dtype="f8E5M2", columnwise=False), 160, 144, 128, True,
     ("qs.gemm_persistent = 3 : i64", "qs.gemm_cluster = 2 : i64")),
    ("fp8_current", 1, dict(family="fp8_current"), 64, 144, 128, False, ()),
    ("fp8_current", 0, dict(family="mxfp8"), 128, 256, 128, True, ()),
    ("fp8_current", 0, dict(family="fp8_block", block_scaling_dim=1),
     128, 256, 128, True, ("qs.gemm_tile_n = 128 : i64",))]
# Since 2026-12-03 (the bundle had room again): the other kernels that
# quantize D, as test_gemm_output_quantizer.py runs them (an optional last
# field: output_quantizer_case's fast_accumulate / dominant_bias). The
# transpose under the TMA store (E5M2), ping-pong consumers (fast), in
# persistent multicast pairs (wgrad) and 128x256 tiles (dgrad); the
# quantizing split-K reduction kernel (N = 136: groups of 4), the fused
# reduction (each tile's last unit), stream-K under the TMA store; rows
# past M with a bias that dominates (M = 144: an amax or a code from rows
# past M would show); current scaling's amax taken in the split-K
# reduction and in the stream-K TMA-store epilogue; block-scaled results
# in 128x256 persistent tiles (MXFP8 rows; FP8 1x128 both usages in
# multicast pairs) and from block-scaled operands (FP8 block -> FP8 1x128,
# MXFP8 -> MXFP8, NVFP4 -> MXFP8).
# The bundled Linear layers (examples/linear_*.mlir, every recipe; since
# 2026-12-07), forward and backward as two checks each, at
# linear_cases.SMALL_SHAPE, 128 x 384 x 256, instead of the examples' 256
# x 1024 x 512 (a fifth of the bytes: the bundle's size is limited):
# quantize and GEMM kernels in one plan.
_TMA, _PP = 'qs.gemm_epilogue = "tma"', 'qs.gemm_schedule = "pingpong"'
_T256, _MC2 = "qs.gemm_tile_n = 256 : i64", "qs.gemm_cluster = 2 : i64"
_STREAM, _FUSED = 'qs.gemm_split_k = "stream"', 'qs.gemm_split_k_reduce = "fused"'


def _pers(n):
    return f"qs.gemm_persistent = {n} : i64"


def _split(n):
    return f"qs.gemm_split_k = {n} : i64"


OUTPUT_QUANTIZER_CHECKS += [
    ("fp8_current", 0, dict(fp8_dtype="f8E5M2"), 208, 272, 256, True, (_TMA,)),
    ("fp8_current", 0, dict(), 400, 272, 256, True, (_pers(3), _PP),
     dict(fast_accumulate=True)),
    ("fp8_delayed", 2, dict(), 272, 320, 256, True, (_pers(3), _MC2)),
    ("fp8_delayed", 1, dict(), 144, 528, 384, False, (_T256,)),
    ("fp8_current", 0, dict(columnwise=False), 144, 136, 384, True, (_split(3),)),
    ("fp8_delayed", 1, dict(fp8_dtype="f8E5M2", columnwise=False), 208, 144, 384, False,
     (_split(2), _FUSED)),
    ("fp8_current", 0, dict(columnwise=False), 272, 256, 640, True, (_TMA, _STREAM, _pers(4))),
    ("fp8_current", 0, dict(), 144, 256, 256, True, (), dict(dominant_bias=True)),
    ("fp8_delayed", 1, dict(family="fp8_current", fp8_dtype="f8E5M2", columnwise=False),
     144, 256, 376, False, (_split(2),)),
    ("fp8_current", 0, dict(family="fp8_current", columnwise=False), 272, 256, 640, True,
     (_TMA, _STREAM, _pers(4))),
    ("fp8_current", 0, dict(family="mxfp8", columnwise=False), 256, 512, 128, True,
     (_T256, _pers(2))),
    ("fp8_current", 0, dict(family="fp8_block", block_scaling_dim=1), 256, 512, 128, True,
     (_T256, _pers(2), _MC2)),
    ("fp8_block", 0, dict(family="fp8_block", block_scaling_dim=1), 256, 256, 256, True, ()),
    ("mxfp8", 0, dict(family="mxfp8"), 256, 256, 256, True, ()),
    ("nvfp4", 0, dict(family="mxfp8"), 256, 256, 256, True, ()),
    # The transpose staged by a fused reduction's last unit (dgrad, E5M2)
    # and by stream-K's blocks (since 2026-12-03).
    ("fp8_delayed", 1, dict(fp8_dtype="f8E5M2"), 208, 144, 384, False, (_split(2), _FUSED)),
    ("fp8_current", 0, dict(), 272, 256, 640, True, (_STREAM, _pers(4))),
    # ... and through shared memory by the split-K reduction kernel
    # (qs_gemm_split_k_reduce_transpose: 64 x 64 tiles, partial ones here).
    ("fp8_current", 0, dict(), 144, 144, 384, True, (_split(3),)),
    # ... and by the pass split-K "auto" chooses (16 splits, the reduction
    # kernel).
    ("fp8_current", 0, dict(), 144, 144, 2048, True, ('qs.gemm_split_k = "auto"',)),
    # Block-scaled results of the split-K reduction kernel
    # (qs_gemm_split_k_reduce_blocks): MXFP8 and FP8 1x128 both usages
    # (M and N multiples of 128: device-run's block_results has no scale
    # padding).
    ("fp8_current", 0, dict(family="mxfp8"), 256, 256, 384, True, (_split(3),)),
    ("fp8_current", 0, dict(family="fp8_block", block_scaling_dim=1), 256, 384, 512, True,
     (_split(2),)),
    # One GEMM whose product is a result too (since 2026-12-07;
    # output_quantizer_case's product_uses): beside its qs.amax and the
    # quantize given it (results d, the amax, the quantized tensor; the
    # epilogue takes max |D|, both usages, partial tiles), and beside its
    # quantize (the split-K reduction kernel takes max |D| for it).
    ("fp8_current", 0, dict(family="fp8_current"), 144, 160, 256, True, (),
     dict(product_uses="amax")),
    ("fp8_current", 0, dict(family="fp8_current", columnwise=False), 144, 136, 384, True,
     (_split(3),), dict(product_uses="quantize"))]


def attrs_label(attrs):
    """A check name's suffix for GEMM kernel attributes ("-pmc2": persistent
    multicast pairs, as the first checks were named)."""
    text = " ".join(attrs)
    if re.search(r"gemm_persistent", text) and "gemm_cluster = 2" in text:
        label = "-pmc2"
    else:
        label = "".join(f"-pers{n}" for n in re.findall(r"gemm_persistent = (\d+)", text))
    label += "".join(f"-t{n}" for n in re.findall(r"gemm_tile_n = (\d+)", text)
                     if n != "128")
    label += "-pp" if "pingpong" in text else ""
    label += "-tma" if '"tma"' in text else ""
    label += "".join(f"-sk{n}" for n in re.findall(r"gemm_split_k = (\d+)", text))
    label += "f" if '"fused"' in text else ""
    label += "-skstream" if '"stream"' in text else ""
    label += "-skauto" if '"auto"' in text else ""
    return label


def split_k(split):
    """(S, qs.gemm_split_k_reduce) of a split field: S, "<S>f" (fused), or
    "stream" (stream-K: ("stream", None))."""
    if not split:
        return None, None
    text = str(split)
    if text == "stream":
        return text, None
    return int(text.rstrip("f")), ("fused" if text.endswith("f") else None)

# The bundle travels packed (OUT.tar.gz) with the working tree (64 MiB in
# all): main() fails on an archive larger than this (--limit-mib).
# 61.75: the tree is 1.91 MiB (2026-12-02, with the output quantizer), so
# 0.3 MiB stay free. The full bundle was 61.74 MiB until the GEMM checks
# stopped carrying their float64 expected values and bounds (2026-12-03):
# 31.3 MiB; 34.1 MiB with the 15 output-quantizer checks added then and
# the checks' module.mlir (scripts/bundle-emulate.py).
BUNDLE_LIMIT_MIB = 61.75

# Small-M GEMMs whose 128x128 tiles fill fewer than half of an H200's 132
# multiprocessors (32-64 tiles), each timed by default (which may split,
# since 2026-12-05), with one block per tile (-sk1) and with split-K (the
# count that makes about 128 work units): per-tensor fast (TE's fprop)
# and FP8 block, and on the first shape per-tensor with the split
# accumulator (dgrad / wgrad). (m, n, k), split_k. qs.gemm_split_k =
# "auto"'s model (docs/GPU.md) picks S = 2 and 4 for the last two and no
# split for the first: these rows check it.
SPLIT_K_BENCH = [((256, 4096, 4096), 2), ((128, 8192, 8192), 2), ((128, 4096, 14336), 4)]

# GEMM benchmark shapes (m, n, k): cubes and Llama-style layers at 8192
# tokens (fprop: n = output features, k = input features).
GEMM_BENCH = [(8192, 8192, 8192), (4096, 4096, 4096),
              (8192, 4096, 4096), (8192, 14336, 4096), (8192, 4096, 14336),
              (8192, 28672, 8192), (8192, 8192, 28672)]


def run(args):
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"device_bundle: {' '.join(args)} failed:\n{proc.stderr}")
    return proc.stdout


def export(module_text, directory, chip, fmt):
    """The launch plan of function @f of `module_text`, whose text stays
    in the check cases (module.mlir: scripts/bundle-emulate.py runs it on
    the emulated kernels) and leaves the bench plans."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "module.mlir")
    with open(path, "w") as f:
        f.write(module_text)
    run([QS_RUN, path, "--function=f", f"--export-cuda-plan={directory}",
         f"--chip={chip}", f"--format={fmt}"])
    if os.path.basename(os.path.dirname(os.path.abspath(directory))) != "check":
        os.remove(path)


def fresh_directory(out):
    """Empties OUT (device-run.py replays every case under it: a case left
    from an earlier bundle would run and count as well) if it holds nothing
    but a bundle's check/ and bench/; any other non-empty OUT is an error."""
    if os.path.isdir(out) and os.listdir(out):
        others = sorted(set(os.listdir(out)) - {"check", "bench"})
        if others:
            sys.exit(f"device_bundle: {out} is not empty and not a bundle (it holds "
                     f"{', '.join(others[:3])}{', ...' if len(others) > 3 else ''}): "
                     f"choose another directory")
        shutil.rmtree(out)
    os.makedirs(out)


def ref_inner_types(q, shape, columnwise, chip):
    """[(inner name, tensor type)] of `q` over bf16 `shape` with the
    column-wise usage or without it, from qs-opt's storage description."""
    qt = h.qtype(shape, "bf16", dict(q, columnwise=columnwise))
    text = (f'module attributes {{qs.chip = "{chip}"}} {{\n'
            f"func.func private @f({qt})\n}}\n")
    proc = subprocess.run([QS_OPT, "-", "--qs-describe-storage", "-o", "/dev/null"],
                          input=text, capture_output=True, text=True, check=True)
    found = re.findall(r"^\s+(\w+) : (tensor<[^>]*>)", proc.stderr + proc.stdout, re.M)
    if not found:
        sys.exit(f"device_bundle: no inner tensors described for {qt}:\n{proc.stderr}")
    return found


def unary_module(chip, op, operand, result):
    """A module of `chip` whose @f applies `op` (qs.quantize, qs.dequantize,
    qs.update_usage) to its argument and returns the result."""
    return function_module(chip, f"%a: {operand}", result, f"{op} %a : {operand} -> {result}")


def quantize_module(shape, nominal, q, chip, given_amax=False):
    if q.get("stochastic_rounding"):
        return stochastic_quantize_module(chip, h.ttype(shape, nominal), h.qtype(shape, nominal, q))
    if given_amax:
        return given_amax_module(chip, h.ttype(shape, nominal), h.qtype(shape, nominal, q), q)
    return unary_module(chip, "qs.quantize", h.ttype(shape, nominal), h.qtype(shape, nominal, q))


def amax_type(q):
    return f"tensor<{2 if q.get('with_rht') else 1}xf32>"


def given_amax_module(chip, t, qt, q):
    """@f(x, global amaxes) quantizing with the given amaxes."""
    a = amax_type(q)
    return function_module(chip, f"%x: {t}, %g: {a}", qt,
                           f"qs.quantize %x amax(%g : {a}) : {t} -> {qt}")


def amax_module(chip, t, qt, q):
    """@f(x) returning qs.amax of x."""
    a = amax_type(q)
    return function_module(chip, f"%x: {t}", a, f"qs.amax %x as {qt} : {t} -> {a}")


def function_module(chip, args, result, op):
    """A module on `chip` with @f(args) -> result returning `op`'s result."""
    return (f'module attributes {{qs.chip = "{chip}"}} {{\n'
            f"func.func @f({args}) -> {result} {{\n"
            f"  %r = {op}\n  return %r : {result}\n}}\n}}\n")


def stochastic_quantize_module(chip, t, qt):
    """@f(x, rng state) quantizing with stochastic rounding."""
    return function_module(chip, f"%x: {t}, %rng: tensor<2xi64>", qt,
                           f"qs.quantize %x rng(%rng : tensor<2xi64>) : {t} -> {qt}")


def bias_grad_module(chip, t, r, qt=None):
    """@f(x) returning qs.bias_grad of x (tensor type t, result type r),
    after qs.quantize of x into `qt` (returned first) if given."""
    if not qt:
        return function_module(chip, f"%x: {t}", r, f"qs.bias_grad %x : {t} -> {r}")
    return (f'module attributes {{qs.chip = "{chip}"}} {{\n'
            f"func.func @f(%x: {t}) -> ({qt}, {r}) {{\n"
            f"  %q = qs.quantize %x : {t} -> {qt}\n"
            f"  %d = qs.bias_grad %x : {t} -> {r}\n"
            f"  return %q, %d : {qt}, {r}\n}}\n}}\n")


def scale_update_module(chip, length, fp8, margin, algo, given):
    """@f(history, scale[, amax]) returning qs.amax_and_scale_update's two
    results."""
    hist, sc = f"tensor<{length}xf32>", "tensor<1xf32>"
    dtype = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}[fp8]
    attrs = f'{{fp8_dtype = {dtype}, margin = {margin} : i64, amax_compute_algo = "{algo}"}}'
    amax = " amax(%a : tensor<1xf32>)" if given else ""
    args = f"%h: {hist}, %s: {sc}" + (", %a: tensor<1xf32>" if given else "")
    return (f'module attributes {{qs.chip = "{chip}"}} {{\n'
            f"func.func @f({args}) -> ({hist}, {sc}) {{\n"
            f"  %h2, %s2 = qs.amax_and_scale_update %h, %s{amax} {attrs} : {hist}, {sc}\n"
            f"  return %h2, %s2 : {hist}, {sc}\n}}\n}}\n")


def elementwise_checks(rng):
    """(label, function text, inputs, expected result or None: the CPU
    reference's) of the element-wise checks: a bias add and ReLU (16-byte
    accesses, a broadcast bias, a partial last block), a scaled transposed
    cast to f16 (element-by-element reads, odd shapes), TE's GELU (the
    polynomial tanh)."""
    checks = []
    x = h.random_input(rng, (256, 520), "bf16")
    b = h.random_input(rng, (520,), "bf16", specials=False)
    checks.append(("bias-relu-256x520-bf16", ew.bias_relu((256, 520), "bf16"),
                   [h.to_npy(x, "bf16"), h.to_npy(b, "bf16")],
                   h.to_npy(ew.bias_relu_values(x, b, "bf16"), "bf16")))
    x = h.random_input(rng, (300, 200), "bf16")
    s = np.array([1.75], np.float32)
    checks.append(("transpose-cast-300x200-f16", ew.cast_transpose((300, 200), "f16"),
                   [h.to_npy(x, "bf16"), s],
                   h.to_npy(ew.cast_transpose_values(x, s[0], "f16"), "f16")))
    x = h.random_input(rng, (256, 1024), "bf16", specials=False, exponents=(-4, 3))
    checks.append(("te-gelu-256x1024-bf16", ew.te_gelu((256, 1024)), [h.to_npy(x, "bf16")],
                   None))
    return checks


def write_bench(args, name, text, case):
    """Exports bench plan `name` (module `text`) with its case.json."""
    d = os.path.join(args.out, "bench", name)
    export(text, d, args.chip, args.format)
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--format", default="fatbin")
    parser.add_argument("--bench-sizes", default="4096,8192,16384")
    parser.add_argument("--gemm-bench", default=",".join("x".join(map(str, s)) for s in GEMM_BENCH),
                        help="GEMM bench shapes MxNxK,... (sm_90a; empty: none); the first "
                             "also with each tile width, the first two also FP8 block")
    parser.add_argument("--split-k-bench",
                        default=",".join("x".join(map(str, s)) + f":{k}" for s, k in SPLIT_K_BENCH),
                        help="small-M GEMM bench shapes MxNxK:S,... (sm_90a; empty: none), "
                             "each timed without and with qs.gemm_split_k = S")
    parser.add_argument("--limit-checks", type=int, default=None,
                        help="only the first N checks of each kind (tests; Linear layers: "
                             "the first N recipes, forward and backward)")
    parser.add_argument("--checks", help="only the checks whose names match this regular "
                        "expression (tests)")
    parser.add_argument("--limit-mib", type=float, default=BUNDLE_LIMIT_MIB,
                        help="fail when OUT.tar.gz is larger (default: %(default)s MiB; the "
                             "device tool carries 64 MiB with the working tree)")
    args = parser.parse_args()
    fresh_directory(args.out)
    checks = re.compile(args.checks) if args.checks else None

    def wanted(directory):
        return not checks or checks.search(os.path.basename(directory))
    rng = np.random.default_rng(2026)
    count = 0
    for i, (family, params, shape, nominal, usage, *data) in enumerate(
            CHECKS[:args.limit_checks]):
        d = os.path.join(args.out, "check", f"{i:03d}-{family}-{usage}-{'x'.join(map(str, shape))}-{nominal}"
                         + ("-given-amax" if "given_amax" in params else ""))
        if not wanted(d):
            continue
        factor = params.get("given_amax")
        q = h.quantizer(family, **{k: v for k, v in params.items() if k != "given_amax"})
        x = h.random_input(rng, shape, nominal, **(data[0] if data else {}))
        state = (-2026, 2**40 + i) if q.get("stochastic_rounding") else None
        given = None
        if factor is not None:  # the input's own global amaxes times the factor(s)
            given = (ref.global_amaxes(x, q) * np.asarray(factor, np.float32)).astype(np.float32)
        with np.errstate(all="ignore"):
            expected, _ = ref.quantize(x, q, nominal, chip_tn_only=args.chip != "sm_100a",
                                       rng=state,
                                       global_amax=given if given is None or given.size > 1
                                       else given[0])
        export(quantize_module(shape, nominal, q, args.chip, given is not None), d, args.chip,
               args.format)
        np.save(os.path.join(d, "in0.npy"), h.to_npy(x, nominal))
        if state:
            np.save(os.path.join(d, "in1.npy"), np.array(state, np.int64))
        if given is not None:
            np.save(os.path.join(d, "in1.npy"), given)
        for j, (name, want) in enumerate(expected.items()):
            np.save(os.path.join(d, f"want{j}.npy"), np.ascontiguousarray(want))
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": family, "params": params, "shape": shape, "nominal": nominal,
                       "inputs": 2 if state or given is not None else 1,
                       "results": list(expected)}, f)
        count += 1
    # qs.amax: the input in, the reference's global amaxes out.
    for i, (family, params, shape, nominal, data) in enumerate(AMAX_CHECKS[:args.limit_checks]):
        d = os.path.join(args.out, "check", f"am{i:02d}-{family}-{'x'.join(map(str, shape))}"
                         f"-{nominal}")
        if not wanted(d):
            continue
        q = h.quantizer(family, **params)
        x = h.random_input(rng, shape, nominal, **data)
        with np.errstate(all="ignore"):
            want = ref.global_amaxes(x, q)
        export(amax_module(args.chip, h.ttype(shape, nominal), h.qtype(shape, nominal, q), q),
               d, args.chip, args.format)
        np.save(os.path.join(d, "in0.npy"), h.to_npy(x, nominal))
        np.save(os.path.join(d, "want0.npy"), want)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": family, "params": params, "shape": shape, "nominal": nominal,
                       "inputs": 1, "results": ["amax"]}, f)
        count += 1
    # qs.bias_grad: the gradient in, the reference's sums (rounded) out.
    for i, (shape, nominal, out, data, *fused) in enumerate(
            BIAS_GRAD_CHECKS[:args.limit_checks]):
        d = os.path.join(args.out, "check", f"bg{i:02d}-{'x'.join(map(str, shape))}"
                         f"-{nominal}-{out}" + (f"-{fused[0][0]}" if fused else ""))
        if not wanted(d):
            continue
        x = h.random_input(rng, shape, nominal, **data)
        t, r = h.ttype(shape, nominal), h.ttype((shape[-1],), out)
        wants, names, qt = [], [], None
        if fused:
            q = h.quantizer(fused[0][0], **fused[0][1])
            with np.errstate(all="ignore"):
                bufs, _ = ref.quantize(x, q, nominal, chip_tn_only=args.chip != "sm_100a")
            wants, names = list(bufs.values()), list(bufs)
            qt = h.qtype(shape, nominal, q)
        text = bias_grad_module(args.chip, t, r, qt)
        with np.errstate(all="ignore"):
            wants.append(h.to_npy(ref.bias_grad(x), out))
        names.append("dbias")
        export(text, d, args.chip, args.format)
        np.save(os.path.join(d, "in0.npy"), h.to_npy(x, nominal))
        for j, want in enumerate(wants):
            np.save(os.path.join(d, f"want{j}.npy"), np.ascontiguousarray(want))
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": "bias_grad", "params": {}, "shape": shape, "nominal": nominal,
                       "inputs": 1, "results": names}, f)
        count += 1
    # qs.amax_and_scale_update: history, scale (and amax) in; the
    # reference's rolled history and new scale out.
    for i, (length, fp8, margin, algo, given, specials) in enumerate(
            SCALE_UPDATE_CHECKS[:args.limit_checks]):
        d = os.path.join(args.out, "check", f"su{i:02d}-{length}-{fp8}-{algo}"
                         + ("-given" if given is not None else ""))
        if not wanted(d):
            continue
        history = np.abs(rng.standard_normal(length)).astype(np.float32)
        history *= np.exp2(rng.integers(-20, 20, size=length)).astype(np.float32)
        if specials:
            history[rng.choice(length, size=max(1, length // 10), replace=False)] = rng.choice(
                np.array([np.nan, np.inf, -1.0, 0.0, 1e-45], np.float32), size=max(1, length // 10))
        scale = np.array([rng.uniform(0.5, 4.0)], np.float32)
        inputs = [history, scale] + ([np.array([given], np.float32)] if given is not None else [])
        export(scale_update_module(args.chip, length, fp8, margin, algo, given is not None), d,
               args.chip, args.format)
        for j, value in enumerate(inputs):
            np.save(os.path.join(d, f"in{j}.npy"), value)
        wants = ref.amax_and_scale_update(history, scale, inputs[2] if given is not None else None,
                                          fp8, margin, algo)
        for j, want in enumerate(wants):
            np.save(os.path.join(d, f"want{j}.npy"), want)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": "amax_and_scale_update", "params": {}, "shape": [length],
                       "nominal": "f32", "inputs": len(inputs),
                       "results": ["history", "scale"]}, f)
        count += 1
    # examples/delayed_scaling_recipe.mlir: three updates in one launch.
    d = os.path.join(args.out, "check", f"su{len(SCALE_UPDATE_CHECKS):02d}-recipe-example")
    if wanted(d) and args.limit_checks is None:
        with open(os.path.join(ROOT, "examples", "delayed_scaling_recipe.mlir")) as f:
            lines = f.read().replace("@recipe_step", "@f").splitlines()
        aliases = "\n".join(line for line in lines if line.startswith("!"))
        body = "\n".join(line for line in lines if not line.startswith("!"))
        export(f'{aliases}\nmodule attributes {{qs.chip = "{args.chip}"}} {{\n{body}\n}}\n', d,
               args.chip, args.format)
        inputs, wants = [], []
        for fp8, given in (("e4m3", 3.5), ("e4m3", 0.0), ("e5m2", 1e-3)):
            history = np.abs(rng.standard_normal(1024)).astype(np.float32)
            history *= np.exp2(rng.integers(-20, 20, size=1024)).astype(np.float32)
            scale = np.array([rng.uniform(0.5, 4.0)], np.float32)
            amax = np.array([given], np.float32)
            inputs += [history, scale, amax]
            wants += list(ref.amax_and_scale_update(history, scale, amax, fp8))
        for j, value in enumerate(inputs):
            np.save(os.path.join(d, f"in{j}.npy"), value)
        for j, want in enumerate(wants):
            np.save(os.path.join(d, f"want{j}.npy"), want)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": "amax_and_scale_update", "params": {}, "shape": [1024],
                       "nominal": "f32", "inputs": 9,
                       "results": [f"{name} {what}" for name in ("x", "w", "dy")
                                   for what in ("history", "scale")]}, f)
        count += 1
    # Element-wise kernels (qs-elementwise-to-gpu): the inputs in; out the
    # values numpy computes where the payload is exact IEEE arithmetic,
    # else (TE's GELU: qs-approximate-math's tanh) the CPU reference's
    # bytes (qs-run), which the kernel must reproduce.
    for i, (label, text, inputs, want) in enumerate(elementwise_checks(rng)[:args.limit_checks]):
        d = os.path.join(args.out, "check", f"ew{i:02d}-{label}")
        if not wanted(d):
            continue
        text = ew.module(text, args.chip)
        export(text, d, args.chip, args.format)
        if want is None:
            (want,) = h.run(text, "f", inputs, 1)
        for j, value in enumerate(inputs):
            np.save(os.path.join(d, f"in{j}.npy"), value)
        np.save(os.path.join(d, "want0.npy"), np.ascontiguousarray(want))
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": "elementwise", "params": {}, "shape": list(inputs[0].shape),
                       "nominal": label.rsplit("-", 1)[-1], "inputs": len(inputs),
                       "results": ["y"]}, f)
        count += 1
    # Dequantize: reference inner tensors in, the reference's values out.
    for i, (family, params, shape, *rest) in enumerate(DEQUANTIZE_CHECKS[:args.limit_checks]):
        out = rest[0] if rest else "f32"
        d = os.path.join(args.out, "check", f"dq{i:02d}-{family}-{'x'.join(map(str, shape))}"
                         + ("" if out == "f32" else f"-{out}") + ("-sweep" if len(rest) > 1 else ""))
        if not wanted(d):
            continue
        if len(rest) > 1:
            q, buffers = h.code_sweep(family, shape, rest[1], **params)
        else:
            q = h.quantizer(family, **params)
            x = h.random_input(rng, shape, "bf16")
            with np.errstate(all="ignore"):
                buffers, _ = ref.quantize(x, q, "bf16", scale=np.float32(3.0),
                                          amax_state=np.float32(0))
        with np.errstate(all="ignore"):
            want = ref.dequantize(buffers, shape, q).astype(np.float32)
        if out != "f32":
            # The reference's 16-bit patterns: RNE, overflow to inf, every
            # NaN its quiet NaN.
            dtype, nan = (ml_dtypes.bfloat16, 0x7FC0) if out == "bf16" else (np.float16, 0x7E00)
            with np.errstate(all="ignore"):
                bits = want.astype(dtype).view(np.uint16)
            want = np.where(np.isnan(want), np.uint16(nan), bits).astype(np.uint16)
        text = unary_module(args.chip, "qs.dequantize", h.qtype(shape, "bf16", q),
                            h.ttype(shape, out))
        export(text, d, args.chip, args.format)
        for j, b in enumerate(h.npy_inputs(buffers)):
            np.save(os.path.join(d, f"in{j}.npy"), b)
        np.save(os.path.join(d, "want0.npy"), want)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": family, "params": params, "shape": shape, "nominal": "bf16",
                       "inputs": len(buffers), "results": ["values"],
                       "nan_equal": out == "f32"}, f)
        count += 1
    # update_usage: the reference's row-wise inner tensors in, the
    # reference's inner tensors of both usages out. On sm_100a per-tensor
    # FP8 has no transpose to create.
    for i, (family, params, shape) in enumerate(UPDATE_USAGE_CHECKS[:args.limit_checks]):
        if args.chip == "sm_100a" and family.startswith("fp8_") and family != "fp8_block":
            continue
        d = os.path.join(args.out, "check", f"uu{i:02d}-{family}-{'x'.join(map(str, shape))}")
        if not wanted(d):
            continue
        tn_only = args.chip != "sm_100a"
        row = h.quantizer(family, columnwise=False, **params)
        both = h.quantizer(family, **params)
        x = h.random_input(rng, shape, "bf16")
        with np.errstate(all="ignore"):
            source, _ = ref.quantize(x, row, "bf16", chip_tn_only=tn_only)
            want, _ = ref.quantize(x, both, "bf16", chip_tn_only=tn_only)
        text = unary_module(args.chip, "qs.update_usage", h.qtype(shape, "bf16", row),
                            h.qtype(shape, "bf16", both))
        export(text, d, args.chip, args.format)
        for j, buf in enumerate(h.npy_inputs(source)):
            np.save(os.path.join(d, f"in{j}.npy"), buf)
        for j, (name, w) in enumerate(want.items()):
            np.save(os.path.join(d, f"want{j}.npy"), np.ascontiguousarray(w))
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"family": family, "params": params, "shape": shape, "nominal": "bf16",
                       "inputs": len(source), "results": list(want)}, f)
        count += 1
    # GEMM: reference-quantized operands in, float64 result and bound saved.
    if args.chip == "sm_90a":
        for i, (family, layout, out, m, n, k, bias, acc, tile, *extra) in enumerate(
                GEMM_CHECKS[:args.limit_checks]):
            persistent, cluster, schedule, fast, epilogue, split, mx_scaling = (
                list(extra) + [None] * 7)[:7]
            d = os.path.join(args.out, "check",
                             f"gemm{i:02d}-{family}-{LAYOUTS[layout][0]}-{m}x{n}x{k}-{out}"
                             + ("-fast" if fast else "")
                             + (f"-t{tile}" if tile and not fast else "")
                             + (f"-pers{persistent}" if persistent else "")
                             + (f"-mc{cluster}" if cluster else "")
                             + ("-pp" if schedule == "pingpong" else "")
                             + ("-tma" if epilogue == "tma" else "")
                             + (f"-sk{split}" if split else "")
                             + (f"-{mx_scaling}" if mx_scaling in ("promote", "dequantize")
                                else ""))
            if not wanted(d):
                continue
            case = gemm_case(rng, family, LAYOUTS[layout], out, m=m, n=n, k=k, bias=bias,
                             accumulate=acc, tile_n=tile, chip=args.chip,
                             needed_usage_only=True, persistent=persistent, cluster=cluster,
                             schedule=schedule, fast_accumulate=bool(fast), integers=bool(fast),
                             tensor_cores=True, epilogue=epilogue, split_k=split_k(split)[0],
                             split_k_reduce=split_k(split)[1], mx_scaling=mx_scaling)
            export(case.module.replace("@gemm", "@f"), d, args.chip, args.format)
            for j, x in enumerate(case.inputs):
                np.save(os.path.join(d, f"in{j}.npy"), x)
            # The expected values and their bound are not carried (float64
            # [M, N] each: they took half of the bundle): device-run.py
            # recomputes them from the inputs with gemm_cases.gemm_reference
            # and `reference`, and checks the sums below first (the same
            # numpy reference, or it says that its environment differs).
            with open(os.path.join(d, "case.json"), "w") as f:
                json.dump({"family": family, "layout": LAYOUTS[layout][0], "shape": [m, n, k],
                           "out": out, "inputs": len(case.inputs), "results": ["d"],
                           "bound": True, "reference": case.reference,
                           "want_abs_sum": float(np.abs(case.want).sum()),
                           "tol_sum": float(case.tol.sum())}, f)
            count += 1
    if args.chip == "sm_90a":
        for i, (family, layout, params, m, n, k, bias, attrs, *options) in enumerate(
                OUTPUT_QUANTIZER_CHECKS[:args.limit_checks]):
            options = options[0] if options else {}
            params = dict(params)
            qfamily = params.pop("family", "fp8_delayed")
            delayed = qfamily == "fp8_delayed"
            if qfamily in ("mxfp8", "fp8_block") and (m % 128 or n % 128):
                sys.exit(f"device_bundle: output-quantizer check {i} ({qfamily}, {m}x{n}): M "
                         "and N must be multiples of 128 (device-run.py's block_results "
                         "expects scales without padding)")
            q = h.quantizer(qfamily, **params)
            d = os.path.join(args.out, "check",
                             f"gemmq{i:02d}-{family}-{LAYOUTS[layout][0]}-{m}x{n}x{k}-"
                             + ("e5m2" if q["fp8_dtype"] == "f8E5M2" else "e4m3")
                             + ("" if not q["columnwise"] else "-both")
                             + ("" if delayed else "-" + qfamily.removeprefix("fp8_"))
                             + attrs_label(attrs)
                             + ("-fast" if options.get("fast_accumulate") else "")
                             + ("-dom" if options.get("dominant_bias") else "")
                             + {"amax": "-amax", "quantize": "-kept"}.get(options.get("product_uses"), ""))
            if not wanted(d):
                continue
            case = output_quantizer_case(rng, family, LAYOUTS[layout], q, "bf16", bias, m, n, k,
                                         args.chip, attrs, tensor_cores=True,
                                         needed_usage_only=True, **options)
            export(case.module.replace("@gemm", "@f"), d, args.chip, args.format)
            for j, x in enumerate(case.inputs):
                np.save(os.path.join(d, f"in{j}.npy"), x)
            # The product: its max and mean |value| only (device-run.py
            # derives the quantized bytes from the run's own product).
            magnitude = np.abs(case.want)
            with open(os.path.join(d, "case.json"), "w") as f:
                json.dump({"family": family, "layout": LAYOUTS[layout][0], "shape": [m, n, k],
                           "out": case.product, "inputs": len(case.inputs),
                           "results": ["d", *(["amax"] if options.get("product_uses") == "amax" else []),
                                       *case.names] + (["updated_amax"] if delayed else []),
                           "product": {"shape": list(case.want.shape),
                                       "max_abs": float(magnitude.max()),
                                       "mean_abs": float(magnitude.mean())},
                           "quantized": ({"scale_input": len(case.inputs) - 2,
                                          "state_input": len(case.inputs) - 1,
                                          "fp8": q["fp8_dtype"]} if delayed else
                                         {"current": True, "fp8": q["fp8_dtype"]}
                                         if qfamily == "fp8_current" else
                                         {"blocks": qfamily, "fp8": q["fp8_dtype"],
                                          "rowwise": q["rowwise"],
                                          "columnwise": q["columnwise"]})}, f)
            count += 1
    # Linear layers: byte results as want<j>.npy; each GEMM result's
    # reference spec under "references" with the files of its operands'
    # reference buffers (mostly the check's own inputs or wants).
    for family in LINEAR_FAMILIES[:args.limit_checks]:
        for step in linear_case(rng, family, LINEAR_SHAPE, tensor_cores=args.chip != "sm_100a"):
            d = os.path.join(args.out, "check",
                             f"linear-{family}-{step.function.removeprefix('linear_')}")
            if not wanted(d):
                continue
            export(re.sub(rf"@{step.function}\b", "@f", step.module), d, args.chip, args.format)
            files = []  # (name, array) saved in d

            def save(name, array, reuse=True):
                """The file holding `array`: one saved already, or `name`."""
                for other, saved in files if reuse else []:
                    if (saved.dtype == array.dtype and saved.shape == array.shape
                            and np.array_equal(saved.view(np.uint8), array.view(np.uint8))):
                        return other
                np.save(os.path.join(d, name), array)
                files.append((name, array))
                return name
            for i, x in enumerate(step.inputs):  # every input under its own name
                save(f"in{i}.npy", np.ascontiguousarray(x), reuse=False)
            for j, result in enumerate(step.results):  # the wants first, for reuse
                if result[0] == "bytes":
                    save(f"want{j}.npy", np.ascontiguousarray(result[2]), reuse=False)
            references = {}
            for j, result in enumerate(step.results):
                if result[0] != "gemm":
                    continue
                _, name, spec, operands = result
                want, tol = gemm_reference(spec, operands)
                references[str(j)] = {
                    "reference": spec, "want_abs_sum": float(np.abs(want).sum()),
                    "tol_sum": float(tol.sum()),
                    "operands": [save(f"ref{j}-{n}.npy", np.ascontiguousarray(a))
                                 for n, a in enumerate(operands)]}
            with open(os.path.join(d, "case.json"), "w") as f:
                json.dump({"family": family, "shape": list(LINEAR_SHAPE),
                           "inputs": len(step.inputs), "results": [r[1] for r in step.results],
                           "references": references}, f)
            count += 1
    # Bench plans (no data: the device makes random inputs).
    bench = 0
    shapes = [tuple(map(int, s.split("x"))) for s in args.gemm_bench.split(",") if s]
    split_k_bench = [(tuple(map(int, s.split(":")[0].split("x"))), int(s.split(":")[1]))
                     for s in args.split_k_bench.split(",") if s]
    # (family, shape, tile, layout, persistent, cluster, schedule, fast):
    # per-tensor FP8 on every shape with and without fast_accumulate (TE's
    # fprop uses it; cuBLASLt is timed both ways), the fast kernel also
    # with each tile width.
    P = "fp8_current"
    runs = [(P, shape, None, "TN", None, None, None, fast) for shape in shapes
            for fast in (False, True)]
    runs += [(P, shape, tile, "TN", None, None, None, True) for shape in shapes[:1]
             for tile in (128, 256)]
    # Split accumulation in 128x256 tiles (two promoted 128-column chunks;
    # the default is 128x128), alone and persistent with multicast pairs.
    runs += [(P, shape, 256, "TN", persistent, cluster, None, False) for shape in shapes[:1]
             for persistent, cluster in ((None, None), (132, 2))]
    # 128x192 tiles (two promoted 96-column chunks): per-tensor split and
    # fast, FP8 block; the split and block ones also persistent with
    # multicast pairs.
    runs += [(family, shape, 192, "TN", persistent, cluster, None, fast) for shape in shapes[:1]
             for family, fast in ((P, False), (P, True), ("fp8_block", False))
             for persistent, cluster in ((None, None), (132, 2))
             if not (fast and persistent)]
    runs += [(family, shape, None, "TN", None, None, None, False)
             for family in ("fp8_block", "mxfp8", "nvfp4") for shape in shapes[:2]]
    # MXFP8 dgrad: w's column-wise data is MN-major, converted to bf16 and
    # transposed by the conversion (promoted, copied transposed: below).
    runs += [("mxfp8", shape, None, "NN", None, None, None, False) for shape in shapes[:1]]
    # (MXFP8 in 128x128 tiles: the default of TN and NN, converted to
    # bf16; TN and NN promoted in 128x128 below.)
    # Persistent kernels on 132 blocks (one per H200 multiprocessor).
    runs += [(family, shape, None, "TN", 132, None, None, fast)
             for family, fast in ((P, False), (P, True), ("fp8_block", False))
             for shape in shapes[:1]]
    # Pairs of blocks multicasting B (per-tensor): split (128-wide tiles),
    # fast with both tile widths.
    runs += [(P, shape, tile, "TN", None, 2, None, fast) for shape in shapes[:1]
             for tile, fast in ((None, False), (None, True), (128, True))]
    # ... and persistent (132 blocks: 66 pairs); FP8 block (DeepGEMM's
    # configuration: 128-wide tiles, persistent, B multicast in pairs).
    runs += [(P, shape, None, "TN", 132, 2, None, fast) for shape in shapes[:1]
             for fast in (False, True)]
    runs += [("fp8_block", shape, None, "TN", persistent, 2, None, False) for shape in shapes[:1]
             for persistent in (None, 132)]
    # Ping-pong consumers (per-tensor with fast_accumulate, 128x128 tiles,
    # 132 blocks), alone and with multicast pairs.
    runs += [(P, shape, None, "TN", 132, cluster, "pingpong", True) for shape in shapes[:1]
             for cluster in (None, 2)]
    runs = [run + (None,) for run in runs]
    # The TMA-store epilogue (last field): per-tensor split and fast, split
    # persistent, FP8 block, MXFP8, ping-pong.
    runs += [(family, shape, None, "TN", persistent, None, schedule, fast, "tma")
             for shape in shapes[:1]
             for family, persistent, schedule, fast in (
                 (P, None, None, False), (P, None, None, True), (P, 132, None, False),
                 ("fp8_block", None, None, False), ("mxfp8", None, None, False),
                 (P, 132, "pingpong", True))]
    # The direct epilogue (qs.gemm_epilogue = "direct"): per-tensor split
    # and fast, against their defaults, which are the TMA-store epilogue
    # where the tiles fill the GPU (defaultsToTmaStore, since 2026-12-04).
    runs += [(P, shape, None, "TN", None, None, None, fast, "direct")
             for shape in shapes[:1] for fast in (False, True)]
    # Multicast pairs with the TMA-store epilogue (per-tensor split and
    # fast, FP8 block): the two options that address the mainloop's L2
    # traffic and the epilogue, together (since 2026-12-06; the pairs'
    # remote arrivals lost their GPU-scope fence after the H200 runs).
    runs += [(family, shape, None, "TN", None, 2, None, fast, "tma")
             for shape in shapes[:1]
             for family, fast in ((P, False), (P, True), ("fp8_block", False))]
    runs = [run + (None,) for run in runs]
    # Split-K (last field) on the small-M shapes, their defaults (which
    # split by default where the model gains > 10%, since 2026-12-05) and
    # one block per tile (qs.gemm_split_k = 1, -sk1: what
    # scripts/fit-split-k.py fits the model's unsplit times to); on the
    # first, per-tensor fast also with the fused reduction ("<S>f").
    runs += [(family, shape, None, "TN", None, None, None, fast, None, split)
             for i, (shape, splits) in enumerate(split_k_bench)
             for family, fast in ((P, False), (P, True), ("fp8_block", False))
             for split in (None, 1, splits) + ((f"{splits}f",) if fast and i == 0 else ())
             if fast or family != P or i == 0]
    # Stream-K on 132 blocks (one per H200 multiprocessor; compare with the
    # default, one block per tile): per-tensor fast on the first three
    # shapes, split accumulation on the first two (8192^3: 4096 tiles, 31.03
    # waves, where split-K "auto" picks stream-K; 4096^3: 1024 tiles, 7.76
    # waves, where it does not). Few: each kernel's PTX is about 170 KB
    # (the last block's plane sums loop per output group), and the
    # bundle's size is limited.
    runs += [(family, shape, None, "TN", 132, None, None, fast, None, "stream")
             for i, shape in enumerate(shapes[:3])
             for family, fast in ((P, True), (P, False))
             if fast or i < 2]
    # A #qs.fp8_delayed output quantizer (last field) on the first shape,
    # per-tensor: quantized in the epilogue (default schedule, True) against
    # the unfused baseline ("sep": a GEMM into FP32, returned too, then
    # qs.quantize: the quantize kernels). Since 2026-12-07 a #qs.fp8_current
    # one too ("cur": the GEMM inside the quantize's kernels, taking max |D|
    # in its epilogue, then the cast kernel) and the product kept beside it
    # ("cur-kept": returned too, D written; the GEMM still takes max |D|,
    # the quantize is given it).
    runs = [run + (False,) for run in runs]
    runs += [(P, shape, None, "TN", None, None, None, False, None, None, fp8_out)
             for shape in shapes[:1] for fp8_out in (True, "sep", "cur", "cur-kept")]
    # FP8 block with its scales loaded in the k-tile that uses them
    # (qs.gemm_scale_loads = "in_tile", last field) against the default,
    # which loads them a k-tile ahead (since 2026-12-05), on the first shape.
    runs = [run + (None,) for run in runs]
    runs += [("fp8_block", shape, None, "TN", None, None, None, False, None, None, False,
              "in_tile") for shape in shapes[:1]]
    # The promotion within each k-tile (qs.gemm_promotion = "in_tile",
    # last field: the kernels before 2026-12-05) against the default that
    # overlaps it with the next k-tile's wgmmas (since 2026-12-05), on the
    # first shape: FP8 block (and, with the scales loaded in the k-tile,
    # both ways), per-tensor split accumulation in 128x128 tiles (its
    # default 128x256 tiles promote in two chunks, not overlapped) and
    # MXFP8 (128x64 tiles).
    runs = [run + (None,) for run in runs]
    runs += [(family, shape, tile, "TN", None, None, None, False, None, None, False, loads,
              promotion) for shape in shapes[:1]
             for family, tile, loads, promotion in (
                 ("fp8_block", None, None, "in_tile"), (P, 128, None, None),
                 (P, 128, None, "in_tile"), ("mxfp8", None, None, "in_tile"))]
    # MXFP8 promoted per 32-block (qs.gemm_mx_scaling = "promote", last
    # field) against its default, converted to bf16 (TN since 2026-12-05,
    # NN since the session after): TN on the first two shapes (128x64
    # tiles) and the first (128x128, two promoted 64-column chunks); NN
    # (copied transposed, 128x128 tiles: the plan run 2 timed) on the
    # first.
    runs = [run + (None,) for run in runs]
    runs += [("mxfp8", shape, tile, layout, None, None, None, False, None, None, False, None,
              None, "promote")
             for shape, tile, layout in ([(shape, None, "TN") for shape in shapes[:2]]
                                         + [(shape, tile, layout) for shape in shapes[:1]
                                            for tile, layout in ((128, "TN"), (None, "NN"))])]
    # MXFP8 dequantized to bf16 by pre-pass kernels (qs.gemm_mx_scaling =
    # "dequantize"; the time covers the pre-passes and the GEMM) against
    # the converting kernel: TN on the first two shapes in the default tiles
    # (per-tensor FP8's: 128x256 where they fill the GPU), TN 128x128 and
    # NN on the first.
    runs += [("mxfp8", shape, tile, layout, None, None, None, False, None, None, False, None,
              None, "dequantize")
             for shape, tile, layout in ([(shape, None, "TN") for shape in shapes[:2]]
                                         + [(shape, tile, layout) for shape in shapes[:1]
                                            for tile, layout in ((128, "TN"), (None, "NN"))])]
    # NVFP4 likewise (f16 pre-passes) against its converting kernel: TN on
    # the first two shapes.
    runs += [("nvfp4", shape, None, "TN", None, None, None, False, None, None, False, None,
              None, "dequantize") for shape in shapes[:2]]
    for (family, (m, n, k), tile, layout, persistent, cluster, schedule, fast, epilogue, split,
         fp8_out, scale_loads, promotion, mx_scaling) in (runs if args.chip == "sm_90a" else []):
        if family == "mxfp8" and layout == "NN":  # dy [m, k] x w [k, n]
            qa = f"!qs.tensor<{m}x{k}xbf16, #qs.mxfp8<columnwise = false>>"
            qb = f"!qs.tensor<{k}x{n}xbf16, #qs.mxfp8<rowwise = false, optimize_for_gemm = true>>"
        elif family == "fp8_block":  # 1x128 activations x 128x128 weights
            qa = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>"
            qb = f"!qs.tensor<{n}x{k}xbf16, #qs.fp8_block<columnwise = false>>"
        elif family == "mxfp8":  # swizzled weight scales, as for cuBLASLt
            qa = f"!qs.tensor<{m}x{k}xbf16, #qs.mxfp8<columnwise = false>>"
            qb = f"!qs.tensor<{n}x{k}xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>"
        elif family == "nvfp4":  # TE's weights: 16x16 blocks
            qa = f"!qs.tensor<{m}x{k}xbf16, #qs.nvfp4<columnwise = false>>"
            qb = (f"!qs.tensor<{n}x{k}xbf16, #qs.nvfp4<columnwise = false, "
                  f"with_2d_quantization = true, optimize_for_gemm = true>>")
        else:
            qa = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_current<columnwise = false>>"
            qb = f"!qs.tensor<{n}x{k}xbf16, #qs.fp8_current<columnwise = false>>"
        rt = f"tensor<{m}x{n}xbf16>"
        args_text, names, state = "", "%d", ""
        if fp8_out == "sep":
            # qs.quantize keeps the FP32 product's nominal type.
            pt = f"tensor<{m}x{n}xf32>"
            rt = f"!qs.tensor<{m}x{n}xf32, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>, {pt}"
            args_text = ", %s: tensor<1xf32>, %am: tensor<1xf32>"
        elif fp8_out == "cur":
            rt = f"!qs.tensor<{m}x{n}xbf16, #qs.fp8_current<columnwise = false>>"
        elif fp8_out == "cur-kept":
            pt = f"tensor<{m}x{n}xbf16>"
            rt = f"!qs.tensor<{m}x{n}xbf16, #qs.fp8_current<columnwise = false>>, {pt}"
        elif fp8_out:
            rt = f"!qs.tensor<{m}x{n}xbf16, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>"
            args_text = ", %s: tensor<1xf32>, %am: tensor<1xf32>"
            names = "%d, %am2"
            state = " scale(%s : tensor<1xf32>) amax(%am : tensor<1xf32>)"
        attrs = (f'qs.chip = "{args.chip}"' + (f", qs.gemm_tile_n = {tile} : i64" if tile else "")
                 + (f", qs.gemm_persistent = {persistent} : i64" if persistent else "")
                 + (f", qs.gemm_cluster = {cluster} : i64" if cluster else "")
                 + (f', qs.gemm_schedule = "{schedule}"' if schedule else "")
                 + (f', qs.gemm_epilogue = "{epilogue}"' if epilogue else "")
                 + ((', qs.gemm_split_k = "stream"' if split == "stream" else
                     f", qs.gemm_split_k = {split_k(split)[0]} : i64") if split else "")
                 + (', qs.gemm_split_k_reduce = "fused"' if split_k(split)[1] else "")
                 + (f', qs.gemm_scale_loads = "{scale_loads}"' if scale_loads else "")
                 + (f', qs.gemm_promotion = "{promotion}"' if promotion else "")
                 + (f', qs.gemm_mx_scaling = "{mx_scaling}"' if mx_scaling else ""))
        flags = f"{' transpose_b' if layout == 'TN' else ''}{' fast_accumulate' if fast else ''}"
        if fp8_out == "sep":
            # The product is returned too: as the quantize's only input the
            # GEMM would quantize it itself.
            qt = rt.rsplit(", ", 1)[0]
            body = (f"  %p = qs.gemm %a, %b{flags} : {qa}, {qb} -> {pt}\n"
                    f"  %d, %am2 = qs.quantize %p scale(%s : tensor<1xf32>) "
                    f"amax(%am : tensor<1xf32>) : {pt} -> {qt}\n"
                    f"  return %d, %am2, %p : {rt}\n")
        elif fp8_out == "cur-kept":
            qt = rt.rsplit(", ", 1)[0]
            body = (f"  %p = qs.gemm %a, %b{flags} : {qa}, {qb} -> {pt}\n"
                    f"  %d = qs.quantize %p : {pt} -> {qt}\n"
                    f"  return %d, %p : {rt}\n")
        else:
            body = (f"  {names} = qs.gemm %a, %b{flags}{state} : {qa}, {qb} -> {rt}\n"
                    f"  return {names} : {rt}\n")
        text = (f"module attributes {{{attrs}}} {{\n"
                f"func.func @f(%a: {qa}, %b: {qb}{args_text}) -> ({rt}) {{\n"
                f"{body}}}\n}}\n")
        label = (f"gemm-{m}x{n}x{k}" + ("-fast" if fast else "") + (f"-tile{tile}" if tile else "")
                 + {"fp8_block": "-block", "mxfp8": "-mxfp8", "nvfp4": "-nvfp4"}.get(family, "")
                 + ("" if layout == "TN" else f"-{layout.lower()}")
                 + (f"-pers{persistent}" if persistent else "")
                 + (f"-mc{cluster}" if cluster else "")
                 + ("-pp" if schedule == "pingpong" else "")
                 + ({"tma": "-tma", "direct": "-direct"}.get(epilogue, ""))
                 + (f"-sk{split}" if split else "")
                 + ("-sep" if fp8_out == "sep" else "")
                 + ("-intile" if scale_loads == "in_tile" else "")
                 + ("-serial" if promotion == "in_tile" else "")
                 + (f"-{mx_scaling}" if mx_scaling in ("promote", "dequantize") else "")
                 + ({"cur": "-curout", "cur-kept": "-kept-curout"}.get(fp8_out, "-fp8out")
                    if fp8_out else ""))
        d = os.path.join(args.out, "bench", label)
        export(text, d, args.chip, args.format)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"gemm": [m, n, k], "family": family, "tile_n": tile, "layout": layout,
                       "persistent": persistent, "cluster": cluster, "schedule": schedule,
                       "fast_accumulate": fast, "epilogue": epilogue,
                       "split_k": split_k(split)[0], "split_k_reduce": split_k(split)[1],
                       "output_quantizer": bool(fp8_out), "scale_loads": scale_loads,
                       "promotion": promotion, "mx_scaling": mx_scaling,
                       "separate_quantize": fp8_out == "sep",
                       "current_output": fp8_out in ("cur", "cur-kept"),
                       "kept_product": fp8_out == "cur-kept",
                       "inputs": (6 if family == "nvfp4" else 4)
                       + (2 if fp8_out in (True, "sep") else 0)}, f)
        bench += 1
    sizes = list(map(int, args.bench_sizes.split(","))) if args.bench_sizes else []
    for n in sizes:
        for label, attr in [("fp8_delayed", None), ("fp8_current", "#qs.fp8_current<{}>"),
                            ("mxfp8", "#qs.mxfp8<{}>"),
                            ("mxfp8_swizzled", "#qs.mxfp8<optimize_for_gemm = true{}>"),
                            ("fp8_block_1x128", "#qs.fp8_block<block_scaling_dim = 1{}>"),
                            # TE's weight quantizers of the block recipes.
                            ("fp8_block_128x128", "#qs.fp8_block<{}>"),
                            ("nvfp4", "#qs.nvfp4<{}>"),
                            ("nvfp4_rht", "#qs.nvfp4<with_rht = true, with_post_rht_amax = true{}>"),
                            ("nvfp4_sr", "#qs.nvfp4<stochastic_rounding = true{}>"),
                            ("nvfp4_4over6", "#qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256{}>"),
                            ("nvfp4_16x16", "#qs.nvfp4<with_2d_quantization = true{}>")]:
            for usage, flag in [("row", "columnwise = false"), ("col", "rowwise = false"), ("both", "")]:
                t = f"tensor<{n}x{n}xbf16>"
                if label == "fp8_delayed":
                    qa = "#qs.fp8_delayed<" + flag + ">"
                    qt = f"!qs.tensor<{n}x{n}xbf16, {qa}>"
                    text = (f'module attributes {{qs.chip = "{args.chip}"}} {{\n'
                            f"func.func @f(%x: {t}, %s: tensor<1xf32>, %a: tensor<1xf32>) -> ({qt}, tensor<1xf32>) {{\n"
                            f"  %q, %m = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : {t} -> {qt}, tensor<1xf32>\n"
                            f"  return %q, %m : {qt}, tensor<1xf32>\n}}\n}}\n")
                    inputs = 3
                elif label == "nvfp4_sr":  # the rng state (any bits) is input 1
                    inner = attr.format(", " + flag if flag else "")
                    text = stochastic_quantize_module(args.chip, t, f"!qs.tensor<{n}x{n}xbf16, {inner}>")
                    inputs = 2
                else:
                    inner = attr.format(("" if attr.endswith("<{}>") else ", ") + flag if flag else "")
                    qt = f"!qs.tensor<{n}x{n}xbf16, {inner}>"
                    text = (
                        f'module attributes {{qs.chip = "{args.chip}"}} {{\n'
                        f"func.func @f(%x: {t}) -> {qt} {{\n  %q = qs.quantize %x : {t} -> {qt}\n"
                        f"  return %q : {qt}\n}}\n}}\n")
                    inputs = 1
                # At the largest size, the plans whose stores the coalesced
                # default changed also with qs.quantize_stores = "direct"
                # (family "<label>-direct"): the two timed in one run.
                variants = [(label, text)]
                chip_attr = f'qs.chip = "{args.chip}"'
                if n == max(sizes) and (label, usage) in DIRECT_STORES_BENCH:
                    assert chip_attr in text
                    variants.append((label + "-direct", text.replace(
                        chip_attr, chip_attr + ', qs.quantize_stores = "direct"', 1)))
                for family, module_text in variants:
                    d = os.path.join(args.out, "bench", f"{family}-{usage}-{n}")
                    export(module_text, d, args.chip, args.format)
                    with open(os.path.join(d, "case.json"), "w") as f:
                        json.dump({"family": family, "usage": usage, "n": n, "inputs": inputs}, f)
                    bench += 1
        # update_usage creating the column-wise representation (usage
        # "uu"): the codes in (argument 0, random bits), the created inner
        # tensors out (qs.disassemble returns only those). Per-tensor FP8
        # has no transpose on sm_100a.
        for label, attr, created in [("fp8_transpose", "fp8_current", ["transpose"]),
                                     ("nvfp4_2d", "nvfp4<with_2d_quantization = true{}>",
                                      ["columnwise_data", "columnwise_scale_inv",
                                       "amax_columnwise"])]:
            if label == "fp8_transpose" and args.chip == "sm_100a":
                continue
            row = attr.format(", columnwise = false") if "{}" in attr else attr + "<columnwise = false>"
            both = attr.format("") if "{}" in attr else attr
            qa = f"!qs.tensor<{n}x{n}xbf16, #qs.{row}>"
            qb = f"!qs.tensor<{n}x{n}xbf16, #qs.{both}>"
            q = h.quantizer("nvfp4" if label == "nvfp4_2d" else "fp8_current",
                            **(dict(with_2d_quantization=True) if label == "nvfp4_2d" else {}))
            src = ref_inner_types(q, (n, n), False, args.chip)
            dst = ref_inner_types(q, (n, n), True, args.chip)
            args_text = ", ".join(f"%a{i}: {t}" for i, (_, t) in enumerate(src))
            names = ", ".join(f"%r{i}" for i in range(len(dst)))
            returned = [(f"%r{i}", t) for i, (name, t) in enumerate(dst) if name in created]
            text = (f'module attributes {{qs.chip = "{args.chip}"}} {{\n'
                    f"func.func @f({args_text}) -> ({', '.join(t for _, t in returned)}) {{\n"
                    f"  %q = qs.assemble {', '.join(f'%a{i}' for i in range(len(src)))} : "
                    f"{', '.join(t for _, t in src)} -> {qa}\n"
                    f"  %u = qs.update_usage %q : {qa} -> {qb}\n"
                    f"  {names} = qs.disassemble %u : {qb} -> {', '.join(t for _, t in dst)}\n"
                    f"  return {', '.join(v for v, _ in returned)} : "
                    f"{', '.join(t for _, t in returned)}\n}}\n}}\n")
            d = os.path.join(args.out, "bench", f"{label}-uu-{n}")
            export(text, d, args.chip, args.format)
            with open(os.path.join(d, "case.json"), "w") as f:
                json.dump({"family": label, "usage": "uu", "n": n, "inputs": len(src)}, f)
            bench += 1
        # Dequantize of the row-wise representation to bf16 (usage "dq",
        # since 2026-12-06): the inner tensors in (the codes random bits,
        # the scales whatever the allocation holds: the kernel has no
        # data-dependent branch), the bf16 tensor out; the bytes moved are
        # the codes' and the output's, as for "uu" (scales and amax, up to
        # 1/32 of the codes' bytes, not counted).
        for label, q in [("fp8_current", h.quantizer("fp8_current")),
                         ("mxfp8", h.quantizer("mxfp8")),
                         ("fp8_block_1x128", h.quantizer("fp8_block", block_scaling_dim=1)),
                         ("nvfp4", h.quantizer("nvfp4"))]:
            src = ref_inner_types(q, (n, n), False, args.chip)
            text = unary_module(args.chip, "qs.dequantize",
                                h.qtype((n, n), "bf16", dict(q, columnwise=False)),
                                h.ttype((n, n), "bf16"))
            d = os.path.join(args.out, "bench", f"{label}-dq-{n}")
            export(text, d, args.chip, args.format)
            with open(os.path.join(d, "case.json"), "w") as f:
                json.dump({"family": label, "usage": "dq", "n": n, "inputs": len(src)}, f)
            bench += 1
        # qs.bias_grad of an n x n bf16 gradient (usage "bg"): the bytes
        # moved are the input's and the bf16 result's (the FP32 chunk
        # sums, 1/16 of the input, not counted).
        t, r = h.ttype((n, n), "bf16"), h.ttype((n,), "bf16")
        write_bench(args, f"bias_grad-bg-{n}", bias_grad_module(args.chip, t, r),
                    {"family": "bias_grad", "usage": "bg", "n": n, "inputs": 1})
        # The same with an MXFP8 quantize (both usages) of the input first
        # (family mxfp8+bg): the cast kernel writes the chunk sums, against
        # mxfp8-both plus bias_grad-bg, which read the input twice.
        write_bench(args, f"mxfp8+bg-both-{n}",
                    bias_grad_module(args.chip, t, r, f"!qs.tensor<{n}x{n}xbf16, #qs.mxfp8<>>"),
                    {"family": "mxfp8+bg", "usage": "both", "n": n, "inputs": 1})
        bench += 2
        # Element-wise kernels (usage "ew"): TE's GELU and a bias add + ReLU
        # of an n x n bf16 tensor into bf16, against the copy's bandwidth
        # (each element read and written once; the bias, n elements, is
        # neither filled nor counted).
        for label, text in (("gelu", ew.te_gelu((n, n))),
                            ("relu", ew.bias_relu((n, n), "bf16"))):
            write_bench(args, f"{label}-ew-{n}", ew.module(text, args.chip),
                        {"family": label, "usage": "ew", "n": n,
                         "inputs": 1 if label == "gelu" else 2})
            bench += 1
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(args.out)
               for f in files) / 2**20
    # What travels: the bundle as one gzip'd tar (random FP8 codes and
    # float32 results compress to about 3/4).
    archive = args.out.rstrip("/") + ".tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(args.out, arcname=".")
    packed = os.path.getsize(archive) / 2**20
    if packed > args.limit_mib:
        sys.exit(f"device_bundle: {archive} is {packed:.1f} MiB, more than {args.limit_mib} MiB "
                 "(the device tool carries at most 64 MiB with the working tree): "
                 "drop or shrink checks")
    print(f"device_bundle: {count} checks, {bench} bench plans in {args.out} ({size:.1f} MiB; "
          f"{archive}: {packed:.1f} MiB, what the device check carries)")


if __name__ == "__main__":
    main()
