// RUN: qs-opt %s --qs-cpu-pipeline | FileCheck %s

// Proto-level IR goes all the way to the LLVM dialect; the quantized result
// becomes two caller-allocated out-parameters (data, scale_inv).
!q = !qs.tensor<4x32xbf16, #qs.fp8_current<columnwise = false>>
// CHECK-LABEL: llvm.func @quantize
//  CHECK-SAME:     (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64,
//   CHECK-NOT:   qs.
//   CHECK-NOT:   linalg.
//       CHECK:   llvm.return
func.func @quantize(%x: tensor<4x32xbf16>) -> !q {
  %q = qs.quantize %x : tensor<4x32xbf16> -> !q
  return %q : !q
}
