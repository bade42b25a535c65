// RUN: qs-opt %s -split-input-file | qs-opt -split-input-file | FileCheck %s
// RUN: qs-opt %s -split-input-file -mlir-print-op-generic | qs-opt -split-input-file | FileCheck %s
// Every chunk also survives the text and bytecode round trips unchanged
// (MlirOptMain's -verify-roundtrip: bytecode falls back to the text form
// for qs attributes and types).
// RUN: qs-opt %s -split-input-file -verify-roundtrip -o /dev/null

// qs.empty allocates a quantized tensor from its type.
!blk = !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
// CHECK-LABEL: func.func @empty
//       CHECK:   %[[E:.*]] = qs.empty : !qs.tensor<128x256xbf16, #qs.fp8_block<block_scaling_dim = 1>>
//       CHECK:   return %[[E]]
func.func @empty() -> !blk {
  %t = qs.empty : !blk
  return %t : !blk
}

// -----

// qs.quantize / qs.dequantize for current scaling; dequantize may change the dtype.
!cur = !qs.tensor<64x128xbf16, #qs.fp8_current>
// CHECK-LABEL: func.func @quantize_dequantize
//  CHECK-SAME:     %[[X:.*]]: tensor<64x128xbf16>
//       CHECK:   %[[Q:.*]] = qs.quantize %[[X]] : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_current>
//       CHECK:   %[[D:.*]] = qs.dequantize %[[Q]] : !qs.tensor<64x128xbf16, #qs.fp8_current> -> tensor<64x128xf32>
func.func @quantize_dequantize(%x: tensor<64x128xbf16>) -> tensor<64x128xf32> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !cur
  %d = qs.dequantize %q : !cur -> tensor<64x128xf32>
  return %d : tensor<64x128xf32>
}

// -----

// Delayed scaling takes the recipe's scale and amax state and returns the updated amax.
!del = !qs.tensor<64x128xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>
// CHECK-LABEL: func.func @quantize_delayed
//       CHECK:   %[[Q:.*]], %[[A:.*]] = qs.quantize %{{.*}} scale(%{{.*}} : tensor<1xf32>) amax(%{{.*}} : tensor<1xf32>) : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2>>, tensor<1xf32>
//       CHECK:   return %[[Q]], %[[A]]
func.func @quantize_delayed(%x: tensor<64x128xbf16>, %scale: tensor<1xf32>,
                            %amax: tensor<1xf32>) -> (!del, tensor<1xf32>) {
  %q, %a = qs.quantize %x scale(%scale : tensor<1xf32>) amax(%amax : tensor<1xf32>)
      : tensor<64x128xbf16> -> !del, tensor<1xf32>
  return %q, %a : !del, tensor<1xf32>
}

// -----

// Current scaling may take a given global amax (TE's amax reduction) and
// returns nothing more; so does its buffer-level form.
!cur = !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @quantize_given_amax
//       CHECK:   qs.quantize %{{.*}} amax(%{{.*}} : tensor<1xf32>) : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
//       CHECK:   qs.quantize_buffers %{{.*}} amax(%{{.*}} : tensor<1xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<1xf32>) as !qs.tensor<64x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @quantize_given_amax(%x: tensor<64x128xbf16>, %a: tensor<1xf32>,
                               %d: tensor<64x128xf8E4M3FN>, %s: tensor<1xf32>)
    -> (!cur, tensor<64x128xf8E4M3FN>, tensor<1xf32>) {
  %q = qs.quantize %x amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !cur
  %b:2 = qs.quantize_buffers %x amax(%a : tensor<1xf32>) outs(%d, %s : tensor<64x128xf8E4M3FN>, tensor<1xf32>) as !cur
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1xf32>
  return %q, %b#0, %b#1 : !cur, tensor<64x128xf8E4M3FN>, tensor<1xf32>
}

// -----

// qs.amax returns the global amaxes a quantize computes: one for current
// scaling and NVFP4, two for NVFP4 with RHT (max |x|, max |RHT(x^T)|),
// which such a quantize takes back as its amax(...).
!rht = !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
// CHECK-LABEL: func.func @global_amaxes
//       CHECK:   %[[C:.*]] = qs.amax %{{.*}} as !qs.tensor<64x128xbf16, #qs.fp8_current> : tensor<64x128xbf16> -> tensor<1xf32>
//       CHECK:   %[[R:.*]] = qs.amax %{{.*}} as !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>> : tensor<64x128xbf16> -> tensor<2xf32>
//       CHECK:   qs.quantize %{{.*}} amax(%[[R]] : tensor<2xf32>) : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true>>
func.func @global_amaxes(%x: tensor<64x128xbf16>) -> (tensor<1xf32>, !rht) {
  %c = qs.amax %x as !qs.tensor<64x128xbf16, #qs.fp8_current> : tensor<64x128xbf16> -> tensor<1xf32>
  %r = qs.amax %x as !rht : tensor<64x128xbf16> -> tensor<2xf32>
  %q = qs.quantize %x amax(%r : tensor<2xf32>) : tensor<64x128xbf16> -> !rht
  return %c, %q : tensor<1xf32>, !rht
}

