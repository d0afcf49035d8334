// HSDAG end to end on the bundled models: the pooling makes several groups and the count moves
// with training; training improves on the untrained policy; a seed fixes the result; a run
// stopped at a checkpoint and resumed ends exactly where an uninterrupted run ends.
#include "learn/hsdag/hsdag.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <torch/torch.h>

#include "io/model.h"
#include "io/tarnawski_import.h"
#include "learn/learned_placers.h"
#include "learn/rl/archive_io.h"
#include "learn/rl/policy_gradient.h"
#include "place/compare.h"
#include "place/placer.h"
#include "sim/schedule.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

HsdagConfig quick(int episodes) {
  HsdagConfig c = hsdag_preset("default");
  c.episodes = episodes;
  c.samples = 8;
  c.refine_evals = 0;  // test the policy itself
  return c;
}

// The least and the largest entropy over its target (EntropyBonus's: the first episode's entropy
// falling to 0 over entropy_decay_share of the run) on 0-based episodes [from, to) of `log`.
std::pair<double, double> entropy_over_target(const std::vector<EpisodeLog>& log, PolicyGradientOptions pg,
                                              int episodes, int from, int to) {
  pg.entropy_target = true;  // the target, also for a run that had the fixed bonus
  EntropyBonus bonus(pg);
  bonus.observe(log.at(0).entropy, 0, episodes);
  double lo = 1e9, hi = 0;
  for (int e = from; e < to; ++e) {
    const double ratio = log.at(e).entropy / bonus.target(e, episodes);
    lo = std::min(lo, ratio), hi = std::max(hi, ratio);
  }
  return {lo, hi};
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

// The test that fails on collapse: after a short training on Inception-V3 the policy's own
// (greedy) placement must beat GPU-only by a clear margin and must not be a single device,
// and the mean sampled latency must fall and stay down.
TEST(Hsdag, TrainedPolicyBeatsGpuOnlyAndIsNotASingleDevice) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  const double gpu_only = reward.evaluate(Placement(pb.num_ops(), pb.cluster().find_device("gpu"))).latency;
  HsdagConfig c = hsdag_preset("default");
  c.episodes = 200, c.refine_evals = 0;
  TrainResult r = train_hsdag(pb, reward, c);
  EXPECT_LT(r.greedy_latency, 0.85 * gpu_only);  // 7.208 ms -> below 6.13 ms
  EXPECT_FALSE(is_single_device(r.greedy));
  EXPECT_EQ(static_cast<int>(r.greedy.size()), pb.num_ops());
  // What it reports is what it is: the greedy figure is the greedy placement's latency.
  EXPECT_DOUBLE_EQ(reward.evaluate(r.greedy).latency, r.greedy_latency);
  EXPECT_DOUBLE_EQ(reward.evaluate(r.sampled).latency, r.sampled_latency);
  // Evaluations: 2 single-device references, 120 x 32 samples, then 80 x 31 (the best sampled
  // placement, already evaluated, is each batch's last: HsdagConfig::imitate_best), 1 greedy.
  EXPECT_EQ(r.evaluations, 2 + 120LL * 32 + 80LL * 31 + 1);
  // Learning, not a lucky sample: the last episodes' mean is far below the first's.
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) first += r.log[i].mean_latency, last += r.log[r.log.size() - 1 - i].mean_latency;
  EXPECT_LT(last, 0.8 * first);
  EXPECT_LT(last / 10, gpu_only);
}

// Training leaves LibTorch's thread count and default random stream as the caller set them.
TEST(Hsdag, TrainingRestoresTheCallersTorchThreadsAndGenerator) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  const int threads = torch::get_num_threads();
  torch::set_num_threads(2);
  torch::manual_seed(1234);
  const double expected = torch::rand({1}).item<double>();
  torch::manual_seed(1234);
  train_hsdag(pb, reward, quick(2));
  EXPECT_EQ(torch::get_num_threads(), 2);
  EXPECT_EQ(torch::rand({1}).item<double>(), expected);
  torch::set_num_threads(threads);
}

// The library's registry has the learned placers; a trained policy comes as a typed option.
TEST(Hsdag, RegistryMakesLearnedPlacersAndTakesThePolicyAsAnOption) {
  PlacerRegistry r = all_placers();
  for (const char* name :
       {"hsdag", "hsdag-sampled", "hsdag+polish", "hsdag-paper", "rnn", "hierarchical", "placeto", "heft"})
    EXPECT_TRUE(r.contains(name)) << name;
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  PlaceOptions o;
  o.learned.policy_file = "/nonexistent/policy.pt";
  auto placer = r.make(pb, "hsdag", o);
  EXPECT_EQ(placer->name(), "hsdag (zero-shot policy)");
  try {
    placer->place(pb, o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/policy.pt"), std::string::npos) << e.what();
  }
  // A budget below one episode (32 samples + 2 references + the answer) is refused, not overspent.
  PlaceOptions tight;
  tight.eval_budget = 34;
  try {
    r.make(pb, "hsdag", tight)->place(pb, tight);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("less than one episode"), std::string::npos) << e.what();
  }
  // Under a budget the polish comes out of it too (a quarter at most), not on top of it.
  PlaceOptions budget;
  budget.eval_budget = 200;
  const ComparisonRow polished = run_placer(pb, "hsdag+polish", budget, [&] { return r.make(pb, "hsdag+polish", budget); });
  EXPECT_TRUE(polished.error.empty()) << polished.error;
  EXPECT_LE(polished.evaluations, 200);
  EXPECT_GT(polished.evaluations, 150);
}

