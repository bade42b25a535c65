//===- UpstreamWorkaroundsTest.cpp - inputs that crash MLIR 22.1 ----------===//
//
// The detectors qs-run and qs-fuzz apply before the parser: each crashing
// form is found at its keyword, and the well-formed spellings around it are
// not (a false positive would reject valid input).
//
//===----------------------------------------------------------------------===//

#include "qs/Dialect/QS/Utils/UpstreamWorkarounds.h"
#include "gtest/gtest.h"

using namespace mlir::qs;

TEST(UpstreamWorkarounds, IndexDenseArray) {
  EXPECT_EQ(findIndexDenseArray("x = array<index: 1, 2>"), 4u);
  EXPECT_EQ(findIndexDenseArray("a = array<i64: 1>, b = array \n< index>"),
            23u);
  EXPECT_EQ(findIndexDenseArray("array<i64: 1, 2>"), std::nullopt);
  EXPECT_EQ(findIndexDenseArray("tensor<4xindex> array"), std::nullopt);
  EXPECT_EQ(findIndexDenseArray(""), std::nullopt);
}

TEST(UpstreamWorkarounds, MalformedLinalgDimensions) {
  // Well-formed: integer lists (spaces, negatives) and the generic form.
  EXPECT_EQ(findMalformedLinalgDimensions("dimensions = [0, 1]"), std::nullopt);
  EXPECT_EQ(findMalformedLinalgDimensions("permutation = [1, -0]\n"),
            std::nullopt);
  EXPECT_EQ(findMalformedLinalgDimensions("dimensions = array<i64: 0>"),
            std::nullopt);
  EXPECT_EQ(findMalformedLinalgDimensions("// dimensions of x"), std::nullopt);
  // Crashing: anything but integers in the list, an open list, no list.
  EXPECT_EQ(findMalformedLinalgDimensions("dimensions = [0,`1]"), 0u);
  EXPECT_EQ(findMalformedLinalgDimensions("ok dimensions = [0, 1"), 3u);
  EXPECT_EQ(findMalformedLinalgDimensions("permutation=(1,0)"), 0u);
  EXPECT_EQ(findMalformedLinalgDimensions("dimensions = [1] permutation = [a]"),
            17u);
}
