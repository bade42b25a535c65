//===- NpyIO.h - .npy files for qs-run ---------------------------*- C++ -*-===//
//
// Reads and writes NumPy .npy files through xtensor's .npy support
// (libxtensor-dev), without exceptions in the interface: every failure is
// an llvm::Error with a message.
//
//===----------------------------------------------------------------------===//

#ifndef QS_TOOLS_QSRUN_NPYIO_H
#define QS_TOOLS_QSRUN_NPYIO_H

#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace qs_run {

struct NpyArray {
  /// NumPy type string, e.g. "<f4", "|u1".
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> bytes;
};

/// Reads a C-ordered .npy file; fails on unreadable, malformed or truncated
/// files and on Fortran order. A 1- or 2-byte void type string (ml_dtypes'
/// bfloat16, FP8 and E8M0 arrays: '|V1', '<V2') reads as the unsigned
/// integer of that width ('|u1', '<u2'): the same raw bits.
llvm::Expected<NpyArray> readNpy(const std::string &path);

/// Writes a C-ordered .npy file.
llvm::Error writeNpy(const std::string &path, const std::string &dtype,
                     const std::vector<int64_t> &shape,
                     const std::vector<char> &bytes);

} // namespace qs_run

#endif // QS_TOOLS_QSRUN_NPYIO_H
