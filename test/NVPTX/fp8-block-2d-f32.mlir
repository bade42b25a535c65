// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// FP8 128x128 block scaling of f32 input: the cast kernel's tile holds
// whole 128x128 blocks, 128 rows of 132 f32 (66 KiB) plus the segment and
// block amaxes, more than the 48 KiB a kernel may declare statically. The
// buffers are views of the block's dynamic shared memory, an external
// array (the launch asks for 68112 bytes; the runtime raises the
// function's limit above 48 KiB). One kernel writes both representations.
// CHECK: .extern .shared .align 16 .b8 qs_dynamic_shared[];
// CHECK-LABEL: .entry qs_quantize(
// CHECK-NOT: .shared .align
// CHECK: ld.global.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.v4.b32
// CHECK-NOT: .entry qs_quantize_rowwise
// CHECK-NOT: .entry qs_quantize_columnwise

// HOST: func.func private @qs_quantize_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 6 : i64, qs_launch_kernel = @qs_kernels::@qs_quantize, qs_launch_shared = 68112 : i64}
// HOST: llvm.mlir.global external @qs_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// HOST: gpu.func @qs_quantize(
// HOST-NOT: workgroup(
// HOST: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// HOST: memref.view {{.*}} to memref<16896xf32, #gpu.address_space<workgroup>>
// HOST: memref.view {{.*}} to memref<128xf32, #gpu.address_space<workgroup>>
// HOST: memref.view {{.*}} to memref<1xf32, #gpu.address_space<workgroup>>
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<256x384xf32>) -> !qs.tensor<256x384xf32, #qs.fp8_block<>> {
  %q = qs.quantize %x : tensor<256x384xf32> -> !qs.tensor<256x384xf32, #qs.fp8_block<>>
  return %q : !qs.tensor<256x384xf32, #qs.fp8_block<>>
}
}
