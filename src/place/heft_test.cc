// HEFT on hand-computed tiny graphs (op and transfer times fixed by a cost table), and on the
// bundled models under the paper cluster.
#include <gtest/gtest.h>

#include <cmath>

#include "io/model.h"
#include "place/list_schedule.h"
#include "place/placer.h"
#include "sim/simulator.h"
#include "sim/test_graphs.h"

namespace devplace {
namespace {

using test::Builder;
using test::two_devices;

Placement heft(const Problem& p) { return make_heft_placer()->place(p, {}); }

TEST(Heft, ForkSendsTheParallelBranchToTheSecondDevice) {
  Builder b;
  b.op("A", {}, 1, 1.2);
  b.op("B", {"A"}, 2, 2);
  b.op("C", {"A"}, 2, 2);
  b.op("D", {"B", "C"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  // Ranks (mean cost, mean transfer 0.5): D 1, B = C = 3.5, A 5.1. A: cpu ends 1 < 1.2.
  // B: cpu 1..3 beats gpu 1.5..3.5. C: cpu 3..5 loses to gpu 1.5..3.5.
  // D: cpu max(3, 3.5 + 0.5) + 1 = 5 loses to gpu max(3 + 0.5, 3.5) + 1 = 4.5.
  Placement p = heft(pb);
  EXPECT_EQ(b.at(p, "A"), 0);
  EXPECT_EQ(b.at(p, "B"), 0);
  EXPECT_EQ(b.at(p, "C"), 1);
  EXPECT_EQ(b.at(p, "D"), 1);
  Simulator sim(pb);
  EXPECT_DOUBLE_EQ(sim.makespan(p), 4.5);  // one device: 6
}

// B and C tie in rank and depth; the tie goes by name, so numbering C before B (adding it
// first) changes nothing: B still takes the cpu, C the gpu.
TEST(Heft, RankTiesGoByNameNotByTheOpsNumbering) {
  for (bool c_first : {false, true}) {
    Builder b;
    b.op("A", {}, 1, 1.2);
    if (c_first) b.op("C", {"A"}, 2, 2);
    b.op("B", {"A"}, 2, 2);
    if (!c_first) b.op("C", {"A"}, 2, 2);
    b.op("D", {"B", "C"}, 1, 1);
    b.g.finalize();
    ASSERT_EQ(b.g.find_op("C") < b.g.find_op("B"), c_first);
    Problem pb(b.g, two_devices(), &b.table);
    const Placement p = heft(pb);
    EXPECT_EQ(b.at(p, "B"), 0) << c_first;
    EXPECT_EQ(b.at(p, "C"), 1) << c_first;
    EXPECT_DOUBLE_EQ(Simulator(pb).makespan(p), 4.5) << c_first;
  }
}

TEST(Heft, ExpensiveTransfersKeepAChainOnOneDevice) {
  Builder b;
  b.op("A", {}, 2, 3, 5.0);
  b.op("B", {"A"}, 2, 1, 5.0);
  b.op("C", {"B"}, 2, 3, 5.0);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  // B on gpu would end at 2 + 5 + 1 = 8 against 4 on cpu.
  EXPECT_EQ(heft(pb), (Placement{0, 0, 0}));

  // With cheap transfers B moves: gpu 2 + 0.1 + 1 = 3.1 < 4; C back on cpu: 3.2 + 2 < 3.1 + 3.
  for (auto& [t, s] : b.table.transfer_time) s = 0.1;
  Problem cheap(b.g, two_devices(), &b.table);
  EXPECT_EQ(heft(cheap), (Placement{0, 1, 0}));
}

TEST(Heft, IndependentOpsBothGoToTheFastDevice) {
  // Earliest finish, not earliest start: B waits for the gpu (ends 2) rather than run on the
  // idle cpu (ends 3). m-ETF makes the other choice (see baechi_test.cc).
  Builder b;
  b.op("A", {}, 3, 1);
  b.op("B", {}, 3, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  EXPECT_EQ(heft(pb), (Placement{1, 1}));
}

// Under an execution model HEFT charges what the executor does (Problem::task_time, wake_time,
// transfer_time): a -> b -> c with seconds cpu / gpu a 1 / 4, b 5 / 1, c 1 / 3. On the idealised
// model c goes back to the cpu (0.5 + 1 after b ends at 2.5 on the gpu: 4 against 5.5); with a
// 2 s wake-up of the idle cpu it stays on the gpu (2.4 + 0.4 + 2 + 1.1 = 5.9 against 5.4).
TEST(Heft, UnderAnExecutionModelChargesTheIdleWorkersWakeUp) {
  Builder b;
  b.op("a", {}, 1, 4);
  b.op("b", {"a"}, 5, 1);
  b.op("c", {"b"}, 1, 3);
  b.g.finalize();
  Problem plain(b.g, two_devices(), &b.table);
  EXPECT_EQ(heft(plain), (Placement{0, 1, 0}));
  Problem executed(b.g, two_devices(), &b.table);
  executed.set_execution(test::two_devices_execution(), "");
  EXPECT_EQ(heft(executed), (Placement{0, 1, 1}));
}

// A Shape folded at load time has no in-edge (the simulator copies nothing to it), so HEFT
// charges no crossing for it on either device.
TEST(Heft, AnOpFoldedAtLoadTimeHasNoInEdge) {
  Builder b;
  b.op("a", {}, 4.0, 1.0);
  b.op("shape", {"a"}, 1.0, 1.0);
  b.op("reshape", {"a", "shape"}, 3.0, 2.0);
  b.g.tensor(b.g.find_tensor("shape:0")).is_constant = true;
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  const EdgeCosts edges(pb);
  EXPECT_EQ(edges.in_begin(b.g.find_op("shape")), edges.in_end(b.g.find_op("shape")));
  EXPECT_EQ(edges.in_end(b.g.find_op("reshape")) - edges.in_begin(b.g.find_op("reshape")), 1);
  const Placement p = heft(pb);
  EXPECT_EQ(b.at(p, "a"), 1);
  EXPECT_EQ(b.at(p, "reshape"), 1);
  EXPECT_DOUBLE_EQ(Simulator(pb).makespan(p), 3.0);
}

TEST(Heft, InsertionFillsAnIdleGap) {
  // Ranks: Y 3.5 + 5.5 = 9, B 5.5, X 1.5, so X is placed last. Y: cpu 0..3. B: gpu 3..5 (its
  // input crosses for free; cpu would end 12). X: the gpu is idle during 0..3, so X fits
  // there and ends at 1; without insertion it would end at 6 on the gpu and 5 on the cpu.
  Builder b;
  b.op("Y", {}, 3, 4, 0.0);
  b.op("B", {"Y"}, 9, 2);
  b.op("X", {}, 2, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Placement p = heft(pb);
  EXPECT_EQ(b.at(p, "Y"), 0);
  EXPECT_EQ(b.at(p, "B"), 1);
  EXPECT_EQ(b.at(p, "X"), 1);
  Simulator sim(pb);
  EXPECT_DOUBLE_EQ(sim.makespan(p), 5.0);
}

TEST(Heft, NeverPicksADeviceThatCannotRunTheOp) {
  Builder b;
  b.op("A", {}, 5, 1);
  b.op("B", {"A"}, 5, 1);  // gpu-only op made cpu-only below
  b.op("C", {"B"}, 5, 1);
  b.op("Z", {"C"}, 1, 1);  // runs nowhere
  b.g.finalize();
  b.table.op_time["B"].erase("gpu");
  b.table.op_time["Z"].clear();
  Problem pb(b.g, two_devices(), &b.table);
  Placement p = heft(pb);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(b.at(p, "B"), 0);
  for (int d : p) EXPECT_TRUE(d == 0 || d == 1);
}

TEST(Heft, BundledModelsBeatTheWorstSingleDevice) {
  for (const char* name : {"resnet50", "inception_v3", "bert_base"}) {
    SCOPED_TRACE(name);
    Model m = load_model(name);
    Problem pb(m.graph, load_cluster("paper"));
    Simulator sim(pb);
    Placement p = heft(pb);
    ASSERT_EQ(static_cast<int>(p.size()), pb.num_ops());
    const double t = sim.makespan(p);
    ASSERT_TRUE(std::isfinite(t));
    EXPECT_GE(t, makespan_lower_bound(pb) * (1 - 1e-9));
    double worst = 0;
    for (int d = 0; d < pb.num_devices(); ++d) worst = std::max(worst, sim.makespan(Placement(pb.num_ops(), d)));
    EXPECT_LT(t, worst);
    EXPECT_EQ(heft(pb), p);  // deterministic
  }
}

}  // namespace
}  // namespace devplace
