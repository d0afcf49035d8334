// Baechi's m-TOPO, m-ETF and m-SCT on hand-computed tiny graphs (costs fixed by a table), a
// memory-bound graph, and the bundled models under the paper cluster.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>

#include "io/model.h"
#include "place/placer.h"
#include "sim/simulator.h"
#include "sim/test_graphs.h"

namespace devplace {
namespace {

using test::Builder;
using test::two_devices;

Placement run(std::unique_ptr<Placer> placer, const Problem& p) { return placer->place(p, {}); }

TEST(BaechiEtf, ForkUsesBothDevices) {
  Builder b;
  b.op("A", {}, 1, 1.2);
  b.op("B", {"A"}, 2, 2);
  b.op("C", {"A"}, 2, 2);
  b.op("D", {"B", "C"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  // A: start 0 anywhere, cpu ends first. B and C: cpu starts 1, gpu 1.5; B (lower index) takes
  // the cpu 1..3; C then starts at 1.5 on the gpu. D: gpu 3.5 beats cpu max(3, 3.5 + 0.5).
  Placement p = run(make_metf_placer(), pb);
  EXPECT_EQ(p, (Placement{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(Simulator(pb).makespan(p), 4.5);
}

TEST(BaechiEtf, EarliestStartTakesTheIdleSlowDevice) {
  // A takes the gpu (start 0 either way, ends first there); B starts at 0 on the idle cpu
  // rather than at 1 on the gpu, although it ends later (HEFT puts both on the gpu).
  Builder b;
  b.op("A", {}, 3, 1);
  b.op("B", {}, 3, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  EXPECT_EQ(run(make_metf_placer(), pb), (Placement{1, 0}));
}

TEST(BaechiEtf, ExpensiveTransfersKeepAChainOnOneDevice) {
  Builder b;
  b.op("A", {}, 2, 3, 5.0);
  b.op("B", {"A"}, 2, 1, 5.0);
  b.op("C", {"B"}, 2, 3, 5.0);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  EXPECT_EQ(run(make_metf_placer(), pb), (Placement{0, 0, 0}));
}

// A's output to C is expensive (3 >= C's fastest time 2), so C is A's favourite child. Y1 and
// Y2 run only on the cpu and, ending before C would, keep the cpu busy until 4.8.
Builder favourite_graph() {
  Builder b;
  b.op("A", {}, 1, 1, 3.0);
  b.op("Y1", {}, 1.9, 1);
  b.op("Y2", {}, 1.9, 1);
  b.op("C", {"A"}, 2, 3);
  b.g.finalize();
  b.table.op_time["Y1"].erase("gpu");
  b.table.op_time["Y2"].erase("gpu");
  return b;
}

TEST(BaechiSct, FavouriteChildStaysWithItsParent) {
  Builder b = favourite_graph();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  // ETF: A cpu 0..1 (its child runs faster on the cpu), Y1 1..2.9, Y2 2.9..4.8 (each ends
  // before C would), then C starts at 4 on the gpu (1 + 3) rather than 4.8 on the cpu.
  Placement etf = run(make_metf_placer(), pb);
  EXPECT_EQ(b.at(etf, "A"), 0);
  EXPECT_EQ(b.at(etf, "C"), 1);
  EXPECT_DOUBLE_EQ(sim.makespan(etf), 7.0);
  // SCT: waiting 0.8 on the cpu saves a 3 s transfer, so C stays with A and ends at 6.8.
  Placement sct = run(make_msct_placer(), pb);
  EXPECT_EQ(b.at(sct, "A"), 0);
  EXPECT_EQ(b.at(sct, "C"), 0);
  EXPECT_DOUBLE_EQ(sim.makespan(sct), 6.8);
}

TEST(BaechiTopo, SplitsAChainByComputeShare) {
  // S_cpu = 8, S_gpu = 8: each device gets 4 s of work, in topological order.
  Builder b;
  b.op("A", {}, 2, 2);
  b.op("B", {"A"}, 2, 2);
  b.op("C", {"B"}, 2, 2);
  b.op("D", {"C"}, 2, 2);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  EXPECT_EQ(run(make_mtopo_placer(), pb), (Placement{0, 0, 1, 1}));
}

TEST(Baechi, MemoryLimitMakesEveryVariantSplitTheModel) {
  // Four 400-byte weights do not fit a 1000-byte gpu; the gpu is 4x faster.
  Builder b;
  for (const char* n : {"A", "B", "C", "D"}) {
    std::vector<std::string> in;
    if (b.g.num_ops() > 0) in.push_back(b.g.ops().back().name);
    b.op(n, in, 4, 1, 0.5, 400);
  }
  b.g.finalize();
  Problem pb(b.g, two_devices(1000), &b.table);
  Simulator sim(pb);
  Schedule gpu_only = sim.run(Placement(4, 1));
  EXPECT_FALSE(gpu_only.feasible);
  for (auto make : {make_mtopo_placer, make_metf_placer, make_msct_placer}) {
    auto placer = make();
    SCOPED_TRACE(placer->name());
    Placement p = placer->place(pb, {});
    Schedule s = sim.run(p);
    EXPECT_TRUE(s.feasible) << s.infeasible_reason;
    EXPECT_GT(std::count(p.begin(), p.end(), 1), 0);  // still uses the gpu
  }
  // m-ETF: A and B fill the gpu (500 bytes each: weights + output); C and D go to the cpu.
  EXPECT_EQ(run(make_metf_placer(), pb), (Placement{1, 1, 0, 0}));
  // m-TOPO: A to the cpu (share 3.2 s); B costs the gpu 600 (its input is a copy) and C
  // would need 500 more, so C and D go back to the cpu.
  EXPECT_EQ(run(make_mtopo_placer(), pb), (Placement{0, 1, 0, 0}));
}

TEST(Baechi, OpsOnlyRunWhereTheyCan) {
  Builder b;
  b.op("A", {}, 5, 1);
  b.op("B", {"A"}, 5, 1);
  b.op("C", {"B"}, 5, 1);
  b.op("Z", {"C"}, 1, 1);
  b.g.finalize();
  b.table.op_time["B"].erase("gpu");
  b.table.op_time["Z"].clear();  // runs nowhere: still a valid device index, no crash
  Problem pb(b.g, two_devices(), &b.table);
  for (auto make : {make_mtopo_placer, make_metf_placer, make_msct_placer}) {
    Placement p = run(make(), pb);
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(b.at(p, "B"), 0);
    for (int d : p) EXPECT_TRUE(d == 0 || d == 1);
  }
}

TEST(Baechi, ThousandRandomOpsInMilliseconds) {
  // A random layered DAG, 1000 ops, 2-3 inputs each; table costs.
  Builder b;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.1, 2.0);
  for (int i = 0; i < 1000; ++i) {
    std::vector<std::string> in;
    for (int k = 0; k < 3 && i > 0; ++k)
      in.push_back("n" + std::to_string(std::max(0, i - 1 - static_cast<int>(rng() % 20))));
    std::sort(in.begin(), in.end());
    in.erase(std::unique(in.begin(), in.end()), in.end());
    b.op("n" + std::to_string(i), in, u(rng) * 5, u(rng), u(rng));
  }
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  for (auto make : {make_heft_placer, make_mtopo_placer, make_metf_placer, make_msct_placer}) {
    auto placer = make();
    auto t0 = std::chrono::steady_clock::now();
    Placement p = placer->place(pb, {});
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(ms, 500) << placer->name();  // generous for slow CI; about 1-10 ms here
    EXPECT_TRUE(std::isfinite(sim.makespan(p))) << placer->name();
  }
}

TEST(Baechi, BundledModelsGiveValidPlacements) {
  for (const char* name : {"resnet50", "inception_v3", "bert_base"}) {
    SCOPED_TRACE(name);
    Model m = load_model(name);
    Problem pb(m.graph, load_cluster("paper"));
    Simulator sim(pb);
    const double bound = makespan_lower_bound(pb);
    for (auto make : {make_mtopo_placer, make_metf_placer, make_msct_placer}) {
      auto placer = make();
      Placement p = placer->place(pb, {});
      ASSERT_EQ(static_cast<int>(p.size()), pb.num_ops()) << placer->name();
      for (int d : p) ASSERT_TRUE(d >= 0 && d < pb.num_devices());
      const double t = sim.makespan(p);
      EXPECT_TRUE(std::isfinite(t)) << placer->name();
      EXPECT_GE(t, bound * (1 - 1e-9)) << placer->name();
      EXPECT_EQ(placer->place(pb, {}), p) << placer->name();  // deterministic
    }
  }
}

}  // namespace
}  // namespace devplace
