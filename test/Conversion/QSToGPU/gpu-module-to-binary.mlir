// RUN: qs-opt %s --qs-gpu-module-to-binary=format=llvm | %python %qs_src_root/scripts/extract-ptx.py --raw /dev/stdin | llvm-dis | FileCheck %s
// RUN: qs-opt %s --qs-gpu-module-to-binary=format=isa | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// qs-gpu-module-to-binary is gpu-module-to-binary with every inline-asm call
// of the kernels convergent in their LLVM IR (as clang marks CUDA device
// code), so LLVM cannot duplicate the `.sync.aligned` PTX below into the
// two sides of the divergent branch on the thread id. (This small kernel
// keeps one wait_group either way; the persistent GEMM kernel with branchy
// arrivals got two copies from upstream gpu-module-to-binary and one from
// this pass, docs/GPU.md.)
// CHECK: call void asm sideeffect "wgmma.fence.sync.aligned;", ""() [[ATTR:#[0-9]+]]
// CHECK: call void asm sideeffect "mbarrier.arrive.shared::cta.b64 _, [$0];", "r"(i32 %{{.*}}) [[ATTR]]
// CHECK: call void asm sideeffect "wgmma.wait_group.sync.aligned 0;", ""() [[ATTR]]
// CHECK: attributes [[ATTR]] = { convergent
// PTX-LABEL: .entry k(
// PTX-COUNT-1: wgmma.wait_group.sync.aligned 0;
// PTX-NOT: wgmma.wait_group.sync.aligned 0;
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
    llvm.func @k(%t: i32, %barrier: i32) attributes {nvvm.kernel} {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %first = llvm.icmp "eq" %t, %c0 : i32
      llvm.inline_asm has_side_effects "wgmma.fence.sync.aligned;", "" : () -> ()
      llvm.cond_br %first, ^arrive, ^join
    ^arrive:
      llvm.inline_asm has_side_effects "mbarrier.arrive.shared::cta.b64 _, [$0];", "r" %barrier : (i32) -> ()
      llvm.br ^join
    ^join:
      llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "" : () -> ()
      llvm.return
    }
  }
}
