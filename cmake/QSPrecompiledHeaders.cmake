# Precompiled headers for the project's C++ (CMake's target_precompile_headers).
#
# Almost all of a .cpp's 7-12 s compile is clang parsing MLIR's headers
# (GemmKernels.cpp: 10.6 s with -fsyntax-only, 10.2 s at -O0, 10.3 s at -O2);
# with them precompiled it takes 3 s. The libraries share one PCH, built once
# by the QSPrecompiledHeaders object library (target_precompile_headers
# REUSE_FROM needs the same compile flags, which every add_mlir_library target
# of this project has: -fPIC, -fno-exceptions, the sanitizer flags of a
# sanitized build; a -D of the target's own, like QSRunner's, is accepted by
# clang as long as the PCH's headers do not use it). Executables compile
# with -fPIE, which clang refuses to mix with a -fPIC PCH: the unit tests
# (12 files) build their own, the 1-2 file tools none.
#
# Only upstream MLIR/LLVM headers are listed: they never change within a
# build tree, so the PCH is built once; the project's own headers stay
# ordinary includes. A file still includes what it uses; the PCH hides a
# missing include, which a build with -DQS_PRECOMPILE_HEADERS=OFF finds
# (scripts/test-sanitizers.sh's is one).
option(QS_PRECOMPILE_HEADERS "Precompile the upstream MLIR/LLVM headers" ON)

set(QS_PRECOMPILED_HEADERS
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/GPU/IR/GPUDialect.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/LLVMIR/LLVMDialect.h>
  <mlir/Dialect/LLVMIR/NVVMDialect.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/Dialect/Vector/IR/VectorOps.h>
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/DialectImplementation.h>
  <mlir/IR/Matchers.h>
  <mlir/IR/PatternMatch.h>
  <mlir/IR/SymbolTable.h>
  <mlir/Pass/PassManager.h>
  <llvm/ADT/TypeSwitch.h>
  <llvm/Support/FormatVariadic.h>
  <llvm/Support/raw_ostream.h>)

# ccache caches a compile that reads a PCH only when the PCH records no
# header modification times (clang's -fno-pch-timestamp, given to the target
# that builds the PCH; a cc1 option that changes nothing else) and its
# sloppiness accepts PCHs (CCACHE_SLOPPINESS, set by the launcher in
# CMakeLists.txt).
function(qs_pch_cacheable target)
  target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
endfunction()

# qs_precompile_headers(TARGET...): the libraries TARGET... use the shared
# PCH of the libraries.
function(qs_precompile_headers)
  if(NOT QS_PRECOMPILE_HEADERS)
    return()
  endif()
  if(NOT TARGET QSPrecompiledHeaders)
    add_library(QSPrecompiledHeaders OBJECT
      ${PROJECT_SOURCE_DIR}/cmake/QSPrecompiledHeaders.cpp)
    llvm_update_compile_flags(QSPrecompiledHeaders)
    target_precompile_headers(QSPrecompiledHeaders PRIVATE
      ${QS_PRECOMPILED_HEADERS})
    qs_pch_cacheable(QSPrecompiledHeaders)
  endif()
  foreach(target ${ARGN})
    target_precompile_headers(${target} REUSE_FROM QSPrecompiledHeaders)
  endforeach()
endfunction()

# qs_precompile_headers_own(TARGET): TARGET (an executable) builds its own
# PCH of the same headers.
function(qs_precompile_headers_own target)
  if(QS_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${QS_PRECOMPILED_HEADERS})
    qs_pch_cacheable(${target})
  endif()
endfunction()
