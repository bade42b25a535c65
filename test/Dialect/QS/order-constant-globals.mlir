// RUN: qs-opt %s -split-input-file --qs-order-constant-globals | FileCheck %s

// Private constant globals sorted by type, then value (their printed
// forms), at the front of the module, named in that order; the uses
// follow.
// CHECK-LABEL: module
//  CHECK-NEXT:   memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
//  CHECK-NEXT:   memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[5.000000e-01, 2.000000e+00]>
//  CHECK-NEXT:   memref.global "private" constant @__constant_xf32 : memref<f32> = dense<0.000000e+00>
//  CHECK-NEXT:   memref.global "private" @state : memref<2xf32> = dense<0.000000e+00>
//  CHECK-NEXT:   func.func @a
//  CHECK-NEXT:     memref.get_global @__constant_2xf32 : memref<2xf32>
//  CHECK-NEXT:     memref.get_global @__constant_xf32 : memref<f32>
//       CHECK:   func.func @b
//  CHECK-NEXT:     memref.get_global @__constant_2xf32_1 : memref<2xf32>
//  CHECK-NEXT:     memref.get_global @state : memref<2xf32>
module {
  memref.global "private" @state : memref<2xf32> = dense<0.0>
  memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @a() -> (memref<2xf32>, memref<f32>) {
    %0 = memref.get_global @__constant_2xf32 : memref<2xf32>
    %1 = memref.get_global @__constant_xf32 : memref<f32>
    return %0, %1 : memref<2xf32>, memref<f32>
  }
  memref.global "private" constant @__constant_xf32 : memref<f32> = dense<0.0>
  memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[0.5, 2.0]>
  func.func @b() -> (memref<2xf32>, memref<2xf32>) {
    %0 = memref.get_global @__constant_2xf32_0 : memref<2xf32>
    %1 = memref.get_global @state : memref<2xf32>
    return %0, %1 : memref<2xf32>, memref<2xf32>
  }
}

// -----

// A name another symbol holds is skipped; public and non-constant globals
// keep theirs.
// CHECK-LABEL: module
//  CHECK-NEXT:   memref.global "private" constant @__constant_4xi8_1 : memref<4xi8> = dense<[1, 2, 3, 4]>
//  CHECK-NEXT:   func.func private @__constant_4xi8()
//  CHECK-NEXT:   memref.global constant @public : memref<4xi8> = dense<7>
//  CHECK-NEXT:   func.func @use
//  CHECK-NEXT:     memref.get_global @__constant_4xi8_1 : memref<4xi8>
module {
  func.func private @__constant_4xi8()
  memref.global constant @public : memref<4xi8> = dense<7>
  memref.global "private" constant @c : memref<4xi8> = dense<[1, 2, 3, 4]>
  func.func @use() -> memref<4xi8> {
    %0 = memref.get_global @c : memref<4xi8>
    return %0 : memref<4xi8>
  }
}
