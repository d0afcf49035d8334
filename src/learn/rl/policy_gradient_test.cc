// The policy-gradient core: batch-centred advantages with a floor, rewards that rank
// infeasible placements below feasible ones and by distance, and the entropy schedule.
#include "learn/rl/policy_gradient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
  // An end the linear formula misses by a rounding step (0.1 + (0.01 - 0.1) != 0.01) is still
  // reached, so a policy that settles with it is stopped.
  o.entropy_end = 0.01, o.settled_entropy = 1e-3, o.patience = 1;
  EXPECT_EQ(entropy_weight_at(o, 50, 101), 0.01);
  EXPECT_TRUE(SettledWatch(o).settled(1e-4, 50, 101));
}

TEST(PolicyGradient, EntropyBonusTracksATargetFallingFromTheFirstEntropy) {
  PolicyGradientOptions o;
  o.entropy_start = 0.1, o.entropy_end = 0.0, o.entropy_decay_share = 0.5, o.entropy_rate = 0.25;
  o.entropy_target = true;
  EntropyBonus bonus(o);
  EXPECT_DOUBLE_EQ(bonus.weight(0, 101), 0.1);  // entropy_start until the first observation
  bonus.observe(0.4, 0, 101);
  // The target falls linearly from the first entropy, 0.4, to 0 at episode 50.
  EXPECT_DOUBLE_EQ(bonus.target(0, 101), 0.4);
  EXPECT_NEAR(bonus.target(25, 101), 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(bonus.target(50, 101), 0.0);
  // Episode 1's target is 0.392: the first observation, 0.4, is 0.02 of the first entropy above it.
  EXPECT_NEAR(bonus.weight(1, 101), 0.1 * std::exp(0.25 * -0.02), 1e-12);
  // A policy that settles early (entropy far below the target) gets a growing bonus ...
  double w = bonus.weight(1, 101);
  for (int e = 1; e < 10; ++e) bonus.observe(0.01, e, 101);
  EXPECT_GT(bonus.weight(10, 101), 5 * w);
  // ... and one that stays too random a shrinking one.
  w = bonus.weight(10, 101);
  for (int e = 10; e < 20; ++e) bonus.observe(0.4, e, 101);
  EXPECT_LT(bonus.weight(20, 101), w / 2);
  // Once the target is 0 the bonus is entropy_end, and only then may the policy count as settled.
  EXPECT_GT(bonus.weight(49, 101), 0.0);
  EXPECT_DOUBLE_EQ(bonus.weight(50, 101), 0.0);
  EXPECT_FALSE(entropy_decay_done(o, 49, 101));
  EXPECT_TRUE(entropy_decay_done(o, 50, 101));
  o.settled_entropy = 1e-3, o.patience = 1;
  SettledWatch watch(o);
  EXPECT_FALSE(watch.settled(1e-4, 49, 101));
  EXPECT_TRUE(watch.settled(1e-4, 50, 101));
}

// settled_gap: once the bonus has ended, a policy whose batches stay within the gap of the best
// sampled latency for `patience` episodes has settled, whatever entropy it keeps; a batch further
// off restarts the count, and unknown or infinite latencies (no feasible sample) never count.
TEST(PolicyGradient, SettledWhenTheBatchesStayAtTheBestLatency) {
  PolicyGradientOptions o;
  o.entropy_start = 0.1, o.entropy_end = 0.0, o.entropy_decay_share = 0.5;
  o.settled_entropy = 1e-3, o.settled_gap = 0.001, o.patience = 3;
  SettledWatch watch(o);
  EXPECT_FALSE(watch.settled(0.02, 48, 101, 1.0, 1.0));  // the bonus has not ended
  EXPECT_FALSE(watch.settled(0.02, 49, 101, 1.0, 1.0));
  EXPECT_FALSE(watch.settled(0.02, 50, 101, 1.0005, 1.0));
  EXPECT_FALSE(watch.settled(0.02, 51, 101, 1.0009, 1.0));
  EXPECT_FALSE(watch.settled(0.02, 52, 101, 1.002, 1.0));  // 0.2% off: the count restarts
  EXPECT_FALSE(watch.settled(0.02, 53, 101, 1.0, 1.0));
  EXPECT_FALSE(watch.settled(0.02, 54, 101, 1.0, 1.0));
  EXPECT_TRUE(watch.settled(0.02, 55, 101, 1.0, 1.0));
  SettledWatch unknown(o);
  const double inf = std::numeric_limits<double>::infinity();
  for (int e = 50; e < 60; ++e) {
    EXPECT_FALSE(unknown.settled(0.02, e, 101));
    EXPECT_FALSE(unknown.settled(0.02, e, 101, inf, inf));
  }
  o.settled_gap = 0;  // off: the entropy alone decides
  SettledWatch entropy_only(o);
  for (int e = 50; e < 60; ++e) EXPECT_FALSE(entropy_only.settled(0.02, e, 101, 1.0, 1.0));
}

// With a gain the bonus answers an entropy off its target at once: the weight used is the
// accumulated one times exp(gain x the last error), and the accumulated one moves as without it.
TEST(PolicyGradient, EntropyBonusWithAGainAnswersAtOnce) {
  PolicyGradientOptions o;
  o.entropy_start = 0.1, o.entropy_end = 0.0, o.entropy_decay_share = 0.5, o.entropy_rate = 0.25;
  o.entropy_target = true;
  PolicyGradientOptions with_gain = o;
  with_gain.entropy_gain = 2.0;
  EntropyBonus plain(o), gained(with_gain);
  for (EntropyBonus* b : {&plain, &gained}) b->observe(0.4, 0, 101);
  // Episode 1's entropy collapses to 0.04 against a target of 0.392 (episode 2's: 0.384):
  // the error is (0.384 - 0.04) / 0.4 = 0.86 of the first entropy.
  for (EntropyBonus* b : {&plain, &gained}) b->observe(0.04, 1, 101);
  EXPECT_NEAR(gained.weight(2, 101), plain.weight(2, 101) * std::exp(2.0 * 0.86), 1e-12);
  // An entropy far above its target (the error clamped at -1) cuts the weight used by e^2 at once.
  for (EntropyBonus* b : {&plain, &gained}) b->observe(2.0, 2, 101);
  EXPECT_NEAR(gained.weight(3, 101), plain.weight(3, 101) * std::exp(-2.0), 1e-12);
  // Once the target is 0 the bonus is entropy_end with or without the gain.
  EXPECT_DOUBLE_EQ(gained.weight(50, 101), 0.0);
}

TEST(PolicyGradient, EntropyBonusWithoutATargetIsTheFixedSchedule) {
  PolicyGradientOptions o;
  o.entropy_start = 0.1, o.entropy_end = 0.0, o.entropy_decay_share = 0.5;
  EntropyBonus bonus(o);
  for (int e = 0; e < 101; e += 5) {
    bonus.observe(0.0, e, 101);  // ignored
    EXPECT_DOUBLE_EQ(bonus.weight(e, 101), entropy_weight_at(o, e, 101));
  }
}

}  // namespace
}  // namespace devplace
