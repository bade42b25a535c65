// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-storage-pipeline --convert-qs-to-gpu | FileCheck %s --check-prefix=HOST

// qs.bias_grad of a 8192 x 1024 bf16 gradient: the chunk kernel reads each
// of its 32 rows as one 16-byte load of 8 columns (consecutive threads on
// consecutive columns), adds them to eight FP32 sums in row order and
// stores the chunk's sums as two 16-byte stores (sm_100a: of f32 pairs).
// The sum kernel adds a column's 256 chunk sums in order, 64 at a time:
// the 64 loads first (latency: one thread per column is less than a wave),
// then the 64 add.rn.f32; it writes any NaN as 0x7FC00000 and rounds to
// bf16.
// CHECK-LABEL: .entry qs_bias_grad_chunks(
// CHECK-COUNT-32: ld.global.v4.b32
// CHECK-COUNT-2: st.global.{{v4.b32|v2.b64}}
// CHECK-LABEL: .entry qs_bias_grad(
// CHECK-COUNT-64: ld.global.b32
// CHECK-COUNT-64: add.rn.f32
// CHECK: setp.nan.f32
// CHECK: 0f7FC00000
// CHECK: st.global.b16

// HOST-LABEL: func.func @bias_grad
// HOST: %[[OUT:.*]] = memref.alloc() : memref<1024xbf16>
// HOST: %[[WS:.*]] = memref.alloc() : memref<262144xf32>
// HOST: call @qs_bias_grad_chunks_launch(%[[WS]], %{{.*}}) : (memref<262144xf32>, memref<8388608xbf16>) -> ()
// HOST: call @qs_bias_grad_launch(%[[OUT]], %[[WS]])
// HOST: func.func private @qs_bias_grad_chunks_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 256 : i64
// HOST: func.func private @qs_bias_grad_launch({{.*}}) attributes {qs_launch_block = 128 : i64, qs_launch_grid = 8 : i64
func.func @bias_grad(%dy: tensor<8192x1024xbf16>) -> tensor<1024xbf16> {
  %db = qs.bias_grad %dy : tensor<8192x1024xbf16> -> tensor<1024xbf16>
  return %db : tensor<1024xbf16>
}
