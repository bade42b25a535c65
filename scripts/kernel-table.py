#!/usr/bin/env python3
"""Compiles quantize/dequantize of every supported family x usage, and the
GEMM kernels (sm_90a), with qs-nvptx-pipeline (PTX), assembles each kernel
with ptxas -v for each chip, and prints one row per kernel: registers,
static shared memory, spills, and the count of packed FP8 conversions
(quantize) or wgmma instructions (GEMM).

  scripts/kernel-table.py [--chips sm_90a,sm_100a] [--shape 4096x4096]
                          [--check]   # exit 1 on any spill or lost kernel too
                          (a module that does not compile or assemble
                          always exits 1)
  scripts/kernel-table.py --module FILE.mlir   # the kernels of one module
                          (functions, or a module whose attributes set
                          kernel options; compiled with qs.chip set to
                          each chip), and each GEMM's plan
                          (report-gemm-plans)

Used by the demo (README) and by test/NVPTX/ptxas-all-kernels.test."""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import importlib.util

_spec = importlib.util.spec_from_file_location("extract_ptx", os.path.join(ROOT, "scripts", "extract-ptx.py"))
extract_ptx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(extract_ptx)

# (label, quantizer attribute) of every configuration the GPU kernels support.
CASES = [
    ("fp8_delayed", "#qs.fp8_delayed<>"),
    ("fp8_current", "#qs.fp8_current<>"),
    ("fp8_current e5m2", "#qs.fp8_current<fp8_dtype = f8E5M2>"),
    ("mxfp8", "#qs.mxfp8<>"),
    ("mxfp8 swizzled", "#qs.mxfp8<optimize_for_gemm = true>"),
    ("mxfp8 2d", "#qs.mxfp8<with_2d_quantization = true>"),
    ("fp8_block 1x128", "#qs.fp8_block<block_scaling_dim = 1>"),
    ("fp8_block 128x128", "#qs.fp8_block<>"),
    ("nvfp4", "#qs.nvfp4<>"),
    ("nvfp4 swizzled", "#qs.nvfp4<optimize_for_gemm = true>"),
    ("nvfp4 2d", "#qs.nvfp4<with_2d_quantization = true>"),
    ("nvfp4 row-scaled", "#qs.nvfp4<row_scaled_nvfp4 = true>"),
    ("nvfp4 rht", "#qs.nvfp4<with_rht = true, with_post_rht_amax = true>"),
    ("nvfp4 stochastic", "#qs.nvfp4<stochastic_rounding = true>"),
]
USAGES = [("both", ""), ("row", "columnwise = false"), ("col", "rowwise = false")]


def with_usage(attr, usage):
    if not usage:
        return attr
    inner = attr[attr.index("<") + 1:-1]
    return attr[:attr.index("<") + 1] + (inner + ", " if inner else "") + usage + ">"


def module_text(shape, nominal, attr, chip, dequantize):
    t = f"tensor<{shape}x{nominal}>"
    q = f"!qs.tensor<{shape}x{nominal}, {attr}>"
    delayed = "fp8_delayed" in attr
    stochastic = "stochastic_rounding = true" in attr  # takes the rng state
    args = (f"%x: {t}" + (", %s: tensor<1xf32>, %a: tensor<1xf32>" if delayed else "")
            + (", %rng: tensor<2xi64>" if stochastic else ""))
    rng = " rng(%rng : tensor<2xi64>)" if stochastic else ""
    quant = (f"qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : {t} -> {q}, tensor<1xf32>"
             if delayed else f"qs.quantize %x{rng} : {t} -> {q}")
    if dequantize:
        return (f'module attributes {{qs.chip = "{chip}"}} {{\n'
                f"func.func @f(%q: {q}) -> {t} {{\n"
                f"  %y = qs.dequantize %q : {q} -> {t}\n  return %y : {t}\n}}\n}}\n")
    res = f"{q}" + (", tensor<1xf32>" if delayed else "")
    body = f"  %q{':2' if delayed else ''} = {quant}\n"
    ret = "%q#0, %q#1" if delayed else "%q"
    return (f'module attributes {{qs.chip = "{chip}"}} {{\n'
            f"func.func @f({args}) -> ({res}) {{\n{body}  return {ret} : {res}\n}}\n}}\n")


