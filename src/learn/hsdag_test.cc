// HSDAG end to end on the bundled models: the pooling makes several groups and the count moves
// with training; training improves on the untrained policy; a seed fixes the result; a run
// stopped at a checkpoint and resumed ends exactly where an uninterrupted run ends.
#include "learn/hsdag.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "io/model.h"

namespace devplace {
namespace {

HsdagConfig quick(int episodes) {
  HsdagConfig c = hsdag_preset("default");
  c.episodes = episodes;
  c.samples = 8;
  c.refine_evals = 0;  // test the policy itself
  return c;
}

TEST(Hsdag, PoolingMakesSeveralGroupsAndTheCountRespondsToTraining) {
  for (const std::string name : {"resnet50", "inception_v3", "bert_base"}) {
    Model m = load_model(name);
    Problem pb(m.graph, load_cluster("paper"));
    HsdagConfig c = quick(40);
    const int before = hsdag_group_count(pb, c);
    EXPECT_GT(before, 3) << name;
    Coarsening coarse = coarsen(m.graph, c.coarsen);
    EXPECT_LT(before, coarse.num_groups() + 1) << name;
    SimulatedReward reward(pb);
    TrainResult r = train_hsdag(pb, reward, c);
    std::set<int> counts;
    for (const auto& e : r.log) counts.insert(e.groups);
    EXPECT_GT(r.groups, 3) << name;
    // The parsing decisions are learned: the number of groups changes during training.
    EXPECT_GT(counts.size(), 1u) << name;
    // The paper's rule (every dominant edge merges) collapses far more.
    HsdagConfig paper = hsdag_preset("paper");
    EXPECT_LT(hsdag_group_count(pb, paper), coarsen(m.graph, paper.coarsen).num_groups()) << name;
  }
}

TEST(Hsdag, TrainingBeatsTheUntrainedPolicy) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  // One episode of 1 sample ~ the untrained policy; 150 episodes must find better.
  HsdagConfig c0 = quick(1);
  c0.samples = 1;
  TrainResult untrained = train_hsdag(pb, reward, c0);
  TrainResult trained = train_hsdag(pb, reward, quick(150));
  EXPECT_LT(trained.policy_latency, untrained.log[0].mean_latency);
  // Mean sampled latency falls from the first to the last episodes (the reward curve rises).
  EXPECT_LT(trained.log.back().mean_latency, trained.log.front().mean_latency);
  EXPECT_EQ(static_cast<int>(trained.best.size()), pb.num_ops());
}

TEST(Hsdag, SameSeedSamePlacement) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward r1(pb), r2(pb);
  TrainResult a = train_hsdag(pb, r1, quick(20));
  TrainResult b = train_hsdag(pb, r2, quick(20));
  EXPECT_EQ(a.best, b.best);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (std::size_t i = 0; i < a.log.size(); ++i) EXPECT_DOUBLE_EQ(a.log[i].mean_reward, b.log[i].mean_reward);
}

TEST(Hsdag, ResumeFromCheckpointMatchesAnUninterruptedRun) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  const std::string dir = ::testing::TempDir() + "/hsdag_ckpt";
  std::filesystem::remove_all(dir);
  HsdagConfig c = quick(12);
  c.checkpoint_dir = dir;
  c.checkpoint_every = 3;
  SimulatedReward r0(pb);
  TrainResult full = train_hsdag(pb, r0, c);

  std::filesystem::remove_all(dir);
  HsdagConfig first = c;
  first.stop_after = 7;  // "killed" after episode 7; the last checkpoint is at episode 6
  SimulatedReward r1(pb);
  train_hsdag(pb, r1, first);
  ASSERT_TRUE(std::filesystem::exists(dir + "/hsdag.ckpt"));
  HsdagConfig second = c;
  second.resume = true;
  SimulatedReward r2(pb);
  TrainResult resumed = train_hsdag(pb, r2, second);
  EXPECT_EQ(resumed.episodes, 12);
  ASSERT_EQ(resumed.log.size(), full.log.size());
  for (std::size_t i = 0; i < full.log.size(); ++i)
    EXPECT_DOUBLE_EQ(resumed.log[i].mean_reward, full.log[i].mean_reward) << "episode " << i + 1;
  EXPECT_EQ(resumed.best, full.best);
}

TEST(Hsdag, BestPlacementIsFeasibleUnderTightMemory) {
  // nvlink4 gives each GPU a 0.5 GiB budget, close to BERT-base's 0.41 GiB of weights: many
  // sampled placements overflow, and the kept best must still be a feasible one.
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("nvlink4"));
  SimulatedReward reward(pb);
  HsdagConfig c = quick(5);
  TrainResult r = train_hsdag(pb, reward, c);
  Evaluation best = reward.evaluate(r.best);
  EXPECT_TRUE(best.feasible);  // the best kept placement is always feasible
}

}  // namespace
}  // namespace devplace
