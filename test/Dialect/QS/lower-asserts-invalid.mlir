// RUN: qs-opt %s -split-input-file -verify-diagnostics --qs-lower-asserts

// The module's puts is not the function the failure block calls.
// expected-note @below {{@puts defined here}}
llvm.func @puts(i32) -> i32
func.func @f(%a: i1) {
  // expected-error @below {{'cf.assert' op is lowered to a call of @puts of type '!llvm.func<void (ptr)>', but @puts in the enclosing 'builtin.module' is not an llvm.func of that type}}
  cf.assert %a, "bad"
  return
}

// -----

// Nor is a func.func named abort.
// expected-note @below {{@abort defined here}}
func.func private @abort()
func.func @f(%a: i1) {
  // expected-error @below {{'cf.assert' op is lowered to a call of @abort of type '!llvm.func<void ()>', but @abort in the enclosing 'builtin.module' is not an llvm.func of that type}}
  cf.assert %a, "bad"
  return
}

// -----

// A block of a single-block region cannot be split.
func.func @f(%a: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{'cf.assert' op inside 'scf.for', whose region holds a single block, cannot become a branch: lower structured control flow first (convert-scf-to-cf)}}
    cf.assert %a, "bad"
  }
  return
}

// -----

// In a nested symbol table, its own puts is the one that must fit.
module {
  gpu.module @kernels {
    // expected-note @below {{@puts defined here}}
    llvm.func @puts(!llvm.ptr) -> i32
    llvm.func @f(%a: i1) {
      // expected-error @below {{'cf.assert' op is lowered to a call of @puts of type '!llvm.func<void (ptr)>', but @puts in the enclosing 'gpu.module' is not an llvm.func of that type}}
      cf.assert %a, "bad"
      llvm.return
    }
  }
}
