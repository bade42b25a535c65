//===- StochasticRounding.h - NVFP4 stochastic rounding ---------*- C++ -*-===//
//
// Builders for NVFP4's stochastic rounding (te-formats.md §5.e) with a
// random-bit assignment of our own, so that the reference lowering and the
// GPU kernels give the same codes for the same rng state (TE's bits depend
// on its kernels' Philox usage, spec §9; only the distribution is TE's):
//
//   The rng state is (seed, offset), two i64. Philox4x32-10 with key
//   (lo32(seed), hi32(seed)) and counter (lo32(g), hi32(g) + 2^31 * stream,
//   lo32(offset), hi32(offset)) gives group g's four words w_0 .. w_3;
//   element i of a stored representation (its codes' row-major order: x
//   for row-wise, x^T for column-wise; stream 0 / 1) takes byte i mod 4
//   (bits 8 (i mod 4) .. + 7) of word (i / 4) mod 4 of group g = i / 16:
//   the little-endian byte stream of the groups' words, 32 random bits per
//   4 values as TE's cvt.rs.satfinite.e2m1x4.f32 takes them (te-formats.md
//   e2m1_sr).
//
//   Rounding of the scaled value v with random byte b: NaN as the
//   round-to-nearest conversion (+6); |v| >= 6 saturates to +-6; else with
//   the spacing s of E2M1 at |v| (0.5 below 2, 1 below 4, else 2), t =
//   |v| / s, f = floor(t): |v| rounds to (f + 1) * s if u = (b + 1/2) *
//   2^-8 < t - f, else to f * s, keeping v's sign (a negative value
//   rounding to zero gives code 0x8). Up with probability t - f rounded to
//   a multiple of 2^-8 (to nearest, ties down): within 2^-9 of t - f,
//   exactly for t - f a multiple of 2^-8 (1/2 included), zero on average
//   over t - f.
//
// All arithmetic is integer or exact f32 (arith dialect only).
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_STOCHASTICROUNDING_H
#define QS_DIALECT_QS_UTILS_STOCHASTICROUNDING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include <array>

namespace mlir {
namespace qs {

/// Philox4x32-10 of `counter` (four i32) under `key` (two i32): four i32.
std::array<Value, 4> emitPhilox4x32(OpBuilder &b, Location loc,
                                    std::array<Value, 4> counter,
                                    std::array<Value, 2> key);

/// The four random words of element group `group` (index: elements 16g
/// .. 16g + 15 of the representation, element 16g + j taking byte j mod 4
/// of word j / 4) of `stream` (0 row-wise, 1 column-wise) for rng state
/// `seed`, `offset` (i64).
std::array<Value, 4> emitStochasticBits(OpBuilder &b, Location loc,
                                        Value seed, Value offset, Value group,
                                        unsigned stream);

/// The E2M1 code (i8, low 4 bits) of f32 `v` rounded stochastically with
/// random byte `byte` (i32 in [0, 255]).
Value emitE2M1Stochastic(OpBuilder &b, Location loc, Value v, Value byte);

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_STOCHASTICROUNDING_H
