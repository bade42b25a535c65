// RUN: qs-opt %s --qs-gpu-module-to-binary=format=elf -verify-diagnostics

// The format is one of gpu-module-to-binary's.
// expected-error@+1 {{qs-gpu-module-to-binary: format must be offloading (llvm), assembly (isa), binary (bin) or fatbinary (fatbin), got 'elf'}}
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  }
}
