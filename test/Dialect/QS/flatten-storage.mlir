// RUN: qs-opt %s -split-input-file --qs-flatten-storage | FileCheck %s

// Arguments and results become their inner tensors, tagged with name, origin and type; other attributes survive.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @signature(
//  CHECK-SAME:     %[[X:.*]]: tensor<4xf32> {test.keep},
//  CHECK-SAME:     %[[D:.*]]: tensor<64x128xf8E4M3FN> {qs.inner = "rowwise_data", qs.origin = 1 : i64, qs.type = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>, test.arg},
//  CHECK-SAME:     %[[S:.*]]: tensor<128x4xf8E8M0FNU> {qs.inner = "rowwise_scale_inv", qs.origin = 1 : i64, qs.type = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>, test.arg})
//  CHECK-SAME:     -> (tensor<64x128xf8E4M3FN> {qs.inner = "rowwise_data", qs.origin = 0 : i64, qs.type = {{.*}}, test.res}, tensor<128x4xf8E8M0FNU> {qs.inner = "rowwise_scale_inv", qs.origin = 0 : i64, qs.type = {{.*}}, test.res}, tensor<4xf32>)
//       CHECK:   return %[[D]], %[[S]], %[[X]]
func.func @signature(%x: tensor<4xf32> {test.keep}, %q: !q {test.arg}) -> (!q {test.res}, tensor<4xf32>) {
  return %q, %x : !q, tensor<4xf32>
}

// -----

