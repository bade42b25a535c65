// RUN: qs-opt %s -split-input-file --qs-strip-flatten-attributes | FileCheck %s

// qs.inner / qs.origin / qs.type go away; other argument and result attributes stay.
// CHECK-LABEL: func.func private @f
//  CHECK-SAME:     (tensor<4xf32> {test.keep}, tensor<1xf32>) -> (tensor<4xf32> {test.res})
//   CHECK-NOT:   qs.inner
func.func private @f(tensor<4xf32> {qs.inner = "data", qs.origin = 0 : i64, test.keep},
                     tensor<1xf32> {qs.inner = "scale_inv", qs.origin = 0 : i64,
                                    qs.type = !qs.tensor<4xbf16, #qs.fp8_current<columnwise = false>>})
    -> (tensor<4xf32> {qs.inner = "data", qs.origin = 0 : i64, test.res})
