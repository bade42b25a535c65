//===- TargetTest.cpp - chip names and TE's TN-only rule ------------------===//

#include "qs/Dialect/QS/IR/QSTarget.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::qs;

namespace {

TEST(Target, Parse) {
  EXPECT_EQ(TargetInfo::parse("sm_90a")->getComputeCapability(), 90u);
  EXPECT_EQ(TargetInfo::parse("sm_100a")->getComputeCapability(), 100u);
  EXPECT_EQ(TargetInfo::parse("sm_89")->getComputeCapability(), 89u);
  EXPECT_EQ(TargetInfo::parse("sm_120f")->getComputeCapability(), 120u);
  EXPECT_TRUE(failed(TargetInfo::parse("sm90a")));
  EXPECT_TRUE(failed(TargetInfo::parse("sm_9")));
  EXPECT_TRUE(failed(TargetInfo::parse("sm_")));
  EXPECT_TRUE(failed(TargetInfo::parse("sm_90b")));
  EXPECT_TRUE(failed(TargetInfo::parse("gfx942")));
}

// te-formats.md §2.b: non_tn = (10.0 <= CC < 12.0) or CC >= 13.0.
TEST(Target, TNOnlyRule) {
  EXPECT_TRUE(TargetInfo::parse("sm_89")->isTNOnly());
  EXPECT_TRUE(TargetInfo::parse("sm_90a")->isTNOnly());
  EXPECT_FALSE(TargetInfo::parse("sm_100a")->isTNOnly());
  EXPECT_FALSE(TargetInfo::parse("sm_103a")->isTNOnly());
  EXPECT_FALSE(TargetInfo::parse("sm_110")->isTNOnly());
  EXPECT_TRUE(TargetInfo::parse("sm_120a")->isTNOnly());
  EXPECT_TRUE(TargetInfo::parse("sm_121")->isTNOnly());
  EXPECT_FALSE(TargetInfo::parse("sm_130")->isTNOnly());
  EXPECT_EQ(TargetInfo::getDefault().getChip(), "sm_90a");
}

} // namespace