// The guard against regrouping (HsdagConfig::reparse_kl) undoes a batch's steps when the
// policy, as the stepped network regroups the graph, moved too far: with a limit nothing passes,
// the policy never moves and its own placement stays the untrained one; without the guard the
// same run moves it.
TEST(Hsdag, RegroupingGuardUndoesStepsThatMoveThePolicyTooFar) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward r0(pb), r1(pb), r2(pb);
  const TrainResult untrained = train_hsdag(pb, r0, quick(0));
  HsdagConfig frozen = quick(15);
  frozen.reparse_kl = 1e-12;
  const TrainResult held = train_hsdag(pb, r1, frozen);
  EXPECT_EQ(held.greedy, untrained.greedy);
  for (const EpisodeLog& e : held.log) EXPECT_EQ(e.groups, held.log.front().groups);
  HsdagConfig off = quick(15);
  off.reparse_kl = 0;
  EXPECT_NE(train_hsdag(pb, r2, off).greedy, untrained.greedy);
  EXPECT_EQ(hsdag_preset("paper").reparse_kl, 0);  // the released configuration has no guard
  EXPECT_GT(HsdagConfig{}.reparse_kl, 0);
}

// A guard that only undid whole steps froze a policy whose every step regroups the graph: Adam's
// moments kept growing the same way and every next step was undone too. It now keeps the largest
// of 1/2 ... 1/16 of the steps that stays within the limit. With a tight limit (0.001) on
// Inception-V3, the whole-step guard left the network unchanged for all 15 episodes; now it
// changes every episode, and the policy's own placement moves.
TEST(Hsdag, RegroupingGuardKeepsPartOfAStepInsteadOfFreezing) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward r0(pb), r1(pb);
  const TrainResult untrained = train_hsdag(pb, r0, quick(0));
  HsdagConfig tight = quick(15);
  tight.reparse_kl = 0.001;
  const TrainResult t = train_hsdag(pb, r1, tight);
  ASSERT_EQ(t.log.size(), 15u);
  int unchanged = 0;
  for (std::size_t i = 1; i < t.log.size(); ++i) unchanged += t.log[i].stay == t.log[i - 1].stay;
  EXPECT_LE(unchanged, 2);
  EXPECT_NE(t.greedy, untrained.greedy);
}

TEST(Hsdag, SameSeedSamePlacement) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward r1(pb), r2(pb);
  TrainResult a = train_hsdag(pb, r1, quick(20));
  TrainResult b = train_hsdag(pb, r2, quick(20));
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.greedy, b.greedy);
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
  // "Killed" after episode 10; the last checkpoint is at episode 9, when the batches already end
  // with the best sampled placement (HsdagConfig::imitate_best, from episode 8).
  first.stop_after = 10;
  SimulatedReward r1(pb);
  train_hsdag(pb, r1, first);
  ASSERT_TRUE(std::filesystem::exists(dir + "/hsdag.ckpt"));
  HsdagConfig second = c;
  second.resume = true;
  SimulatedReward r2(pb);
  TrainResult resumed = train_hsdag(pb, r2, second);
  EXPECT_EQ(resumed.episodes, 12);
  ASSERT_EQ(resumed.log.size(), full.log.size());
  for (std::size_t i = 0; i < full.log.size(); ++i) {
    EXPECT_DOUBLE_EQ(resumed.log[i].mean_reward, full.log[i].mean_reward) << "episode " << i + 1;
    // The checkpoint keeps the learned terms' columns of the episodes before it too.
    EXPECT_DOUBLE_EQ(resumed.log[i].stay, full.log[i].stay) << "episode " << i + 1;
    EXPECT_DOUBLE_EQ(resumed.log[i].sibling, full.log[i].sibling) << "episode " << i + 1;
    EXPECT_DOUBLE_EQ(resumed.log[i].join, full.log[i].join) << "episode " << i + 1;
  }
  EXPECT_EQ(resumed.best, full.best);
  EXPECT_EQ(resumed.evaluations, full.evaluations);
}

