// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s --check-prefix=PTX

// A qs.bias_grad after a qs.quantize of the same gradient (TE's
// bgrad_quantize): the quantize's cast kernel takes the FP32 chunk-sum
// workspace as its last argument and writes the sums from the tile it
// loaded (one read of dY for both); only the column-sum kernel follows, no
// chunk kernel.
// CHECK-LABEL: func.func @bgrad_quantize
// CHECK: %[[WS:.*]] = memref.alloc() : memref<262144xf32>
// CHECK: call @qs_quantize_launch({{.*}}, %[[WS]]) : ({{.*}}, memref<262144xf32>) -> ()
// CHECK-NOT: qs_bias_grad_chunks
// CHECK: call @qs_bias_grad_launch(%{{.*}}, %[[WS]])
// The sums' stores in the cast kernel: after the tile's 16-byte loads and
// the phase barrier, 32 shared loads and FP32 additions per column, one
// 4-byte store.
// PTX-LABEL: .entry qs_quantize(
// PTX: ld.global.v4.b32
// PTX: bar.sync
// PTX-COUNT-32: add.rn.f32
// PTX: st.global.b32
// PTX-LABEL: .entry qs_bias_grad(
!q = !qs.tensor<8192x1024xbf16, #qs.mxfp8>
func.func @bgrad_quantize(%dy: tensor<8192x1024xbf16>) -> (!q, tensor<1024xbf16>) {
  %q = qs.quantize %dy : tensor<8192x1024xbf16> -> !q
  %db = qs.bias_grad %dy : tensor<8192x1024xbf16> -> tensor<1024xbf16>
  return %q, %db : !q, tensor<1024xbf16>
}


// A qs.bias_grad before the quantize keeps its own kernels (the quantize's
// position would not dominate its uses).
// CHECK-LABEL: func.func @bias_grad_first
// CHECK: call @qs_bias_grad_chunks_launch
// CHECK: call @qs_bias_grad_0_launch
// CHECK: call @qs_quantize_0_launch
func.func @bias_grad_first(%dy: tensor<256x512xbf16>) -> (tensor<512xf32>, !qs.tensor<256x512xbf16, #qs.fp8_current>) {
  %db = qs.bias_grad %dy : tensor<256x512xbf16> -> tensor<512xf32>
  %q = qs.quantize %dy : tensor<256x512xbf16> -> !qs.tensor<256x512xbf16, #qs.fp8_current>
  return %db, %q : tensor<512xf32>, !qs.tensor<256x512xbf16, #qs.fp8_current>
}
