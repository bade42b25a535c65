// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.amax_and_scale_update of TE's default history (1024 amaxes): one
// block of 128 threads per update, the updates of a function in one launch
// (TE's bulk kernel), each block's code chosen by %ctaid.x. Each thread
// rolls 8 elements (a loop), keeping their fmaxf (max.f32, NaN ignored);
// after the barrier thread 0 takes the maximum of the 128 partial maxima
// from shared memory and divides 448 * 2^-margin by it with IEEE rounding
// (div.rn.f32), an infinite scale becoming FLT_MAX (0x7F7FFFFF).
// "most_recent" takes the step's amax (the given one where it is not 0.0:
// setp.neu) and E5M2's 57344 / 2 = 28672 (0f46E00000).
// CHECK-LABEL: .entry qs_amax_and_scale_update(
// CHECK: .maxntid 128, 1, 1
// CHECK-DAG: %ctaid.x
// CHECK-DAG: max.f32
// CHECK-DAG: st.shared.b32
// CHECK-DAG: setp.neu.f32
// CHECK: bar.sync 0
// CHECK-DAG: ld.shared.v4.b32
// CHECK-DAG: 0f43E00000
// CHECK-DAG: 0f46E00000
// CHECK-DAG: div.rn.f32
// CHECK-DAG: 0f7F7FFFFF
// CHECK-NOT: .entry qs_amax_and_scale_update_0(
// CHECK-LABEL: .entry qs_amax_and_scale_update_0(
// CHECK-LABEL: .entry qs_amax_and_scale_update_1(

// HOST-LABEL: func.func @recipe
// HOST: %[[H:.*]] = memref.alloc() : memref<1024xf32>
// HOST: %[[S:.*]] = memref.alloc() : memref<1xf32>
// HOST: %[[GH:.*]] = memref.alloc() : memref<1024xf32>
// HOST: %[[GS:.*]] = memref.alloc() : memref<1xf32>
// HOST: call @qs_amax_and_scale_update_launch(%[[H]], %[[S]], %{{.*}}, %{{.*}}, %[[GH]], %[[GS]], %{{.*}}, %{{.*}}, %{{.*}}) : (memref<1024xf32>, memref<1xf32>, memref<1024xf32>, memref<1xf32>, memref<1024xf32>, memref<1xf32>, memref<1024xf32>, memref<1xf32>, memref<1xf32>) -> ()
// HOST-NOT: call @qs_amax_and_scale_update
// HOST-LABEL: func.func @apart
// HOST: call @qs_amax_and_scale_update_0_launch
// HOST: call @qs_quantize_launch
// HOST: call @qs_amax_and_scale_update_1_launch
// HOST-DAG: func.func private @qs_amax_and_scale_update_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 2 : i64
// HOST-DAG: func.func private @qs_amax_and_scale_update_0_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 1 : i64
func.func @recipe(%h: tensor<1024xf32>, %s: tensor<1xf32>, %gh: tensor<1024xf32>,
                  %gs: tensor<1xf32>, %reduced: tensor<1xf32>)
    -> (tensor<1024xf32>, tensor<1xf32>, tensor<1024xf32>, tensor<1xf32>) {
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<1024xf32>, tensor<1xf32>
  %gh2, %gs2 = qs.amax_and_scale_update %gh, %gs amax(%reduced : tensor<1xf32>)
      {fp8_dtype = f8E5M2, margin = 1 : i64, amax_compute_algo = "most_recent"}
      : tensor<1024xf32>, tensor<1xf32>
  return %h2, %s2, %gh2, %gs2 : tensor<1024xf32>, tensor<1xf32>, tensor<1024xf32>, tensor<1xf32>
}

// A result used before the next update (the new scale quantizes x) keeps
// the two launches apart.
!q = !qs.tensor<64x128xbf16, #qs.fp8_delayed<columnwise = false>>
func.func @apart(%x: tensor<64x128xbf16>, %h: tensor<16xf32>, %s: tensor<1xf32>,
                 %a: tensor<1xf32>, %g: tensor<16xf32>)
    -> (!q, tensor<1xf32>, tensor<16xf32>, tensor<1xf32>) {
  %h2, %s2 = qs.amax_and_scale_update %h, %s : tensor<16xf32>, tensor<1xf32>
  %q, %a2 = qs.quantize %x scale(%s2 : tensor<1xf32>) amax(%a : tensor<1xf32>)
      : tensor<64x128xbf16> -> !q, tensor<1xf32>
  %g2, %t2 = qs.amax_and_scale_update %g, %s2 amax(%a2 : tensor<1xf32>) : tensor<16xf32>, tensor<1xf32>
  return %q, %a2, %g2, %t2 : !q, tensor<1xf32>, tensor<16xf32>, tensor<1xf32>
}
