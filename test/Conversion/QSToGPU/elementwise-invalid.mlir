// RUN: qs-opt %s --split-input-file --qs-elementwise-to-gpu -verify-diagnostics
// RUN: qs-opt %s --split-input-file --qs-elementwise-to-gpu=emulate=true | FileCheck %s --check-prefix=EMU

// Each rule of qs-elementwise-to-gpu, broken once (reductions are kernels
// too: elementwise.mlir). With emulate, the ops stay for the CPU and no
// kernel is emitted.
// EMU-NOT: qs_elementwise

func.func @reduction_result(%x: tensor<8x16xf32>, %i: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'linalg.generic' op cannot become a GPU kernel (qs-nvptx-pipeline runs every op on tensors on the GPU): the indexing map of result #0 uses reduction loop d1 (a reduction's results are indexed by parallel loops)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%i : tensor<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{'linalg.map' op cannot become a GPU kernel (qs-nvptx-pipeline runs every op on tensors on the GPU): operand #0 is not a statically shaped tensor}}
  %r = linalg.map { math.absf } ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>)
  return %r : tensor<?xf32>
}

// -----

func.func @fp8(%x: tensor<16xf8E4M3FN>) -> tensor<16xf8E4M3FN> {
  // expected-error@+1 {{'linalg.map' op cannot become a GPU kernel (qs-nvptx-pipeline runs every op on tensors on the GPU): operand #0 has element type 'f8E4M3FN'; kernels take i8, i16, i32, i64, f16, bf16, f32 and f64 elements}}
  %r = linalg.map { math.absf } ins(%x : tensor<16xf8E4M3FN>) outs(%x : tensor<16xf8E4M3FN>)
  return %r : tensor<16xf8E4M3FN>
}

// -----

func.func @bool(%x: tensor<16xi1>) -> tensor<16xi1> {
  // expected-error@+1 {{operand #0 has element type 'i1'; kernels take i8, i16, i32, i64, f16, bf16, f32 and f64 elements}}
  %r = linalg.map { arith.xori } ins(%x, %x : tensor<16xi1>, tensor<16xi1>) outs(%x : tensor<16xi1>)
  return %r : tensor<16xi1>
}

// -----

func.func @not_permutation(%x: tensor<32xf32>, %i: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error@+1 {{'linalg.generic' op cannot become a GPU kernel (qs-nvptx-pipeline runs every op on tensors on the GPU): the indexing map of operand #0 is not a projected permutation (each index a loop index or 0)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32xf32>) outs(%i : tensor<16x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @scalar(%s: f32, %i: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error@+1 {{'linalg.fill' op cannot become a GPU kernel (qs-nvptx-pipeline runs every op on tensors on the GPU): scalar operand #0 is not a constant; a kernel takes buffers only}}
  %r = linalg.fill ins(%s : f32) outs(%i : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

func.func @vector_scalar(%i: tensor<16xf32>) -> tensor<16xf32> {
  %c = arith.constant dense<1.0> : vector<2xf32>
  // expected-error@+1 {{the payload has an argument of type 'vector<2xf32>'}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%c : vector<2xf32>) outs(%i : tensor<16xf32>) {
  ^bb0(%v: vector<2xf32>, %o: f32):
    %e = vector.extract %v[0] : f32 from vector<2xf32>
    linalg.yield %e : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

func.func private @act(f32) -> f32

func.func @call(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error@+1 {{the payload holds 'func.call'; kernels run arith and math ops and linalg.index}}
  %r = linalg.map ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>)
    (%v: f32, %o: f32) {
      %a = func.call @act(%v) : (f32) -> f32
      linalg.yield %a : f32
    }
  return %r : tensor<16xf32>
}

// -----

func.func @fp8_value(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error@+1 {{the payload computes a value of type 'f8E4M3FN'}}
  %r = linalg.map ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>)
    (%v: f32, %o: f32) {
      %q = arith.truncf %v : f32 to f8E4M3FN
      %d = arith.extf %q : f8E4M3FN to f32
      linalg.yield %d : f32
    }
  return %r : tensor<16xf32>
}

// -----

func.func @captured(%x: tensor<16xf32>, %s: f32) -> tensor<16xf32> {
  // expected-error@+1 {{the payload uses a value defined outside the op that is not a constant}}
  %r = linalg.map ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>)
    (%v: f32, %o: f32) {
      %a = arith.mulf %v, %s : f32
      linalg.yield %a : f32
    }
  return %r : tensor<16xf32>
}
