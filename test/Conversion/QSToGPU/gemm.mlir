// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU
// RUN: qs-opt %s --qs-nvptx-host-pipeline=chip=sm_90a | FileCheck %s --check-prefix=HOST

// A per-tensor FP8 fprop becomes: the TMA descriptors of both K-major FP8
// buffers encoded on the host (qsCudaEncodeTensorMap2D(map, data, rows,
// cols, box rows, box cols, swizzle bytes)), then one launch of the wgmma kernel: 6 x 2
// tiles of 128x128, 384 threads, 196704 bytes of dynamic shared memory.
// CHECK-LABEL: func.func @fprop
// CHECK: %[[MA:.*]] = memref.alloc() : memref<16xi64>
// CHECK: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c768_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// CHECK: %[[MB:.*]] = memref.alloc() : memref<16xi64>
// CHECK: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// CHECK: call @qs_gemm_launch(%[[MA]], %[[MB]], %{{.*}}, %{{.*}}, %{{.*}}) : (memref<16xi64>, memref<16xi64>, memref<1xf32>, memref<1xf32>, memref<196608xbf16>)
// CHECK: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 12 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196704 : i64}
// CHECK: gpu.module @qs_kernels
// CHECK-NEXT: llvm.mlir.global external @qs_gemm_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT: gpu.func @qs_gemm({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 12, 1, 1>, nvvm.maxnreg = 168 : i32}

// The emulation takes the FP8 buffers themselves (no descriptors).
// EMU-LABEL: func.func @fprop
// EMU-NOT: qsCudaEncodeTensorMap2D
// EMU: call @qs_gemm_emulated(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<196608xf8E4M3FN>, memref<65536xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<196608xbf16>)

// After qs-gpu-host-buffers: device buffers, the launch with its dynamic
// shared memory, the descriptors freed after it.
// HOST-LABEL: func.func @fprop
// HOST: %[[MA:.*]] = gpu.alloc () : memref<16xi64>
// HOST: call @qsCudaEncodeTensorMap2D
// HOST: call @qs_gemm_launch(%[[MA]]
// HOST: gpu.dealloc %[[MA]] : memref<16xi64>
// HOST: %[[SMEM:.*]] = arith.constant 196704 : i32
// HOST: gpu.launch_func @qs_kernels::@qs_gemm blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %[[SMEM]] args
!x = !qs.tensor<768x256xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<256x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @fprop(%qx: !x, %qw: !w) -> tensor<768x256xbf16> {
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<768x256xbf16>
  return %y : tensor<768x256xbf16>
}
