//===- E2M1Boundaries.h - E2M1 round-to-nearest-even boundaries -*- C++ -*-===//
//
// te-formats.md e2m1_rn_sat's threshold table, in one place for the code
// that rounds to E2M1 by comparisons: the software encoder
// (FloatEmulation.cpp, a binary search on bit patterns) and the 4over6
// candidate errors (FourOverSix.cpp, a select chain on f32 values).
//
// E2M1 magnitudes are kE2M1Magnitudes[0..7] = 0, 0.5, 1, 1.5, 2, 3, 4, 6.
// Boundary i, the midpoint of magnitudes i and i + 1, separates them: |v|
// rounds to magnitude i + 1 or above when it is above kE2M1Boundaries[i],
// or equal to it where kE2M1BoundaryInclusive[i] (the tie goes to the even
// code: magnitude i + 1 when i is odd). Above 5 saturates to 6.
//
//===----------------------------------------------------------------------===//

#ifndef QS_DIALECT_QS_UTILS_E2M1BOUNDARIES_H
#define QS_DIALECT_QS_UTILS_E2M1BOUNDARIES_H

namespace mlir {
namespace qs {

inline constexpr float kE2M1Magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f,
                                             2.0f, 3.0f, 4.0f, 6.0f};

inline constexpr float kE2M1Boundaries[7] = {0.25f, 0.75f, 1.25f, 1.75f,
                                             2.5f,  3.5f,  5.0f};

/// Whether a value equal to boundary i rounds up (to the even code i + 1).
inline constexpr bool kE2M1BoundaryInclusive[7] = {false, true, false, true,
                                                   false, true, false};

namespace detail {
constexpr bool e2m1TableIsConsistent() {
  for (int i = 0; i < 7; ++i) {
    if (kE2M1Boundaries[i] * 2 != kE2M1Magnitudes[i] + kE2M1Magnitudes[i + 1])
      return false;
    // Code i + 1 is even exactly when i is odd.
    if (kE2M1BoundaryInclusive[i] != (i % 2 == 1))
      return false;
  }
  return true;
}
} // namespace detail
static_assert(detail::e2m1TableIsConsistent(),
              "E2M1 boundaries are the midpoints of adjacent magnitudes, "
              "ties to the even code");

} // namespace qs
} // namespace mlir

#endif // QS_DIALECT_QS_UTILS_E2M1BOUNDARIES_H
