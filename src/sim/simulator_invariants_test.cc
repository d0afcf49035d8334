// Invariants of simulated schedules on the bundled models under random placements: every op
// starts after its inputs are on its device, no device runs two ops at once, no link carries
// two transfers at once, and the makespan is the last event.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "io/model.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

class BundledModel : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledModel, RandomPlacementsRespectDependenciesAndDevices) {
  Model m = load_model(GetParam());
  for (const std::string cluster : {"paper", "nvlink4"}) {
    Problem pb(m.graph, load_cluster(cluster));
    Simulator sim(pb);
    const Graph& g = m.graph;
    std::mt19937 rng(7);
    for (int trial = 0; trial < 5; ++trial) {
      Placement p(g.num_ops());
      std::uniform_int_distribution<int> dev(0, pb.num_devices() - 1);
      for (auto& d : p) d = dev(rng);
      Schedule s = sim.run(p);
      ASSERT_EQ(s.ops.size(), static_cast<std::size_t>(g.num_ops()));
      // Arrival of each (tensor, device) pair.
      std::map<std::pair<int, int>, double> arrival;
      for (const auto& tr : s.transfers) {
        EXPECT_GE(tr.start, s.ops[g.tensor(tr.tensor).producer].end - 1e-12);
        EXPECT_FALSE(pb.tensor_resident(tr.tensor)) << "a constant was transferred: " << g.tensor(tr.tensor).name;
        arrival[{tr.tensor, tr.dst}] = tr.end;
      }
      double last = 0;
      for (int i = 0; i < g.num_ops(); ++i) {
        const auto& sp = s.ops[i];
        EXPECT_EQ(sp.device, p[i]);
        EXPECT_NEAR(sp.end - sp.start, pb.placed_time(i, p), 1e-12);
        last = std::max(last, sp.end);
        for (int t : g.op(i).inputs) {
          int prod = g.tensor(t).producer;
          if (prod < 0 || pb.tensor_resident(t)) continue;  // constants are everywhere from the start
          double ready = p[prod] == p[i] ? s.ops[prod].end : arrival.at({t, p[i]});
          EXPECT_GE(sp.start, ready - 1e-12) << g.op(i).name;
        }
      }
      for (int d = 0; d < pb.num_devices(); ++d) {
        std::vector<std::pair<double, double>> spans;
        for (int i = 0; i < g.num_ops(); ++i)
          if (p[i] == d) spans.push_back({s.ops[i].start, s.ops[i].end});
        std::sort(spans.begin(), spans.end());
        for (std::size_t k = 1; k < spans.size(); ++k) EXPECT_GE(spans[k].first, spans[k - 1].second - 1e-12);
      }
      std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> links;
      for (const auto& tr : s.transfers) {
        links[{tr.src, tr.dst}].push_back({tr.start, tr.end});
        last = std::max(last, tr.end);
      }
      for (auto& [l, spans] : links) {
        std::sort(spans.begin(), spans.end());
        for (std::size_t k = 1; k < spans.size(); ++k) EXPECT_GE(spans[k].first, spans[k - 1].second - 1e-12);
      }
      EXPECT_DOUBLE_EQ(s.makespan, last);
      if (s.feasible) {
        EXPECT_DOUBLE_EQ(sim.makespan(p), s.makespan);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, BundledModel, ::testing::Values("resnet50", "inception_v3", "bert_base"));

}  // namespace
}  // namespace devplace
