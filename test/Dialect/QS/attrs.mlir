// RUN: qs-opt %s -split-input-file | qs-opt -split-input-file | FileCheck %s
// RUN: qs-opt %s -split-input-file -mlir-print-op-generic | qs-opt -split-input-file | FileCheck %s
// Every chunk also survives the text and bytecode round trips unchanged
// (MlirOptMain's -verify-roundtrip: bytecode falls back to the text form
// for qs attributes and types).
// RUN: qs-opt %s -split-input-file -verify-roundtrip -o /dev/null

// Every parameter of #qs.fp8_delayed at its non-default value survives a round trip.
// CHECK-LABEL: func.func private @fp8_delayed
//  CHECK-SAME: #qs.fp8_delayed>
//  CHECK-SAME: #qs.fp8_delayed<fp8_dtype = f8E5M2, rowwise = false>
//  CHECK-SAME: #qs.fp8_delayed<columnwise = false>
func.func private @fp8_delayed(
  !qs.tensor<4x8xbf16, #qs.fp8_delayed<>>,
  !qs.tensor<4x8xbf16, #qs.fp8_delayed<fp8_dtype = f8E5M2, rowwise = false>>,
  !qs.tensor<4x8xbf16, #qs.fp8_delayed<columnwise = false>>)

// -----

// Defaults are elided: writing them explicitly prints the short form.
// CHECK-LABEL: func.func private @defaults_elided
//  CHECK-SAME: (!qs.tensor<4x8xbf16, #qs.fp8_current>)
func.func private @defaults_elided(
  !qs.tensor<4x8xbf16, #qs.fp8_current<fp8_dtype = f8E4M3FN, rowwise = true,
      columnwise = true, force_pow_2_scales = false, amax_epsilon = 0.0>>)

// -----

// #qs.fp8_current with every parameter set; keys may come in any order.
// CHECK-LABEL: func.func private @fp8_current
//  CHECK-SAME: #qs.fp8_current<fp8_dtype = f8E5M2, columnwise = false, force_pow_2_scales = true, amax_epsilon = 1.000000e-01>
func.func private @fp8_current(
  !qs.tensor<4x8xf32, #qs.fp8_current<amax_epsilon = 0.1, force_pow_2_scales = true,
      columnwise = false, fp8_dtype = f8E5M2>>)

// -----

// #qs.mxfp8 parameters.
// CHECK-LABEL: func.func private @mxfp8
//  CHECK-SAME: #qs.mxfp8>
//  CHECK-SAME: #qs.mxfp8<fp8_dtype = f8E5M2, rowwise = false, with_2d_quantization = true, optimize_for_gemm = true>
func.func private @mxfp8(
  !qs.tensor<64x128xbf16, #qs.mxfp8>,
  !qs.tensor<64x128xbf16, #qs.mxfp8<fp8_dtype = f8E5M2, rowwise = false,
      with_2d_quantization = true, optimize_for_gemm = true>>)

// -----

// #qs.fp8_block parameters; TE's constructor defaults are block_scaling_dim = 2
// and force_pow_2_scales = true.
// CHECK-LABEL: func.func private @fp8_block
//  CHECK-SAME: #qs.fp8_block>
//  CHECK-SAME: #qs.fp8_block<columnwise = false, block_scaling_dim = 1, force_pow_2_scales = false, amax_epsilon = 1.000000e+00>
func.func private @fp8_block(
  !qs.tensor<300x384xbf16, #qs.fp8_block<block_scaling_dim = 2, force_pow_2_scales = true>>,
  !qs.tensor<300x384xbf16, #qs.fp8_block<block_scaling_dim = 1, columnwise = false,
      force_pow_2_scales = false, amax_epsilon = 1.0>>)

// -----

// #qs.nvfp4 parameters.
// CHECK-LABEL: func.func private @nvfp4
//  CHECK-SAME: #qs.nvfp4>
//  CHECK-SAME: #qs.nvfp4<with_rht = true, with_post_rht_amax = true, stochastic_rounding = true, optimize_for_gemm = true>
//  CHECK-SAME: #qs.nvfp4<columnwise = false, with_2d_quantization = true>
//  CHECK-SAME: #qs.nvfp4<rowwise = false, row_scaled_nvfp4 = true>
//  CHECK-SAME: #qs.nvfp4<with_rht = true, with_post_rht_amax = true, with_random_sign_mask = false>
//  CHECK-SAME: #qs.nvfp4<nvfp4_use_4over6 = true>
//  CHECK-SAME: #qs.nvfp4<with_2d_quantization = true, nvfp4_use_4over6 = true, nvfp4_e4m3_max = 256, nvfp4_4over6_err_mode = "MSE">
func.func private @nvfp4(
  !qs.tensor<64x128xbf16, #qs.nvfp4<>>,
  !qs.tensor<64x128xbf16, #qs.nvfp4<with_rht = true, with_post_rht_amax = true,
      stochastic_rounding = true, optimize_for_gemm = true>>,
  !qs.tensor<64x128xf32, #qs.nvfp4<columnwise = false, with_2d_quantization = true>>,
  !qs.tensor<64x128xf16, #qs.nvfp4<rowwise = false, row_scaled_nvfp4 = true>>,
  !qs.tensor<64x128xbf16, #qs.nvfp4<with_random_sign_mask = false, with_rht = true, with_post_rht_amax = true>>,
  !qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_use_4over6 = true, nvfp4_e4m3_max = 448, nvfp4_4over6_err_mode = "MAE">>,
  !qs.tensor<64x128xbf16, #qs.nvfp4<nvfp4_4over6_err_mode = "MSE", nvfp4_e4m3_max = 256,
      nvfp4_use_4over6 = true, with_2d_quantization = true>>)

// -----

// The chip attribute is accepted on the module.
// CHECK: module attributes {qs.chip = "sm_100a"}
module attributes {qs.chip = "sm_100a"} {
  func.func private @on_blackwell(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}

// -----

// The GEMM tile width, on the module (or any enclosing op).
// CHECK: module attributes {qs.chip = "sm_90a", qs.gemm_tile_n = 256 : i64}
module attributes {qs.chip = "sm_90a", qs.gemm_tile_n = 256 : i64} {
  func.func private @wide(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}

// -----

// Pairs of GEMM blocks sharing B by TMA multicast.
// CHECK: module attributes {qs.chip = "sm_90a", qs.gemm_cluster = 2 : i64}
module attributes {qs.chip = "sm_90a", qs.gemm_cluster = 2 : i64} {
  func.func private @pairs(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}

// -----

// The ping-pong consumer schedule, on a GEMM op itself.
// CHECK: qs.gemm %{{.*}}, %{{.*}} transpose_b {qs.gemm_schedule = "pingpong"}
!pp = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @pingpong(%a: !pp, %b: !pp) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_schedule = "pingpong"} : !pp, !pp -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Persistent GEMM kernels on 132 blocks (one per H200 multiprocessor).
// CHECK: module attributes {qs.chip = "sm_90a", qs.gemm_persistent = 132 : i64}
module attributes {qs.chip = "sm_90a", qs.gemm_persistent = 132 : i64} {
  func.func private @persistent(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}

// -----

// The TMA-store epilogue, on a GEMM op itself.
// CHECK: qs.gemm %{{.*}}, %{{.*}} transpose_b {qs.gemm_epilogue = "tma"}
!te = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @tma_store(%a: !te, %b: !te) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_epilogue = "tma"} : !te, !te -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Split-K in four ranges of K, on the module.
// CHECK: module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 4 : i64}
module attributes {qs.chip = "sm_90a", qs.gemm_split_k = 4 : i64} {
  func.func private @split(!qs.tensor<4x8xbf16, #qs.fp8_current>)
}

// -----

// Split-K chosen by the kernels' cost model, on a GEMM op itself.
// CHECK: qs.gemm %{{.*}}, %{{.*}} transpose_b {qs.gemm_split_k = "auto"}
!sk = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @split_auto(%a: !sk, %b: !sk) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "auto"} : !sk, !sk -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Stream-K, on a GEMM op itself.
// CHECK: qs.gemm %{{.*}}, %{{.*}} transpose_b {qs.gemm_split_k = "stream"}
!sks = !qs.tensor<128x128xbf16, #qs.fp8_current<columnwise = false>>
func.func @split_stream(%a: !sks, %b: !sks) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k = "stream"} : !sks, !sks -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}

// -----

// Split-K summed in the GEMM kernel by each tile's last unit.
// CHECK: module attributes {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"}
// CHECK: qs.gemm %{{.*}}, %{{.*}} transpose_b {qs.gemm_split_k_reduce = "kernel"}
!skf = !qs.tensor<128x256xbf16, #qs.fp8_current<columnwise = false>>
module attributes {qs.gemm_split_k = 2 : i64, qs.gemm_split_k_reduce = "fused"} {
  func.func @split_fused(%a: !skf, %b: !skf) -> tensor<128x128xbf16> {
    %y = qs.gemm %a, %b transpose_b {qs.gemm_split_k_reduce = "kernel"} : !skf, !skf -> tensor<128x128xbf16>
    return %y : tensor<128x128xbf16>
  }
}
