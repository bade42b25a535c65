// RUN: qs-opt %s -split-input-file --test-qs-upstream-one-to-n -verify-diagnostics | FileCheck %s
//
// Watches upstream: flattening with MLIR's own function-signature and branch
// type-conversion patterns (populateFunctionOpInterfaceTypeConversionPattern,
// populateBranchOpInterfaceTypeConversionPattern). In MLIR 22.1.8 they
// convert the entry block 1:N but neither non-entry block arguments nor
// branch operands, which is why qs-flatten-storage has its own patterns
// (FlattenStorage.cpp). When the second case stops failing, upstream has
// caught up: switch qs-flatten-storage to upstream's patterns and update
// this test.

// The entry block alone: upstream converts the signature 1:N.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @entry_only
//  CHECK-SAME:     (%[[D:.*]]: tensor<4x8xf8E4M3FN>, %[[S:.*]]: tensor<1xf32>) -> (tensor<4x8xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   return %[[D]], %[[S]]
func.func @entry_only(%a: !q) -> !q {
  return %a : !q
}

// -----

// A non-entry block argument and the branches to it: upstream leaves them unconverted.
!q = !qs.tensor<4x8xbf16, #qs.fp8_current<columnwise = false>>
// expected-error @+1 {{failed to legalize operation 'func.func' that was explicitly marked illegal}}
func.func @non_entry_block(%c: i1, %a: !q, %b: !q) -> !q {
  cf.cond_br %c, ^bb1(%a : !q), ^bb1(%b : !q)
^bb1(%p: !q):
  return %p : !q
}