// A checkpoint's log round-trips every column; one written before the stay and sibling columns
// (a flat tensor, 8 per episode) still reads, without them.
TEST(Hsdag, CheckpointLogsKeepTheirColumnsAndOldOnesStillRead) {
  EpisodeLog e;
  e.episode = 3, e.mean_latency = 0.5, e.best_latency = 0.4, e.mean_reward = 1.2, e.entropy = 0.3;
  e.seconds = 0.1, e.groups = 7, e.feasible_share = 0.75, e.stay = 4.5, e.sibling = -2.5, e.join = 1.5;
  const std::vector<EpisodeLog> back = episode_log_from(episode_log_tensor({e, e}));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].episode, 3);
  EXPECT_EQ(back[1].groups, 7);
  EXPECT_DOUBLE_EQ(back[1].feasible_share, 0.75);
  EXPECT_DOUBLE_EQ(back[1].stay, 4.5);
  EXPECT_DOUBLE_EQ(back[1].sibling, -2.5);
  EXPECT_DOUBLE_EQ(back[1].join, 1.5);
  // Rows of 10, written before the join column: read without it.
  const torch::Tensor ten = episode_log_tensor({e, e}).narrow(1, 0, 10).contiguous();
  const std::vector<EpisodeLog> before_joins = episode_log_from(ten);
  ASSERT_EQ(before_joins.size(), 2u);
  EXPECT_DOUBLE_EQ(before_joins[1].sibling, -2.5);
  EXPECT_DOUBLE_EQ(before_joins[1].join, 0.0);
  const std::vector<double> flat{3, 0.5, 0.4, 1.2, 0.3, 0.1, 7, 0.75, 4, 0.6, 0.5, 1.1, 0.2, 0.1, 6, 1.0};
  const std::vector<EpisodeLog> old = episode_log_from(torch::tensor(flat, torch::kDouble));
  ASSERT_EQ(old.size(), 2u);
  EXPECT_EQ(old[1].episode, 4);
  EXPECT_EQ(old[1].groups, 6);
  EXPECT_DOUBLE_EQ(old[0].feasible_share, 0.75);
  EXPECT_DOUBLE_EQ(old[1].stay, 0.0);
}

// One policy trained on two graphs, saved, and loaded again: it reproduces its own answer on a
// training graph, places a graph it has never seen, and refuses a cluster of another size.
TEST(Hsdag, PolicyTrainedOnSeveralGraphsPlacesAnUnseenOne) {
  Model a = load_model("resnet50"), b = load_model("inception_v3"), u = load_model("bert_base");
  Cluster cl = load_cluster("paper");
  Problem pa(a.graph, cl), pb(b.graph, cl), pu(u.graph, cl);
  SimulatedReward ra(pa), rb(pb), ru(pu);
  const std::string policy = ::testing::TempDir() + "/hsdag_policy.pt";
  std::filesystem::remove(policy);
  HsdagConfig c = quick(20);
  c.save_policy = policy;
  std::vector<TrainResult> trained = train_hsdag_multi({{&pa, &ra}, {&pb, &rb}}, c);
  ASSERT_EQ(trained.size(), 2u);
  EXPECT_EQ(trained[0].log.size() + trained[1].log.size(), 20u);  // the graphs take turns
  EXPECT_EQ(trained[1].log.front().episode, 2);
  ASSERT_TRUE(std::filesystem::exists(policy));
  HsdagConfig zero = quick(0);
  zero.init_policy = policy;
  EXPECT_DOUBLE_EQ(train_hsdag(pb, rb, zero).greedy_latency, trained[1].greedy_latency);
  TrainResult unseen = train_hsdag(pu, ru, zero);
  EXPECT_EQ(static_cast<int>(unseen.best.size()), pu.num_ops());
  EXPECT_TRUE(std::isfinite(unseen.greedy_latency));
  // Through the placer, a budget does not turn the zero-shot answer into a training run.
  PlaceOptions loaded;
  loaded.learned.policy_file = policy;
  loaded.eval_budget = 500;
  const ComparisonRow row =
      run_placer(pb, "hsdag", loaded, [&] { return all_placers().make(pb, "hsdag", loaded); });
  EXPECT_TRUE(row.error.empty()) << row.error;
  EXPECT_EQ(row.placement, train_hsdag(pb, rb, zero).greedy);
  EXPECT_LE(row.evaluations, pb.num_devices() + 1);  // the references and the answer
  Problem three(u.graph, load_cluster("nvlink4"));  // 5 devices, not 2
  SimulatedReward r3(three);
  try {
    train_hsdag(three, r3, zero);
    FAIL() << "a policy for 2 devices loaded for 5";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), policy);
  }
  // It was trained with a learned stay bonus, sibling terms and join terms, and says so to a
  // configuration without one of them.
  const std::pair<bool HsdagConfig::*, const char*> switches[] = {{&HsdagConfig::learn_stay, "learn_stay=true"},
                                                                   {&HsdagConfig::learn_siblings, "learn_siblings=true"},
                                                                   {&HsdagConfig::learn_joins, "learn_joins=true"}};
  for (const auto& [learned, setting] : switches) {
    HsdagConfig without = zero;
    without.*learned = false;
    try {
      train_hsdag(pb, rb, without);
      FAIL() << "a policy trained with " << setting << " loaded without it";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(setting), std::string::npos) << e.what();
    }
  }
  HsdagConfig checkpointed = c;
  checkpointed.checkpoint_dir = ::testing::TempDir() + "/multi_ckpt";
  EXPECT_THROW(train_hsdag_multi({{&pa, &ra}, {&pb, &rb}}, checkpointed), Error);
}

