// RUN: qs-opt %s --split-input-file --qs-gpu-host-buffers -verify-diagnostics | FileCheck %s

// Host buffers move to the device; launchers get their gpu.launch_func;
// kernel bodies (inside gpu.module) are not host code.
// CHECK-LABEL: func.func @host
// CHECK: %[[A:.*]] = gpu.alloc () : memref<16xf32>
// CHECK: call @k_launch(%[[A]])
// CHECK: gpu.memcpy %{{.*}}, %[[A]] : memref<16xf32>, memref<16xf32>
// CHECK: gpu.dealloc %[[A]] : memref<16xf32>
// CHECK: func.func private @k_launch(%[[ARG:.*]]: memref<16xf32>) {
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 128 : index
// CHECK: gpu.launch_func @qs_kernels::@k blocks in (%[[GRID]], %[[ONE]], %[[ONE]]) threads in (%[[BLOCK]], %[[ONE]], %[[ONE]]) args(%[[ARG]] : memref<16xf32>)
// CHECK: gpu.module @qs_kernels
// CHECK: memref.load
module attributes {gpu.container_module} {
  func.func @host(%out: memref<16xf32>) {
    %a = memref.alloc() : memref<16xf32>
    call @k_launch(%a) : (memref<16xf32>) -> ()
    memref.copy %a, %out : memref<16xf32> to memref<16xf32>
    memref.dealloc %a : memref<16xf32>
    return
  }
  func.func private @k_launch(memref<16xf32>) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 2 : i64, qs_launch_kernel = @qs_kernels::@k}
  gpu.module @qs_kernels {
    gpu.func @k(%a: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<16xf32>
      memref.store %v, %a[%c0] : memref<16xf32>
      gpu.return
    }
  }
}

// -----

func.func @host_load(%a: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.load' op accesses buffer contents in host code, but with qs-nvptx-pipeline every buffer lives in device memory: only kernels may touch them (qs ops, and element-wise linalg ops through qs-elementwise-to-gpu)}}
  %v = memref.load %a[%c0] : memref<16xf32>
  return %v : f32
}

// -----

func.func @dynamic(%n: index) {
  // expected-error@+1 {{'memref.alloc' op has a dynamic or strided type: qs-gpu-host-buffers allocates static, identity-layout device buffers only}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// The buffer-deallocation pipeline's bookkeeping for its run-time alias
// checks (a loop yielding fresh buffers): index (pointer) and i1 (ownership)
// arrays allocated by host code and read by its private helper stay host
// memory; the data buffers move to the device.
// CHECK-LABEL: func.func @bookkeeping
// CHECK: %[[D:.*]] = gpu.alloc () : memref<16xf32>
// CHECK: %[[P:.*]] = memref.alloc() : memref<2xindex>
// CHECK: %[[O:.*]] = memref.alloc() : memref<2xi1>
// CHECK: memref.store %{{.*}}, %[[P]][%{{.*}}] : memref<2xindex>
// CHECK: memref.store %{{.*}}, %[[O]][%{{.*}}] : memref<2xi1>
// CHECK: call @helper
// CHECK: memref.load %[[O]]
// CHECK: gpu.dealloc %[[D]] : memref<16xf32>
// CHECK: memref.dealloc %[[P]] : memref<2xindex>
// CHECK: memref.dealloc %[[O]] : memref<2xi1>
// CHECK-LABEL: func.func private @helper
// CHECK: memref.load %{{.*}} : memref<?xindex>
// CHECK: memref.store %{{.*}} : memref<?xi1>
func.func @bookkeeping(%c: i1) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.alloc() : memref<16xf32>
  %p = memref.alloc() : memref<2xindex>
  %o = memref.alloc() : memref<2xi1>
  %ptr = memref.extract_aligned_pointer_as_index %d : memref<16xf32> -> index
  memref.store %ptr, %p[%c0] : memref<2xindex>
  memref.store %c, %o[%c1] : memref<2xi1>
  %pc = memref.cast %p : memref<2xindex> to memref<?xindex>
  %oc = memref.cast %o : memref<2xi1> to memref<?xi1>
  call @helper(%pc, %oc) : (memref<?xindex>, memref<?xi1>) -> ()
  %r = memref.load %o[%c0] : memref<2xi1>
  memref.dealloc %d : memref<16xf32>
  memref.dealloc %p : memref<2xindex>
  memref.dealloc %o : memref<2xi1>
  return %r : i1
}
func.func private @helper(%p: memref<?xindex>, %o: memref<?xi1>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %p[%c0] : memref<?xindex>
  %z = arith.cmpi eq, %v, %c0 : index
  memref.store %z, %o[%c0] : memref<?xi1>
  return
}

// -----

// A public function's arguments are device buffers, i1 or index ones too.
func.func @public_i1(%o: memref<2xi1>) -> i1 {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.load' op accesses buffer contents in host code, but with qs-nvptx-pipeline every buffer lives in device memory: only kernels may touch them (qs ops, and element-wise linalg ops through qs-elementwise-to-gpu)}}
  %r = memref.load %o[%c0] : memref<2xi1>
  return %r : i1
}
