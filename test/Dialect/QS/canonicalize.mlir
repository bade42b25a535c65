// RUN: qs-opt %s -split-input-file --canonicalize | FileCheck %s

// disassemble(assemble(x...)) folds to x...
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @disassemble_of_assemble
//  CHECK-SAME:     %[[D:[a-z0-9]+]]: tensor<64x128xf8E4M3FN>, %[[S:[a-z0-9]+]]: tensor<128x4xf8E8M0FNU>
//   CHECK-NOT:   qs.assemble
//   CHECK-NOT:   qs.disassemble
//       CHECK:   return %[[D]], %[[S]]
func.func @disassemble_of_assemble(%d: tensor<64x128xf8E4M3FN>, %s: tensor<128x4xf8E8M0FNU>)
    -> (tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %q = qs.assemble %d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> !q
  %a, %b = qs.disassemble %q : !q -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %a, %b : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

// assemble(disassemble(q)) folds to q.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @assemble_of_disassemble
//  CHECK-SAME:     %[[Q:.*]]: !qs.tensor
//   CHECK-NOT:   qs.assemble
//       CHECK:   return %[[Q]]
func.func @assemble_of_disassemble(%q: !q) -> !q {
  %a, %b = qs.disassemble %q : !q -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %r = qs.assemble %a, %b : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> !q
  return %r : !q
}

// -----

// assemble(disassemble(q)) with the inner tensors swapped does not fold.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @assemble_reordered
//       CHECK:   qs.assemble
func.func @assemble_reordered(%q: !q, %other: tensor<4x8xf8E4M3FN>) -> !q {
  %a, %b = qs.disassemble %q : !q -> tensor<4x8xf8E4M3FN>, tensor<1xf32>
  %r = qs.assemble %other, %b : tensor<4x8xf8E4M3FN>, tensor<1xf32> -> !q
  return %r : !q
}

// -----

// An update_usage to the same type is a no-op.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @noop_update_usage
//  CHECK-SAME:     %[[Q:.*]]: !qs.tensor
//   CHECK-NOT:   qs.update_usage
//       CHECK:   return %[[Q]]
func.func @noop_update_usage(%q: !q) -> !q {
  %r = qs.update_usage %q : !q -> !q
  return %r : !q
}

// -----

// Dead qs.empty (and other unused pure qs ops) disappear.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @dead_empty
//   CHECK-NOT:   qs.empty
//   CHECK-NOT:   qs.quantize
//       CHECK:   return
func.func @dead_empty(%x: tensor<64x128xbf16>) {
  %t = qs.empty : !q
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return
}

// -----

// quantize(dequantize(q)) is not an identity: nothing folds.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
// CHECK-LABEL: func.func @no_round_trip_fold
//       CHECK:   %[[D:.*]] = qs.dequantize
//       CHECK:   %[[Q:.*]] = qs.quantize %[[D]]
//       CHECK:   return %[[Q]]
func.func @no_round_trip_fold(%q: !q) -> !q {
  %d = qs.dequantize %q : !q -> tensor<64x128xbf16>
  %r = qs.quantize %d : tensor<64x128xbf16> -> !q
  return %r : !q
}
