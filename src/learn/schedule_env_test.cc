// The learned placer's decision process (learn/schedule_env.h) on a hand-computed chain.
#include "learn/schedule_env.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/test_graphs.h"

namespace devplace {
namespace {

// a -> b -> c; seconds on cpu / gpu: a 1 / 4, b 5 / 1, c 1 / 1; every transfer 0.5.
struct Chain {
  test::Builder b;
  std::unique_ptr<Problem> p;
  Chain() {
    b.op("a", {}, 1, 4);
    b.op("b", {"a"}, 5, 1);
    b.op("c", {"b"}, 1, 1);
    b.g.finalize();
    p = std::make_unique<Problem>(b.g, test::two_devices(), &b.table);
  }
};

TEST(ScheduleEnv, FeaturesOfTheEarliestFinishChainByHand) {
  Chain c;
  ScheduleEnv env(*c.p);
  ASSERT_EQ(env.num_decisions(), 3);
  constexpr int F = ScheduleEnv::kFeatures;
  std::vector<float> f(2 * F);
  std::vector<std::uint8_t> allowed(2);
  // a: cpu finishes at 1, gpu at 4; the time unit is the mean fastest op time, 1 s.
  EXPECT_EQ(env.current_op(), c.b.g.find_op("a"));
  env.observe(f.data(), allowed.data());
  EXPECT_EQ(allowed, (std::vector<std::uint8_t>{1, 1}));
  EXPECT_FLOAT_EQ(f[1], 0);                     // cpu: the earliest finish
  EXPECT_FLOAT_EQ(f[F + 1], std::log1p(3.0f));  // gpu: 3 s later
  EXPECT_FLOAT_EQ(f[F + 0], std::log1p(3.0f));  // gpu takes 4x the fastest time: (4 - 1) / 1
  EXPECT_FLOAT_EQ(f[9], 1);
  EXPECT_FLOAT_EQ(f[F + 9], 0);
  EXPECT_FLOAT_EQ(f[14], 1);
  EXPECT_FLOAT_EQ(f[F + 15], 1);  // kinds
  EXPECT_EQ(env.earliest_finish_device(), 0);
  env.step(0);
  // b: cpu 1 + 5 = 6; gpu after the 0.5 s transfer: 1.5 + 1 = 2.5.
  env.observe(f.data(), allowed.data());
  EXPECT_FLOAT_EQ(f[5], 1);
  EXPECT_FLOAT_EQ(f[F + 5], 0);                 // its producer is on the cpu
  EXPECT_FLOAT_EQ(f[F + 4], std::log1p(0.5f));  // the transfer delay on the gpu
  EXPECT_FLOAT_EQ(f[1], std::log1p(3.5f));      // cpu finishes 3.5 s after the gpu
  EXPECT_EQ(env.earliest_finish_device(), 1);
  env.step(1);
  // c: cpu 2.5 + 0.5 + 1 = 4; gpu 2.5 + 1 = 3.5.
  EXPECT_EQ(env.earliest_finish_device(), 1);
  env.step(1);
  EXPECT_TRUE(env.done());
  EXPECT_EQ(env.placement(), (Placement{0, 1, 1}));
  env.reset();
  EXPECT_FALSE(env.done());
  EXPECT_EQ(env.current_op(), c.b.g.find_op("a"));
}

TEST(ScheduleEnv, OnlyDevicesThatRunTheOpAreAllowed) {
  Chain c;
  c.b.table.op_time["b"] = {{"cpu", 5}};  // b cannot run on the gpu
  Problem p(c.b.g, test::two_devices(), &c.b.table);
  ScheduleEnv env(p);
  env.step(env.earliest_finish_device());
  std::vector<float> f(2 * ScheduleEnv::kFeatures);
  std::vector<std::uint8_t> allowed(2);
  env.observe(f.data(), allowed.data());
  EXPECT_EQ(allowed, (std::vector<std::uint8_t>{1, 0}));
  EXPECT_EQ(env.earliest_finish_device(), 0);
}

}  // namespace
}  // namespace devplace
