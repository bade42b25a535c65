// RUN: qs-opt %s -split-input-file --qs-flatten-storage -verify-diagnostics -allow-unregistered-dialect

// Proto-level ops must be expanded first.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @proto(%x: tensor<64x128xbf16>) -> !q {
  // expected-error @+1 {{'qs.quantize' is a proto-level op; run qs-expand-storage before qs-flatten-storage}}
  %q = qs.quantize %x : tensor<64x128xbf16> -> !q
  return %q : !q
}

// -----

// An op that does not know qs cannot take a quantized value apart: reported, naming it.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @unknown(%q: !q) {
  // expected-error @+1 {{qs-flatten-storage cannot flatten the !qs.tensor values of 'test.consume' (it flattens func.func, func.call, func.return, cf.br, cf.cond_br, cf.switch, scf.if, scf.for, scf.while, arith.select, qs.assemble and qs.disassemble)}}
  "test.consume"(%q) : (!q) -> ()
  return
}

// -----

// Region ops without a 1:N conversion (here scf.execute_region) are reported too.
!q = !qs.tensor<64x128xbf16, #qs.mxfp8>
func.func @execute_region(%q: !q) -> !q {
  // expected-error @+1 {{qs-flatten-storage cannot flatten the !qs.tensor values of 'scf.execute_region'}}
  %r = scf.execute_region -> !q {
    scf.yield %q : !q
  }
  return %r : !q
}

// -----

// One chip per module.
module {
  // expected-error @+1 {{qs-flatten-storage flattens one chip per module (the storage layouts follow it): this op selects "sm_100a" inside a module for sm_90a}}
  func.func private @f(!qs.tensor<4x8xbf16, #qs.fp8_current>) attributes {qs.chip = "sm_100a"}
}