# (operand dtypes, output type, tile width in N) of the GEMM kernels.
# Per-tensor labels with "fast" have fast_accumulate (the tensor core sums
# all of K in one m64n256 per k-step; ping-pong needs it on sm_90a); without it each
# k-tile is promoted into FP32 totals (128-wide tiles by default; 256-wide
# ones promote their two 128-column chunks in turn).
GEMM_CASES = [("e4m3 x e4m3", "bf16", 128), ("e4m3 x e4m3 fast", "bf16", 256),
              ("e5m2 x e4m3", "f32", 128), ("e5m2 x e4m3 fast", "f32", 128),
              ("e4m3 x e4m3 fast", "f16", 256),
              ("e4m3 x e4m3", "bf16", 256), ("e5m2 x e4m3", "f32", 256),
              # 128x192 tiles (qs.gemm_tile_n = 192): two 96-column chunks.
              ("e4m3 x e4m3", "bf16", 192), ("e5m2 x e4m3 fast", "f32", 192),
              ("block 1D x 2D", "bf16", 128), ("block 1D x 1D", "f32", 128),
              ("block 1D x 2D", "bf16", 192),
              # qs.gemm_promotion = "in_tile": each k-tile promoted within
              # its iteration (the 128-wide promoting kernels overlap the
              # promotion with the next k-tile's wgmmas by default).
              ("e4m3 x e4m3 serial", "bf16", 128), ("block 1D x 2D serial", "bf16", 128),
              ("e4m3 x e4m3 persistent serial", "fp8", 128),
              ("mxfp8 promote", "bf16", 64), ("mxfp8 swizzled promote", "f32", 64),
              ("mxfp8 dgrad promote", "bf16", 64), ("mxfp8 wgrad promote", "f32", 64),
              # MXFP8 in 128x128 tiles (qs.gemm_tile_n = 128): two 64-column
              # chunks promoted in turn.
              ("mxfp8 promote", "bf16", 128), ("mxfp8 swizzled promote", "f32", 128),
              ("mxfp8 dgrad", "bf16", 128), ("mxfp8 wgrad", "f32", 128),
              ("nvfp4", "bf16", 128), ("nvfp4 swizzled", "f32", 128),
              # qs.gemm_persistent = 132: blocks loop over tiles.
              ("e4m3 x e4m3 persistent", "bf16", 128), ("e4m3 x e4m3 fast persistent", "bf16", 256),
              ("block 1D x 2D persistent", "bf16", 128), ("e4m3 x e4m3 persistent", "bf16", 192),
              ("mxfp8 dgrad persistent promote", "bf16", 64), ("nvfp4 persistent", "bf16", 128),
              ("mxfp8 persistent promote", "bf16", 64),
              ("mxfp8 swizzled dgrad persistent promote", "bf16", 64),
              ("mxfp8 dgrad persistent", "bf16", 128),
              # qs.gemm_cluster = 2: pairs of blocks multicast B.
              ("e4m3 x e4m3 fast cluster2", "bf16", 256), ("e4m3 x e4m3 cluster2", "f32", 128),
              ("e4m3 x e4m3 fast cluster2 persistent", "bf16", 256),
              ("e4m3 x e4m3 cluster2 persistent", "bf16", 128),
              ("e4m3 x e4m3 cluster2 persistent", "bf16", 256),
              ("block 1D x 2D cluster2", "bf16", 128), ("mxfp8 cluster2 promote", "bf16", 64),
              ("block 1D x 2D cluster2 persistent", "bf16", 192),
              ("e4m3 x e4m3 cluster2 persistent", "bf16", 192),
              ("mxfp8 cluster2 persistent promote", "bf16", 128), ("mxfp8 cluster2 persistent promote", "bf16", 64),
              ("nvfp4 cluster2 persistent", "bf16", 128),
              # qs.gemm_schedule = "pingpong": a 128x128 tile per consumer.
              ("e4m3 x e4m3 fast pingpong", "bf16", 128),
              ("e4m3 x e4m3 fast cluster2 pingpong", "f32", 128),
              # qs.gemm_epilogue = "tma": D staged and stored by TMA.
              ("e4m3 x e4m3 tma", "bf16", 128), ("e4m3 x e4m3 fast tma", "bf16", 256),
              ("e4m3 x e4m3 persistent tma", "f32", 256),
              ("block 1D x 2D tma", "bf16", 128), ("mxfp8 tma promote", "bf16", 64),
              ("mxfp8 dgrad persistent tma promote", "bf16", 64), ("nvfp4 tma", "f32", 128),
              ("e4m3 x e4m3 fast pingpong tma", "bf16", 128),
              ("e4m3 x e4m3 cluster2 persistent tma", "bf16", 192),
              # qs.gemm_split_k = 4: FP32 partial planes, then the
              # reduction kernel.
              ("e4m3 x e4m3 splitk4", "bf16", 128), ("e4m3 x e4m3 fast splitk4", "bf16", 256),
              ("e4m3 x e4m3 cluster2 persistent splitk4", "bf16", 128),
              ("block 1D x 2D splitk4", "bf16", 128), ("mxfp8 splitk4 promote", "bf16", 64),
              ("nvfp4 splitk4", "f32", 128),
              # qs.gemm_split_k_reduce = "fused": each tile's last unit
              # sums the planes in the GEMM kernel.
              ("e4m3 x e4m3 splitk4 fused", "bf16", 128),
              ("e4m3 x e4m3 fast pingpong splitk4 fused", "bf16", 128),
              ("e4m3 x e4m3 cluster2 persistent splitk4 fused", "bf16", 128),
              ("block 1D x 2D splitk4 fused", "bf16", 128),
              ("mxfp8 splitk4 fused promote", "bf16", 64), ("nvfp4 splitk4 fused", "f32", 128),
              # qs.gemm_split_k = "stream": stream-K over the last tiles
              # (1024 tiles over 132 blocks; 256-wide: 512).
              ("e4m3 x e4m3 stream", "bf16", 128), ("e4m3 x e4m3 fast stream", "bf16", 256),
              ("e4m3 x e4m3 stream", "f32", 192), ("block 1D x 2D stream", "bf16", 128),
              ("block 1D x 1D stream", "f32", 128), ("mxfp8 stream promote", "bf16", 64),
              ("mxfp8 dgrad stream promote", "bf16", 64), ("nvfp4 stream", "f32", 128),
              # The TMA-store epilogue with fused split-K and stream-K.
              ("e4m3 x e4m3 tma splitk4 fused", "bf16", 128),
              ("e4m3 x e4m3 fast pingpong tma splitk4 fused", "bf16", 128),
              ("block 1D x 2D tma splitk4 fused", "f32", 128),
              # (stream-K with the TMA store: not MXFP8 nor FP8 block 1D x 1D,
              # which spill; a diagnostic).
              ("e4m3 x e4m3 fast tma stream", "bf16", 256), ("e4m3 x e4m3 tma stream", "f32", 192),
              ("block 1D x 2D tma stream", "bf16", 128), ("nvfp4 tma stream", "bf16", 128),
              ("mxfp8 tma splitk4 fused promote", "bf16", 64),
              # "fp8": a #qs.fp8_delayed result quantized in the epilogue
              # (qs.gemm's fused output quantizer).
              ("e4m3 x e4m3", "fp8", 128), ("e4m3 x e4m3 fast", "fp8", 256),
              ("e5m2 x e4m3 persistent", "fp8", 128),
              ("e4m3 x e4m3 fast cluster2 pingpong", "fp8", 128),
              ("e4m3 x e4m3 cluster2 persistent", "fp8", 256),
              # ... by the split-K reduction kernel, the fused reduction
              # and stream-K's last blocks; staged for the TMA store (FP8
              # codes, 2 bytes per st.shared); a promoting persistent
              # 128x256 kernel with the TMA store does not fuse (it would
              # spill): FP32, then the quantize kernels.
              ("e4m3 x e4m3 splitk4", "fp8", 128), ("e4m3 x e4m3 splitk4 fused", "fp8", 128),
              ("e4m3 x e4m3 fast stream", "fp8", 256), ("e4m3 x e4m3 tma", "fp8", 128),
              ("e4m3 x e4m3 fast cluster2 persistent tma", "fp8", 256),
              ("e4m3 x e4m3 fast tma stream", "fp8", 256),
              ("e4m3 x e4m3 tma splitk4 fused", "fp8", 256),
              ("e4m3 x e4m3 cluster2 persistent tma", "fp8", 256),
              # "fp8t": the same with both usages: each consumer stages
              # its codes and reads rows and the transpose back (with the
              # TMA store: the transpose only).
              ("e4m3 x e4m3", "fp8t", 128), ("e4m3 x e4m3 fast", "fp8t", 256),
              ("e5m2 x e4m3 persistent", "fp8t", 128),
              ("e4m3 x e4m3 fast cluster2 pingpong", "fp8t", 128),
              ("e4m3 x e4m3 cluster2 persistent", "fp8t", 128),
              ("e4m3 x e4m3 tma", "fp8t", 128), ("e4m3 x e4m3 tma", "fp8t", 256),
              # ... by a fused reduction's last unit and stream-K's blocks,
              # and through shared memory by the split-K reduction kernel
              # (since 2026-12-03).
              ("e4m3 x e4m3 splitk4", "fp8t", 128),
              ("e4m3 x e4m3 splitk4 fused", "fp8t", 128),
              ("e4m3 x e4m3 fast pingpong splitk4 fused", "fp8t", 128),
              ("e4m3 x e4m3 tma splitk4 fused", "fp8t", 256),
              ("e4m3 x e4m3 stream", "fp8t", 128), ("e4m3 x e4m3 tma stream", "fp8t", 128),
              # (persistent 128x256 tiles would spill: FP32, then the
              # quantize kernels.)
              ("e4m3 x e4m3 fast cluster2 persistent tma", "fp8t", 256),
              # "cur": a #qs.fp8_current result, whose amax the epilogue
              # (or the split-K reduction) takes for the quantize kernels.
              ("e4m3 x e4m3", "cur", 128), ("e4m3 x e4m3 splitk4", "cur", 128),
              ("e4m3 x e4m3 cluster2 persistent tma", "cur", 256),
              # "mx": a row-wise MXFP8 result quantized in the epilogue
              # (staged in shared memory, one block per thread).
              ("mxfp8 promote", "mx", 64), ("mxfp8 promote", "mx", 128), ("e4m3 x e4m3", "mx", 128),
              ("e4m3 x e4m3 fast", "mx", 256), ("block 1D x 2D", "mx", 128),
              ("nvfp4 cluster2 persistent", "mx", 128), ("mxfp8 persistent promote", "mx", 64),
              ("e4m3 x e4m3 fast cluster2 pingpong", "mx", 128),
              # "blk": a row-wise FP8 1x128 result likewise (both staging
              # buffers per block, read back twice by threads 0-63).
              ("e4m3 x e4m3", "blk", 128), ("e4m3 x e4m3 fast", "blk", 256),
              ("block 1D x 2D", "blk", 128), ("block 1D x 1D persistent", "blk", 128),
              ("mxfp8 promote", "blk", 128), ("nvfp4 cluster2 persistent", "blk", 128),
              ("e4m3 x e4m3 fast cluster2 pingpong", "blk", 128),
              # "blk2": an FP8 1x128 result with both usages (the two
              # consumers meet at a 256-thread barrier; threads 64-127
              # read a column's 128 x 1 block across both consumers'
              # staging); ping-pong consumers keep the quantize kernels.
              ("e4m3 x e4m3", "blk2", 128), ("e4m3 x e4m3 fast", "blk2", 256),
              ("block 1D x 2D", "blk2", 128), ("block 1D x 1D persistent", "blk2", 128),
              ("mxfp8 promote", "blk2", 128), ("nvfp4 cluster2 persistent", "blk2", 128),
              # "mx2": an MXFP8 result with both usages (each thread also
              # reads a staged column's 32 x 1 block back); ping-pong
              # consumers keep the quantize kernels (ptxas would spill).
              ("mxfp8 promote", "mx2", 64), ("e4m3 x e4m3", "mx2", 128),
              ("e4m3 x e4m3 fast", "mx2", 256), ("block 1D x 2D", "mx2", 128),
              ("nvfp4 cluster2 persistent", "mx2", 128),
              ("e4m3 x e4m3 fast cluster2 pingpong", "mx2", 128),
              # Block-scaled results of split-K GEMMs: the reduction kernel
              # (qs_gemm_split_k_reduce_blocks) stages 32 x 128 tiles
              # (128 x 128 with FP8 128 x 1 column blocks) and quantizes
              # their blocks (since 2026-12-03).
              ("e4m3 x e4m3 splitk4", "mx", 128), ("e4m3 x e4m3 splitk4", "mx2", 128),
              ("block 1D x 2D splitk4", "blk", 128), ("e4m3 x e4m3 splitk4", "blk2", 128),
              # sm_90a MXFP8 TN converted to bf16 (the default; the rows
              # above with "promote" set qs.gemm_mx_scaling = "promote"):
              # with each schedule, epilogue and fused output quantizer.
              ("mxfp8", "bf16", 128), ("mxfp8 swizzled", "f32", 128),
              ("mxfp8 persistent", "bf16", 128), ("mxfp8 cluster2 persistent", "bf16", 128),
              ("mxfp8 tma", "bf16", 128), ("mxfp8 persistent tma", "f32", 128),
              ("mxfp8 splitk4", "bf16", 128), ("mxfp8 splitk4 fused", "bf16", 128),
              ("mxfp8 stream", "bf16", 128), ("mxfp8 tma stream", "bf16", 128),
              ("mxfp8 tma splitk4 fused", "bf16", 128),
              ("mxfp8", "mx", 128), ("mxfp8", "mx2", 128), ("mxfp8", "blk", 128),
              ("mxfp8", "blk2", 128), ("mxfp8 persistent", "mx", 128),
              # ... with MN-major operands (dgrad, wgrad; the 128-wide
              # dgrad / wgrad rows above too), transposed by the conversion.
              ("mxfp8 wgrad persistent tma", "f32", 128), ("mxfp8 dgrad splitk4", "bf16", 128),
              ("mxfp8 wgrad stream", "bf16", 128), ("mxfp8 dgrad tma stream", "bf16", 128),
              ("mxfp8 swizzled dgrad persistent", "bf16", 128), ("mxfp8 wgrad", "mx", 128),
              # qs.gemm_mx_scaling = "dequantize": the pre-pass kernels
              # (qs_gemm_dequantize, one per operand) and the bf16 GEMM
              # after them, with the per-tensor kernel's tiles and schedules.
              ("mxfp8 dequantize", "bf16", 256), ("mxfp8 dgrad dequantize", "bf16", 256),
              ("mxfp8 wgrad dequantize", "f32", 128), ("mxfp8 swizzled tma dequantize", "bf16", 256),
              ("mxfp8 cluster2 persistent dequantize", "bf16", 256),
              ("mxfp8 persistent pingpong dequantize", "bf16", 128),
              ("mxfp8 splitk4 dequantize", "bf16", 128), ("mxfp8 stream dequantize", "bf16", 128),
              ("mxfp8 dequantize", "mx", 128), ("mxfp8 dequantize", "fp8", 256),
              # ... and NVFP4 (f16 pre-passes, amax / 6E as scale_inv).
              ("nvfp4 dequantize", "bf16", 256), ("nvfp4 persistent tma dequantize", "f32", 128),
              ("nvfp4 stream dequantize", "bf16", 128)]
