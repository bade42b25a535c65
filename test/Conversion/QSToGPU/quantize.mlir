// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU

// Host side: operands as buffers, fresh result buffers, one launcher call
// per kernel (given its gpu.launch_func body by qs-gpu-host-buffers), the
// results read back as tensors.
// CHECK-LABEL: func.func @quantize_mxfp8
// CHECK: %[[X:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<64x128xbf16> to memref<64x128xbf16>
// CHECK: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<64x128xbf16> into memref<8192xbf16>
// CHECK: %[[D:.*]] = memref.alloc() : memref<64x128xf8E4M3FN>
// CHECK: call @qs_quantize_init_launch(%[[XF]],
// CHECK: call @qs_quantize_launch(%[[XF]],
// CHECK: bufferization.to_tensor %[[D]] restrict writable
// CHECK: func.func private @qs_quantize_init_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 1 : i64, qs_launch_kernel = @qs_kernels::@qs_quantize_init}
// CHECK: func.func private @qs_quantize_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 2 : i64, qs_launch_kernel = @qs_kernels::@qs_quantize}

// Kernels: 1-D grid of 128-thread blocks, the tile in 16-byte aligned
// shared memory, phases separated by barriers; MXFP8 with both usages
// asks for 12 resident blocks (at most 40 registers).
// CHECK: gpu.module @qs_kernels
// CHECK: gpu.func @qs_quantize(%{{.*}}: memref<8192xbf16>, {{.*}}) workgroup(%[[TILE:.*]] : memref<4608xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, nvvm.minctasm = 12 : i32}
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<8192xbf16>, vector<8xbf16>
// CHECK: vector.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<8192xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: gpu.barrier
// CHECK: gpu.return

// The emulation: the same phases as loops over blocks and threads, the
// exact integer conversions instead of nvvm.convert.
// EMU-LABEL: func.func @quantize_mxfp8
// EMU: call @qs_quantize_emulated(
// EMU-NOT: gpu.module
// EMU: func.func private @qs_quantize_emulated(
// EMU: memref.alloca() {alignment = 16 : i64} : memref<4608xbf16>
// EMU: scf.for
// EMU-NOT: nvvm.convert
// EMU: return
func.func @quantize_mxfp8(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}

