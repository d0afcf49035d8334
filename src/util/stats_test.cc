#include "util/stats.h"

#include <gtest/gtest.h>

namespace devplace {
namespace {

TEST(Stats, MedianOfOddEvenAndEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);  // mean of the two middle values
  EXPECT_DOUBLE_EQ(median({}), 0.0);
}

TEST(Stats, QuantilesInterpolate) {
  const std::vector<double> s = {10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(quantile_of_sorted(s, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(s, 0.25), 20.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(s, 0.6), 34.0);
  EXPECT_DOUBLE_EQ(quantile_of_sorted(s, 1.0), 50.0);
}

}  // namespace
}  // namespace devplace