# sm_100a (tcgen05 MMA; per-tensor FP8 128x128 or 128x256 tiles).
GEMM_CASES_SM100 = [("e4m3 x e4m3", "bf16", 128), ("e5m2 x e4m3", "f32", 256),
                    ("block 1D x 2D", "bf16", 128), ("block 1D x 1D", "f32", 128),
                    ("mxfp8", "bf16", 128), ("mxfp8 swizzled", "f32", 128),
                    ("nvfp4", "bf16", 128), ("nvfp4 swizzled", "f32", 128),
                    ("e4m3 x e4m3 splitk4", "bf16", 128), ("mxfp8 splitk4", "bf16", 128),
                    ("nvfp4 splitk4", "f32", 128), ("e4m3 x e4m3 splitk4 fused", "bf16", 128),
                    ("mxfp8 splitk4 fused", "bf16", 128), ("nvfp4 splitk4 fused", "f32", 128),
                    # qs.gemm_epilogue = "tma": each warp's rows staged in the
                    # ring and stored by TMA.
                    ("e4m3 x e4m3 tma", "bf16", 256), ("e5m2 x e4m3 tma", "f32", 128),
                    ("block 1D x 2D tma", "f16", 128), ("mxfp8 tma", "bf16", 128),
                    ("nvfp4 tma", "f32", 128), ("mxfp8 tma splitk4 fused", "bf16", 128),
                    # Block-scaled 128x256 tiles (qs.gemm_tile_n = 256).
                    ("mxfp8", "bf16", 256), ("mxfp8 wgrad", "f32", 256),
                    ("nvfp4", "bf16", 256), ("block 1D x 2D", "f32", 256),
                    ("nvfp4 tma", "bf16", 256),
                    # Persistent (qs.gemm_persistent): two accumulator
                    # buffers, epilogue warps 4-7.
                    ("e4m3 x e4m3 persistent", "bf16", 128),
                    ("e5m2 x e4m3 persistent", "f32", 256),
                    ("mxfp8 persistent", "bf16", 128), ("nvfp4 persistent", "f32", 128),
                    ("mxfp8 persistent splitk4", "bf16", 128),
                    ("e4m3 x e4m3 persistent tma", "bf16", 128),
                    ("nvfp4 persistent tma", "f32", 128),
                    # qs.gemm_split_k = "stream": persistent blocks (one per
                    # multiprocessor) sharing the last tiles' k-tiles.
                    ("e4m3 x e4m3 stream", "bf16", 128), ("e5m2 x e4m3 stream", "f32", 256),
                    ("block 1D x 2D stream", "bf16", 128), ("mxfp8 stream", "bf16", 128),
                    ("mxfp8 wgrad stream", "f32", 128), ("nvfp4 stream", "f32", 128),
                    ("e4m3 x e4m3 tma stream", "bf16", 256), ("mxfp8 tma stream", "bf16", 128),
                    ("nvfp4 tma stream", "bf16", 128),
                    # Persistent block-scaled 128x256 tiles (one accumulator
                    # buffer) and persistent fused split-K.
                    ("mxfp8 persistent", "bf16", 256), ("nvfp4 persistent tma", "bf16", 256),
                    ("mxfp8 stream", "bf16", 256),
                    ("e4m3 x e4m3 persistent splitk4 fused", "bf16", 128),
                    ("mxfp8 persistent tma splitk4 fused", "bf16", 128),
                    # A fused output quantizer (#qs.fp8_delayed result).
                    ("e4m3 x e4m3", "fp8", 128), ("e5m2 x e4m3", "fp8", 256),
                    ("e4m3 x e4m3 persistent", "fp8", 256),
                    ("e4m3 x e4m3 splitk4 fused", "fp8", 128), ("e4m3 x e4m3 stream", "fp8", 128),
                    ("e4m3 x e4m3 tma", "fp8", 256), ("e4m3 x e4m3 tma stream", "fp8", 128),
                    ("e4m3 x e4m3 persistent tma splitk4 fused", "fp8", 256),
                    ("e4m3 x e4m3 tma stream", "cur", 256),
                    # "mx" / "blk": a row-wise MXFP8 / FP8 1x128 result
                    # quantized in the epilogue.
                    ("mxfp8", "mx", 128), ("e4m3 x e4m3", "mx", 256),
                    ("nvfp4 persistent", "mx", 128), ("mxfp8 persistent", "mx", 256),
                    ("mxfp8", "blk", 128), ("e4m3 x e4m3 persistent", "blk", 256),
                    # "mx2": an MXFP8 result with both usages (each warp
                    # stages its rows, then its lanes read row and column
                    # blocks back).
                    ("mxfp8", "mx2", 128), ("e4m3 x e4m3", "mx2", 256),
                    ("nvfp4 persistent", "mx2", 128), ("mxfp8 persistent", "mx2", 256),
                    ("e5m2 x e4m3 persistent", "mx2", 128),
                    # "blk2": an FP8 1x128 result with both usages (the
                    # four warps stage a pass of 128 columns, then each
                    # lane reads a row block and a 128 x 1 column block).
                    ("mxfp8", "blk2", 128), ("e4m3 x e4m3", "blk2", 256),
                    ("nvfp4 persistent", "blk2", 128), ("mxfp8 persistent", "blk2", 256),
                    ("block 1D x 1D", "blk2", 128),
                    # Split-K: the reduction kernel quantizes the blocks
                    # (qs_gemm_split_k_reduce_blocks, since 2026-12-03).
                    ("mxfp8 splitk4", "mx2", 128), ("e4m3 x e4m3 splitk4", "blk2", 128)]


