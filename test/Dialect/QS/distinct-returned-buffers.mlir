// RUN: qs-opt %s -split-input-file -allow-unregistered-dialect --qs-distinct-returned-buffers | FileCheck %s
// RUN: qs-opt %s -split-input-file -allow-unregistered-dialect --qs-distinct-returned-buffers --buffer-results-to-out-params="hoist-static-allocs modify-public-functions" | FileCheck %s --check-prefix=HOIST

// A buffer returned twice: the second result is a copy in its own
// allocation; a buffer returned once, and an argument, are left as they are.
// CHECK-LABEL: func.func @twice
//       CHECK:   %[[A:.*]] = memref.alloc() : memref<4xf32>
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<2xi8>
//       CHECK:   "test.fill"(%[[A]], %[[B]])
//       CHECK:   %[[C:.*]] = memref.alloc() : memref<4xf32>
//       CHECK:   memref.copy %[[A]], %[[C]] : memref<4xf32> to memref<4xf32>
//  CHECK-NEXT:   return %[[A]], %[[C]], %[[B]], %arg0
// Then every allocated result is the caller's buffer (no copy at the end)
// and the repeat is a copy from the first.
// HOIST-LABEL: func.func @twice
//  HOIST-SAME:     (%[[X:.*]]: memref<3xf32>, %[[R0:.*]]: memref<4xf32>, %[[R1:.*]]: memref<4xf32>, %[[R2:.*]]: memref<2xi8>, %[[R3:.*]]: memref<3xf32>)
//   HOIST-NOT:   memref.alloc
//       HOIST:   "test.fill"(%[[R0]], %[[R2]])
//  HOIST-NEXT:   memref.copy %[[R0]], %[[R1]]
//  HOIST-NEXT:   memref.copy %[[X]], %[[R3]]
//  HOIST-NEXT:   return
func.func @twice(%x: memref<3xf32>) -> (memref<4xf32>, memref<4xf32>, memref<2xi8>, memref<3xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<2xi8>
  "test.fill"(%a, %b) : (memref<4xf32>, memref<2xi8>) -> ()
  return %a, %a, %b, %x : memref<4xf32>, memref<4xf32>, memref<2xi8>, memref<3xf32>
}

// -----

// Dynamic shapes are not copied (nor hoisted).
// CHECK-LABEL: func.func @dynamic
//   CHECK-NOT:   memref.copy
//       CHECK:   return %{{.*}}, %{{.*}} : memref<?xf32>, memref<?xf32>
func.func @dynamic(%n: index) -> (memref<?xf32>, memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?xf32>
  return %a, %a : memref<?xf32>, memref<?xf32>
}
