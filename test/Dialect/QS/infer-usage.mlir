// RUN: qs-opt %s -split-input-file --qs-infer-usage | FileCheck %s

// A Linear layer's fprop, dgrad and wgrad: X, W and dY each keep both usages (te-formats.md §6.2).
!x = !qs.tensor<128x256xbf16, #qs.mxfp8>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8>
!dy = !qs.tensor<128x512xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @linear_fwd_bwd
//       CHECK:   qs.quantize %{{.*}} : tensor<128x256xbf16> -> !qs.tensor<128x256xbf16, #qs.mxfp8>
//       CHECK:   qs.quantize %{{.*}} : tensor<512x256xbf16> -> !qs.tensor<512x256xbf16, #qs.mxfp8>
//       CHECK:   qs.quantize %{{.*}} : tensor<128x512xbf16> -> !qs.tensor<128x512xbf16, #qs.mxfp8>
func.func @linear_fwd_bwd(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>, %dy: tensor<128x512xbf16>)
    -> (tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>) {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qw = qs.quantize %w : tensor<512x256xbf16> -> !w
  %qdy = qs.quantize %dy : tensor<128x512xbf16> -> !dy
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<128x512xbf16>
  %dx = qs.gemm %qdy, %qw : !dy, !w -> tensor<128x256xbf16>
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<512x256xf32>
  return %y, %dx, %dw : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>
}

// -----

// A model with only fprop drops every column-wise buffer.
!x = !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_block>
// CHECK-LABEL: func.func @fprop_only
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.fp8_block<columnwise = false, block_scaling_dim = 1>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<512x256xbf16, #qs.fp8_block<columnwise = false>>
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b : !qs.tensor<128x256xbf16, #qs.fp8_block<columnwise = false, block_scaling_dim = 1>>, !qs.tensor<512x256xbf16, #qs.fp8_block<columnwise = false>>
func.func @fprop_only(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>) -> tensor<128x512xbf16> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qw = qs.quantize %w : tensor<512x256xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// wgrad alone needs only column-wise operands.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!dy = !qs.tensor<128x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
// CHECK-LABEL: func.func @wgrad_only
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.fp8_current<rowwise = false>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2, rowwise = false>>
func.func @wgrad_only(%x: tensor<128x256xbf16>, %dy: tensor<128x512xbf16>) -> tensor<512x256xf32> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qdy = qs.quantize %dy : tensor<128x512xbf16> -> !dy
  %dw = qs.gemm %qdy, %qx transpose_a : !dy, !x -> tensor<512x256xf32>
  return %dw : tensor<512x256xf32>
}

// -----

// A value only dequantized keeps one representation: row-wise when it had one.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @dequantize_only
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @dequantize_only(%x: tensor<64x128xbf16>) -> tensor<64x128xf32> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  %d = qs.dequantize %q : !q -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

// Dequantize is satisfied by whatever a GEMM already needs.
!q = !qs.tensor<64x128xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!w = !qs.tensor<64x128xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
// CHECK-LABEL: func.func @dequantize_and_gemm
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.fp8_block<rowwise = false, block_scaling_dim = 1>>
func.func @dequantize_and_gemm(%x: tensor<64x128xbf16>, %w: !w) -> (tensor<64x128xf32>, tensor<128x128xf32>) {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  %d = qs.dequantize %q : !q -> tensor<64x128xf32>
  %g = qs.gemm %q, %q transpose_a : !q, !q -> tensor<128x128xf32>
  return %d, %g : tensor<64x128xf32>, tensor<128x128xf32>
}

// -----

// NVFP4 can only be dequantized from row-wise data.
// CHECK-LABEL: func.func @dequantize_nvfp4
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>
func.func @dequantize_nvfp4(%x: tensor<64x128xbf16>) -> tensor<64x128xf32> {
  %q = qs.quantize %x : tensor<64x128xbf16>
      -> !qs.tensor<64x128xbf16, #qs.nvfp4>
  %d = qs.dequantize %q : !qs.tensor<64x128xbf16, #qs.nvfp4> -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

// Returned values, values passed to calls and unused values keep their declared usages.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func private @sink(!q)
// CHECK-LABEL: func.func @pinned
//       CHECK:   %[[A:.*]] = qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.fp8_current>
//       CHECK:   %[[B:.*]] = qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.fp8_current>
//       CHECK:   %[[C:.*]] = qs.empty : !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @pinned(%x: tensor<64x128xbf16>) -> !q {
  %a = qs.quantize %x : tensor<64x128xbf16> -> !q
  %b = qs.quantize %x : tensor<64x128xbf16> -> !q
  %c = qs.empty : !q
  func.call @sink(%b) : (!q) -> ()
  return %a : !q
}

// -----