def gemm_module_text(shape, label, out, tile, chip="sm_90a"):
    """fprop Y = X W^T (bias) of FP8 operands of `shape`: per-tensor, or FP8
    block (`block <A> x <B>`, 1D = 1x128, 2D = 128x128 blocks). MXFP8 /
    NVFP4 labels ending in dgrad (A rowwise, B columnwise, contracted over
    its first dimension) or wgrad (both) use the square `shape`'s other
    layouts. Suffixes, in this order: `cluster2` adds qs.gemm_cluster = 2,
    `persistent` qs.gemm_persistent = 132, `pingpong` qs.gemm_schedule =
    "pingpong", `tma` qs.gemm_epilogue = "tma", `splitk4` qs.gemm_split_k =
    4 (or `stream`: "stream"), `fused` qs.gemm_split_k_reduce = "fused",
    `serial` qs.gemm_promotion = "in_tile", `promote` qs.gemm_mx_scaling =
    "promote" (`dequantize`: "dequantize", whose tiles are per-tensor FP8's,
    so the width is always set); a label with "fast" sets
    fast_accumulate."""
    m, k = shape.split("x")
    fast = " fast" in label
    label = label.replace(" fast", "")
    dequantize = label.endswith(" dequantize")
    label = label.removesuffix(" dequantize")
    promote = label.endswith(" promote")
    label = label.removesuffix(" promote")
    serial = label.endswith(" serial")
    label = label.removesuffix(" serial")
    fused = label.endswith(" fused")
    label = label.removesuffix(" fused")
    splitk = label.endswith(" splitk4")
    label = label.removesuffix(" splitk4")
    stream = label.endswith(" stream")
    label = label.removesuffix(" stream")
    tma = label.endswith(" tma")
    label = label.removesuffix(" tma")
    pingpong = label.endswith(" pingpong")
    label = label.removesuffix(" pingpong")
    persistent = label.endswith(" persistent")
    label = label.removesuffix(" persistent")
    cluster = label.endswith(" cluster2")
    label = label.removesuffix(" cluster2")
    dtype = "f8E5M2" if label.startswith("e5m2") else "f8E4M3FN"
    flags = " transpose_b"
    if label.startswith(("mxfp8", "nvfp4")):
        swz = ", optimize_for_gemm = true" if "swizzled" in label else ""
        layout = label.split()[-1]
        flags = {"dgrad": "", "wgrad": " transpose_a"}.get(layout, flags)
        usage = lambda rowwise: "columnwise = false" if rowwise else "rowwise = false"
        fam = label.split()[0]
        qa = f"!qs.tensor<{m}x{k}xbf16, #qs.{fam}<{usage(layout != 'wgrad')}{swz}>>"
        qb = f"!qs.tensor<{m}x{k}xbf16, #qs.{fam}<{usage(layout not in ('dgrad', 'wgrad'))}{swz}>>"
    elif label.startswith("block"):
        dims = [b[0] for b in label.split()[1::2]]
        qa = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_block<block_scaling_dim = {dims[0]}, columnwise = false>>"
        qb = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_block<block_scaling_dim = {dims[1]}, columnwise = false>>"
    else:
        qa = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_current<fp8_dtype = {dtype}, columnwise = false>>"
        qb = f"!qs.tensor<{m}x{k}xbf16, #qs.fp8_current<columnwise = false>>"
    r = f"tensor<{m}x{m}x{out}>"
    state = ""
    if out in ("fp8", "fp8t"):
        # A fused output quantizer: D quantized in the epilogue
        # (#qs.fp8_delayed result: row-wise only, or "fp8t" both usages,
        # the transpose staged on sm_90a), its scale and amax state.
        usage = "columnwise = false" if out == "fp8" else ""
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.fp8_delayed<{usage}>>"
        state = " scale(%s : tensor<1xf32>) amax(%am : tensor<1xf32>)"
    elif out == "mx":
        # A row-wise MXFP8 result (GEMM-swizzled scales) that the epilogue
        # quantizes in 1x32 blocks (sm_90a: staged in shared memory).
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.mxfp8<columnwise = false, optimize_for_gemm = true>>"
    elif out == "mx2":
        # An MXFP8 result with both usages (TE's default), compact scales:
        # the epilogue also reads each staged column back (32 x 1 blocks).
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.mxfp8<>>"
    elif out == "blk":
        # A row-wise FP8 1x128 result that the epilogue quantizes (two
        # passes over each block's tensor-memory columns on sm_100a, over
        # its staged values on sm_90a).
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>"
    elif out == "blk2":
        # An FP8 1x128 result with both usages (TE's default): row blocks
        # and 128 x 1 column blocks, the latter's codes transposed.
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.fp8_block<block_scaling_dim = 1>>"
    elif out == "cur":
        # A current-scaling result: bf16 D, whose amax the epilogue takes
        # for the quantize kernels.
        r = f"!qs.tensor<{m}x{m}xbf16, #qs.fp8_current<columnwise = false>>"
    # Block-scaled tiles are fixed on sm_90a except MXFP8's 128 (64 by
    # default) and FP8 block's 192; on sm_100a 128 by default, 256 when asked.
    scaled = label.startswith(("nvfp4", "block", "mxfp8"))
    fixed = (scaled and tile == 128) if chip == "sm_100a" else (
        (label.startswith("nvfp4") and not dequantize)
        or (label.startswith("block") and tile != 192)
        or (label.startswith("mxfp8") and tile != 128 and not dequantize))
    tile_attr = "" if fixed else f", qs.gemm_tile_n = {tile} : i64"
    if persistent:
        tile_attr += ", qs.gemm_persistent = 132 : i64"
    if cluster:
        tile_attr += ", qs.gemm_cluster = 2 : i64"
    if pingpong:
        tile_attr += ', qs.gemm_schedule = "pingpong"'
    if tma:
        tile_attr += ', qs.gemm_epilogue = "tma"'
    if splitk:
        tile_attr += ", qs.gemm_split_k = 4 : i64"
    if stream:
        tile_attr += ', qs.gemm_split_k = "stream"'
    if fused:
        tile_attr += ', qs.gemm_split_k_reduce = "fused"'
    if promote:
        tile_attr += ', qs.gemm_mx_scaling = "promote"'
    if dequantize:
        tile_attr += ', qs.gemm_mx_scaling = "dequantize"'
    args, results, names = "", r, "%y"
    if state:
        args, results, names = ", %s: tensor<1xf32>, %am: tensor<1xf32>", f"{r}, tensor<1xf32>", "%y, %am2"
    return (f'module attributes {{qs.chip = "{chip}"{tile_attr}}} {{\n'
            f"func.func @f(%a: {qa}, %b: {qb}, %bias: tensor<{m}xbf16>{args}) -> ({results}) {{\n"
            f"  {names} = qs.gemm %a, %b{flags}{' fast_accumulate' if fast else ''} bias(%bias : tensor<{m}xbf16>){state} : {qa}, {qb} -> {results}\n"
            f"  return {names} : {results}\n}}\n}}\n")


