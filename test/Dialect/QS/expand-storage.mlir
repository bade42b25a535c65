// RUN: qs-opt %s -split-input-file --qs-expand-storage | FileCheck %s

// qs.empty becomes one tensor.empty per inner tensor, in interface order, joined by qs.assemble.
!blk = !qs.tensor<300x384xbf16, #qs.fp8_block<block_scaling_dim = 1>>
// CHECK-LABEL: func.func @empty
//   CHECK-DAG:   %[[D:.*]] = tensor.empty() : tensor<300x384xf8E4M3FN>
//   CHECK-DAG:   %[[S:.*]] = tensor.empty() : tensor<3x300xf32>
//   CHECK-DAG:   %[[CD:.*]] = tensor.empty() : tensor<384x300xf8E4M3FN>
//   CHECK-DAG:   %[[CS:.*]] = tensor.empty() : tensor<3x384xf32>
//       CHECK:   %[[Q:.*]] = qs.assemble %[[D]], %[[S]], %[[CD]], %[[CS]] : {{.*}} -> !qs.tensor<300x384xbf16, #qs.fp8_block<block_scaling_dim = 1>>
//       CHECK:   return %[[Q]]
//   CHECK-NOT:   qs.empty
func.func @empty() -> !blk {
  %t = qs.empty : !blk
  return %t : !blk
}

// -----

// qs.quantize writes every inner tensor through qs.quantize_buffers.
!mx = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @quantize
//  CHECK-SAME:     %[[X:.*]]: tensor<64x128xbf16>
//   CHECK-DAG:   %[[D:.*]] = tensor.empty() : tensor<64x128xf8E4M3FN>
//   CHECK-DAG:   %[[S:.*]] = tensor.empty() : tensor<128x4xf8E8M0FNU>
//       CHECK:   %[[B:.*]]:2 = qs.quantize_buffers %[[X]] outs(%[[D]], %[[S]] : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
//       CHECK:   %[[Q:.*]] = qs.assemble %[[B]]#0, %[[B]]#1
//       CHECK:   return %[[Q]]
func.func @quantize(%x: tensor<64x128xbf16>) -> !mx {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !mx
  return %q : !mx
}

// -----

// Delayed scaling: the scale is an input, the amax state the last init, and the updated amax a result.
!del = !qs.tensor<64x128xbf16, #qs.fp8_delayed<columnwise = false>>
// CHECK-LABEL: func.func @quantize_delayed
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<64x128xbf16>, %[[S:[a-z0-9]+]]: tensor<1xf32>, %[[A:[a-z0-9]+]]: tensor<1xf32>
//       CHECK:   %[[B:.*]]:3 = qs.quantize_buffers %[[X]] scale(%[[S]] : tensor<1xf32>) outs(%{{.*}}, %{{.*}}, %[[A]] : tensor<64x128xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>)
//       CHECK:   %[[Q:.*]] = qs.assemble %[[B]]#0, %[[B]]#1 :
//       CHECK:   return %[[Q]], %[[B]]#2
func.func @quantize_delayed(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>)
    -> (!del, tensor<1xf32>) {
  %q, %amax = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>)
      : tensor<64x128xbf16> -> !del, tensor<1xf32>
  return %q, %amax : !del, tensor<1xf32>
}

// -----

// Current scaling with a given global amax (TE's amax reduction): an operand
// of the buffer op, not an outs.
!cur = !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @quantize_given_amax
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<64x128xbf16>, %[[A:[a-z0-9]+]]: tensor<1xf32>
//       CHECK:   %[[B:.*]]:2 = qs.quantize_buffers %[[X]] amax(%[[A]] : tensor<1xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<1xf32>)
//       CHECK:   %[[Q:.*]] = qs.assemble %[[B]]#0, %[[B]]#1 :
//       CHECK:   return %[[Q]]
func.func @quantize_given_amax(%x: tensor<64x128xbf16>, %a: tensor<1xf32>) -> !cur {
  %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !cur
  return %q : !cur
}

// -----

// qs.dequantize reads all inner tensors through qs.disassemble.
!nv = !qs.tensor<32x64xf32, #qs.nvfp4<columnwise = false>>
// CHECK-LABEL: func.func @dequantize
//  CHECK-SAME:     %[[Q:.*]]: !qs.tensor
//       CHECK:   %[[P:.*]]:3 = qs.disassemble %[[Q]]
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<32x64xbf16>
//       CHECK:   %[[R:.*]] = qs.dequantize_buffers ins(%[[P]]#0, %[[P]]#1, %[[P]]#2 : tensor<32x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>) outs(%[[E]] : tensor<32x64xbf16>) as !qs.tensor<32x64xf32, #qs.nvfp4<columnwise = false>> -> tensor<32x64xbf16>
//       CHECK:   return %[[R]]
func.func @dequantize(%q: !nv) -> tensor<32x64xbf16> {
  %x = qs.dequantize %q : !nv -> tensor<32x64xbf16>
  return %x : tensor<32x64xbf16>
}

// -----

