// RUN: qs-opt %S/Inputs/quantize-resident-blocks.mlir --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %S/Inputs/quantize-resident-blocks.mlir --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// The resident blocks each cast kernel asks for (QuantizeKernels.cpp
// residentBlocks), in the order of the functions of
// Inputs/quantize-resident-blocks.mlir; ptxas keeps each thread at
// 65536 / (128 blocks) registers or fewer.

// FP8 1x128 column-wise only: the column-pair tile, 9 (56 registers).
// CHECK-LABEL: .entry qs_quantize(
// CHECK: .minnctapersm 9
// FP8 1x128 row-wise only: 12 (40 registers).
// CHECK-LABEL: .entry qs_quantize_0(
// CHECK: .minnctapersm 12
// FP8 128x128 blocks: 6, which its 35 KiB of shared memory allow.
// CHECK-LABEL: .entry qs_quantize_1(
// CHECK: .minnctapersm 6
// MXFP8 32x32, column-wise: a full multiprocessor, 16 (32 registers).
// CHECK-LABEL: .entry qs_quantize_2(
// CHECK: .minnctapersm 16
// MXFP8 32x32, both usages: 12 (40 registers).
// CHECK-LABEL: .entry qs_quantize_3(
// CHECK: .minnctapersm 12
// NVFP4 rounded to nearest, one representation: row-wise 10 (1-D),
// column-wise 9 (1-D, with and without the RHT), 16x16 row-wise 10,
// column-wise 12.
// CHECK-LABEL: .entry qs_quantize_4(
// CHECK: .minnctapersm 10
// CHECK-LABEL: .entry qs_quantize_5(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_6(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_7(
// CHECK: .minnctapersm 10
// CHECK-LABEL: .entry qs_quantize_8(
// CHECK: .minnctapersm 12
// NVFP4 with both usages: 8 (64 registers).
// CHECK-LABEL: .entry qs_quantize_9(
// CHECK: .minnctapersm 8
// f16 input: FP8 1x128 column-wise 9 as from bf16 (its values converted
// by cvt.f32.f16 since 2026-12-06; 7 before, where the software decode
// spilled 14 bytes at 9) and NVFP4 row-wise 8 (at bf16's 10 ptxas spills 4
// bytes).
// CHECK-LABEL: .entry qs_quantize_10(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_11(
// CHECK: .minnctapersm 8
// NVFP4 16x16 with both usages, the column-wise codes transposed from the
// row-wise ones (Tile::codesInPlace): 12 (40 registers).
// CHECK-LABEL: .entry qs_quantize_12(
// CHECK: .minnctapersm 12
// NVFP4 with stochastic rounding, one representation: 9 (1-D row-wise and
// column-wise, f16 input, 16x16 row-wise; at most 56 registers).
// CHECK-LABEL: .entry qs_quantize_13(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_14(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_15(
// CHECK: .minnctapersm 9
// CHECK-LABEL: .entry qs_quantize_16(
// CHECK: .minnctapersm 9