// nvlink4's four GPUs are alike. A fixed stay bonus can keep a region on one GPU only by
// favouring that GPU by name at every node, and regions then settle on different GPUs. The
// learned bonus grows where staying pays: on ResNet-50 (fastest on one GPU) it ends well above
// the fixed 2 (2.9-10.4 over seeds 1-3 with either OpenBLAS kernel set), and the policy's own
// placement is no slower than one GPU.
TEST(Hsdag, TheStayBonusIsLearnedWhereRegionsMustStayTogether) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("nvlink4"));
  SimulatedReward reward(pb);
  const SingleDeviceReference single = best_single_device(pb, reward);
  HsdagConfig c = quick(150);
  ASSERT_TRUE(c.learn_stay);
  const TrainResult learned = train_hsdag(pb, reward, c);
  ASSERT_FALSE(learned.log.empty());
  EXPECT_DOUBLE_EQ(learned.log.front().stay, 2.0);  // the untrained network adds nothing
  EXPECT_GT(learned.log.back().stay, 2.5);
  EXPECT_LE(learned.greedy_latency, single.latency * (1 + 1e-9));
  c.learn_stay = false;
  const TrainResult fixed = train_hsdag(pb, reward, c);
  for (const EpisodeLog& e : fixed.log) EXPECT_DOUBLE_EQ(e.stay, 2.0) << "episode " << e.episode;
}

// A learned term's trial: 150 episodes of 8 samples on `model` on nvlink4, seed 1, with the
// term and without it.
struct TermTrial {
  TrainResult with, without;
};
TermTrial train_with_and_without(const std::string& model, bool HsdagConfig::*term) {
  Model m = load_model(model);
  Problem pb(m.graph, load_cluster("nvlink4"));
  SimulatedReward reward(pb);
  HsdagConfig c = quick(150);
  c.relocation_share = 0;  // the term alone: relocations take 2 of these batches' 8 samples
  EXPECT_TRUE(c.*term);  // on by default
  TermTrial t;
  t.with = train_hsdag(pb, reward, c);
  c.*term = false;
  t.without = train_hsdag(pb, reward, c);
  EXPECT_FALSE(t.with.log.empty());
  return t;
}

// Attention's query, key and value projections read the same input, and HEFT's placement
// (3.658 ms) runs them on different GPUs of nvlink4. Decisions that see only their parent cannot
// coordinate siblings: a learned sibling term can. It turns negative as training spreads them
// (-12 here after 150 episodes), and the policy's own placement is more than 5% faster than
// without it (3.820 against 4.052 ms, seed 1).
TEST(Hsdag, SiblingTermsLearnToSpreadParallelBranches) {
  const TermTrial t = train_with_and_without("bert_base", &HsdagConfig::learn_siblings);
  EXPECT_DOUBLE_EQ(t.with.log.front().sibling, 0.0);  // the untrained network ignores siblings
  EXPECT_LT(t.with.log.back().sibling, -1.0);
  for (const EpisodeLog& e : t.without.log) EXPECT_DOUBLE_EQ(e.sibling, 0.0) << "episode " << e.episode;
  EXPECT_LT(t.with.greedy_latency, t.without.greedy_latency * 0.95);
}

// A join (an inception module's concatenation, a residual add) decides given its main parent;
// join terms let it see where its other inputs went. On Inception-V3 on nvlink4 the learned term
// grows from 0 to about 8 in 150 episodes of 8 samples, and the policy's own placement is 2.8%
// faster than without it (1.854 against 1.908 ms, seed 1).
TEST(Hsdag, JoinTermsLearnToFollowTheOtherInputs) {
  const TermTrial t = train_with_and_without("inception_v3", &HsdagConfig::learn_joins);
  EXPECT_DOUBLE_EQ(t.with.log.front().join, 0.0);  // the untrained network ignores other inputs
  EXPECT_GT(t.with.log.back().join, 1.0);
  for (const EpisodeLog& e : t.without.log) EXPECT_DOUBLE_EQ(e.join, 0.0) << "episode " << e.episode;
  EXPECT_LT(t.with.greedy_latency, t.without.greedy_latency * 0.99);
}

TEST(Hsdag, BestPlacementIsFeasibleUnderTightMemory) {
  // nvlink4 gives each GPU a 0.5 GiB budget, close to BERT-base's 0.41 GiB of weights: many
  // sampled placements overflow, and the kept best must still be a feasible one.
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("nvlink4"));
  SimulatedReward reward(pb);
  HsdagConfig c = quick(5);
  TrainResult r = train_hsdag(pb, reward, c);
  // The best sampled placement kept is always a feasible one.
  if (!r.sampled.empty()) {
    EXPECT_TRUE(reward.evaluate(r.sampled).feasible);
  }
  EXPECT_TRUE(reward.evaluate(r.best).feasible || !std::isfinite(r.sampled_latency));
}

// start_share leans the untrained policy towards the best single device: with a strong lean
// and no training its own placement is that device and its samples stay close to it.
TEST(Hsdag, StartShareLeansTheUntrainedPolicyTowardsTheBestDevice) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("nvlink4"));  // 5 devices
  SimulatedReward reward(pb);
  HsdagConfig c = quick(0);
  c.start_share = 0.99;
  TrainResult leaning = train_hsdag(pb, reward, c);
  ASSERT_TRUE(is_single_device(leaning.greedy));
  int best = 0;
  for (int d = 1; d < pb.num_devices(); ++d)
    if (reward.evaluate(Placement(pb.num_ops(), d)).latency < reward.evaluate(Placement(pb.num_ops(), best)).latency)
      best = d;
  EXPECT_EQ(leaning.greedy.front(), best);
  // Its samples stay near that device; without the lean they spread over all five.
  c.episodes = 1;
  const double near = train_hsdag(pb, reward, c).log[0].mean_latency;
  c.start_share = 0;
  const double spread = train_hsdag(pb, reward, c).log[0].mean_latency;
  EXPECT_LT(near, 0.8 * spread);
  c.start_share = 1.5;
  EXPECT_THROW(train_hsdag(pb, reward, c), Error);
}