// qs.gemm: both operands disassembled; an empty init without accumulate.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @gemm
//       CHECK:   %[[A:.*]]:2 = qs.disassemble %{{.*}} : !qs.tensor<128x256xbf16
//       CHECK:   %[[B:.*]]:2 = qs.disassemble %{{.*}} : !qs.tensor<512x256xbf16
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<128x512xbf16>
//       CHECK:   qs.gemm_buffers a(%[[A]]#0, %[[A]]#1 : tensor<128x256xf8E4M3FN>, tensor<1xf32>) as !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>> b(%[[B]]#0, %[[B]]#1 : tensor<512x256xf8E4M3FN>, tensor<1xf32>) as !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>> outs(%[[E]] : tensor<128x512xbf16>) transpose_b -> tensor<128x512xbf16>
func.func @gemm(%x: !x, %w: !w) -> tensor<128x512xbf16> {
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}

// -----

// The buffer-level ops keep the proto-level ops' discardable attributes:
// per-op GEMM kernel options and qs.chip, which qs-nvptx-pipeline reads on
// the op or its ancestors; qs.gemm_buffers takes over fast_accumulate.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @kept_attributes
//       CHECK:   qs.quantize_buffers {{.*}} {qs.chip = "sm_90a"}
//       CHECK:   qs.gemm_buffers {{.*}} transpose_b fast_accumulate {qs.gemm_cluster = 2 : i64, qs.gemm_persistent = 132 : i64, qs.gemm_tile_n = 256 : i64} -> tensor<128x512xbf16>
//       CHECK:   qs.dequantize_buffers {{.*}} {qs.chip = "sm_90a"}
func.func @kept_attributes(%xt: tensor<128x256xbf16>, %w: !w) -> (tensor<128x512xbf16>, tensor<128x256xf32>) {
  %x = qs.quantize %xt {qs.chip = "sm_90a"} : tensor<128x256xbf16> -> !x
  %y = qs.gemm %x, %w transpose_b fast_accumulate {qs.gemm_cluster = 2 : i64, qs.gemm_persistent = 132 : i64, qs.gemm_tile_n = 256 : i64} : !x, !w -> tensor<128x512xbf16>
  %d = qs.dequantize %x {qs.chip = "sm_90a"} : !x -> tensor<128x256xf32>
  return %y, %d : tensor<128x512xbf16>, tensor<128x256xf32>
}

// -----

// qs.gemm with bias and accumulate: the accumulate operand is the init.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8<rowwise = false>>
!dy = !qs.tensor<128x512xbf16, #qs.mxfp8<rowwise = false>>
// CHECK-LABEL: func.func @gemm_accumulate
//  CHECK-SAME:     %[[BIAS:[a-z0-9]+]]: tensor<256xf32>, %[[C:[a-z0-9]+]]: tensor<512x256xf32>
//       CHECK:   qs.gemm_buffers a({{.*}}) as {{.*}} b({{.*}}) as {{.*}} bias(%[[BIAS]] : tensor<256xf32>) outs(%[[C]] : tensor<512x256xf32>) transpose_a accumulate -> tensor<512x256xf32>
func.func @gemm_accumulate(%dy: !dy, %x: !x, %bias: tensor<256xf32>, %c: tensor<512x256xf32>)
    -> tensor<512x256xf32> {
  %dw = qs.gemm %dy, %x transpose_a bias(%bias : tensor<256xf32>)
      accumulate(%c : tensor<512x256xf32>) : !dy, !x -> tensor<512x256xf32>
  return %dw : tensor<512x256xf32>
}

// -----

// qs.gemm with a delayed-scaling result of per-tensor FP8 operands (fused,
// cuBLASLt's FP8 output): the FP32 product is quantized, with the GEMM's
// chip but not its kernel options; the amax state is the last outs.
!x = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current<columnwise = false>>
!h = !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>
// CHECK-LABEL: func.func @gemm_fused_output_quantizer
//  CHECK-SAME:     %[[S:[a-z0-9]+]]: tensor<1xf32>, %[[AM:[a-z0-9]+]]: tensor<1xf32>
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<128x512xf32>
//       CHECK:   %[[P:.*]] = qs.gemm_buffers {{.*}} outs(%[[E]] : tensor<128x512xf32>) transpose_b {qs.chip = "sm_90a", qs.gemm_tile_n = 256 : i64} -> tensor<128x512xf32>
//       CHECK:   %[[D:.*]] = tensor.empty() : tensor<128x512xf8E4M3FN>
//       CHECK:   %[[SI:.*]] = tensor.empty() : tensor<1xf32>
//       CHECK:   %[[Q:.*]]:3 = qs.quantize_buffers %[[P]] scale(%[[S]] : tensor<1xf32>) outs(%[[D]], %[[SI]], %[[AM]] : tensor<128x512xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) as !qs.tensor<128x512xf32, #qs.fp8_delayed<columnwise = false>> {qs.chip = "sm_90a"} : tensor<128x512xf32>
//       CHECK:   %[[R:.*]] = qs.assemble %[[Q]]#0, %[[Q]]#1 : {{.*}} -> !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>
//       CHECK:   return %[[R]], %[[Q]]#2
func.func @gemm_fused_output_quantizer(%x: !x, %w: !w, %s: tensor<1xf32>, %am: tensor<1xf32>)
    -> (!h, tensor<1xf32>) {
  %h, %am2 = qs.gemm %x, %w transpose_b scale(%s : tensor<1xf32>) amax(%am : tensor<1xf32>)
      {qs.chip = "sm_90a", qs.gemm_tile_n = 256 : i64} : !x, !w -> !h, tensor<1xf32>
  return %h, %am2 : !h, tensor<1xf32>
}

