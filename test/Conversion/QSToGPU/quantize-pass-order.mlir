// RUN: qs-opt %s --split-input-file --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s

// Current scaling reads x twice (the amax kernel, then the cast kernel).
// The amax kernel walks x forward; the cast kernel's block b takes tile
// grid - 1 - b, starting at x's end, whose data L2 still holds (here 16
// tiles of 64 x 64: tile 15 - b).
// CHECK-LABEL: gpu.func @qs_quantize_amax(
// CHECK: %[[A:.*]] = gpu.block_id x
// CHECK-NOT: arith.subi %{{.*}}, %[[A]]
// CHECK-LABEL: gpu.func @qs_quantize(
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK: %[[LAST:.*]] = arith.constant 15 : index
// CHECK: arith.subi %[[LAST]], %[[B]] : index
func.func @current(%x: tensor<256x256xbf16>) -> !qs.tensor<256x256xbf16, #qs.fp8_current<>> {
  %q = qs.quantize %x : tensor<256x256xbf16> -> !qs.tensor<256x256xbf16, #qs.fp8_current<>>
  return %q : !qs.tensor<256x256xbf16, #qs.fp8_current<>>
}

// -----

// MXFP8 reads x once: the cast kernel walks it forward.
// CHECK-LABEL: gpu.func @qs_quantize(
// CHECK: %[[B:.*]] = gpu.block_id x
// CHECK-NOT: arith.subi %{{.*}}, %[[B]]
// CHECK: gpu.return
func.func @mx(%x: tensor<256x256xbf16>) -> !qs.tensor<256x256xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<256x256xbf16> -> !qs.tensor<256x256xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<256x256xbf16, #qs.mxfp8<>>
}
