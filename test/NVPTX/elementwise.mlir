// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_90a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-pipeline="chip=sm_100a format=isa" | %python %qs_src_root/scripts/extract-ptx.py /dev/stdin | FileCheck %s
// RUN: qs-opt %s --qs-nvptx-host-pipeline="chip=sm_90a" | FileCheck %s --check-prefix=HOST

// The element-wise ops between qs ops on the GPU (qs-elementwise-to-gpu):
// a bias add and GELU after an FP8 GEMM, then a residual add and a scaling
// written as arith ops on tensors (convert-elementwise-to-linalg), all
// fused into one kernel (linalg-fuse-elementwise-ops) before the quantize.
//
// The kernel: 256 threads, 8 bf16 points per thread, the GEMM's output,
// the residual and the result by 16-byte accesses (ld/st.global.v4.b32),
// the bias too; the payload in f32 with IEEE roundings (mul.rn/add.rn: no
// contraction), its tanh the polynomial of qs-approximate-math
// (fma.rn.f32, div.rn.f32), not libdevice's tanhf (ex2.approx); the
// constant 2.0 tensor folded into the payload.
// CHECK-LABEL: .entry qs_elementwise(
// CHECK: .maxntid 256, 1, 1
// CHECK-COUNT-3: ld.global.v4.b32
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: div.rn.f32
// CHECK-DAG: mul.rn.f32
// CHECK-DAG: add.rn.f32
// CHECK-NOT: ex2.approx
// CHECK: st.global.v4.b32
// CHECK-NOT: .entry qs_elementwise_0(

// HOST-LABEL: func.func @gemm_gelu_quantize
// HOST: call @qs_gemm_launch
// HOST: call @qs_elementwise_launch(
// HOST-SAME: (memref<65536xbf16>, memref<512xbf16>, memref<65536xbf16>, memref<65536xbf16>) -> ()
// HOST-NOT: call @qs_elementwise_0_launch
// HOST: call @qs_quantize_init_launch(
// HOST-LABEL: func.func private @qs_elementwise_launch
// HOST-DAG: %[[GRID:.*]] = arith.constant 32 : index
// HOST-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// HOST: gpu.launch_func @qs_kernels::@qs_elementwise blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[BLOCK]],
// HOST: gpu.module @qs_kernels

!x = !qs.tensor<128x256xbf16, #qs.fp8_current>
!w = !qs.tensor<512x256xbf16, #qs.fp8_current>
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @gemm_gelu_quantize(%qx: !x, %qw: !w, %b: tensor<512xbf16>,
                              %res: tensor<128x512xbf16>)
    -> !qs.tensor<128x512xbf16, #qs.fp8_current> {
  %h = qs.gemm %qx, %qw transpose_b : !x, !w -> tensor<128x512xbf16>
  %e = tensor.empty() : tensor<128x512xbf16>
  %a = linalg.generic {indexing_maps = [#row, #col, #row],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<128x512xbf16>, tensor<512xbf16>)
      outs(%e : tensor<128x512xbf16>) {
  ^bb0(%hv: bf16, %bv: bf16, %o: bf16):
    %v0 = arith.extf %hv : bf16 to f32
    %bias = arith.extf %bv : bf16 to f32
    %v = arith.addf %v0, %bias : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.79788456 : f32
    %k1 = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %p = arith.mulf %k1, %v2 : f32
    %q = arith.addf %one, %p : f32
    %r = arith.mulf %k0, %v : f32
    %u = arith.mulf %r, %q : f32
    %t = math.tanh %u : f32
    %s = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %v : f32
    %g = arith.mulf %hx, %s : f32
    %gb = arith.truncf %g : f32 to bf16
    linalg.yield %gb : bf16
  } -> tensor<128x512xbf16>
  %sum = arith.addf %a, %res : tensor<128x512xbf16>
  %two = arith.constant dense<2.0> : tensor<128x512xbf16>
  %scaled = arith.mulf %sum, %two : tensor<128x512xbf16>
  %q = qs.quantize %scaled : tensor<128x512xbf16> -> !qs.tensor<128x512xbf16, #qs.fp8_current>
  return %q : !qs.tensor<128x512xbf16, #qs.fp8_current>
}
