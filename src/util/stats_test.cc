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

namespace devplace {
namespace {

// n = 15 at 95%: x(4)..x(12) (coverage 1 - 2 P(B <= 3) = 96.5%; x(5)..x(11) would be 88%).
TEST(Stats, MedianIntervalIsTheBinomialOrderStatistics) {
  std::vector<double> v;
  for (int i = 15; i >= 1; --i) v.push_back(i);
  const Interval ci = median_interval(v, 0.95);
  EXPECT_DOUBLE_EQ(ci.low, 4);
  EXPECT_DOUBLE_EQ(ci.high, 12);
  // Five values cover at most 1 - 2/32 = 94%: the widest interval.
  const Interval few = median_interval({3, 1, 2, 5, 4}, 0.95);
  EXPECT_DOUBLE_EQ(few.low, 1);
  EXPECT_DOUBLE_EQ(few.high, 5);
  EXPECT_DOUBLE_EQ(median_interval({}, 0.95).high, 0);
}

}  // namespace
}  // namespace devplace