// External declarations are flattened too (TE's flatten at a custom-op boundary).
// CHECK-LABEL: func.func private @external(tensor<4x8xf8E4M3FN> {qs.inner = "data", {{.*}}}, tensor<8x4xf8E4M3FN> {qs.inner = "transpose", {{.*}}}, tensor<1xf32> {qs.inner = "scale_inv", {{.*}}})
func.func private @external(!qs.tensor<4x8xbf16, #qs.fp8_current>)

// -----

// qs.assemble / qs.disassemble pairs disappear; calls pass and return inner tensors.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
func.func private @callee(!q) -> !q
// CHECK-LABEL: func.func @call
//  CHECK-SAME:     (%[[D:.*]]: tensor<4x8xf8E4M3FN>, %[[S:.*]]: tensor<1xf32>)
//       CHECK:   %[[R:.*]]:2 = call @callee(%[[D]], %[[S]]) : (tensor<4x8xf8E4M3FN>, tensor<1xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   return %[[R]]#0, %[[R]]#1
//   CHECK-NOT:   qs.assemble
//   CHECK-NOT:   qs.disassemble
func.func @call(%d: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>) {
  %q = qs.assemble %d, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32> -> !q
  %r = func.call @callee(%q) : (!q) -> !q
  %a, %b = qs.disassemble %r : !q -> tensor<4x8xf8E4M3FN>, tensor<1xf32>
  return %a, %b : tensor<4x8xf8E4M3FN>, tensor<1xf32>
}

// -----

// Non-entry blocks, cf.br and cf.cond_br carry the inner tensors (upstream's patterns convert neither).
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @branches
//  CHECK-SAME:     (%[[C:.*]]: i1, %[[A0:.*]]: tensor<4x8xf8E4M3FN> {{.*}}, %[[A1:.*]]: tensor<1xf32> {{.*}}, %[[B0:.*]]: tensor<4x8xf8E4M3FN> {{.*}}, %[[B1:.*]]: tensor<1xf32> {{.*}})
//       CHECK:   cf.cond_br %[[C]], ^[[BB1:.*]](%[[A0]], %[[A1]] : tensor<4x8xf8E4M3FN>, tensor<1xf32>), ^[[BB1]](%[[B0]], %[[B1]] : tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK: ^[[BB1]](%[[P0:.*]]: tensor<4x8xf8E4M3FN>, %[[P1:.*]]: tensor<1xf32>):
//       CHECK:   cf.br ^[[BB2:.*]](%[[P0]], %[[P1]] : tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK: ^[[BB2]](%[[R0:.*]]: tensor<4x8xf8E4M3FN>, %[[R1:.*]]: tensor<1xf32>):
//       CHECK:   return %[[R0]], %[[R1]]
func.func @branches(%c: i1, %a: !q, %b: !q) -> !q {
  cf.cond_br %c, ^bb1(%a : !q), ^bb1(%b : !q)
^bb1(%p: !q):
  cf.br ^bb2(%p : !q)
^bb2(%r: !q):
  return %r : !q
}

// -----

// cf.switch forwards flattened default and case operands.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @switch
//       CHECK:   cf.switch %{{.*}} : i32, [
//  CHECK-NEXT:     default: ^{{.*}}(%{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<1xf32>),
//  CHECK-NEXT:     7: ^{{.*}}(%{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<1xf32>)
func.func @switch(%flag: i32, %a: !q, %b: !q) -> !q {
  cf.switch %flag : i32, [
    default: ^bb1(%a : !q),
    7: ^bb1(%b : !q)
  ]
^bb1(%r: !q):
  return %r : !q
}

// -----

// scf.if results, scf.for iter_args and scf.while carry the inner tensors (upstream's structural patterns, 1:N).
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @scf
//       CHECK:   %[[IF:.*]]:2 = scf.if %{{.*}} -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   %[[FOR:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[IF]]#0, %{{.*}} = %[[IF]]#1) -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   %[[WHILE:.*]]:2 = scf.while (%{{.*}} = %[[FOR]]#0, %{{.*}} = %[[FOR]]#1) : (tensor<4x8xf8E4M3FN>, tensor<1xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   return %[[WHILE]]#0, %[[WHILE]]#1
//   CHECK-NOT:   !qs.tensor
func.func @scf(%c: i1, %a: !q, %b: !q, %n: index) -> !q {
  %r = scf.if %c -> !q {
    scf.yield %a : !q
  } else {
    scf.yield %b : !q
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> !q {
    scf.yield %acc : !q
  }
  %w = scf.while (%v = %l) : (!q) -> !q {
    scf.condition(%c) %v : !q
  } do {
  ^bb0(%v2: !q):
    scf.yield %v2 : !q
  }
  return %w : !q
}

// -----

// arith.select of quantized values selects each inner tensor.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @select
//  CHECK-SAME:     (%[[C:.*]]: i1, %[[A0:.*]]: tensor<4x8xf8E4M3FN> {{.*}}, %[[A1:.*]]: tensor<1xf32> {{.*}}, %[[B0:.*]]: tensor<4x8xf8E4M3FN> {{.*}}, %[[B1:.*]]: tensor<1xf32> {{.*}})
//       CHECK:   %[[S0:.*]] = arith.select %[[C]], %[[A0]], %[[B0]] : tensor<4x8xf8E4M3FN>
//       CHECK:   %[[S1:.*]] = arith.select %[[C]], %[[A1]], %[[B1]] : tensor<1xf32>
//       CHECK:   return %[[S0]], %[[S1]]
func.func @select(%c: i1, %a: !q, %b: !q) -> !q {
  %r = arith.select %c, %a, %b : !q
  return %r : !q
}

// -----

// Buffer-level IR from qs-expand-storage flattens completely; materializations vanish.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @buffer_level
//  CHECK-SAME:     -> (tensor<64x128xf8E4M3FN> {{.*}}, tensor<128x4xf8E8M0FNU> {{.*}})
//       CHECK:   %[[B:.*]]:2 = qs.quantize_buffers
//       CHECK:   return %[[B]]#0, %[[B]]#1
//   CHECK-NOT:   unrealized_conversion_cast
func.func @buffer_level(%x: tensor<64x128xbf16>) -> !q {
  %d0 = tensor.empty() : tensor<64x128xf8E4M3FN>
  %s0 = tensor.empty() : tensor<128x4xf8E8M0FNU>
  %b:2 = qs.quantize_buffers %x outs(%d0, %s0 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      as !q : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %q = qs.assemble %b#0, %b#1 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> !q
  return %q : !q
}

// -----

// The module's chip decides the inner tensors: no transpose on sm_100a.
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: func.func private @on_sm100(tensor<4x8xf8E4M3FN> {qs.inner = "data", {{.*}}}, tensor<1xf32> {qs.inner = "scale_inv", {{.*}}})
  func.func private @on_sm100(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}