// HsdagConfig::imitate_steps: before any policy gradient the policy's own placement is HEFT's
// (where HEFT beats every single device, as on Inception-V3 here), at one more evaluation.
TEST(Hsdag, ImitationStartsThePolicyAtHeftsPlacement) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  const Placement heft = make_heft_placer()->place(pb, PlaceOptions{});
  const double heft_latency = reward.evaluate(heft).latency;
  HsdagConfig c = quick(0);
  c.imitate_steps = 300, c.imitate_share = 0.98;
  const TrainResult r = train_hsdag(pb, reward, c);
  ASSERT_LT(heft_latency, reward.evaluate(Placement(pb.num_ops(), 1)).latency);
  int same = 0;
  for (int op = 0; op < pb.num_ops(); ++op) same += r.greedy[op] == heft[op];
  EXPECT_GE(same, pb.num_ops() * 95 / 100);
  EXPECT_LT(r.greedy_latency, 1.05 * heft_latency);
  const TrainResult uniform = train_hsdag(pb, reward, quick(0));
  EXPECT_EQ(r.evaluations, uniform.evaluations + 1);  // HEFT's placement, evaluated once
  EXPECT_GT(uniform.greedy_latency, 1.2 * heft_latency);
  c.imitate_share = 1;
  EXPECT_THROW(train_hsdag(pb, reward, c), Error);
}

// HsdagConfig::demonstration: the last placement of every batch is HEFT's as the units group
// the graph; it costs one evaluation (plus one for HEFT's own placement) until the grouping
// changes it, and it is neither a logged sample nor the best sampled placement.
TEST(Hsdag, TheDemonstrationIsOneMorePlacementNotASample) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  HsdagConfig c = quick(1);
  const TrainResult plain = train_hsdag(pb, reward, c);
  c.demonstration = true;
  c.demonstration_margin = 0;  // HEFT is only 0.2% faster than the GPU alone here
  const TrainResult shown = train_hsdag(pb, reward, c);
  // 2 references + 8 samples + the greedy answer, against 2 + 7 samples + HEFT's placement and
  // the demonstration as grouped + the greedy answer.
  EXPECT_EQ(plain.evaluations, 11);
  EXPECT_EQ(shown.evaluations, 12);
  const Placement heft = make_heft_placer()->place(pb, PlaceOptions{});
  EXPECT_NE(shown.sampled, heft);
  EXPECT_GT(shown.sampled_latency, 1.2 * reward.evaluate(heft).latency);  // an untrained policy's samples
  // Trained on, the policy's own placement is at least as good as HEFT's.
  c.episodes = 60;
  const TrainResult trained = train_hsdag(pb, reward, c);
  EXPECT_LE(trained.greedy_latency, reward.evaluate(heft).latency);
}

// HsdagConfig::imitate_best: once the entropy target reaches zero (episode 90 of 150), the last
// placement of every batch is the best the policy has sampled, its evaluation carried over. A
// policy that would settle above the best it found (Inception-V3 on `paper`, seed 1: 4.082 ms
// against a best sample of 4.048) ends at it instead (4.035 against 4.035).
TEST(Hsdag, ImitatingTheBestSampledPlacementEndsAtItAndCostsNoEvaluation) {
  Model m = load_model("inception_v3");
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  HsdagConfig c = quick(150);
  c.relocation_share = 0;  // imitation alone (relocations: the test after)
  ASSERT_TRUE(c.imitate_best);  // on by default
  ASSERT_DOUBLE_EQ(c.pg.entropy_decay_share, 0.6);
  const TrainResult imitated = train_hsdag(pb, reward, c);
  c.imitate_best = false;
  const TrainResult plain = train_hsdag(pb, reward, c);
  ASSERT_EQ(plain.episodes, 150);
  ASSERT_EQ(imitated.episodes, 150);
  // 2 references + 150 batches of 8 samples + the answer, against 7 samples and the best sampled
  // placement (not evaluated again) in each of the last 60 batches.
  EXPECT_EQ(plain.evaluations, 2 + 150 * 8 + 1);
  EXPECT_EQ(imitated.evaluations, 2 + 90 * 8 + 60 * 7 + 1);
  for (int e = 0; e < 90; ++e)  // the same run until imitation starts
    EXPECT_DOUBLE_EQ(imitated.log[e].mean_latency, plain.log[e].mean_latency) << "episode " << e + 1;
  EXPECT_GT(plain.greedy_latency, plain.sampled_latency * 1.005);
  EXPECT_LE(imitated.greedy_latency, imitated.sampled_latency * 1.001);
  EXPECT_LT(imitated.greedy_latency, plain.greedy_latency * 0.995);
}

// Records every batch a trainer evaluates, and what each placement scored.
class RecordingReward : public SimulatedReward {
 public:
  using SimulatedReward::SimulatedReward;
  std::vector<Evaluation> evaluate_batch(const std::vector<Placement>& placements) override {
    batches.push_back(placements);
    return SimulatedReward::evaluate_batch(placements);
  }
  std::vector<std::vector<Placement>> batches;
};

