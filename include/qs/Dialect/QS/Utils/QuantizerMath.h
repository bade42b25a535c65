//===- QuantizerMath.h - layout arithmetic shared by IR and passes -*- C++ -*-===//
//
// Small, dependency-free helpers for the shape arithmetic of
// te-formats.md §0.1 (2-D folding, ceil_div, roundup) and §3.b (the
// GEMM-swizzled 128x4 scale tile order).
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_QUANTIZERMATH_H
#define QS_DIALECT_QS_UTILS_QUANTIZERMATH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>

namespace mlir {
namespace qs {

/// ceil(a / b) for a >= 0, b > 0.
constexpr int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// The smallest multiple of b that is >= a.
constexpr int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// qs.bias_grad's order of additions: the rows of the folded [M, N] input
/// are summed in chunks of this many rows, then the chunks' sums.
constexpr int64_t kBiasGradChunkRows = 32;

/// TE's flatten-to-2D rule: K is the last dimension, M the product of all
/// leading ones (1 for a 1-D tensor).
struct Flat2D {
  int64_t m;
  int64_t k;
};
inline Flat2D flatten2D(llvm::ArrayRef<int64_t> shape) {
  int64_t m = 1;
  for (int64_t d : shape.drop_back())
    m *= d;
  return {m, shape.empty() ? 1 : shape.back()};
}

/// The shape of a "transposed" buffer in TE's sense: the last dimension moved
/// to the front, the leading ones kept (`(K, d0, ..., d_{n-2})`).
inline llvm::SmallVector<int64_t, 4>
rotateLastToFront(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> result;
  if (shape.empty())
    return result;
  result.push_back(shape.back());
  result.append(shape.begin(), shape.end() - 1);
  return result;
}

/// Byte offset of element (i, j) of a GEMM scale matrix with `cols` columns
/// (a multiple of 4) stored in cuBLAS's 128x4-tiled order (te-formats.md
/// §3.b, TE `gemm_swizzled_scale_idx`).
constexpr int64_t gemmSwizzledScaleOffset(int64_t i, int64_t j, int64_t cols) {
  int64_t tilesX = cols / 4;
  return ((i / 128) * tilesX + (j / 4)) * 512 + (i % 32) * 16 +
         ((i % 128) / 32) * 4 + (j % 4);
}

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_QUANTIZERMATH_H