// -----

// qs.assemble / qs.disassemble take the exact inner tensors, in interface order.
!mx = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @assemble_disassemble
//       CHECK:   %[[Q:.*]] = qs.assemble %{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
//       CHECK:   %[[P:.*]]:2 = qs.disassemble %[[Q]] : !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
//       CHECK:   return %[[P]]#0, %[[P]]#1
func.func @assemble_disassemble(%data: tensor<64x128xf8E4M3FN>, %scale: tensor<128x4xf8E8M0FNU>)
    -> (tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %q = qs.assemble %data, %scale : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> -> !mx
  %d, %s = qs.disassemble %q : !mx -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %d, %s : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// -----

// On a chip that is not TN-only, per-tensor FP8 has no transpose buffer.
!fp8 = !qs.tensor<4x8xbf16, #qs.fp8_current>
module attributes {qs.chip = "sm_100a"} {
  // CHECK-LABEL: func.func @assemble_non_tn
  //       CHECK:   qs.assemble %{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<1xf32> -> !qs.tensor<4x8xbf16, #qs.fp8_current>
  func.func @assemble_non_tn(%data: tensor<4x8xf8E4M3FN>, %s: tensor<1xf32>) -> !fp8 {
    %q = qs.assemble %data, %s : tensor<4x8xf8E4M3FN>, tensor<1xf32> -> !fp8
    return %q : !fp8
  }
}

// -----

// NVFP4 assembles from six inner tensors.
!nv = !qs.tensor<64x128xbf16, #qs.nvfp4>
// CHECK-LABEL: func.func @assemble_nvfp4
//       CHECK:   qs.assemble {{.*}} : tensor<64x64xi8>, tensor<128x8xf8E4M3FN>, tensor<128x32xi8>, tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32> -> !qs.tensor<64x128xbf16, #qs.nvfp4>
func.func @assemble_nvfp4(%rd: tensor<64x64xi8>, %rs: tensor<128x8xf8E4M3FN>,
                          %cd: tensor<128x32xi8>, %cs: tensor<128x4xf8E4M3FN>,
                          %ar: tensor<1xf32>, %ac: tensor<1xf32>) -> !nv {
  %q = qs.assemble %rd, %rs, %cd, %cs, %ar, %ac
      : tensor<64x64xi8>, tensor<128x8xf8E4M3FN>, tensor<128x32xi8>,
        tensor<128x4xf8E4M3FN>, tensor<1xf32>, tensor<1xf32> -> !nv
  return %q : !nv
}

// -----

// qs.update_usage drops a representation, or creates one the format can derive.
!row = !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>>
!both = !qs.tensor<128x128xbf16, #qs.fp8_block>
!mxb = !qs.tensor<64x128xbf16, #qs.mxfp8>
!mxr = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
// CHECK-LABEL: func.func @update_usage
//       CHECK:   qs.update_usage %{{.*}} : !qs.tensor<128x128xbf16, #qs.fp8_block<columnwise = false>> -> !qs.tensor<128x128xbf16, #qs.fp8_block>
//       CHECK:   qs.update_usage %{{.*}} : !qs.tensor<64x128xbf16, #qs.mxfp8> -> !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @update_usage(%a: !row, %b: !mxb) -> (!both, !mxr) {
  %0 = qs.update_usage %a : !row -> !both
  %1 = qs.update_usage %b : !mxb -> !mxr
  return %0, %1 : !both, !mxr
}

// -----

// The three GEMMs of a Linear layer (TE's TN, NN and NT layouts).
!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
!dy = !qs.tensor<128x512xbf16, #qs.fp8_current<fp8_dtype = f8E5M2>>
// CHECK-LABEL: func.func @linear
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b : {{.*}} -> tensor<128x512xbf16>
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} : {{.*}} -> tensor<128x256xbf16>
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_a : {{.*}} -> tensor<512x256xf32>
func.func @linear(%x: !x, %w: !w, %dy: !dy)
    -> (tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>) {
  %y = qs.gemm %x, %w transpose_b : !x, !w -> tensor<128x512xbf16>
  %dx = qs.gemm %dy, %w : !dy, !w -> tensor<128x256xbf16>
  %dw = qs.gemm %dy, %x transpose_a : !dy, !x -> tensor<512x256xf32>
  return %y, %dx, %dw : tensor<128x512xbf16>, tensor<128x256xbf16>, tensor<512x256xf32>
}

// -----

