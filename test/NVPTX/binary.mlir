// REQUIRES: ptxas
// RUN: env CUDA_HOME=%cuda_home qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=auto" | FileCheck %s --check-prefix=AUTO
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=bin toolkit=%cuda_home" | FileCheck %s --check-prefix=BIN
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | FileCheck %s

// With ptxas, format=auto embeds a fatbin (cubin + PTX); format=bin a cubin;
// format=isa (also auto's choice when no toolkit is found) PTX text.
// The fatbin magic is 0xBA55ED50, a cubin is an ELF file.
// AUTO: gpu.binary @qs_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{.*}}, "P\ED
// BIN: gpu.binary @qs_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{.*}}, bin = "\7FELF
// CHECK: gpu.binary @qs_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{.*}}, assembly = "
module attributes {qs.chip = "sm_90a"} {
func.func @f(%x: tensor<64x128xbf16>) -> !qs.tensor<64x128xbf16, #qs.mxfp8<>> {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !qs.tensor<64x128xbf16, #qs.mxfp8<>>
  return %q : !qs.tensor<64x128xbf16, #qs.mxfp8<>>
}
}
