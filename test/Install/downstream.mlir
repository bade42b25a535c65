// Another compiler reuses quant-storage from an install, not from this tree:
// `cmake --install` of the build tree, then a CMake project of its own
// (Inputs/downstream) that finds the package (find_package(QuantStorage)),
// links QuantStorage::QSRegistration, composes buildNVPTXHostPipeline, a pass
// of its own and buildNVPTXLoweringPipeline in its own pass manager, and
// prints the PTX of this Linear layer's forward (cmake/QSInstall.cmake,
// docs/Development.md "Using quant-storage from another project").
//
// Not on the sanitizer build: scripts/test-sanitizers.sh preloads ASan into
// every process, CMake, clang and lld included (whose memory kept until exit
// LeakSanitizer would report), and a project linking the sanitized libraries
// would need the sanitizer runtimes; the packaging does not change with them.
// UNSUPPORTED: sanitizers
//
// RUN: rm -rf %t && %cmake --install %qs_obj_root --prefix %t/prefix > %t.install.log
// RUN: %cmake %downstream_cmake_args -S %S/Inputs/downstream -B %t/build -DCMAKE_PREFIX_PATH=%t/prefix > %t.configure.log
// RUN: FileCheck %s --check-prefix=PACKAGE --input-file=%t.configure.log
// RUN: %cmake --build %t/build > %t.build.log
// RUN: %t/build/qs-downstream %s sm_90a | FileCheck %s
// The installed tools run from the install (RUNPATH: the install's lib and
// libMLIR.so's directory).
// RUN: %t/prefix/bin/qs-opt %s --qs-storage-pipeline | FileCheck %s --check-prefix=TOOL
// RUN: %t/prefix/bin/qs-lsp-server -lit-test < %S/../Tools/qs-lsp-server.test | FileCheck %s --check-prefix=LSP
//
// PACKAGE: QuantStorage 0.1.0 in {{.*}}/prefix/lib/cmake/QuantStorage, MLIR in {{.*}}mlir
//
// The dialect's C++ API from the installed headers (QSOps.h.inc, ...):
// CHECK: qs-downstream: !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>> on sm_90a: data tensor<256x512xf8E4M3FN> scale_inv tensor<1xf32>
// CHECK: qs-downstream: !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>> on sm_90a: data tensor<1024x512xf8E4M3FN> scale_inv tensor<1xf32>
//
// Two quantize kernels (X and W, per-tensor current scaling: zero, amax and
// cast each) and one wgmma GEMM: 7 launches, counted by the downstream pass.
// CHECK: qs-downstream: 7 kernel launches
// CHECK: qs-downstream: qs_kernels for #nvvm.target<O = 3, chip = "sm_90a"
// CHECK-DAG: .target sm_90a
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: cp.async.bulk.tensor
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3
//
// LSP: "message": "MXFP8 needs the last dimension K to be a multiple of 32, got K = 100",
//
// TOOL-LABEL: func.func @linear_fwd
// TOOL: qs.quantize_buffers %arg0 outs({{.*}} : tensor<256x512xf8E4M3FN>, tensor<1xf32>)
// TOOL: qs.quantize_buffers %arg1 outs({{.*}} : tensor<1024x512xf8E4M3FN>, tensor<1xf32>)
// TOOL: qs.gemm_buffers

!x = !qs.tensor<256x512xbf16, #qs.fp8_current<columnwise = false>>
!w = !qs.tensor<1024x512xbf16, #qs.fp8_current<columnwise = false>>

module attributes {qs.chip = "sm_90a"} {
func.func @linear_fwd(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> tensor<256x1024xbf16> {
  %qx = qs.quantize %x : tensor<256x512xbf16> -> !x
  %qw = qs.quantize %w : tensor<1024x512xbf16> -> !w
  %y = qs.gemm %qx, %qw transpose_b fast_accumulate : !x, !w -> tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}
}
