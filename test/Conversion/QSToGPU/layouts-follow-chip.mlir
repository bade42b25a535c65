// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu=chip=sm_100a | FileCheck %s

// The storage layouts follow qs.chip (none: sm_90a, with a transpose), also
// when the kernels are compiled for another chip (found by qs-fuzz: the
// buffers were matched against the chip option's layouts).
// CHECK-LABEL: func.func @delayed_layouts_follow_qs_chip
// CHECK: call @qs_quantize_launch({{.*}}) : (memref<8192xbf16>, memref<8192xf8E4M3FN>, memref<8192xf8E4M3FN>, memref<1xf32>, memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
func.func @delayed_layouts_follow_qs_chip(%x: tensor<64x128xbf16>, %s: tensor<1xf32>, %a: tensor<1xf32>)
    -> (!qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>) {
  %q, %m = qs.quantize %x scale(%s : tensor<1xf32>) amax(%a : tensor<1xf32>) : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>
  return %q, %m : !qs.tensor<64x128xbf16, #qs.fp8_delayed<>>, tensor<1xf32>
}
