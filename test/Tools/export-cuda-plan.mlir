// RUN: qs-run %s --function=quantize --export-cuda-plan=%t --format=isa | FileCheck %s
// RUN: FileCheck %s --input-file=%t/plan.json --check-prefix=PLAN
// RUN: FileCheck %s --input-file=%t/kernels.bin --check-prefix=PTX
// RUN: not qs-run %s --function=calls --export-cuda-plan=%t/calls 2>&1 | FileCheck %s --check-prefix=CALLS

// The launch plan of a compiled function: buffers (flattened arguments,
// inputs then results, and the host's allocations), kernel launches and
// copies in order, and the gpu.binary.
// CHECK: qs-run: @quantize for sm_90a: 2 kernel launch(es), 9 buffers (1 inputs, 4 results), isa binary of {{[0-9]+}} bytes
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
// PLAN: "copy": {
// PLAN-NEXT: "bytes": 8192,
// PTX: .target sm_90a
// PTX: .entry qs_quantize_init(
// PTX: .entry qs_quantize(
func.func @quantize(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}

// A call of another function is host work a plan cannot replay.
// CALLS: error: launch plan: a call that is not a kernel launch
func.func private @helper(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16>
func.func @calls(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %y = func.call @helper(%x) : (tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}
