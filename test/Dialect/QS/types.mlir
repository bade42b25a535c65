// RUN: qs-opt %s -split-input-file | qs-opt -split-input-file | FileCheck %s
// RUN: qs-opt %s -split-input-file -mlir-print-op-generic | qs-opt -split-input-file | FileCheck %s
// Every chunk also survives the text and bytecode round trips unchanged
// (MlirOptMain's -verify-roundtrip: bytecode falls back to the text form
// for qs attributes and types).
// RUN: qs-opt %s -split-input-file -verify-roundtrip -o /dev/null

// The three nominal element types, N-D shapes, and 1-D tensors round-trip.
// CHECK-LABEL: func.func private @nominal_types
//  CHECK-SAME: !qs.tensor<4x8xbf16, #qs.fp8_current>
//  CHECK-SAME: !qs.tensor<4x8xf16, #qs.fp8_current>
//  CHECK-SAME: !qs.tensor<4x8xf32, #qs.fp8_current>
//  CHECK-SAME: !qs.tensor<2x3x4x8xbf16, #qs.fp8_block>
//  CHECK-SAME: !qs.tensor<48xbf16, #qs.fp8_delayed>
func.func private @nominal_types(
  !qs.tensor<4x8xbf16, #qs.fp8_current>,
  !qs.tensor<4x8xf16, #qs.fp8_current>,
  !qs.tensor<4x8xf32, #qs.fp8_current>,
  !qs.tensor<2x3x4x8xbf16, #qs.fp8_block>,
  !qs.tensor<48xbf16, #qs.fp8_delayed>)

// -----

// Type aliases print through; the N-D MXFP8 rule is on the folded M (2*64).
!mx = !qs.tensor<2x16x256xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func private @alias
//  CHECK-SAME: !qs.tensor<2x16x256xbf16, #qs.mxfp8<columnwise = false>>
func.func private @alias(!mx)

// -----

// Block FP8 has no divisibility rule: edge blocks are partial.
// CHECK-LABEL: func.func private @partial_blocks
//  CHECK-SAME: !qs.tensor<300x383xf32, #qs.fp8_block<block_scaling_dim = 1>>
func.func private @partial_blocks(!qs.tensor<300x383xf32, #qs.fp8_block<block_scaling_dim = 1>>)