// HsdagConfig::relocation_share: while imitating the best sampled (episodes 13-20 of 20 here),
// the last quarter of each batch's samples (2 of 8, before the best sampled, which is not
// evaluated again) is the best sampled so far with the ops of one coarse node moved to one other
// device, a different node each time. They cost what the samples they replace would, stay out of
// the logged batch mean, and count for the best sampled.
TEST(Hsdag, RelocationsMoveOneNodeOfTheBestSampledAndCostWhatTheyReplace) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("paper"));
  HsdagConfig c = quick(20);
  ASSERT_DOUBLE_EQ(c.relocation_share, 0.25);  // on by default
  const Coarsening coarse = coarsen(m.graph, c.coarsen);
  RecordingReward reward(pb);
  const TrainResult r = train_hsdag(pb, reward, c);
  ASSERT_EQ(r.episodes, 20);
  ASSERT_EQ(reward.batches.size(), 21u);  // the two single-device references, then a batch per episode
  ASSERT_EQ(reward.batches[0].size(), 2u);
  reward.batches.erase(reward.batches.begin());
  EXPECT_EQ(r.evaluations, 2 + 12 * 8 + 8 * 7 + 1);
  double best = std::numeric_limits<double>::infinity();
  Placement best_placement;
  int moved_elsewhere = 0;
  std::set<int> moved_groups;
  for (int e = 0; e < 20; ++e) {
    const std::vector<Placement>& batch = reward.batches[e];
    const int policy_samples = e < 12 ? 8 : 5;
    ASSERT_EQ(static_cast<int>(batch.size()), e < 12 ? 8 : 7) << "episode " << e + 1;
    double mean = 0;
    for (int k = 0; k < policy_samples; ++k) mean += reward.evaluate(batch[k]).latency / policy_samples;
    EXPECT_NEAR(r.log[e].mean_latency, mean, 1e-12 * mean) << "episode " << e + 1;
    for (int k = policy_samples; k < static_cast<int>(batch.size()); ++k) {
      std::set<int> groups, devices;
      for (int op = 0; op < pb.num_ops(); ++op)
        if (batch[k][op] != best_placement[op]) groups.insert(coarse.group_of_op[op]), devices.insert(batch[k][op]);
      ASSERT_EQ(groups.size(), 1u) << "episode " << e + 1 << ", relocation " << k;
      EXPECT_EQ(devices.size(), 1u);
      for (int op = 0; op < pb.num_ops(); ++op)  // the whole coarse node moved
        if (coarse.group_of_op[op] == *groups.begin()) EXPECT_EQ(batch[k][op], *devices.begin());
      ++moved_elsewhere;
      moved_groups.insert(*groups.begin());
    }
    for (const Placement& p : batch) {
      const Evaluation ev = reward.evaluate(p);
      if (ev.feasible && ev.latency < best) best = ev.latency, best_placement = p;
    }
  }
  EXPECT_EQ(moved_elsewhere, 16);
  EXPECT_EQ(moved_groups.size(), 16u);  // the nodes in turn: 16 relocations move 16 different nodes
  EXPECT_DOUBLE_EQ(r.sampled_latency, best);
  // The same run without them until imitation starts.
  c.relocation_share = 0;
  SimulatedReward plain_reward(pb);
  const TrainResult plain = train_hsdag(pb, plain_reward, c);
  EXPECT_EQ(plain.evaluations, r.evaluations);
  for (int e = 0; e < 12; ++e) EXPECT_DOUBLE_EQ(plain.log[e].mean_latency, r.log[e].mean_latency) << e + 1;
}

// train_hsdag_multi: each graph's relocations take the node order in turn. Two copies of a chain
// of 8 ops take turns, 2 relocations a batch from episode 25 of 40: graph 0's 8 late batches move
// all 8 nodes (counting by the shared episodes would move 4 of them, twice each).
TEST(Hsdag, OnSeveralGraphsEachGraphsRelocationsMoveEveryNode) {
  Graph g("chain8");
  for (int i = 0; i < 8; ++i) {
    Op o;
    o.name = "op" + std::to_string(i);
    o.type = "Relu";
    const int in = g.tensor_id(i == 0 ? std::string("input") : "op" + std::to_string(i - 1) + ":0");
    if (i == 0) g.tensor(in).is_graph_input = true, g.tensor(in).shape = {1 << 20};
    o.inputs = {in};
    const int out = g.tensor_id(o.name + ":0");
    g.tensor(out).shape = {1 << 20};
    o.outputs = {out};
    o.flops = 1e9;
    g.add_op(o);
  }
  g.finalize();
  HsdagConfig c = quick(40);
  const Coarsening coarse = coarsen(g, c.coarsen);
  ASSERT_EQ(coarse.num_groups(), 8);
  Problem pa(g, load_cluster("paper")), pb(g, load_cluster("paper"));
  RecordingReward ra(pa), rb(pb);
  train_hsdag_multi({{&pa, &ra}, {&pb, &rb}}, c);
  ASSERT_EQ(ra.batches.size(), 21u);  // the references, then 20 batches
  std::vector<Placement> best_before(21);  // graph 0's best sample before each of its batches
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t b = 1; b < ra.batches.size(); ++b) {
    best_before[b] = best_before[b - 1];
    if (b > 1)
      for (const Placement& p : ra.batches[b - 1])
        if (const Evaluation e = ra.evaluate(p); e.feasible && e.latency < best) best = e.latency, best_before[b] = p;
  }
  std::set<int> moved;
  for (std::size_t b = 13; b < ra.batches.size(); ++b) {  // graph 0's batches 13-20: from episode 25 on
    ASSERT_EQ(ra.batches[b].size(), 7u) << b;
    for (int k = 5; k < 7; ++k)
      for (int op = 0; op < 8; ++op)
        if (ra.batches[b][k][op] != best_before[b][op]) moved.insert(coarse.group_of_op[op]);
  }
  EXPECT_EQ(moved.size(), 8u);
}

