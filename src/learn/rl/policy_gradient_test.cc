// The policy-gradient core: batch-centred advantages with a floor, rewards that rank
// infeasible placements below feasible ones and by distance, and the entropy schedule.
#include "learn/rl/policy_gradient.h"

#include <gtest/gtest.h>

#include <cmath>

namespace devplace {
namespace {

TEST(PolicyGradient, EqualRewardsGiveNoAdvantageAtAll) {
  // The collapse of the old trainer: a deterministic policy's batch moved it one way anyway.
  for (float a : centred_advantages({1.3, 1.3, 1.3, 1.3}, 0.02)) EXPECT_EQ(a, 0.0f);
}

TEST(PolicyGradient, AdvantagesAreCentredAndScaledDownOnlyToTheFloor) {
  // Spread 0.5 > floor: standardised to -1, +1.
  auto wide = centred_advantages({1.0, 2.0}, 0.02);
  EXPECT_FLOAT_EQ(wide[0], -1.0f);
  EXPECT_FLOAT_EQ(wide[1], 1.0f);
  // Spread 0.001 < floor 0.02: divided by the floor, so tiny differences stay tiny.
  auto narrow = centred_advantages({1.000, 1.002}, 0.02);
  EXPECT_NEAR(narrow[0], -0.05, 1e-5);
  EXPECT_NEAR(narrow[1], 0.05, 1e-5);
  EXPECT_NEAR(narrow[0] + narrow[1], 0.0, 1e-6);
}

TEST(PolicyGradient, InfeasiblePlacementsRankBelowFeasibleAndByDistance) {
  Evaluation fast{0.005, true, 0, 0}, slow{0.020, true, 0, 0};
  Evaluation near{0.004, false, 10, 0.1}, far{0.004, false, 1000, 2.0}, untimed{INFINITY, false, 0, 0.5};
  const double ref = 0.010;
  EXPECT_DOUBLE_EQ(placement_reward(fast, ref, RewardKind::speedup, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(placement_reward(fast, ref, RewardKind::inverse, 1.0), 0.2);
  EXPECT_GT(placement_reward(slow, ref, RewardKind::speedup, 1.0),
            placement_reward(near, ref, RewardKind::speedup, 1.0));
  EXPECT_GT(placement_reward(near, ref, RewardKind::speedup, 1.0),
            placement_reward(untimed, ref, RewardKind::speedup, 1.0));
  EXPECT_GT(placement_reward(untimed, ref, RewardKind::speedup, 1.0),
            placement_reward(far, ref, RewardKind::speedup, 1.0));
  // A batch of only infeasible samples still has a gradient.
  auto adv = centred_advantages(
      {placement_reward(near, ref, RewardKind::speedup, 1.0), placement_reward(far, ref, RewardKind::speedup, 1.0)},
      0.02);
  EXPECT_GT(adv[0], 0.5f);
  EXPECT_LT(adv[1], -0.5f);
}

TEST(PolicyGradient, EntropyWeightFallsToItsEndAndStays) {
  PolicyGradientOptions o;
  o.entropy_start = 0.1, o.entropy_end = 0.0, o.entropy_decay_share = 0.5;
  EXPECT_DOUBLE_EQ(entropy_weight_at(o, 0, 101), 0.1);
  EXPECT_NEAR(entropy_weight_at(o, 25, 101), 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(entropy_weight_at(o, 50, 101), 0.0);
  EXPECT_DOUBLE_EQ(entropy_weight_at(o, 100, 101), 0.0);
  EXPECT_DOUBLE_EQ(entropy_weight_at(o, 0, 1), 0.1);
}

}  // namespace
}  // namespace devplace