def compile_ptx(args, tmp, text, chip, plans=None):
    """qs-nvptx-pipeline (PTX) of module `text` for `chip`: (lowered module
    text, PTX file path) or (None, qs-opt's errors)."""
    src = os.path.join(tmp, "m.mlir")
    with open(src, "w") as f:
        f.write(text)
    out = os.path.join(tmp, "m.gpu.mlir")
    report = " report-gemm-plans" if plans is not None else ""
    proc = subprocess.run(
        [args.qs_opt, src, f"--qs-nvptx-pipeline=chip={chip} format=isa{report}", "-o", out],
        capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr
    if plans is not None:
        # (line of the GEMM in `text`, its plan) from the remarks.
        plans.extend((int(m.group(1)), m.group(2)) for m in re.finditer(
            r":(\d+):\d+: remark: GEMM kernel plan: (.*)", proc.stderr))
    lowered = open(out).read()
    ptx = "".join(extract_ptx.unescape(m.group(1)) for m in re.finditer(
        r'assembly = "((?:[^"\\]|\\.)*)"', lowered))
    ptx_path = os.path.join(tmp, "m.ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    return lowered, ptx_path


def table_rows(args, ptxas, tmp, text, chip, prefix, count_pattern):
    """Compiles `text` for `chip`, prints one row per kernel (prefix, chip,
    ptxas figures, matches of count_pattern in the PTX); returns failures."""
    lowered, ptx_path = compile_ptx(args, tmp, text, chip)
    if lowered is None:
        print(f"{prefix} {chip:<8} qs-opt FAILED:\n{ptx_path}")
        COMPILE_ERRORS.append(prefix)
        return 1
    count = len(re.findall(count_pattern, open(ptx_path).read()))
    if not ptxas:
        print(f"{prefix} {chip:<8} {'(PTX only)':<24} {'':>4} {'':>6} {'':>11} {count:>17}")
        return 0
    kernels, err = ptxas_info(ptxas, chip, ptx_path)
    if kernels is None:
        print(f"{prefix} {chip:<8} ptxas FAILED: {err}")
        COMPILE_ERRORS.append(prefix)
        return 1
    failures = 0
    for name, k in kernels.items():
        if k["spill_st"] + k["spill_ld"]:
            failures += 1
        print(f"{prefix} {chip:<8} {name:<24} {k['regs']:>4} {k['smem']:>6} "
              f"{k['spill_st']:>5}/{k['spill_ld']:<5} {count:>17}")
        for line in k["lost"]:
            failures += 1
            print(f"    ptxas: {line.strip()}")
    return failures


def ptxas_info(ptxas, chip, ptx_path):
    proc = subprocess.run([ptxas, f"-arch={chip}", "-v", ptx_path, "-o", os.devnull],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    kernels, current = {}, None
    # ptxas reports lost performance (setmaxnreg ignored, wgmma serialized)
    # before the function it concerns: counted as failures.
    lost = [l for l in proc.stderr.splitlines() if "Potential Performance Loss" in l]
    for line in proc.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
            kernels[current] = {"regs": 0, "smem": 0, "spill_st": 0, "spill_ld": 0,
                                "lost": [l for l in lost if f"'{current}'" in l]}
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            kernels[current]["spill_st"] = int(m.group(1))
            kernels[current]["spill_ld"] = int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            kernels[current]["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            kernels[current]["smem"] = int(s.group(1)) if s else 0
    return kernels, None


def launches(lowered):
    """[(host function, kernel)] in launch order, from a lowered module."""
    order, current = [], None
    for line in lowered.splitlines():
        m = re.match(r"\s*llvm\.func @(\w+)\(", line)
        if m:
            current = m.group(1)
        for k in re.findall(r"llvm\.call @(\w+)_launch\(", line):
            order.append((current, k))
    return order


def print_plans(text, chip, plans):
    """The GEMM kernel plans (report-gemm-plans remarks) of a compiled
    module, each after its function and result name."""
    lines = text.splitlines()
    for line, plan in plans:
        fn = next((m.group(1) for l in reversed(lines[:line])
                   for m in [re.search(r"func\.func @(\w+)", l)] if m), "?")
        result = re.match(r"\s*(%[\w#]+)", lines[line - 1])
        where = f"{fn} {result.group(1) if result else ''}".strip()
        print(f"  GEMM plan {chip} {where}: {plan}")


def with_chip(aliases, body, chip):
    """The module text of `body` (functions, or one top-level module whose
    attributes may name options such as qs.gemm_epilogue) for `chip`:
    functions are wrapped in a module with qs.chip; a module gets qs.chip
    added to its attributes, or replaced there."""
    code = re.sub(r"//[^\n]*", "", body).strip()
    if not code.startswith("module"):
        return f'{aliases}module attributes {{qs.chip = "{chip}"}} {{\n{body}\n}}\n'
    head = re.compile(r"\bmodule\s*(attributes\s*\{)?")
    m = head.search(body)
    if not m.group(1):
        return aliases + body[:m.end()] + f'attributes {{qs.chip = "{chip}"}} ' + body[m.end():]
    rest = body[m.end():]
    if re.match(r'\s*qs\.chip\s*=\s*"[^"]*"', rest) or re.search(r'[,\s]qs\.chip\s*=', rest.split("}")[0]):
        rest = re.sub(r'qs\.chip\s*=\s*"[^"]*"', f'qs.chip = "{chip}"', rest, count=1)
    else:
        rest = f'qs.chip = "{chip}", ' + rest
    return aliases + body[:m.end()] + rest


# What did not compile (qs-opt) or assemble (ptxas): an exit code of 1
# with or without --check.
COMPILE_ERRORS = []


def finish(args, failures):
    print(f"kernel-table: {failures} failure(s)"
          + (f", {len(COMPILE_ERRORS)} of them compilation errors" if COMPILE_ERRORS else ""))
    if COMPILE_ERRORS or (args.check and failures):
        sys.exit(1)


def module_table(args, ptxas):
    failures = 0
    try:
        text = open(args.module).read()
    except OSError as e:
        sys.exit(f"kernel-table: cannot read --module: {e}")
    header = (f"{'function':<14} {'chip':<8} {'launch':>6} {'kernel (unique name)':<26} {'regs':>4} "
              f"{'smem':>6} {'spill st/ld':>11}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for chip in args.chips.split(","):
            # Type and attribute aliases stay outside the wrapping module.
            aliases = "".join(l for l in text.splitlines(True) if re.match(r"[!#]\w+\s*=", l))
            body = "".join(l for l in text.splitlines(True) if not re.match(r"[!#]\w+\s*=", l))
            wrapped = with_chip(aliases, body, chip)
            plans = []
            lowered, ptx_path = compile_ptx(args, tmp, wrapped, chip, plans)
            if lowered is None:
                print(f"{chip}: qs-opt FAILED:\n{ptx_path}")
                COMPILE_ERRORS.append(chip)
                failures += 1
                continue
            order = launches(lowered)
            if not ptxas:
                for i, (fn, k) in enumerate(order):
                    print(f"{fn:<14} {chip:<8} {i + 1:>6} {k:<26} (PTX only)")
                print_plans(wrapped, chip, plans)
                continue
            kernels, err = ptxas_info(ptxas, chip, ptx_path)
            if kernels is None:
                print(f"{chip}: ptxas FAILED: {err}")
                COMPILE_ERRORS.append(chip)
                failures += 1
                continue
            step = {}
            for fn, name in order:
                step[fn] = step.get(fn, 0) + 1
                k = kernels[name]
                if k["spill_st"] + k["spill_ld"]:
                    failures += 1
                print(f"{fn:<14} {chip:<8} {step[fn]:>6} {name:<26} {k['regs']:>4} {k['smem']:>6} "
                      f"{k['spill_st']:>5}/{k['spill_ld']:<5}")
            print_plans(wrapped, chip, plans)
    finish(args, failures)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--qs-opt", default=os.path.join(ROOT, "build", "bin", "qs-opt"))
    parser.add_argument("--ptxas", default=None)
    parser.add_argument("--chips", default="sm_90a,sm_100a")
    parser.add_argument("--shape", default="4096x4096")
    parser.add_argument("--nominal", default="bf16")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--module", help="table the kernels of this module instead")
    args = parser.parse_args()
    ptxas = args.ptxas or next((p for p in [
        os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "ptxas"),
        "/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)
    if not ptxas:
        print("kernel-table: ptxas not found (set CUDA_HOME or --ptxas); "
              "PTX is generated but not assembled")
    if args.module:
        return module_table(args, ptxas)
    failures = 0
    header = f"{'case':<41} {'usage':<5} {'op':<5} {'chip':<8} {'kernel':<24} {'regs':>4} {'smem':>6} {'spill st/ld':>11} {'cvt|wgmma|tcgen05':>17}"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for chip in args.chips.split(","):
            for label, attr in CASES:
                for usage, flags in USAGES:
                    for op in ("q", "dq"):
                        if op == "dq" and usage != "both":
                            continue
                        a = with_usage(attr, flags)
                        text = module_text(args.shape, args.nominal, a, chip, op == "dq")
                        failures += table_rows(args, ptxas, tmp, text, chip, f"{label:<41} {usage:<5} {op:<5}",
                                               r"cvt\.rn\.satfinite\.e[45]m[32]x2\.f32")
        # GEMM kernels (the column counts wgmma.mma_async on sm_90a,
        # tcgen05.mma on sm_100a).
        for chip, cases, pattern in (("sm_90a", GEMM_CASES, r"wgmma\.mma_async"),
                                     ("sm_100a", GEMM_CASES_SM100, r"tcgen05\.mma")):
            if chip not in args.chips.split(","):
                continue
            for label, out, tile in cases:
                text = gemm_module_text(args.shape, label, out, tile, chip)
                failures += table_rows(args, ptxas, tmp, text, chip,
                                       f"{'gemm ' + label:<41} {out:<5} {'N=' + str(tile):<5}",
                                       pattern)
    finish(args, failures)


if __name__ == "__main__":
    main()