// Bias and accumulate operands; a non-transposed N-D lhs keeps its leading dimensions.
!x3 = !qs.tensor<2x64x256xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false>>
!w2 = !qs.tensor<512x256xbf16, #qs.fp8_block<columnwise = false>>
// CHECK-LABEL: func.func @gemm_bias_accumulate
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b bias(%{{.*}} : tensor<512xbf16>) accumulate(%{{.*}} : tensor<2x64x512xf32>) : {{.*}} -> tensor<2x64x512xf32>
func.func @gemm_bias_accumulate(%x: !x3, %w: !w2, %bias: tensor<512xbf16>,
                                %acc: tensor<2x64x512xf32>) -> tensor<2x64x512xf32> {
  %y = qs.gemm %x, %w transpose_b bias(%bias : tensor<512xbf16>)
      accumulate(%acc : tensor<2x64x512xf32>) : !x3, !w2 -> tensor<2x64x512xf32>
  return %y : tensor<2x64x512xf32>
}

// fast_accumulate (the tensor cores may sum in their own precision).
!p = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: func.func @gemm_fast_accumulate
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b fast_accumulate bias(%{{.*}} : tensor<128xbf16>) : {{.*}} -> tensor<128x128xbf16>
func.func @gemm_fast_accumulate(%x: !p, %bias: tensor<128xbf16>) -> tensor<128x128xbf16> {
  %y = qs.gemm %x, %x transpose_b fast_accumulate bias(%bias : tensor<128xbf16>) : !p, !p -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Buffer-level ops (the output of qs-expand-storage) round-trip.
!mx = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
!del = !qs.tensor<4x8xbf16, #qs.fp8_delayed<columnwise = false>>
// CHECK-LABEL: func.func @buffer_ops
//       CHECK:   qs.quantize_buffers %{{.*}} outs(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
//       CHECK:   qs.quantize_buffers %{{.*}} scale(%{{.*}} : tensor<1xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) as !qs.tensor<4x8xbf16, #qs.fp8_delayed<columnwise = false>>
//       CHECK:   qs.dequantize_buffers ins(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) outs(%{{.*}} : tensor<64x128xf32>) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> -> tensor<64x128xf32>
//       CHECK:   qs.gemm_buffers a(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> b(%{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>> bias(%{{.*}} : tensor<64xbf16>) outs(%{{.*}} : tensor<64x64xf32>) transpose_b accumulate -> tensor<64x64xf32>
//       CHECK:   qs.update_usage_buffers ins(%{{.*}}, %{{.*}} : tensor<4x8xf8E4M3FN>, tensor<1xf32>) outs(%{{.*}} : tensor<8x4xf8E4M3FN>) from !qs.tensor<4x8xbf16, #qs.fp8_delayed<columnwise = false>> to !qs.tensor<4x8xbf16, #qs.fp8_delayed> -> tensor<8x4xf8E4M3FN>
func.func @buffer_ops(%x: tensor<64x128xbf16>, %x8: tensor<4x8xbf16>, %s: tensor<1xf32>,
                      %amax: tensor<1xf32>, %bias: tensor<64xbf16>, %acc: tensor<64x64xf32>)
    -> (tensor<64x128xf32>, tensor<64x64xf32>, tensor<8x4xf8E4M3FN>, tensor<1xf32>) {
  %d0 = tensor.empty() : tensor<64x128xf8E4M3FN>
  %s0 = tensor.empty() : tensor<128x4xf8E8M0FNU>
  %d, %sc = qs.quantize_buffers %x outs(%d0, %s0 : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      as !mx : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %e0 = tensor.empty() : tensor<4x8xf8E4M3FN>
  %e1 = tensor.empty() : tensor<1xf32>
  %qd, %qs, %qa = qs.quantize_buffers %x8 scale(%s : tensor<1xf32>)
      outs(%e0, %e1, %amax : tensor<4x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>)
      as !del : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>
  %f = tensor.empty() : tensor<64x128xf32>
  %deq = qs.dequantize_buffers ins(%d, %sc : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>)
      outs(%f : tensor<64x128xf32>) as !mx -> tensor<64x128xf32>
  %g = qs.gemm_buffers a(%d, %sc : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !mx
      b(%d, %sc : tensor<64x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) as !mx
      bias(%bias : tensor<64xbf16>) outs(%acc : tensor<64x64xf32>) transpose_b accumulate
      -> tensor<64x64xf32>
  %t0 = tensor.empty() : tensor<8x4xf8E4M3FN>
  %t = qs.update_usage_buffers ins(%qd, %qs : tensor<4x8xf8E4M3FN>, tensor<1xf32>)
      outs(%t0 : tensor<8x4xf8E4M3FN>) from !del to !qs.tensor<4x8xbf16, #qs.fp8_delayed>
      -> tensor<8x4xf8E4M3FN>
  return %deq, %g, %t, %qa : tensor<64x128xf32>, tensor<64x64xf32>, tensor<8x4xf8E4M3FN>, tensor<1xf32>
}

// -----

// Output quantizers: a delayed-scaling result with its recipe state, and an MXFP8 result.
!x = !qs.tensor<128x256xbf16, #qs.fp8_delayed<columnwise = false>>
!w = !qs.tensor<512x256xbf16, #qs.fp8_delayed<columnwise = false>>
!h = !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>
!mx = !qs.tensor<128x256xbf16, #qs.mxfp8<columnwise = false>>
!mxh = !qs.tensor<128x128xf16, #qs.mxfp8>
// CHECK-LABEL: func.func @gemm_output_quantizer
//       CHECK:   %{{.*}}, %{{.*}} = qs.gemm %{{.*}}, %{{.*}} transpose_b bias(%{{.*}} : tensor<512xbf16>) scale(%{{.*}} : tensor<1xf32>) amax(%{{.*}} : tensor<1xf32>) : {{.*}} -> !qs.tensor<128x512xbf16, #qs.fp8_delayed<columnwise = false>>, tensor<1xf32>
//       CHECK:   qs.gemm %{{.*}}, %{{.*}} transpose_b : {{.*}} -> !qs.tensor<128x128xf16, #qs.mxfp8>
func.func @gemm_output_quantizer(%x: !x, %w: !w, %bias: tensor<512xbf16>, %s: tensor<1xf32>,
                                 %a: tensor<1xf32>, %m: !mx) -> (!h, tensor<1xf32>, !mxh) {
  %h, %a2 = qs.gemm %x, %w transpose_b bias(%bias : tensor<512xbf16>)
      scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : !x, !w -> !h, tensor<1xf32>
  %g = qs.gemm %m, %m transpose_b : !mx, !mx -> !mxh
  return %h, %a2, %g : !h, tensor<1xf32>, !mxh
}

// -----

// qs.bias_grad: column sums of a gradient (rows folded), rounded to the
// result type.
// CHECK-LABEL: func.func @bias_grad
//       CHECK:   qs.bias_grad %{{.*}} : tensor<2x64x256xbf16> -> tensor<256xbf16>
//       CHECK:   qs.bias_grad %{{.*}} : tensor<128x48xf16> -> tensor<48xf32>
func.func @bias_grad(%dy: tensor<2x64x256xbf16>, %g: tensor<128x48xf16>)
    -> (tensor<256xbf16>, tensor<48xf32>) {
  %db = qs.bias_grad %dy : tensor<2x64x256xbf16> -> tensor<256xbf16>
  %dg = qs.bias_grad %g : tensor<128x48xf16> -> tensor<48xf32>
  return %db, %dg : tensor<256xbf16>, tensor<48xf32>
}

// -----

// qs.amax_and_scale_update: delayed scaling's recipe step; margin 0 and
// "max" (the defaults) are elided, a written fp8_dtype is kept (absent, it
// is f8E4M3FN).
// CHECK-LABEL: func.func @amax_and_scale_update
//       CHECK:   qs.amax_and_scale_update %[[H:[^ ]+]], %[[S:[^ ]+]] {fp8_dtype = f8E4M3FN} : tensor<1024xf32>, tensor<1xf32>
//       CHECK:   qs.amax_and_scale_update %{{[^ ]+}}, %[[S]] amax(%{{[^ ]+}} : tensor<1xf32>) {amax_compute_algo = "most_recent", fp8_dtype = f8E5M2, margin = -2 : i64} : tensor<16xf32>, tensor<1xf32>
//       CHECK:   qs.amax_and_scale_update %[[H]], %[[S]] : tensor<1024xf32>, tensor<1xf32>
func.func @amax_and_scale_update(%h: tensor<1024xf32>, %s: tensor<1xf32>,
                                 %g: tensor<16xf32>, %a: tensor<1xf32>)
    -> (tensor<1024xf32>, tensor<1xf32>, tensor<16xf32>, tensor<1xf32>) {
  %h2, %s2 = qs.amax_and_scale_update %h, %s {fp8_dtype = f8E4M3FN, margin = 0 : i64, amax_compute_algo = "max"} : tensor<1024xf32>, tensor<1xf32>
  %g2, %t2 = qs.amax_and_scale_update %g, %s amax(%a : tensor<1xf32>) {fp8_dtype = f8E5M2, margin = -2 : i64, amax_compute_algo = "most_recent"} : tensor<16xf32>, tensor<1xf32>
  %h3, %s3 = qs.amax_and_scale_update %h, %s : tensor<1024xf32>, tensor<1xf32>
  return %h3, %s2, %g2, %t2 : tensor<1024xf32>, tensor<1xf32>, tensor<16xf32>, tensor<1xf32>
}
