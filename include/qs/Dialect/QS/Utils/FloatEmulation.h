//===- FloatEmulation.h - exact small-float conversions in arith ---*- C++ -*-===//
//
// Builders for the rounding primitives of te-formats.md §0.3 as integer
// arithmetic on the IEEE bit patterns (arith dialect only), so they are
// exact and identical on every target: the CPU reference lowering uses them,
// and GPU code can use them where the chip has no conversion instruction.
// Each builder works on a scalar value (use it inside linalg bodies) and
// returns the code in the low bits of an integer of `storageBits` width.
//
// Semantics follow CUDA 13's software conversions (cuda_fp8.hpp,
// cuda_fp4.hpp, __nv_cvt_double_to_fp8/fp4 with __NV_SATFINITE), except that
// every NaN maps to the format's positive canonical NaN: NVIDIA GPUs
// canonicalize NaN in f32 arithmetic (x * scale), so that is what a quantize
// kernel sees.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_FLOATEMULATION_H
#define QS_DIALECT_QS_UTILS_FLOATEMULATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include <cstdint>

namespace mlir {
namespace qs {

/// A binary floating-point format with a sign bit, `expBits` exponent bits
/// and `manBits` mantissa bits.
struct SmallFloatFormat {
  unsigned expBits;
  unsigned manBits;
  int bias;
  /// Saturate out-of-range results (and infinities) to +-`maxCode`; else
  /// overflow to the infinity code (IEEE formats).
  bool saturate;
  /// Largest finite magnitude code (saturating formats).
  uint32_t maxCode;
  /// The code every NaN maps to.
  uint32_t nanCode;
  /// Whether the all-ones exponent encodes inf (m == 0) / NaN (m != 0).
  bool ieeeSpecials;
  /// For formats without IEEE specials: codes >= this magnitude are NaN
  /// (E4M3FN: 0x7F); 0 if none (E2M1).
  uint32_t nanMagnitude;
  unsigned storageBits;

  static SmallFloatFormat e4m3();  // OCP E4M3 "fn", satfinite, max 448
  static SmallFloatFormat e5m2();  // E5M2, satfinite, max 57344
  static SmallFloatFormat e2m1();  // E2M1 (FP4), satfinite, max 6
  static SmallFloatFormat f16();   // IEEE half, RNE, overflow to inf
  static SmallFloatFormat bf16();  // bfloat16, RNE, overflow to inf
  /// The format of `type` (f8E4M3FN, f8E5M2, f4E2M1FN, f16, bf16), or none.
  static std::optional<SmallFloatFormat> get(Type type);
};

/// f32 -> code, round to nearest even (saturating or not, as the format
/// says). Returns an integer of `format.storageBits` bits.
Value emitEncodeF32(OpBuilder &b, Location loc, Value f32Value,
                    const SmallFloatFormat &format);

/// code (integer of `format.storageBits` bits) -> exact f32 value.
Value emitDecodeToF32(OpBuilder &b, Location loc, Value code,
                      const SmallFloatFormat &format);

/// e8m0_ceil(p): the E8M0 exponent of the smallest power of two >= p for
/// p >= 0 (TE float_to_e8m0 / cvt.rp.satfinite.ue8m0x2.f32): NaN -> 0xFF,
/// +inf -> 0xFE. Returns i8.
Value emitE8M0Ceil(OpBuilder &b, Location loc, Value f32Value);

/// 2^(e-127) for an E8M0 byte (i8, or an i32 holding it zero-extended):
/// 0 -> 2^-127, 255 -> NaN.
Value emitE8M0ToF32(OpBuilder &b, Location loc, Value code);

/// 2^(127-e) for an E8M0 byte (i8), TE exp2f_rcp: 254 -> 2^-127,
/// 255 -> NaN.
Value emitE8M0ReciprocalToF32(OpBuilder &b, Location loc, Value code);

/// f32 -> f32 value of the nearest `format` number (encode then decode).
Value emitRoundToFormat(OpBuilder &b, Location loc, Value f32Value,
                        const SmallFloatFormat &format);

/// Converts a float of any type the reference handles (f32, f16, bf16) to
/// f32 exactly.
Value emitExtToF32(OpBuilder &b, Location loc, Value value);

/// Converts an f32 value to `type` (f32, f16, bf16) with RNE, overflow to
/// inf.
Value emitTruncFromF32(OpBuilder &b, Location loc, Value f32Value, Type type);

/// An f32 value with any NaN replaced by +0x7FC00000 (the quiet NaN that
/// emitTruncFromF32 writes as each format's): for results computed by
/// additions, whose NaN bits differ between CPUs and GPUs.
Value emitCanonicalNaN(OpBuilder &b, Location loc, Value f32Value);

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_FLOATEMULATION_H
