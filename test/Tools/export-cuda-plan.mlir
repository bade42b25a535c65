// RUN: qs-run %s --function=quantize --export-cuda-plan=%t --format=isa | FileCheck %s
// RUN: FileCheck %s --input-file=%t/plan.json --check-prefix=PLAN
// RUN: FileCheck %s --input-file=%t/kernels.bin --check-prefix=PTX
// RUN: qs-run %s --function=pingpong --export-cuda-plan=%t/mp --format=isa --multiprocessors=7
// RUN: FileCheck %s --input-file=%t/mp/plan.json --check-prefix=MP
// RUN: not qs-run %s --function=calls --export-cuda-plan=%t/calls 2>&1 | FileCheck %s --check-prefix=CALLS
// RUN: not qs-run %s --function=loop --export-cuda-plan=%t/loop 2>&1 | FileCheck %s --check-prefix=LOOP

// The launch plan of a compiled function: buffers (flattened arguments,
// inputs then results, and the host's allocations), kernel launches and
// copies in order, and the gpu.binary. The kernels write the results in
// place (the function's own allocations became the caller's buffers:
// no copies, no host allocations).
// CHECK: qs-run: @quantize for sm_90a: 2 kernel launch(es), 5 buffers (1 inputs, 4 results), isa binary of {{[0-9]+}} bytes
// PLAN: "buffers": [
// PLAN-NEXT: {
// PLAN-NEXT: "argument": 0,
// PLAN-NEXT: "bytes": 16384
// PLAN: "chip": "sm_90a",
// PLAN: "format": "isa",
// PLAN: "steps": [
// PLAN: "kernel": "qs_quantize_init"
// PLAN: "block": 128,
// PLAN: "grid": 2,
// PLAN-NEXT: "kernel": "qs_quantize"
// PLAN-NOT: "copy"
// PTX: .target sm_90a
// PTX: .entry qs_quantize_init(
// PTX: .entry qs_quantize(
// --multiprocessors: the kernels planned for a GPU of 7 multiprocessors
// (the ping-pong GEMM's persistent grid, 64 tiles otherwise).
// MP: "block": 384,
// MP-NEXT: "grid": 7,
// MP-NEXT: "kernel": "qs_gemm",
func.func @pingpong(%x: !qs.tensor<1024x256xbf16, #qs.fp8_current<columnwise = false>>,
                    %w: !qs.tensor<1024x256xbf16, #qs.fp8_current<columnwise = false>>) -> tensor<1024x1024xbf16> {
  %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_schedule = "pingpong"} : !qs.tensor<1024x256xbf16, #qs.fp8_current<columnwise = false>>, !qs.tensor<1024x256xbf16, #qs.fp8_current<columnwise = false>> -> tensor<1024x1024xbf16>
  return %y : tensor<1024x1024xbf16>
}
func.func @quantize(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}

// A value returned twice: the second result is a copy of the first
// (qs-distinct-returned-buffers): after the kernels, one copy step per
// inner buffer (codes and scales, each usage).
// RUN: qs-run %s --function=twice --export-cuda-plan=%t/twice --format=isa | FileCheck %s --check-prefix=TWICE
// RUN: FileCheck %s --input-file=%t/twice/plan.json --check-prefix=TWICE-PLAN
// TWICE: qs-run: @twice for sm_90a: 2 kernel launch(es), 9 buffers (1 inputs, 8 results)
// TWICE-PLAN: "kernel": "qs_quantize{{.*}}"
// TWICE-PLAN: "copy": {
// TWICE-PLAN-NEXT: "bytes": 8192,
// TWICE-PLAN-NEXT: "dst": 5,
// TWICE-PLAN-NEXT: "src": 1
// TWICE-PLAN-COUNT-3: "copy": {
// TWICE-PLAN-NOT: "kernel"
// TWICE-PLAN-NOT: "copy"
func.func @twice(%x: tensor<64x128xbf16>) -> (!qs.tensor<64x128xbf16, #qs.mxfp8<>>, !qs.tensor<64x128xbf16, #qs.mxfp8<>>) {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q, %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>, !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}

// A call of another function is host work a plan cannot replay.
// CALLS: error: launch plan: a call that is not a kernel launch
func.func private @helper(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16>
func.func @calls(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %y = func.call @helper(%x) : (tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}

// TMA descriptors are replayed only for buffers of constant shapes (as
// convert-qs-to-gpu emits them).
// RUN: not qs-run %s --function=map_shape --export-cuda-plan=%t/map1 2>&1 | FileCheck %s --check-prefix=MAPSHAPE
// RUN: not qs-run %s --function=map_pointer --export-cuda-plan=%t/map2 2>&1 | FileCheck %s --check-prefix=MAPPTR
// MAPSHAPE: error: launch plan: tensor map with a non-constant shape
// MAPPTR: error: launch plan: tensor map of something other than a buffer
func.func private @qsCudaEncodeTensorMap2D(i64, i64, i64, i64, i64, i64, i64) -> i32
func.func @map_shape(%x: tensor<64x128xi8>) -> tensor<64x128xi8> {
  %m = bufferization.to_buffer %x : tensor<64x128xi8> to memref<64x128xi8>
  %p = memref.extract_aligned_pointer_as_index %m : memref<64x128xi8> -> index
  %i = arith.index_cast %p : index to i64
  %c = arith.constant 128 : i64
  %r = func.call @qsCudaEncodeTensorMap2D(%i, %i, %i, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64) -> i32
  return %x : tensor<64x128xi8>
}
func.func @map_pointer(%x: tensor<64x128xi8>) -> tensor<64x128xi8> {
  %c = arith.constant 128 : i64
  %r = func.call @qsCudaEncodeTensorMap2D(%c, %c, %c, %c, %c, %c, %c) : (i64, i64, i64, i64, i64, i64, i64) -> i32
  return %x : tensor<64x128xi8>
}

// A loop (here one carrying a quantized value) is control flow a plan
// cannot replay: said, not replayed once.
// LOOP: error: launch plan: 'scf.for' is control flow, which a plan (one straight sequence of launches and copies) cannot replay; qs-run --device=cuda runs it
func.func @loop(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %q0 = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %q0) -> (!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>) {
    %d = qs.dequantize %acc : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<64x128xbf16>
    %q1 = qs.quantize %d : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
    scf.yield %q1 : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
  }
  return %r : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
}
