// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU

// update_usage creating the per-tensor FP8 transpose: one kernel reading
// the source's inner tensors (data, scale_inv) and writing the created
// transpose, a fresh buffer read back as the result's new inner tensor.
// CHECK-LABEL: func.func @fp8_transpose
// CHECK: %[[T:.*]] = memref.alloc() : memref<128x128xf8E4M3FN>
// CHECK: call @qs_update_usage_launch(
// CHECK: bufferization.to_tensor %[[T]] restrict writable
// EMU-LABEL: func.func @fp8_transpose
// EMU: call @qs_update_usage_emulated(
func.func @fp8_transpose(%a: !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>) -> !qs.tensor<128x128xbf16, #qs.fp8_current<>> {
  %b = qs.update_usage %a : !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_current<>>
  return %b : !qs.tensor<128x128xbf16, #qs.fp8_current<>>
}

// 16x16 NVFP4: column-wise codes, scales and amax created by one kernel.
// CHECK-LABEL: func.func @nvfp4_columnwise
// CHECK: memref.alloc() : memref<128x32xi8>
// CHECK: memref.alloc() : memref<128x4xf8E4M3FN>
// CHECK: memref.alloc() : memref<1xf32>
// CHECK: call @qs_update_usage_0_launch(
func.func @nvfp4_columnwise(%a: !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true>>) -> !qs.tensor<64x128xbf16, #qs.nvfp4<with_2d_quantization = true>> {
  %b = qs.update_usage %a : !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false, with_2d_quantization = true>> -> !qs.tensor<64x128xbf16, #qs.nvfp4<with_2d_quantization = true>>
  return %b : !qs.tensor<64x128xbf16, #qs.nvfp4<with_2d_quantization = true>>
}

// A result without the row-wise representation it is made from (what
// qs-infer-usage leaves when only column-wise consumers remain): the kernel
// still reads the source's row-wise buffers (a fuzzer-found null
// dereference before 2026-12-04).
// CHECK-LABEL: func.func @block_columnwise_only
// CHECK: memref.alloc() : memref<128x128xf8E4M3FN>
// CHECK: memref.alloc() : memref<1x4xf32>
// CHECK: call @qs_update_usage_1_launch(
func.func @block_columnwise_only(%a: !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>>) -> !qs.tensor<128x128xbf16, #qs.fp8_block<rowwise = false>> {
  %b = qs.update_usage %a : !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_block<rowwise = false>>
  return %b : !qs.tensor<128x128xbf16, #qs.fp8_block<rowwise = false>>
}

// Tiles of 4 KiB (64 x 64 bytes: 2 x 2 for 128x128 codes; 64 x 128
// nibbles: one for 64x128 NVFP4 codes), each read in 16-byte vectors into
// 4-byte padded shared rows, then written transposed in 16-byte vectors.
// CHECK: func.func private @qs_update_usage_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 4 : i64, qs_launch_kernel = @qs_kernels::@qs_update_usage}
// CHECK: func.func private @qs_update_usage_0_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 1 : i64, qs_launch_kernel = @qs_kernels::@qs_update_usage_0}
// CHECK: gpu.func @qs_update_usage({{.*}}) workgroup(%[[TILE:.*]] : memref<4352xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<16384xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK: vector.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK: vector.load %[[TILE]][%{{.*}}] {alignment = 4 : i64} : memref<4352xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// CHECK: nvvm.prmt
// CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<16384xf8E4M3FN>, vector<4xf8E4M3FN>
// CHECK: gpu.func @qs_update_usage_0(
// EMU: func.func private @qs_update_usage_emulated(
