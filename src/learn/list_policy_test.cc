// devplace's own learned placer (learn/list_policy.h): imitation learns the earliest-finish
// choice on unseen graphs, policy gradient beats the untrained policy by a margin, fine-tuning
// keeps to its budget, and policies survive a save and load.
#include "learn/list_policy.h"

#include <gtest/gtest.h>

#include "learn/schedule_env.h"
#include "learn/training_corpus.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

struct SmallCorpus {
  std::vector<std::unique_ptr<CorpusGraph>> graphs = make_training_corpus({8, 40, 90, 3});
  std::vector<const Problem*> problems() const {
    std::vector<const Problem*> p;
    for (auto& g : graphs) p.push_back(g->problem.get());
    return p;
  }
};

// The earliest-finish rollout of a problem (the imitation teacher).
Placement teacher(const Problem& p) {
  ScheduleEnv env(p);
  while (!env.done()) env.step(env.earliest_finish_device());
  return env.placement();
}

TEST(ListPolicy, ImitationLearnsTheEarliestFinishChoiceOnUnseenGraphs) {
  SmallCorpus train;
  auto unseen = make_training_corpus({3, 120, 160, 99});
  ListPolicy policy(32, 1);
  ListPolicyConfig c;
  c.imitation_iterations = 240;
  train_list_policy(policy, train.problems(), c, 1);
  for (auto& g : unseen) {
    const Problem& p = *g->problem;
    const Placement mine = policy.greedy(p), ref = teacher(p);
    int same = 0;
    for (int i = 0; i < p.num_ops(); ++i) same += mine[i] == ref[i];
    EXPECT_GE(same, 0.9 * p.num_ops()) << p.graph().name();
    Simulator sim(p);
    EXPECT_LE(sim.makespan(mine), 1.05 * sim.makespan(ref)) << p.graph().name();
  }
}

TEST(ListPolicy, TrainingBeatsTheUntrainedPolicyOnUnseenGraphs) {
  SmallCorpus train;
  auto unseen = make_training_corpus({4, 100, 150, 77});
  ListPolicy untrained(32, 5), trained(32, 5);
  ListPolicyConfig c;
  c.imitation_iterations = 120, c.iterations = 120, c.samples = 8;
  train_list_policy(trained, train.problems(), c, 5);
  double before = 0, after = 0;
  for (auto& g : unseen) {
    Simulator sim(*g->problem);
    before += sim.makespan(untrained.greedy(*g->problem));
    after += sim.makespan(trained.greedy(*g->problem));
  }
  EXPECT_LT(after, 0.9 * before) << "untrained " << before << " s, trained " << after << " s";
}

TEST(ListPolicy, FineTuningKeepsToItsBudgetAndSaveLoadKeepsThePolicy) {
  SmallCorpus train;
  const Problem& p = *train.graphs[0]->problem;
  ListPolicy policy(32, 2);
  ListPolicyConfig c;
  c.imitation_iterations = 40;
  train_list_policy(policy, train.problems(), c, 2);
  const std::string path = ::testing::TempDir() + "/learned.pt";
  policy.save(path);
  ListPolicy again = ListPolicy::load(path);
  EXPECT_EQ(again.greedy(p), policy.greedy(p));
  Simulator sim(p);
  const double start = sim.makespan(policy.greedy(p));
  SimulatedReward reward(p);
  c.samples = 8;
  ListTuneResult r = fine_tune_list_policy(policy, p, reward, 100, c, 2);
  EXPECT_LE(r.evaluations, 100);
  EXPECT_GE(r.evaluations, 90);
  EXPECT_LE(r.best_latency, r.policy_latency);
  EXPECT_LE(r.best_latency, start);
  EXPECT_DOUBLE_EQ(sim.makespan(r.policy), r.policy_latency);

  const std::string bad = ::testing::TempDir() + "/not_a_policy.pt";
  std::FILE* f = std::fopen(bad.c_str(), "w");
  std::fputs("hello", f);
  std::fclose(f);
  try {
    ListPolicy::load(bad);
    FAIL() << "a text file loaded as a policy";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), bad);
  }
}

}  // namespace
}  // namespace devplace
