// RUN: qs-opt %s --qs-storage-pipeline "--convert-qs-to-gpu=chip=sm_90a" | FileCheck %s

// The storage layouts follow the op's qs.chip and the chip option only
// picks the instructions: sm_90a's wgmma kernel on Blackwell layouts (which
// store the column-wise FP8 usage untransposed, without a transpose
// buffer) reads b, contracted over its first dimension, MN-major: its
// tensor map boxes 128 K-rows x 128 bytes without swizzle (a keeps the
// 128-byte swizzle), and the consumers copy each tile transposed after the
// ring: 5 stages of 32 KiB, two 16 KiB transposed tiles (k-tile it
// copies into buffer it % 2 while the wgmmas of it - 1 read the other), 80
// bytes of barriers = 196,688 bytes. (Numerics: test_gemm.py,
// test_gemm_sm90_kernels_on_blackwell_layouts.)
// CHECK: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}})
// CHECK: call @qsCudaEncodeTensorMap2D(%{{.*}}, %{{.*}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c0_i64{{(_[0-9]+)?}})
// CHECK: func.func private @qs_gemm_launch({{.*}}) attributes {qs_launch_block = 384 : i64, qs_launch_grid = 1 : i64, qs_launch_kernel = @qs_kernels::@qs_gemm, qs_launch_shared = 196688 : i64}
!g = !qs.tensor<128x128xbf16, #qs.fp8_current<>>
module attributes {qs.chip = "sm_100a"} {
func.func @mn_major(%a: !g, %b: !g) -> tensor<128x128xbf16> {
  %y = qs.gemm %a, %b : !g, !g -> tensor<128x128xbf16>
  return %y : tensor<128x128xbf16>
}
}
