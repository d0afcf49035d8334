// Shared pieces of the list schedulers (place/list_schedule.h) on hand-computed graphs.
#include "place/list_schedule.h"

#include <gtest/gtest.h>

#include "sim/test_graphs.h"

namespace devplace {
namespace {

// PEFT's optimistic cost table: a -> b -> c and a -> d; seconds on cpu / gpu: a 1 / 2, b 1 / 1.6,
// c 10 / 1, d 3 / 3; moving a's output costs 0.5, b's 5, the others' 0.5.
TEST(ListSchedule, OptimisticCostsTakeTheBestDeviceOfEveryLaterOpAndTheLongestPath) {
  test::Builder b;
  b.op("a", {}, 1, 2);
  b.op("b", {"a"}, 1, 1.6, 5.0);
  b.op("c", {"b"}, 10, 1);
  b.op("d", {"a"}, 3, 3);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  const std::vector<double> oct = optimistic_costs(p, EdgeCosts(p));
  auto at = [&](const char* op, int d) { return oct[static_cast<std::size_t>(b.g.find_op(op)) * 2 + d]; };
  // Exits cost nothing after themselves.
  EXPECT_DOUBLE_EQ(at("c", 0), 0);
  EXPECT_DOUBLE_EQ(at("d", 1), 0);
  // b on the cpu: c on the gpu after the 5 s copy, 5 + 1 (on the cpu: 10); on the gpu: 1.
  EXPECT_DOUBLE_EQ(at("b", 0), 6);
  EXPECT_DOUBLE_EQ(at("b", 1), 1);
  // a on the cpu: the path through b is min(6 + 1, 1 + 1.6 + 0.5) = 3.1, through d min(3, 3.5) = 3;
  // on the gpu: min(6 + 1 + 0.5, 1 + 1.6) = 2.6 and min(3 + 0.5, 3) = 3.
  EXPECT_DOUBLE_EQ(at("a", 0), 3.1);
  EXPECT_DOUBLE_EQ(at("a", 1), 3);
}

}  // namespace
}  // namespace devplace
