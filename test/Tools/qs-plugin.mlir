// Upstream mlir-opt (Debian's, on the same libMLIR.so) with QSPlugin.so
// (lib/Plugin): the qs dialect from --load-dialect-plugin, the qs passes and
// pipelines from --load-pass-plugin, named through --pass-pipeline (pass
// flags are parsed before a plugin loads).
// REQUIRES: mlir-opt
// RUN: mlir-opt --load-dialect-plugin=%qs_plugin --load-pass-plugin=%qs_plugin %s --pass-pipeline="builtin.module(qs-storage-pipeline)" | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%qs_plugin --load-pass-plugin=%qs_plugin %s --pass-pipeline="builtin.module(qs-nvptx-pipeline{chip=sm_90a format=isa})" | FileCheck %s --check-prefix=GPU
// RUN: mlir-opt --load-dialect-plugin=%qs_plugin --load-pass-plugin=%qs_plugin %s --pass-pipeline="builtin.module(qs-cpu-pipeline)" | FileCheck %s --check-prefix=CPU
// The format rules are the dialect's own, whichever tool parses:
// RUN: sed 's/64x128xbf16/64x100xbf16/g' %s | not mlir-opt --load-dialect-plugin=%qs_plugin - 2>&1 | FileCheck %s --check-prefix=RULE
// Without the plugin mlir-opt does not know qs:
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// CHECK-LABEL: func.func @f
// CHECK-SAME:    tensor<64x128xf8E4M3FN> {qs.inner = "rowwise_data"
// CHECK-SAME:    tensor<128x4xf8E8M0FNU> {qs.inner = "rowwise_scale_inv"
// CHECK:         qs.quantize_buffers
// GPU:           gpu.binary @qs_kernels
// GPU:           cvt.rn.satfinite.e4m3x2.f32
// CPU:           llvm.func @f(
// RULE:          error: MXFP8 needs the last dimension K to be a multiple of 32, got K = 100
// NOPLUGIN:      error: {{.*}} type created with unregistered dialect

!mx = !qs.tensor<64x128xbf16, #qs.mxfp8<columnwise = false>>
func.func @f(%x: tensor<64x128xbf16>) -> !mx {
  %q = qs.quantize %x : tensor<64x128xbf16> -> !mx
  return %q : !mx
}