// MobileNetV2 (OpenVINO IR) on `paper`: the CPU alone (1.317 ms) beats HEFT (1.471), and every
// early sample of independent per-node decisions is slower than either device alone, so with
// stay=0 the policy settled next to the CPU (1.464 ms, seed 3). With chained decisions (the
// default) a sample is a few regions on one device each, and the policy's own placement must
// beat both the best single device and HEFT by 5% (1.157 ms here).
TEST(Hsdag, ChainedDecisionsBeatTheBestSingleDeviceWhereEarlySamplesCrossTooOften) {
  const std::string ir = shared_dir() + "/data/openvino/mobilenet_v2.xml";
  if (!file_exists(ir)) GTEST_SKIP() << "no ../shared/data/openvino here (a fresh clone has no shared data)";
  Model m = load_model(ir);
  Problem pb(m.graph, load_cluster("paper"));
  SimulatedReward reward(pb);
  const SingleDeviceReference single = best_single_device(pb, reward);
  const double heft = reward.evaluate(make_heft_placer()->place(pb, PlaceOptions{})).latency;
  HsdagConfig c = hsdag_preset("default");
  c.refine_evals = 0, c.seed = 3;
  ASSERT_GT(c.stay, 0);
  const TrainResult r = train_hsdag(pb, reward, c);
  EXPECT_LT(r.greedy_latency, 0.95 * single.latency);
  EXPECT_LT(r.greedy_latency, 0.95 * heft);
  EXPECT_FALSE(is_single_device(r.greedy));
}

// The default's entropy bonus adapts so that the entropy per decision follows its target (the
// first episode's entropy falling linearly to 0 over 60% of the run); the fixed bonus of the same
// start lets the policy settle far ahead of that schedule (under 0.3x of the target). A learned
// stay bonus moves the entropy too, so the default follows its target less closely (0.48-1.07x
// of it on episodes 20-50 here, against 0.77-1.24x with the stay bonus fixed), yet does not settle.
TEST(Hsdag, EntropyFollowsItsTargetInsteadOfSettlingEarly) {
  const std::string ir = shared_dir() + "/data/openvino/mobilenet_v2.xml";
  if (!file_exists(ir)) GTEST_SKIP() << "no ../shared/data/openvino here (a fresh clone has no shared data)";
  Model m = load_model(ir);
  Problem pb(m.graph, load_cluster("paper"));
  ASSERT_TRUE(hsdag_preset("default").pg.entropy_target);
  struct Run {
    bool target, learn_stay;
    double lo, hi;  // the ratio to the target stays within (lo, hi); without the target, lo is above it
  };
  for (const Run run : {Run{true, false, 0.5, 2.0}, Run{true, true, 0.4, 3.0}, Run{false, false, 0.3, 0.0}}) {
    SimulatedReward reward(pb);
    HsdagConfig c = hsdag_preset("default");
    c.pg.entropy_target = run.target;
    c.learn_stay = run.learn_stay;
    c.refine_evals = 0, c.episodes = 100, c.seed = 1;
    const std::vector<EpisodeLog> log = train_hsdag(pb, reward, c).log;
    ASSERT_GE(log.size(), 51u);
    // The entropy of episodes 20-50 over its target: the smallest and the largest ratio.
    const auto [lo, hi] = entropy_over_target(log, c.pg, c.episodes, 19, 50);
    if (run.target) {
      EXPECT_GT(lo, run.lo) << "learn_stay " << run.learn_stay;
      EXPECT_LT(hi, run.hi) << "learn_stay " << run.learn_stay;
    } else {
      EXPECT_LT(lo, run.lo);  // settled far ahead of the schedule
    }
  }
}

