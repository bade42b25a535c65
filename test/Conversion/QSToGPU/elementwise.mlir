// RUN: qs-opt %s --split-input-file --qs-elementwise-to-gpu | FileCheck %s
// RUN: qs-opt %s --split-input-file --qs-elementwise-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU

// A bias add and ReLU (bf16 [64, 256] + bf16 [256]): one kernel of 256
// threads, each thread 8 consecutive points (16 bytes of bf16), so 2048
// units in 8 blocks; x, the bias (contiguous along the innermost loop) and
// the result by one vector access each; the payload cloned 8 times.
// CHECK-LABEL: func.func @bias_relu
// CHECK-DAG: %[[X:.*]] = bufferization.to_buffer %arg0 read_only : tensor<64x256xbf16> to memref<64x256xbf16>
// CHECK-DAG: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1]] : memref<64x256xbf16> into memref<16384xbf16>
// CHECK-DAG: %[[B:.*]] = bufferization.to_buffer %arg1 read_only : tensor<256xbf16> to memref<256xbf16>
// CHECK: %[[R:.*]] = memref.alloc() : memref<64x256xbf16>
// CHECK: %[[RF:.*]] = memref.collapse_shape %[[R]]
// CHECK: call @qs_elementwise_launch(%[[XF]], %[[B]], %[[RF]]) : (memref<16384xbf16>, memref<256xbf16>, memref<16384xbf16>) -> ()
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[R]] restrict writable
// CHECK: return %[[T]]
// CHECK: func.func private @qs_elementwise_launch({{.*}}) attributes {qs_launch_block = 256 : i64, qs_launch_grid = 8 : i64, qs_launch_kernel = @qs_kernels::@qs_elementwise}
// CHECK: gpu.module @qs_kernels
// CHECK: gpu.func @qs_elementwise(%{{.*}}: memref<16384xbf16>, %{{.*}}: memref<256xbf16>, %{{.*}}: memref<16384xbf16>) kernel
// CHECK-COUNT-2: vector.load {{.*}} {alignment = 16 : i64} : memref<{{[0-9]+}}xbf16>, vector<8xbf16>
// CHECK-COUNT-8: arith.maximumf
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// EMU-LABEL: func.func @bias_relu
// EMU: call @qs_elementwise_emulated(
// EMU: func.func private @qs_elementwise_emulated(
// EMU-NOT: gpu.module
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<64x256xbf16>, %b: tensor<256xbf16>)
    -> tensor<64x256xbf16> {
  %e = tensor.empty() : tensor<64x256xbf16>
  %zero = arith.constant 0.0 : bf16
  %r = linalg.generic {indexing_maps = [#row, #col, #row],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x256xbf16>, tensor<256xbf16>)
      outs(%e : tensor<64x256xbf16>) {
  ^bb0(%v: bf16, %bias: bf16, %o: bf16):
    %s = arith.addf %v, %bias : bf16
    %m = arith.maximumf %s, %zero : bf16
    linalg.yield %m : bf16
  } -> tensor<64x256xbf16>
  return %r : tensor<64x256xbf16>
}

// -----

// A transposed operand (stride 32 along the innermost loop) is read element
// by element; bf16 -> f32 with the result contiguous: 4 points per thread
// (16 bytes of f32), 16 x 32 / 4 = 128 units, one block, a guard for
// threads past them. The init is not read (its argument is unused).
// CHECK-LABEL: func.func @transpose_extf
// CHECK-NOT: to_buffer %{{.*}} : tensor<16x32xf32>
// CHECK: attributes {qs_launch_block = 256 : i64, qs_launch_grid = 1 : i64
// CHECK: gpu.func @qs_elementwise(%{{.*}}: memref<512xbf16>, %{{.*}}: memref<512xf32>) kernel
// CHECK: scf.if
// CHECK-COUNT-4: memref.load {{.*}} : memref<512xbf16>
// CHECK: vector.store {{.*}} : memref<512xf32>, vector<4xf32>
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose_extf(%x: tensor<32x16xbf16>, %init: tensor<16x32xf32>)
    -> tensor<16x32xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x16xbf16>) outs(%init : tensor<16x32xf32>) {
  ^bb0(%v: bf16, %o: f32):
    %f = arith.extf %v : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// linalg.fill with a constant (cloned into the kernel) and linalg.index
// (the point's loop index: the unit's first plus the point's offset), an
// init that the payload reads (an accumulation), and a rank-0 tensor.
// CHECK-LABEL: func.func @fill_index_acc
// CHECK: gpu.func @qs_elementwise(%{{.*}}: memref<24xi32>) kernel
// CHECK: arith.constant 7 : i32
// CHECK: vector.store {{.*}} : memref<24xi32>, vector<4xi32>
// CHECK: gpu.func @qs_elementwise_0(%{{.*}}: memref<24xi32>, %{{.*}}: memref<24xi32>) kernel
// CHECK: arith.index_cast
// CHECK: gpu.func @qs_elementwise_1(%{{.*}}: memref<1xf32>, %{{.*}}: memref<1xf32>, %{{.*}}: memref<1xf32>) kernel
// CHECK: arith.mulf
func.func @fill_index_acc(%a: tensor<f32>, %c: tensor<f32>)
    -> (tensor<24xi32>, tensor<f32>) {
  %e = tensor.empty() : tensor<24xi32>
  %seven = arith.constant 7 : i32
  %f = linalg.fill ins(%seven : i32) outs(%e : tensor<24xi32>) -> tensor<24xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      outs(%f : tensor<24xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %s = arith.addi %o, %ii : i32
    linalg.yield %s : i32
  } -> tensor<24xi32>
  %p = linalg.generic {indexing_maps = [affine_map<() -> ()>,
                                        affine_map<() -> ()>],
                       iterator_types = []}
      ins(%a : tensor<f32>) outs(%c : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %o : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r, %p : tensor<24xi32>, tensor<f32>
}

// -----

// Reductions: one thread per point of the parallel loops (here 37 rows; 100
// columns), the inits read, the reduction loops an scf.for carrying the
// results in order (the CPU loops' order: the same bits). A reduction over
// no points still writes its inits.
// CHECK-LABEL: func.func @reductions
// CHECK: call @qs_reduction_launch({{.*}}) : (memref<3700xf32>, memref<37xf32>, memref<37xf32>) -> ()
// CHECK: call @qs_reduction_0_launch({{.*}}) : (memref<3700xf32>, memref<100xf32>, memref<100xf32>) -> ()
// CHECK: call @qs_reduction_1_launch({{.*}}) : (memref<0xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK: gpu.func @qs_reduction(%{{.*}}: memref<3700xf32>, %{{.*}}: memref<37xf32>, %[[OUT:.*]]: memref<37xf32>) kernel
// CHECK: %[[INIT:.*]] = memref.load
// CHECK: %[[SUM:.*]] = scf.for {{.*}} = %{{.*}} to %c100 step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK: arith.addf {{.*}}%[[ACC]]
// CHECK: memref.store %[[SUM]], %[[OUT]]
// CHECK: gpu.func @qs_reduction_0(
// CHECK: scf.for {{.*}} to %c37
// CHECK: arith.maximumf
// CHECK: gpu.func @qs_reduction_1(
// CHECK: scf.for {{.*}} to %c0
func.func @reductions(%x: tensor<37x100xf32>, %y: tensor<0x4xf32>)
    -> (tensor<37xf32>, tensor<100xf32>, tensor<4xf32>) {
  %z = arith.constant dense<0.0> : tensor<37xf32>
  %m = arith.constant dense<0xFF800000> : tensor<100xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %s = linalg.reduce { arith.addf } ins(%x : tensor<37x100xf32>) outs(%z : tensor<37xf32>) dimensions = [1]
  %c = linalg.reduce { arith.maximumf } ins(%x : tensor<37x100xf32>) outs(%m : tensor<100xf32>) dimensions = [0]
  %e = linalg.reduce { arith.addf } ins(%y : tensor<0x4xf32>) outs(%one : tensor<4xf32>) dimensions = [0]
  return %s, %c, %e : tensor<37xf32>, tensor<100xf32>, tensor<4xf32>
}

// -----

// Ops on buffers are not this pass's (qs-gpu-host-buffers reports host
// accesses of device memory).
// CHECK-LABEL: func.func @buffers
// CHECK: linalg.fill
// CHECK-NOT: gpu.module
func.func @buffers(%m: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%m : memref<4xf32>)
  return
}