// -----

// qs.gemm with any other output quantizer (unfused, TE's GEMM + quantize):
// the product rounded to the nominal type is quantized.
!x = !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.mxfp8<columnwise = false>>
!h = !qs.tensor<128x512xf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @gemm_unfused_output_quantizer
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<128x512xf16>
//       CHECK:   %[[P:.*]] = qs.gemm_buffers {{.*}} outs(%[[E]] : tensor<128x512xf16>) transpose_b -> tensor<128x512xf16>
//       CHECK:   %[[Q:.*]]:2 = qs.quantize_buffers %[[P]] outs({{.*}}) as !qs.tensor<128x512xf16, #qs.fp8_current<columnwise = false>> : tensor<128x512xf16>
//       CHECK:   qs.assemble %[[Q]]#0, %[[Q]]#1
func.func @gemm_unfused_output_quantizer(%x: !x, %w: !w) -> !h {
  %h = qs.gemm %x, %w transpose_b : !x, !w -> !h
  return %h : !h
}

// -----

// qs.update_usage that creates: the kept inner tensors are forwarded, the created ones come from qs.update_usage_buffers.
!row = !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
!both = !qs.tensor<64x128xbf16, #qs.fp8_current>
// CHECK-LABEL: func.func @update_usage_create
//       CHECK:   %[[P:.*]]:2 = qs.disassemble %{{.*}} : !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>> -> tensor<64x128xf8E4M3FN>, tensor<1xf32>
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<128x64xf8E4M3FN>
//       CHECK:   %[[T:.*]] = qs.update_usage_buffers ins(%[[P]]#0, %[[P]]#1 : tensor<64x128xf8E4M3FN>, tensor<1xf32>) outs(%[[E]] : tensor<128x64xf8E4M3FN>) from !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>> to !qs.tensor<64x128xbf16, #qs.fp8_current> -> tensor<128x64xf8E4M3FN>
//       CHECK:   qs.assemble %[[P]]#0, %[[T]], %[[P]]#1 : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN>, tensor<1xf32> -> !qs.tensor<64x128xbf16, #qs.fp8_current>
func.func @update_usage_create(%q: !row) -> !both {
  %r = qs.update_usage %q : !row -> !both
  return %r : !both
}

// -----

// qs.update_usage that only drops needs no buffer-level op.
!both = !qs.tensor<64x128xbf16, #qs.nvfp4>
!col = !qs.tensor<64x128xbf16, #qs.nvfp4<rowwise = false>>
// CHECK-LABEL: func.func @update_usage_drop
//       CHECK:   %[[P:.*]]:6 = qs.disassemble
//   CHECK-NOT:   qs.update_usage_buffers
//       CHECK:   qs.assemble %[[P]]#2, %[[P]]#3, %[[P]]#5 : tensor<128x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32> -> !qs.tensor<64x128xbf16, #qs.nvfp4<rowwise = false>>
func.func @update_usage_drop(%q: !both) -> !col {
  %r = qs.update_usage %q : !both -> !col
  return %r : !col
}

// -----

// Expansion follows the chip: on sm_100a per-tensor FP8 has no transpose.
!q = !qs.tensor<64x128xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: func.func @quantize_sm100
  //       CHECK:   qs.quantize_buffers %{{.*}} outs(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<1xf32>)
  func.func @quantize_sm100(%x: tensor<64x128xbf16>) -> !q {
    %q = qs.quantize %x : tensor<64x128xbf16> -> !q
    return %q : !q
  }
}

// -----

// No proto-level op survives in a whole Linear layer, and ops nested in regions are expanded too.
!x = !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_block>
// CHECK-LABEL: func.func @nested
//   CHECK-NOT:   qs.quantize %
//   CHECK-NOT:   qs.gemm %
//       CHECK:   scf.if
//       CHECK:     qs.quantize_buffers
//       CHECK:     qs.gemm_buffers
func.func @nested(%c: i1, %x: tensor<128x256xbf16>, %w: !w) -> tensor<128x512xbf16> {
  %r = scf.if %c -> tensor<128x512xbf16> {
    %qx = qs.quantize %x : tensor<128x256xbf16> -> !x
    %y = qs.gemm %qx, %w transpose_b : !x, !w -> tensor<128x512xbf16>
    scf.yield %y : tensor<128x512xbf16>
  } else {
    %e = tensor.empty() : tensor<128x512xbf16>
    scf.yield %e : tensor<128x512xbf16>
  }
  return %r : tensor<128x512xbf16>
}
