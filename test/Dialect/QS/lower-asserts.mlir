// RUN: qs-opt %s -split-input-file -allow-unregistered-dialect --qs-lower-asserts | FileCheck %s
// RUN: qs-opt %s -split-input-file -allow-unregistered-dialect --qs-lower-asserts --convert-cf-to-llvm | FileCheck %s --check-prefix=LLVM

// Each assert becomes a branch to the rest of its block or to a block that
// puts the message and aborts; the operations between two asserts stay
// between the two branches, in order. One global per distinct message, one
// failure block per message and region; puts and abort declared once.
// CHECK-DAG: llvm.func @abort()
// CHECK-DAG: llvm.func @puts(!llvm.ptr)
// CHECK-DAG: llvm.mlir.global private constant @[[LOW:assert_msg[_0-9]*]]("index too low\00")
// CHECK-DAG: llvm.mlir.global private constant @[[HIGH:assert_msg[_0-9]*]]("index too high\00")
// CHECK-NOT: llvm.mlir.global
// CHECK-NOT: llvm.func
// CHECK-LABEL: func.func @two_checks
//  CHECK-SAME:     (%[[A:.*]]: i1, %[[B:.*]]: i1, %[[C:.*]]: i1)
//  CHECK-NEXT:   "test.before"() : () -> ()
//  CHECK-NEXT:   cf.cond_br %[[A]], ^[[BB1:.*]], ^[[FAIL_LOW:[a-z0-9]+]]
//  CHECK-NEXT: ^[[BB1]]:
//  CHECK-NEXT:   "test.between"() : () -> ()
//  CHECK-NEXT:   cf.cond_br %[[B]], ^[[BB2:.*]], ^[[FAIL_HIGH:[a-z0-9]+]]
//  CHECK-NEXT: ^[[BB2]]:
//  CHECK-NEXT:   cf.cond_br %[[C]], ^[[BB3:.*]], ^[[FAIL_LOW]]
//  CHECK-NEXT: ^[[BB3]]:
//  CHECK-NEXT:   "test.after"() : () -> ()
//  CHECK-NEXT:   return
// The failure blocks: the message's address to puts, then abort.
//  CHECK-NEXT: ^[[FAIL_LOW]]:
//  CHECK-NEXT:   %[[M:.*]] = llvm.mlir.addressof @[[LOW]] : !llvm.ptr
//  CHECK-NEXT:   llvm.call @puts(%[[M]]) : (!llvm.ptr) -> ()
//  CHECK-NEXT:   llvm.call @abort() : () -> ()
//  CHECK-NEXT:   llvm.unreachable
//  CHECK-NEXT: ^[[FAIL_HIGH]]:
//  CHECK-NEXT:   %[[N:.*]] = llvm.mlir.addressof @[[HIGH]] : !llvm.ptr
//  CHECK-NEXT:   llvm.call @puts(%[[N]]) : (!llvm.ptr) -> ()
//  CHECK-NEXT:   llvm.call @abort() : () -> ()
//  CHECK-NEXT:   llvm.unreachable
//  CHECK-NEXT: }
// Another function's assert with a known message: the same global, its own
// failure block.
// CHECK-LABEL: func.func @other
//       CHECK:   cf.cond_br %{{.*}}, ^{{.*}}, ^[[FAIL:[a-z0-9]+]]
//       CHECK: ^[[FAIL]]:
//  CHECK-NEXT:   llvm.mlir.addressof @[[LOW]]
// After convert-cf-to-llvm: llvm.cond_br, the same calls.
// LLVM-LABEL: func.func @two_checks
//       LLVM:   llvm.cond_br
//       LLVM:   llvm.cond_br
//       LLVM:   llvm.cond_br
//   LLVM-NOT:   cf.
//       LLVM:   llvm.call @puts
//       LLVM:   llvm.call @abort
func.func @two_checks(%a: i1, %b: i1, %c: i1) {
  "test.before"() : () -> ()
  cf.assert %a, "index too low"
  "test.between"() : () -> ()
  cf.assert %b, "index too high"
  cf.assert %c, "index too low"
  "test.after"() : () -> ()
  return
}
func.func @other(%a: i1) {
  cf.assert %a, "index too low"
  return
}

// -----

// Declarations of the right type are used; a symbol named assert_msg makes
// the message global take another name.
// CHECK-LABEL: module
//   CHECK-DAG:   llvm.mlir.global private constant @[[MSG:assert_msg_[0-9]+]]("bad\00")
//   CHECK-DAG:   llvm.func @puts(!llvm.ptr)
//   CHECK-DAG:   llvm.func @abort()
//   CHECK-DAG:   func.func private @assert_msg()
//   CHECK-NOT:   llvm.func @puts
//   CHECK-NOT:   llvm.func @abort
//       CHECK:   llvm.mlir.addressof @[[MSG]]
llvm.func @puts(!llvm.ptr)
llvm.func @abort()
func.func private @assert_msg()
func.func @f(%a: i1) {
  cf.assert %a, "bad"
  return
}

// -----

// No assert: nothing declared.
// CHECK-LABEL: module
//   CHECK-NOT:   llvm.
//       CHECK:   func.func @none
func.func @none() {
  return
}

// -----

// An assert in a block that also has block arguments and successors, in an
// llvm.func: the branch's continuation keeps the terminator.
// CHECK-LABEL: llvm.func @loop
//       CHECK:   ^[[HEAD:.*]](%[[I:.*]]: i64):
//       CHECK:     cf.cond_br %{{.*}}, ^[[REST:[a-z0-9]+]], ^[[FAIL:[a-z0-9]+]]
//       CHECK:   ^[[REST]]:
//  CHECK-NEXT:     llvm.mlir.constant(1 : i64)
//  CHECK-NEXT:     llvm.add
//  CHECK-NEXT:     llvm.br ^[[HEAD]](%{{.*}} : i64)
//  CHECK-NEXT:   ^[[FAIL]]:
//  CHECK-NEXT:     llvm.mlir.addressof
llvm.func @loop(%n: i64) {
  %0 = llvm.mlir.constant(0 : i64) : i64
  llvm.br ^head(%0 : i64)
^head(%i: i64):
  %ok = llvm.icmp "slt" %i, %n : i64
  cf.assert %ok, "i < n"
  %one = llvm.mlir.constant(1 : i64) : i64
  %next = llvm.add %i, %one : i64
  llvm.br ^head(%next : i64)
}

// -----

// An assert in a nested symbol table (a gpu.module's function) calls that
// table's puts and abort and reads its message global; the outer module's
// asserts, the outer ones.
// CHECK-LABEL: module
//   CHECK-DAG:   llvm.mlir.global private constant @[[OUTER:assert_msg[_0-9]*]]("outer\00")
//   CHECK-DAG:   llvm.func @abort()
//   CHECK-DAG:   llvm.func @puts(!llvm.ptr)
//       CHECK:   gpu.module @kernels {
//   CHECK-DAG:     llvm.mlir.global private constant @[[INNER:assert_msg[_0-9]*]]("inner\00")
//   CHECK-DAG:     llvm.func @abort()
//   CHECK-DAG:     llvm.func @puts(!llvm.ptr)
//       CHECK:     llvm.func @k
//       CHECK:       llvm.mlir.addressof @[[INNER]]
//       CHECK:   }
//       CHECK:   func.func @host
//       CHECK:     llvm.mlir.addressof @[[OUTER]]
module {
  gpu.module @kernels {
    llvm.func @k(%a: i1) {
      cf.assert %a, "inner"
      llvm.return
    }
  }
  func.func @host(%a: i1) {
    cf.assert %a, "outer"
    return
  }
}