// Function arguments keep their declared type; consumers that need less are fine.
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
// CHECK-LABEL: func.func @argument
//  CHECK-SAME:     %{{.*}}: !qs.tensor<512x256xbf16, #qs.fp8_current>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
func.func @argument(%w: !w, %x: tensor<128x256xbf16>) -> tensor<128x512xbf16> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %y = qs.gemm %qx, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// Values joined by scf.if share one type: the union of the needs of all uses.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
!w = !qs.tensor<256x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @scf_if
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
//       CHECK:   scf.if %{{.*}} -> (!qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>)
//       CHECK:   qs.gemm {{.*}} : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @scf_if(%c: i1, %x: tensor<64x128xbf16>, %w: !w) -> tensor<64x256xbf16> {
  %a = qs.quantize %x : tensor<64x128xbf16> -> !q
  %b = qs.quantize %x : tensor<64x128xbf16> -> !q
  %r = scf.if %c -> !q {
    scf.yield %a : !q
  } else {
    scf.yield %b : !q
  }
  %y = qs.gemm %r, %w transpose_b : !q, !w -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

// -----

// Loop-carried values and branch arguments are retyped with their producers.
!q = !qs.tensor<64x128xbf16, #qs.nvfp4>
!w = !qs.tensor<256x128xbf16, #qs.nvfp4<columnwise = false>>
// CHECK-LABEL: func.func @loop_and_branch
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>
//       CHECK:   scf.for {{.*}} -> (!qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>)
//       CHECK:     qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>
//       CHECK:   cf.br ^bb1(%{{.*}} : !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>)
//       CHECK: ^bb1(%{{.*}}: !qs.tensor<64x128xbf16, #qs.nvfp4<columnwise = false>>):
func.func @loop_and_branch(%x: tensor<64x128xbf16>, %w: !w, %n: index) -> tensor<64x256xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = qs.quantize %x : tensor<64x128xbf16> -> !q
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> !q {
    %next = qs.quantize %x : tensor<64x128xbf16> -> !q
    scf.yield %next : !q
  }
  cf.br ^bb1(%l : !q)
^bb1(%v: !q):
  %y = qs.gemm %v, %w transpose_b : !q, !w -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}

// -----

// An update_usage from a rewritable producer: the producer makes the result's usages directly and
// the update_usage disappears.
!row = !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>>
!both = !qs.tensor<128x128xbf16, #qs.fp8_block>
// CHECK-LABEL: func.func @update_usage_folds_into_producer
//       CHECK:   %[[Q:.*]] = qs.quantize %{{.*}} -> !qs.tensor<128x128xbf16, #qs.fp8_block>
//   CHECK-NOT:   qs.update_usage
//       CHECK:   return %[[Q]]
func.func @update_usage_folds_into_producer(%x: tensor<128x128xbf16>) -> !both {
  %q = qs.quantize %x : tensor<128x128xbf16> -> !row
  %r = qs.update_usage %q : !row -> !both
  return %r : !both
}

// -----

// An update_usage from a fixed argument stays, and is checked: 128x128 blocks derive column-wise.
!row = !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>>
!both = !qs.tensor<128x128xbf16, #qs.fp8_block>
!dy = !qs.tensor<64x128xbf16, #qs.fp8_block<block_scaling_dim = 1>>
// CHECK-LABEL: func.func @update_usage_from_argument
//       CHECK:   qs.update_usage %{{.*}} : !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_block<rowwise = false>>
//       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<64x128xbf16, #qs.fp8_block<columnwise = false, block_scaling_dim = 1>>
func.func @update_usage_from_argument(%w: !row, %dy: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %wc = qs.update_usage %w : !row -> !both
  %qdy = qs.quantize %dy : tensor<64x128xbf16> -> !dy
  %dx = qs.gemm %qdy, %wc : !dy, !both -> tensor<64x128xbf16>
  return %dx : tensor<64x128xbf16>
}

// -----

// On a chip that is not TN-only, per-tensor FP8 serves both usages from data; a consumer's need
// still sets the flags minimally.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: func.func @non_tn
  //       CHECK:   qs.quantize %{{.*}} -> !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
  func.func @non_tn(%x: tensor<128x256xbf16>, %w: !w) -> tensor<128x512xbf16> {
    %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
    %y = qs.gemm %qx, %w transpose_b : !x, !w -> tensor<128x512xbf16>
    return %y : tensor<128x512xbf16>
  }
}

// -----

// A quantized GEMM result (output quantizer) is a producer like qs.quantize:
// it gets the usages its consumers need (here the next fprop's row-wise).
!x = !qs.tensor<128x256xbf16, #qs.mxfp8>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8>
!h = !qs.tensor<128x512xbf16, #qs.mxfp8>
!w2 = !qs.tensor<256x512xbf16, #qs.mxfp8>
// CHECK-LABEL: func.func @gemm_result
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b : {{.*}} -> !qs.tensor<128x512xbf16, #qs.mxfp8<columnwise = false>>
func.func @gemm_result(%x: tensor<128x256xbf16>, %w: tensor<512x256xbf16>, %w2: tensor<256x512xbf16>) -> tensor<128x256xf32> {
  %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
  %qw = qs.quantize %w : tensor<512x256xbf16> -> !w
  %h = qs.gemm %qx, %qw transpose_b : !x, !w -> !h
  %qw2 = qs.quantize %w2 : tensor<256x512xbf16> -> !w2
  %y = qs.gemm %h, %qw2 transpose_b : !h, !w2 -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}
