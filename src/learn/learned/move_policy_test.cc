// devplace's learned move policy (learn/learned/move_policy.h): the move features of a hand-computed
// schedule, a trained scorer's search beating the untrained one's on unseen graphs by a
// margin at the same budget, the budget kept, and files that load back or fail clearly.
#include "learn/learned/move_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "cost/cluster.h"
#include "io/model.h"
#include "learn/learned/move_features.h"
#include "learn/learned/schedule_env.h"
#include "learn/learned/training_corpus.h"
#include "sim/simulator.h"
#include "sim/test_graphs.h"
#include "util/error.h"

namespace devplace {
namespace {

// The earliest-finish placement (the list scheduler's own): the start of the searches below.
Placement earliest_finish(const Problem& p) {
  ScheduleEnv env(p);
  while (!env.done()) env.step(env.earliest_finish_device());
  return env.placement();
}

// a -> b -> c and a -> s; seconds on cpu / gpu: a 1 / 4, b 5 / 1, c 1 / 1, s 0.5 / 1; every
// transfer 0.5. Placed a, s on the cpu and b, c on the gpu: a 0-1 and s 1-1.5 on the cpu, b
// 1.5-2.5 (after the transfer) and c 2.5-3.5 on the gpu.
TEST(MoveFeatures, SlackLatenessAndTransfersOfAHandComputedSchedule) {
  test::Builder b;
  b.op("a", {}, 1, 4);
  b.op("b", {"a"}, 5, 1);
  b.op("c", {"b"}, 1, 1);
  b.op("s", {"a"}, 0.5, 1);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  Placement pl(4);
  for (const char* op : {"a", "s"}) pl[b.g.find_op(op)] = 0;
  for (const char* op : {"b", "c"}) pl[b.g.find_op(op)] = 1;
  MoveFeatures f(p);
  std::vector<Move> moves;
  std::vector<float> rows;
  f.compute(pl, moves, rows);
  EXPECT_DOUBLE_EQ(f.estimated_makespan(), 3.5);
  // Every op to the other device, the chain b -> c (on the gpu) together and the island a, s (on
  // the cpu) together.
  ASSERT_EQ(moves.size(), 6u);
  constexpr int F = MoveFeatures::kFeatures;
  auto row = [&](const char* op, MoveUnit unit = MoveUnit::op) {
    for (std::size_t i = 0; i < moves.size(); ++i)
      if (moves[i].op == b.g.find_op(op) && moves[i].unit == unit) return &rows[i * F];
    ADD_FAILURE() << op;
    return &rows[0];
  };
  const float M = 3.5f;
  // a, b and c are on the critical path; s may finish 2 s later without delaying the end.
  for (const char* op : {"a", "b", "c"}) {
    EXPECT_FLOAT_EQ(row(op)[5], 0) << op;
    EXPECT_FLOAT_EQ(row(op)[6], 1) << op;
  }
  EXPECT_FLOAT_EQ(row("s")[5], 2 / M);
  EXPECT_FLOAT_EQ(row("s")[6], 0);
  // c on the cpu: b's output arrives at 3.0, c ends at 4.0, half a second after the end.
  EXPECT_FLOAT_EQ(row("c")[7], 0.5f / M);
  EXPECT_FLOAT_EQ(row("c")[12], 0.5f / M);  // the transfer it adds
  EXPECT_FLOAT_EQ(row("c")[3], 1 / M);      // its time where it is
  EXPECT_FLOAT_EQ(row("c")[18], 1);         // to the cpu
  EXPECT_FLOAT_EQ(row("c")[21], 1);         // from the gpu
  // b on the cpu: from its start, 1.5, it would end at 6.5, 4.5 s after c on the gpu needs it
  // (clipped to the makespan).
  EXPECT_FLOAT_EQ(row("b")[7], 1);
  EXPECT_FLOAT_EQ(row("b")[12], -0.5f / M);  // a's output no longer crosses
  EXPECT_FLOAT_EQ(row("b")[13], 0.5f / M);   // but b's does
  // The cpu is busy 1.5 s of 3.5, the gpu 2.
  EXPECT_FLOAT_EQ(row("c")[10], 2 / M);
  EXPECT_FLOAT_EQ(row("c")[11], 1.5f / M);
  // b and c together on the cpu: 2 s there against 6 s; a's output no longer crosses, and
  // nothing crosses back; two ops move.
  const float* chain = row("b", MoveUnit::chain);
  EXPECT_FLOAT_EQ(chain[3], 2 / M);
  EXPECT_FLOAT_EQ(chain[4], 1);  // 6 s, clipped to the makespan
  EXPECT_FLOAT_EQ(chain[12], -0.5f / M);
  EXPECT_FLOAT_EQ(chain[13], 0);
  EXPECT_FLOAT_EQ(chain[27], std::log1p(1.f));
  EXPECT_FLOAT_EQ(row("a", MoveUnit::island)[3], 1.5f / M);  // a and s take 1.5 s on the cpu
}

// A chain (each link its tail's only consumer and its head's only producer) moves whole from its
// head, on its device: both towers between a fork and a join, and the join with what follows it;
// a tower stops where the next op sits on another device. An island (what is connected on one
// device) moves whole from its first op, and an op with the next ops along its data's main path.
TEST(MoveFeatures, ChainsIslandsAndPathsMoveWhole) {
  test::Builder b;
  b.op("x", {}, 1, 1);
  b.op("t1a", {"x"}, 1, 1);
  b.op("t1b", {"t1a"}, 1, 1);
  b.op("t1c", {"t1b"}, 1, 1);
  b.op("t2a", {"x"}, 1, 1);
  b.op("t2b", {"t2a"}, 1, 1);
  b.op("join", {"t1c", "t2b"}, 1, 1);
  b.op("y", {"join"}, 1, 1);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  auto op = [&](const char* name) { return b.g.find_op(name); };
  auto names = [&](const std::vector<int>& ops) {
    std::vector<std::string> out;
    for (int v : ops) out.push_back(b.g.op(v).name);
    return out;
  };
  const Placement on_gpu(p.num_ops(), 1);
  MoveFeatures f(p);
  std::vector<Move> moves;
  std::vector<float> rows;
  f.compute(on_gpu, moves, rows);
  std::vector<std::vector<std::string>> chains;
  int islands = 0;
  for (const Move& mv : moves) {
    EXPECT_NE(mv.unit, MoveUnit::kernel);  // nothing fuses here
    if (mv.unit == MoveUnit::island) {
      ++islands;
      EXPECT_EQ(mv.op, op("x"));  // the first op decided
      EXPECT_EQ(apply_moves(p, on_gpu, {mv}), Placement(p.num_ops(), 0));  // the whole graph
    }
    if (mv.unit != MoveUnit::chain) continue;
    EXPECT_EQ(mv.device, 0);
    chains.push_back(names(moved_ops(p, on_gpu, mv)));
    const Placement moved = apply_moves(p, on_gpu, {mv});
    int changed = 0;
    for (int v = 0; v < p.num_ops(); ++v) changed += moved[v] != 1;
    EXPECT_EQ(changed, static_cast<int>(chains.back().size()));
  }
  std::sort(chains.begin(), chains.end());
  const std::vector<std::vector<std::string>> expected = {{"join", "y"}, {"t1a", "t1b", "t1c"}, {"t2a", "t2b"}};
  EXPECT_EQ(chains, expected);
  EXPECT_EQ(islands, 1);
  // Paths of 4 ops from x, t1a, t1b and t2a (x's tensors to t1a and t2a are as large: by name);
  // none of 8 (the longest path has 6 ops).
  EXPECT_EQ(names(path_group(p, on_gpu, op("x"), 4)), (std::vector<std::string>{"x", "t1a", "t1b", "t1c"}));
  EXPECT_EQ(names(path_group(p, on_gpu, op("t1b"), 8)), (std::vector<std::string>{"t1b", "t1c", "join", "y"}));
  int paths = 0;
  for (const Move& mv : moves) {
    paths += mv.unit == MoveUnit::path4;
    EXPECT_NE(mv.unit, MoveUnit::path8);
  }
  EXPECT_EQ(paths, 4);
  // Every op alone, the three chains, the island and the paths.
  EXPECT_EQ(moves.size(), 8u + 3u + 1u + 4u);
  Placement split = on_gpu;
  split[op("t1c")] = 0;
  // Through x and the join, t1a and t1b stay connected to the rest on the gpu.
  EXPECT_EQ(island_group(p, split, op("t1c")), std::vector<int>{op("t1c")});
  EXPECT_EQ(island_group(p, split, op("t1a")).size(), 7u);
  split[op("t2b")] = 0;
  EXPECT_EQ(names(island_group(p, split, op("t1c"))), (std::vector<std::string>{"t1c"}));
  split[op("join")] = 0;
  EXPECT_EQ(island_group(p, split, op("t2b")).size(), 3u);  // t1c, t2b, join
  EXPECT_EQ(names(chain_group(p, split, op("t1a"))), (std::vector<std::string>{"t1a", "t1b"}));
  EXPECT_EQ(names(chain_group(p, split, op("t1c"))), (std::vector<std::string>{"t1c"}));
}

// The reward's trace of a placement replaces the estimate: the same chain, with the simulator's
// schedule of it given.
TEST(MoveFeatures, ReadTheRewardsTraceOfAnEvaluatedPlacementOnly) {
  test::Builder b;
  b.op("a", {}, 1, 4);
  b.op("b", {"a"}, 5, 1);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  const Placement pl = {0, 1};
  SimulatedReward reward(p);
  EXPECT_THROW(reward.trace(pl), Error);  // nothing evaluated yet: a trace is not free
  reward.evaluate(pl);
  std::optional<Schedule> trace = reward.trace(pl);
  ASSERT_TRUE(trace.has_value());
  EXPECT_DOUBLE_EQ(trace->makespan, 2.5);  // a 0-1, transfer 1-1.5, b 1.5-2.5
  trace->ops[b.g.find_op("b")].start = 3, trace->ops[b.g.find_op("b")].end = 4;  // a slower run
  MoveFeatures f(p);
  std::vector<Move> moves;
  std::vector<float> rows;
  f.compute(pl, moves, rows);
  EXPECT_DOUBLE_EQ(f.estimated_makespan(), 2.5);
  f.compute(pl, moves, rows, &*trace);
  EXPECT_DOUBLE_EQ(f.estimated_makespan(), 4);
  EXPECT_EQ(reward.evaluations(), 1);
}

// ResNet-50 on the GPU fuses its convolutions with what follows them: such a kernel's head
// also moves whole, and applying that move moves every op of the kernel and nothing else.
TEST(MoveFeatures, AKernelsHeadMovesWithTheOpsFusedIntoIt) {
  Model m = load_model("resnet50");
  Problem p(m.graph, load_cluster("paper"));
  const int gpu = 1;
  ASSERT_EQ(p.cluster().devices[gpu].kind, "gpu");
  const Placement on_gpu(p.num_ops(), gpu);
  MoveFeatures f(p);
  std::vector<Move> moves;
  std::vector<float> rows;
  f.compute(on_gpu, moves, rows);
  int whole = 0, singles = 0;
  for (const Move& mv : moves) {
    if (mv.unit != MoveUnit::kernel) {
      ++singles;
      continue;
    }
    ++whole;
    const std::vector<int> kernel = fused_group(p, on_gpu, mv.op);
    ASSERT_GE(kernel.size(), 2u);
    for (std::size_t k = 1; k < kernel.size(); ++k) {
      const int parent = p.fusion_parent(kernel[k], gpu);
      EXPECT_NE(std::find(kernel.begin(), kernel.end(), parent), kernel.end()) << m.graph.op(kernel[k]).name;
    }
    const Placement moved = apply_moves(p, on_gpu, {mv});
    int changed = 0;
    for (int v = 0; v < p.num_ops(); ++v) changed += moved[v] != gpu;
    EXPECT_EQ(changed, static_cast<int>(kernel.size())) << m.graph.op(mv.op).name;
  }
  EXPECT_GT(whole, 10) << "ResNet-50's convolutions fuse on the GPU";
  EXPECT_GT(singles, whole);
  EXPECT_EQ(rows.size(), moves.size() * MoveFeatures::kFeatures);
}

struct Corpus {
  std::vector<std::unique_ptr<CorpusGraph>> graphs;
  explicit Corpus(const CorpusOptions& o) : graphs(make_training_corpus(o)) {}
  std::vector<const Problem*> problems() const {
    std::vector<const Problem*> p;
    for (auto& g : graphs) p.push_back(g->problem.get());
    return p;
  }
};

TEST(MovePolicy, TrainedScorerImprovesUnseenPlacementsMoreThanItsUntrainedSelf) {
  Corpus train({12, 40, 120, 3, {}, 0});
  Corpus unseen({8, 100, 200, 77, {}, 0});
  std::vector<std::vector<Placement>> starts;
  for (const Problem* p : train.problems()) starts.push_back({earliest_finish(*p)});
  MovePolicy untrained(32, 1), trained(32, 1);
  MovePolicyConfig c;
  c.hidden = 32, c.iterations = 300;
  train_move_policy(trained, train.problems(), starts, c, 1);
  double start_sum = 0, untrained_sum = 0, trained_sum = 0;
  for (const Problem* p : unseen.problems()) {
    const Placement start = earliest_finish(*p);
    Simulator sim(*p);
    SimulatedReward r1(*p), r2(*p);
    const Placement a = untrained.improve(*p, r1, start, 24), b = trained.improve(*p, r2, start, 24);
    EXPECT_LE(r1.evaluations(), 24);
    EXPECT_LE(r2.evaluations(), 24);
    EXPECT_LE(sim.makespan(b), sim.makespan(start) + 1e-12) << p->graph().name();
    start_sum += sim.makespan(start);
    untrained_sum += sim.makespan(a);
    trained_sum += sim.makespan(b);
  }
  // The trained scorer's search closes more of the gap its start leaves.
  EXPECT_GT(start_sum - trained_sum, 0) << "training must improve the start placements";
  EXPECT_GT(start_sum - trained_sum, 1.5 * (start_sum - untrained_sum))
      << "start " << start_sum << " untrained " << untrained_sum << " trained " << trained_sum;
}

// With budget to spare the search ends only at a placement that no single move improves: once
// every set of moves has failed it tries the moves one at a time (and its kicks from there run
// out of moves, so it stops by itself).
TEST(MovePolicy, EndsAtAPlacementNoSingleMoveImproves) {
  Corpus graphs({2, 40, 60, 5, {}, 0});
  const MovePolicy untrained(16, 2);
  for (const Problem* p : graphs.problems()) {
    SimulatedReward reward(*p);
    const Placement start = earliest_finish(*p);
    const Placement end = untrained.improve(*p, reward, start, 100000);
    ASSERT_LT(reward.evaluations(), 100000) << "it must stop by itself on " << p->graph().name();
    Simulator sim(*p);
    const double latency = sim.makespan(end);
    MoveFeatures f(*p);
    std::vector<Move> moves;
    std::vector<float> rows;
    f.compute(end, moves, rows);
    ASSERT_FALSE(moves.empty());
    for (const Move& m : moves)
      EXPECT_GE(sim.makespan(apply_moves(*p, end, {m})), latency) << p->graph().name() << " op " << m.op;
  }
}

// The search's correction of its scorer: one class's mean error, shrunk by one error of nothing,
// shifts every move of that class (the head op's type, unit, from and to) and no other.
TEST(MovePolicy, CorrectionShiftsTheClassOfTheMovesObservedOnly) {
  test::Builder b;
  for (const char* op : {"a", "b", "c", "d"}) b.op(op, {}, 1, 1);
  b.g.finalize();
  Problem p(b.g, test::two_devices(), &b.table);
  Placement pl(4, 0);
  pl[b.g.find_op("d")] = 1;
  const int a = b.g.find_op("a"), bb = b.g.find_op("b"), c = b.g.find_op("c"), d = b.g.find_op("d");
  MoveCorrection correction;
  EXPECT_TRUE(correction.empty());
  EXPECT_FLOAT_EQ(correction.corrected(p, pl, {a, 1, MoveUnit::op}, 0.5f), 0.5f);
  correction.observe(p, pl, {a, 1, MoveUnit::op}, 2.0, -1.0);  // an error of -3: -3 / (1 + 1)
  EXPECT_FLOAT_EQ(correction.corrected(p, pl, {bb, 1, MoveUnit::op}, 0.5f), -1.0f);
  EXPECT_FLOAT_EQ(correction.corrected(p, pl, {c, 1, MoveUnit::chain}, 0.5f), 0.5f);  // another unit
  EXPECT_FLOAT_EQ(correction.corrected(p, pl, {d, 0, MoveUnit::op}, 0.5f), 0.5f);     // other devices
  correction.observe(p, pl, {bb, 1, MoveUnit::op}, 1.0, 0.0);  // errors -3 and -1: -4 / (2 + 1)
  EXPECT_FLOAT_EQ(correction.corrected(p, pl, {c, 1, MoveUnit::op}, 0.0f), -4.0f / 3);
}

// The simulator as a reward that tallies how often it saw each placement.
class PlacementTally : public SimulatedReward {
 public:
  using SimulatedReward::SimulatedReward;
  Evaluation evaluate(const Placement& placement) override {
    ++times[placement];
    return SimulatedReward::evaluate(placement);
  }
  std::map<Placement, int> times;
};

// Different moves often make the same placement (an op's path and the chain it heads, a kernel
// and its head); the search pays for each placement once (within the last 256 it evaluated).
TEST(MovePolicy, NeverEvaluatesOnePlacementTwice) {
  Corpus graphs({3, 40, 80, 9, {}, 0});
  const MovePolicy untrained(16, 3);
  for (const Problem* p : graphs.problems()) {
    PlacementTally reward(*p);
    untrained.improve(*p, reward, earliest_finish(*p), 200);
    EXPECT_LE(reward.evaluations(), 200);
    for (const auto& [placement, times] : reward.times) EXPECT_EQ(times, 1) << p->graph().name();
  }
}

TEST(MovePolicy, SurvivesSaveAndLoadAndRejectsOtherFiles) {
  const std::string dir = ::testing::TempDir() + "/devplace_move_policy";
  std::filesystem::create_directories(dir);
  MovePolicy policy(16, 3);
  policy.save(dir + "/moves.pt");
  const MovePolicy back = MovePolicy::load(dir + "/moves.pt");
  std::vector<float> rows(3 * MoveFeatures::kFeatures);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(std::sin(0.7 * i));
  EXPECT_EQ(policy.predict(rows), back.predict(rows));
  EXPECT_THROW(MovePolicy::load(dir + "/missing.pt"), Error);
  EXPECT_THROW(MovePolicy::load("policies/learned.pt"), Error);  // a list policy, not a move policy
}

// An ensemble predicts the mean of its members, and survives saving (several scorers in one
// file, beside the one-scorer format that earlier files have).
TEST(MovePolicy, EnsemblePredictsTheMeanOfItsMembersAndSurvivesSaveAndLoad) {
  const std::string dir = ::testing::TempDir() + "/devplace_move_ensemble";
  std::filesystem::create_directories(dir);
  std::vector<float> rows(4 * MoveFeatures::kFeatures);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(std::cos(0.3 * i));
  std::vector<MovePolicy> members;
  for (std::uint64_t seed : {5, 6, 7}) members.emplace_back(16, seed);
  std::vector<std::vector<float>> alone;
  for (const MovePolicy& m : members) alone.push_back(m.predict(rows));
  ASSERT_NE(alone[0], alone[1]);
  const MovePolicy ensemble = MovePolicy::ensemble(std::move(members));
  EXPECT_EQ(ensemble.members(), 3);
  const std::vector<float> mean = ensemble.predict(rows);
  ASSERT_EQ(mean.size(), 4u);
  for (std::size_t r = 0; r < mean.size(); ++r)
    EXPECT_NEAR(mean[r], (alone[0][r] + alone[1][r] + alone[2][r]) / 3, 1e-5);
  ensemble.save(dir + "/ensemble.pt");
  const MovePolicy back = MovePolicy::load(dir + "/ensemble.pt");
  EXPECT_EQ(back.members(), 3);
  EXPECT_EQ(back.predict(rows), mean);
  // Training fits one scorer; an ensemble is joined from members trained alone.
  MovePolicy two = MovePolicy::ensemble([] {
    std::vector<MovePolicy> m;
    m.emplace_back(16, 1), m.emplace_back(16, 2);
    return m;
  }());
  Corpus graphs({1, 30, 40, 4, {}, 0});
  EXPECT_THROW(train_move_policy(two, graphs.problems(), {{earliest_finish(*graphs.problems()[0])}}, {}, 1), Error);
  std::vector<MovePolicy> uneven;
  uneven.emplace_back(16, 1), uneven.emplace_back(32, 1);
  EXPECT_THROW(MovePolicy::ensemble(std::move(uneven)), Error);
}

}  // namespace
}  // namespace devplace
