// RUN: qs-opt %S/Inputs/quantize-resident-blocks.mlir --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s

// 2-D quantization's first phase (segmentAmaxPhase): each thread's max |x|
// over a 1 x B segment of a tile row, two bf16 values per
// max.xorsign.abs.bf16x2 (KernelEnv::absMaxAll, as the row-wise block
// amaxes), B / 2 - 1 of them per segment, where it took two FMNMX per
// element. Kernels of Inputs/quantize-resident-blocks.mlir, in order.

// FP8 128x128 blocks: one 128-element segment per thread.
// CHECK-LABEL: .entry qs_quantize_1(
// CHECK-COUNT-63: max.xorsign.abs.bf16x2
// CHECK-NOT: max.xorsign.abs.bf16x2
// MXFP8 32x32, column-wise: one 32-element segment.
// CHECK-LABEL: .entry qs_quantize_2(
// CHECK-COUNT-15: max.xorsign.abs.bf16x2
// CHECK-NOT: max.xorsign.abs.bf16x2
// CHECK-LABEL: .entry qs_quantize_3(
// NVFP4 16x16, row-wise: two 16-element segments.
// CHECK-LABEL: .entry qs_quantize_7(
// CHECK-COUNT-14: max.xorsign.abs.bf16x2
// CHECK-NOT: max.xorsign.abs.bf16x2
// CHECK-LABEL: .entry qs_quantize_init_4(