// ResNet-50 is fastest on one GPU of nvlink4, so its batches pull every node towards its
// parent's device. The learned stay bonus switches all nodes at once between following their
// parent and choosing freely, and a bonus weight that only accumulates its error overshoots
// either way: the entropy swings between 0.06x and 7.4x of its target (episodes 50-540, seed
// 1, with join terms). Answering the error at once as well (entropy_gain 2) holds it within
// 0.37-2.66x, the top at episodes 538-539, where the target is a tenth of its start (0.49-1.19x
// before join terms).
TEST(Hsdag, TheEntropyBonusDoesNotSwingWithTheStayBonus) {
  Model m = load_model("resnet50");
  Problem pb(m.graph, load_cluster("nvlink4"));
  auto ratios = [&](double gain) {
    SimulatedReward reward(pb);
    HsdagConfig c = hsdag_preset("default");
    c.refine_evals = 0, c.seed = 1, c.pg.entropy_gain = gain;
    const std::vector<EpisodeLog> log = train_hsdag(pb, reward, c).log;
    // Episodes 50-540: from after the start to where the target nears 0.
    const int to = std::min(static_cast<int>(0.9 * c.pg.entropy_decay_share * c.episodes) - 1, static_cast<int>(log.size()));
    return entropy_over_target(log, c.pg, c.episodes, 49, to);
  };
  ASSERT_EQ(hsdag_preset("default").pg.entropy_gain, 2.0);
  const auto [lo, hi] = ratios(2.0);
  EXPECT_GT(lo, 0.3);
  EXPECT_LT(hi, 3.0);
  EXPECT_LT(ratios(0.0).first, 0.1);  // without the gain it swings
}

// A published cost graph of Tarnawski et al. under their latency model, with the cpu-only
// latency; null when ../shared is absent.
struct TarnawskiTask {
  Model model;
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Reward> reward;
  double cpu_only = 0;
};
std::unique_ptr<TarnawskiTask> load_tarnawski_task(const std::string& graph) {
  const std::string file = shared_dir() + "/data/dnn-partitioning/latency-inputs/" + graph;
  if (!file_exists(file)) return nullptr;
  auto t = std::make_unique<TarnawskiTask>();
  t->model = import_tarnawski(file);
  t->problem = std::make_unique<Problem>(t->model.graph, *t->model.cluster, &*t->model.costs);
  t->reward = make_reward(*t->problem, Objective::tarnawski);
  t->cpu_only = t->reward->evaluate(Placement(t->problem->num_ops(), t->problem->host())).latency;
  return t;
}

// Under the latency model of Tarnawski et al. (contiguous accelerator sets, colour classes):
// with the feasibility mask every sample is feasible and the policy's own placement beats
// cpu-only; without it the share of feasible samples rises as the policy learns.
TEST(Hsdag, LearnsUnderTheTarnawskiModel) {
  std::unique_ptr<TarnawskiTask> task = load_tarnawski_task("LayerGraphs/bert24_inference.json");
  if (!task) GTEST_SKIP() << "no shared data (the published graphs are not in this checkout)";
  const Problem& pb = *task->problem;
  Reward* reward = task->reward.get();
  const double cpu_only = task->cpu_only;
  HsdagConfig c = quick(100);
  c.samples = 32;
  TrainResult masked = train_hsdag(pb, *reward, c);
  for (const auto& e : masked.log) EXPECT_EQ(e.feasible_share, 1.0) << "episode " << e.episode;
  EXPECT_LT(masked.greedy_latency, 0.5 * cpu_only);  // 924 ms -> 100 ms here
  c.feasibility_mask = false;
  TrainResult unmasked = train_hsdag(pb, *reward, c);
  double first = 0, last = 0;
  for (int i = 0; i < 10; ++i) first += unmasked.log[i].feasible_share, last += unmasked.log[90 + i].feasible_share;
  EXPECT_LT(first, 1.0);  // a share of 0.1 over ten episodes
  EXPECT_GT(last, first + 5.0);
}

// Layer/inceptionv3 under the Tarnawski model: with per-op decision units the policy's own
// placement stayed behind cpu-only after 200 episodes (2782 against 1953 ms); with chains as
// units (the default under this objective) it must beat it. One run's result moves with the seed
// and with OpenBLAS's kernel (its sums round differently): at 300 episodes, seeds 1-3 gave 0.929,
// 0.991, 0.934 of cpu-only with OpenBLAS's own kernel here and 0.933, 0.934, 0.925 with
// OPENBLAS_CORETYPE=Haswell; hence the median of three.
TEST(Hsdag, OwnPlacementBeatsCpuOnlyOnLayerInceptionUnderTheTarnawskiModel) {
  std::unique_ptr<TarnawskiTask> task = load_tarnawski_task("LayerGraphs/inceptionv3_inference.json");
  if (!task) GTEST_SKIP() << "no shared data (the published graphs are not in this checkout)";
  const Problem& pb = *task->problem;
  Reward* reward = task->reward.get();
  const double cpu_only = task->cpu_only;
  HsdagConfig c = quick(300);
  c.samples = 32;
  EXPECT_TRUE(hsdag_config_for(c, Objective::tarnawski).coarsen.merge_single_predecessor);
  EXPECT_FALSE(hsdag_config_for(c, Objective::simulator).coarsen.merge_single_predecessor);
  std::vector<double> own;
  for (std::uint64_t seed : {1, 2, 3}) {
    c.seed = seed;
    TrainResult r = train_hsdag(pb, *reward, c);
    for (const auto& e : r.log) EXPECT_EQ(e.feasible_share, 1.0) << "seed " << seed << ", episode " << e.episode;
    own.push_back(r.greedy_latency);
  }
  std::sort(own.begin(), own.end());
  EXPECT_LT(own[1], 0.97 * cpu_only);  // about 1823 against 1953 ms
}

}  // namespace
}  // namespace devplace
