// Tests of the Tarnawski latency model and its placers: hand-computed tiny cases, a naive
// reference implementation compared on random DAGs and placements, and the published graphs
// (which also print the results table of docs/design/tarnawski.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/tarnawski_import.h"
#include "place/reward.h"
#include "place/segment_search.h"
#include "place/tarnawski_objective.h"
#include "place/tarnawski_placers.h"
#include "place/tarnawski_segments.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

using nlohmann::json;
constexpr double ms = 1e-3;

// A Model and its Problem, kept together (the Problem references the Model's graph).
struct Built {
  Model model;
  std::unique_ptr<Problem> problem;
  int dev(const std::string& name) const { return problem->cluster().find_device(name); }
  int op(const std::string& name) const { return model.graph.find_op(name); }
  // Placement from op name -> device name; unnamed ops go to the cpu.
  Placement place(const std::map<std::string, std::string>& where) const {
    Placement pl(problem->num_ops(), dev("cpu"));
    for (auto& [o, d] : where) {
      EXPECT_GE(op(o), 0) << o;
      EXPECT_GE(dev(d), 0) << d;
      pl[op(o)] = dev(d);
    }
    return pl;
  }
};

std::unique_ptr<Built> build(const json& j) {
  auto b = std::make_unique<Built>();
  b->model = tarnawski_from_json(j, "tiny.json");
  b->problem = std::make_unique<Problem>(b->model.graph, *b->model.cluster, &*b->model.costs);
  return b;
}

// A node in the file schema (latencies in ms).
json node(const std::string& name, int id, double cpu, double fpga, double size = 0, int color = -1) {
  json n = {{"name", name},
            {"id", id},
            {"supportedOnFpga", true},
            {"cpuLatency", cpu},
            {"fpgaLatency", fpga},
            {"isBackwardNode", false},
            {"size", size}};
  if (color >= 0) n["colorClass"] = color;
  return n;
}
json edge(int s, int d, double cost) { return {{"sourceId", s}, {"destId", d}, {"cost", cost}, {"size", 8.0}}; }
json file(int fpgas, double mem, json nodes, json edges) {
  return {{"maxFPGAs", fpgas}, {"maxSizePerFPGA", mem}, {"maxCPUs", 8}, {"nodes", nodes}, {"edges", edges}};
}

// cpu -> fpga0 -> cpu. a feeds both b1 and b2 on fpga0 (received once); b2 feeds c1 and c2 on
// the cpu (sent once); b1 -> b2 stays inside fpga0 (free).
json chain() {
  return file(
      2, 1000,
      {node("a", 1, 1, 0.1), node("b1", 2, 20, 2), node("b2", 3, 30, 3), node("c1", 4, 4, 0.4), node("c2", 5, 5, 0.5)},
      {edge(1, 2, 0.5), edge(1, 3, 0.5), edge(2, 3, 0.7), edge(3, 4, 0.25), edge(3, 5, 0.25)});
}

TEST(TarnawskiLatency, ChainCpuFpgaCpuCountsEachTensorOnce) {
  auto b = build(chain());
  const Problem& p = *b->problem;
  // fpga0 starts when a is done (1), receives a once (0.5), runs 2 + 3, sends b2 once (0.25):
  // 6.75; c2 then runs 5 ms on the cpu: 11.75 ms.
  auto r = tarnawski_latency(p, b->place({{"b1", "fpga0"}, {"b2", "fpga0"}}));
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_NEAR(r.latency, 11.75 * ms, 1e-12);
  // All on the cpu: longest path a, b1, b2, c2 = 1 + 20 + 30 + 5.
  EXPECT_NEAR(tarnawski_latency(p, b->place({})).latency, 56 * ms, 1e-12);
  // Everything on fpga0: nothing leaves or enters, 0.1 + 2 + 3 + 0.4 + 0.5.
  auto all = b->place({{"a", "fpga0"}, {"b1", "fpga0"}, {"b2", "fpga0"}, {"c1", "fpga0"}, {"c2", "fpga0"}});
  EXPECT_NEAR(tarnawski_latency(p, all).latency, 6.0 * ms, 1e-12);
  // c1 back on the cpu: b2 is sent once (0.25) although c2 stays; latency = 6.25 + 4 on cpu.
  all[b->op("c1")] = b->dev("cpu");
  EXPECT_NEAR(tarnawski_latency(p, all).latency, (0.1 + 2 + 3 + 0.5 + 0.25 + 4) * ms, 1e-12);
}

// The violation measure is 0 exactly on feasible placements and grows with each broken rule.
TEST(TarnawskiViolation, ZeroWhenFeasibleAndCountsHolesSplitsAndOverflow) {
  auto b = build(chain());
  const Problem& p = *b->problem;
  const double n = p.num_ops();
  EXPECT_EQ(tarnawski_violation(p, b->place({})), 0.0);
  EXPECT_EQ(tarnawski_violation(p, b->place({{"b1", "fpga0"}, {"b2", "fpga0"}})), 0.0);
  // a and b2 on fpga0 with b1 (between them: a -> b1 -> b2) on the cpu: one hole.
  auto holed = b->place({{"a", "fpga0"}, {"b2", "fpga0"}});
  ASSERT_FALSE(tarnawski_latency(p, holed).feasible);
  EXPECT_DOUBLE_EQ(tarnawski_violation(p, holed), 1 / n);
  // a and c1 on fpga0: b1 and b2 lie between them, two holes.
  EXPECT_DOUBLE_EQ(tarnawski_violation(p, b->place({{"a", "fpga0"}, {"c1", "fpga0"}})), 2 / n);
  // A colour class of three split 2 / 1: one op off the class's device.
  auto colored = build(file(2, 1000, {node("x", 1, 1, 1, 0, 7), node("y", 2, 1, 1, 0, 7), node("z", 3, 1, 1, 0, 7)},
                            {edge(1, 2, 0.1), edge(2, 3, 0.1)}));
  EXPECT_DOUBLE_EQ(tarnawski_violation(*colored->problem, colored->place({{"z", "fpga0"}})), 1 / 3.0);
  // Memory: 1500 bytes of weights on an accelerator of 1000 is 50% over.
  auto big = build(file(1, 1000, {node("u", 1, 1, 1, 1500)}, json::array()));
  const double v = tarnawski_violation(*big->problem, big->place({{"u", "fpga0"}}));
  EXPECT_FALSE(tarnawski_latency(*big->problem, big->place({{"u", "fpga0"}})).feasible);
  EXPECT_NEAR(v, 0.5, 0.01);
}

TEST(TarnawskiLatency, AcceleratorToAcceleratorCostsTwice) {
  // a on fpga0 -> b on fpga1, edge cost 0.5: fpga0 = 1 + 0.5 send; fpga1 starts at 1.5,
  // receives 0.5 and runs 2: 4 ms.
  auto b = build(file(2, 1000, {node("a", 1, 10, 1), node("b", 2, 20, 2)}, {edge(1, 2, 0.5)}));
  const Problem& p = *b->problem;
  auto r = tarnawski_latency(p, b->place({{"a", "fpga0"}, {"b", "fpga1"}}));
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_NEAR(r.latency, 4 * ms, 1e-12);
  // The same total as Problem's own accelerator-to-accelerator figure (2 x 0.5).
  const int t = p.graph().op(b->op("a")).outputs[0];
  EXPECT_NEAR(p.transfer_time(t, b->dev("fpga0"), b->dev("fpga1")), 1.0 * ms, 1e-12);
  // Via the cpu instead: a on cpu (10) then b on fpga1: 10 + 0.5 + 2.
  EXPECT_NEAR(tarnawski_latency(p, b->place({{"b", "fpga1"}})).latency, 12.5 * ms, 1e-12);
}

TEST(TarnawskiLatency, ParallelAcceleratorsOverlap) {
  // s (cpu, 1) feeds x on fpga0 and y on fpga1, both feed j (cpu, 1).
  auto b = build(file(2, 1000, {node("s", 1, 1, 0.1), node("x", 2, 40, 4), node("y", 3, 60, 6), node("j", 4, 1, 0.1)},
                      {edge(1, 2, 0.5), edge(1, 3, 0.5), edge(2, 4, 0.25), edge(3, 4, 0.3)}));
  // fpga0: 1 + 0.5 + 4 + 0.25 = 5.75; fpga1: 1 + 0.5 + 6 + 0.3 = 7.8; j = 7.8 + 1.
  auto r = tarnawski_latency(*b->problem, b->place({{"x", "fpga0"}, {"y", "fpga1"}}));
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_NEAR(r.latency, 8.8 * ms, 1e-12);
}

TEST(TarnawskiLatency, NonContiguousSetIsInfeasible) {
  // a -> b -> c and a -> c: a and c on fpga0, b on the cpu: the path a, b, c leaves fpga0 and
  // comes back.
  auto b = build(file(2, 1000, {node("a", 1, 1, 1), node("b", 2, 1, 1), node("c", 3, 1, 1)},
                      {edge(1, 2, 0.5), edge(2, 3, 0.5), edge(1, 3, 0.5)}));
  auto r = tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"c", "fpga0"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_TRUE(std::isinf(r.latency));
  EXPECT_NE(r.reason.find("fpga0"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("contiguous"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("'b'"), std::string::npos) << r.reason;  // the op on the path
  EXPECT_NE(r.reason.find("'c'"), std::string::npos) << r.reason;  // where it re-enters
  // Through another accelerator just the same.
  r = tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"b", "fpga1"}, {"c", "fpga0"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("fpga1"), std::string::npos) << r.reason;
  // A set with no path between its parts is contiguous: a on fpga0 alone, b and c elsewhere.
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"b", "fpga1"}})).feasible);
}

TEST(TarnawskiLatency, SetsWaitingForEachOtherAreInfeasible) {
  // a -> b and c -> d; a, d on fpga0 and b, c on fpga1. Each set is contiguous, but fpga1
  // needs a (fpga0) and fpga0 needs c (fpga1): neither can start first.
  auto b = build(file(2, 1000, {node("a", 1, 1, 1), node("b", 2, 1, 1), node("c", 3, 1, 1), node("d", 4, 1, 1)},
                      {edge(1, 2, 0.5), edge(3, 4, 0.5)}));
  auto r = tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"d", "fpga0"}, {"b", "fpga1"}, {"c", "fpga1"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("cycle"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("'fpga0'"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("'fpga1'"), std::string::npos) << r.reason;
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"c", "fpga0"}, {"b", "fpga1"}, {"d", "fpga1"}}))
                  .feasible);
}

TEST(TarnawskiLatency, ColorClassMustShareADevice) {
  auto b = build(file(2, 1000, {node("a", 1, 1, 1, 0, 7), node("b", 2, 1, 1), node("c", 3, 1, 1, 0, 7)},
                      {edge(1, 2, 0.5), edge(2, 3, 0.5)}));
  auto r = tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"b", "fpga0"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("colorClass 7"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("'a'"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("'c'"), std::string::npos) << r.reason;
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"b", "fpga0"}, {"c", "fpga0"}})).feasible);
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({})).feasible);
}

TEST(TarnawskiLatency, MemoryLimitPerAccelerator) {
  auto b = build(file(2, 100, {node("a", 1, 1, 1, 60), node("b", 2, 1, 1, 50)}, {edge(1, 2, 0.5)}));
  auto r = tarnawski_latency(*b->problem, b->place({{"a", "fpga1"}, {"b", "fpga1"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("fpga1"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("110"), std::string::npos) << r.reason;
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({{"a", "fpga0"}, {"b", "fpga1"}})).feasible);
  // The cpu has no limit.
  EXPECT_TRUE(tarnawski_latency(*b->problem, b->place({})).feasible);
}

TEST(TarnawskiLatency, UnsupportedOpAndBadPlacement) {
  json j = file(1, 100, {node("a", 1, 1, 1), node("b", 2, 1, 1)}, {edge(1, 2, 0.5)});
  j["nodes"][1]["supportedOnFpga"] = false;
  auto b = build(j);
  auto r = tarnawski_latency(*b->problem, b->place({{"b", "fpga0"}}));
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("'b'"), std::string::npos) << r.reason;
  EXPECT_THROW(tarnawski_latency(*b->problem, Placement{0}), Error);
  EXPECT_THROW(tarnawski_latency(*b->problem, Placement{0, 5}), Error);
}

// --- A naive reference: their computeLatency() transcribed with sets and fixed-point
// iteration, no bitsets, no contraction. Contiguity by search from each set.
double naive_latency(const Problem& p, const Placement& pl) {
  const Graph& g = p.graph();
  const int n = p.num_ops(), host = p.host();
  for (int i = 0; i < n; ++i)
    if (!(p.op_time(i, pl[i]) < kInfeasibleTime)) return kInfeasibleTime;
  std::set<int> accs;
  for (int i = 0; i < n; ++i)
    if (pl[i] != host) accs.insert(pl[i]);
  for (int d : accs) {  // contiguity: no op of d reachable from an outside op reachable from d
    std::vector<char> reach(n, 0);
    std::vector<int> st;
    for (int i = 0; i < n; ++i)
      if (pl[i] == d)
        for (int s : g.succs(i))
          if (pl[s] != d && !reach[s]) reach[s] = 1, st.push_back(s);
    while (!st.empty()) {
      int v = st.back();
      st.pop_back();
      if (pl[v] == d) return kInfeasibleTime;
      for (int s : g.succs(v))
        if (!reach[s]) reach[s] = 1, st.push_back(s);
    }
  }
  // Sets must not wait for each other in a cycle: R(d, e) = some op of d reaches some op of e;
  // its transitive closure must have no d with R+(d, d).
  const std::vector<int> al(accs.begin(), accs.end());
  const int k = static_cast<int>(al.size());
  std::vector<std::vector<char>> R(k, std::vector<char>(k, 0));
  for (int a = 0; a < k; ++a) {
    std::vector<char> seen(n, 0);
    std::vector<int> st;
    for (int i = 0; i < n; ++i)
      if (pl[i] == al[a]) st.push_back(i), seen[i] = 1;
    while (!st.empty()) {
      int v = st.back();
      st.pop_back();
      for (int s : g.succs(v))
        if (!seen[s]) seen[s] = 1, st.push_back(s);
    }
    for (int c = 0; c < k; ++c)
      for (int i = 0; i < n && c != a; ++i)
        if (pl[i] == al[c] && seen[i]) R[a][c] = 1;
  }
  for (int m = 0; m < k; ++m)
    for (int a = 0; a < k; ++a)
      for (int c = 0; c < k; ++c)
        if (R[a][m] && R[m][c]) R[a][c] = 1;
  for (int a = 0; a < k; ++a)
    if (R[a][a]) return kInfeasibleTime;
  auto cost = [&](int u) { return p.transfer_time(g.op(u).outputs[0], host, p.num_devices() > 1 ? 1 : 0); };
  std::vector<double> f(n, 0);
  for (int iter = 0; iter <= n + 1; ++iter) {
    for (int v = 0; v < n; ++v) {
      if (pl[v] != host) continue;
      double s = 0;
      for (int u : g.preds(v)) s = std::max(s, f[u]);
      f[v] = s + p.op_time(v, host);
    }
    for (int d : accs) {
      double start = 0, busy = 0;
      for (int u = 0; u < n; ++u) {
        bool in = pl[u] == d, to_in = false, to_out = false;
        for (int s : g.succs(u)) (pl[s] == d ? to_in : to_out) = true;
        if (!in && to_in) start = std::max(start, f[u]), busy += cost(u);
        if (in) busy += p.op_time(u, d) + (to_out ? cost(u) : 0);
      }
      for (int u = 0; u < n; ++u)
        if (pl[u] == d) f[u] = start + busy;
    }
  }
  double lat = 0;
  for (double x : f) lat = std::max(lat, x);
  return lat;
}

json random_dag(std::mt19937_64& rng, int n, int fpgas) {
  json nodes = json::array(), edges = json::array();
  std::uniform_real_distribution<double> u(0.1, 5);
  for (int i = 0; i < n; ++i) nodes.push_back(node("v" + std::to_string(i), i, u(rng) * 10, u(rng), 0));
  std::vector<double> cost(n);
  for (auto& c : cost) c = u(rng) / 4;
  for (int j = 1; j < n; ++j)
    for (int i = 0; i < j; ++i)
      if (rng() % 3 == 0 || (i == j - 1 && rng() % 2)) edges.push_back(edge(i, j, cost[i]));
  return file(fpgas, 1e9, nodes, edges);
}

TEST(TarnawskiLatency, MatchesNaiveReferenceOnRandomDags) {
  std::mt19937_64 rng(7);
  int feasible = 0, infeasible = 0;
  for (int trial = 0; trial < 60; ++trial) {
    auto b = build(random_dag(rng, 3 + trial % 8, 3));
    const Problem& p = *b->problem;
    TarnawskiEvaluator eval(p);
    for (int k = 0; k < 40; ++k) {
      Placement pl(p.num_ops());
      for (auto& d : pl) d = static_cast<int>(rng() % p.num_devices());
      const double want = naive_latency(p, pl);
      const Verdict got = eval.evaluate(pl);
      ASSERT_EQ(std::isinf(want), !got.feasible) << "trial " << trial << " " << got.reason;
      if (got.feasible) {
        ++feasible;
        EXPECT_NEAR(got.latency, want, 1e-12) << "trial " << trial;
        EXPECT_EQ(got.latency, tarnawski_latency(p, pl).latency);
      } else {
        ++infeasible;
      }
    }
  }
  EXPECT_GT(feasible, 200);
  EXPECT_GT(infeasible, 200);
}

TEST(TarnawskiPlacers, GreedyFillsAcceleratorsInOrder) {
  // Chain a -> b -> c -> d, 60 bytes each, 100 bytes per accelerator, 2 accelerators: a on
  // fpga0, b on fpga1 (a + b would not fit), c and d left for the cpu.
  auto b = build(
      file(2, 100, {node("a", 1, 10, 1, 60), node("b", 2, 10, 1, 60), node("c", 3, 10, 1, 60), node("d", 4, 10, 1, 60)},
           {edge(1, 2, 0.1), edge(2, 3, 0.1), edge(3, 4, 0.1)}));
  const Placement g = tarnawski_greedy_placement(*b->problem);
  EXPECT_EQ(g, b->place({{"a", "fpga0"}, {"b", "fpga1"}}));
  // A block too large for an accelerator goes to the cpu and the next one opens a new one.
  json j = file(3, 100,
                {node("a", 1, 10, 1, 60), node("b", 2, 10, 1, 160), node("c", 3, 10, 1, 30), node("d", 4, 10, 1, 30)},
                {edge(1, 2, 0.1), edge(2, 3, 0.1), edge(3, 4, 0.1)});
  auto b2 = build(j);
  EXPECT_EQ(tarnawski_greedy_placement(*b2->problem), b2->place({{"a", "fpga0"}, {"c", "fpga1"}, {"d", "fpga1"}}));
}

TEST(TarnawskiPlacers, BlocksFuseColorClassesAndTheirCycles) {
  // a(7) -> b -> c(7): class 7 = {a, c}; b sits on a path between them, so the class graph has
  // a cycle {7, b} and all three fuse. d is alone.
  auto b =
      build(file(1, 1000, {node("a", 1, 1, 1, 0, 7), node("b", 2, 1, 1), node("c", 3, 1, 1, 0, 7), node("d", 4, 1, 1)},
                 {edge(1, 2, 0.1), edge(2, 3, 0.1), edge(3, 4, 0.1)}));
  const TarnawskiBlocks blocks = tarnawski_blocks(*b->problem);
  EXPECT_EQ(blocks.size(), 2);
  EXPECT_EQ(blocks.block_of[b->op("a")], blocks.block_of[b->op("b")]);
  EXPECT_EQ(blocks.block_of[b->op("a")], blocks.block_of[b->op("c")]);
  EXPECT_NE(blocks.block_of[b->op("a")], blocks.block_of[b->op("d")]);
}

TEST(TarnawskiPlacers, DpOnTinyGraphsIsFeasibleAndNoWorse) {
  std::mt19937_64 rng(11);
  auto dp = make_placer("tarnawski-dp");
  auto greedy = make_placer("tarnawski-greedy");
  PlaceOptions o;
  o.objective = Objective::tarnawski;
  for (int trial = 0; trial < 30; ++trial) {
    json j = random_dag(rng, 4 + trial % 10, 1 + trial % 3);
    for (auto& nd : j["nodes"]) nd["size"] = static_cast<double>(rng() % 50);
    j["maxSizePerFPGA"] = 100.0;
    auto b = build(j);
    const Problem& p = *b->problem;
    const auto ours = tarnawski_latency(p, dp->place(p, o));
    const auto base = tarnawski_latency(p, greedy->place(p, o));
    const auto cpu = tarnawski_latency(p, Placement(p.num_ops(), p.host()));
    ASSERT_TRUE(ours.feasible) << ours.reason;
    EXPECT_TRUE(base.feasible) << base.reason;
    EXPECT_LE(ours.latency, base.latency);
    EXPECT_LE(ours.latency, cpu.latency);
  }
  // On the chain the best is all on one accelerator (6 ms).
  auto b = build(chain());
  EXPECT_NEAR(tarnawski_latency(*b->problem, dp->place(*b->problem, o)).latency, 6 * ms, 1e-12);
}

// The runs of chain() (a, b1, b2, c1, c2 in order, one op per unit), by hand: b1..b2 on fpga0
// receives a's output once (0.5), computes 2 + 3 and sends b2's once (0.25): 5.75 ms; on the CPU
// 20 + 30. The cheapest cut of the whole graph is everything on one accelerator (6 ms); from c1
// on, c1..c2 on an accelerator (0.25 + 0.4 + 0.5 = 1.15), or on the CPU (5, the longer of two
// parallel ops) once both accelerators are used.
TEST(TarnawskiSegments, RunCostsAndCostToGoByHand) {
  auto b = build(chain());
  const Problem& p = *b->problem;
  std::vector<std::vector<int>> units;
  for (const char* name : {"a", "b1", "b2", "c1", "c2"}) units.push_back({b->op(name)});
  SegmentScan scan(p, units);
  ASSERT_EQ(scan.acc().size(), 2u);
  scan.start(1);
  scan.extend();
  scan.extend();
  EXPECT_NEAR(scan.accel(0), 5.75 * ms, 1e-12);
  EXPECT_NEAR(scan.accel_floor(0), 5.5 * ms, 1e-12);
  EXPECT_NEAR(scan.cpu(), 50 * ms, 1e-12);
  const SegmentCostToGo rest = segment_cost_to_go(scan);
  EXPECT_NEAR(rest.at(0, 0), 6 * ms, 1e-12);
  EXPECT_NEAR(rest.at(3, 0), 1.15 * ms, 1e-12);
  EXPECT_NEAR(rest.at(3, 2), 5 * ms, 1e-12);
  EXPECT_EQ(rest.at(5, 1), 0);
  // By the first run's device: from c1, c1 on the host (4) then c2 on an accelerator (0.25 + 0.5),
  // or c1..c2 on an accelerator (1.15).
  EXPECT_NEAR(rest.host(3, 0), 4.75 * ms, 1e-12);
  EXPECT_NEAR(rest.accel(3, 1, 1), 1.15 * ms, 1e-12);
  EXPECT_EQ(rest.accel(3, 1, 0), rest.accel(3, 1, 1));  // the two accelerators are alike
  // Scanning again from the same start counts the inputs again (a fresh run each time).
  scan.start(1);
  scan.extend();
  scan.extend();
  EXPECT_NEAR(scan.accel(0), 5.75 * ms, 1e-12);
}

// --- The published graphs.
const char* const kFiles[] = {
    "LayerGraphs/bert24_inference.json",       "LayerGraphs/gnmt_inference.json",
    "LayerGraphs/inceptionv3_inference.json",  "LayerGraphs/resnet50_inference.json",
    "OperatorGraphs/bert_l-12_inference.json", "OperatorGraphs/bert_l-3_inference.json",
    "OperatorGraphs/bert_l-6_inference.json",  "OperatorGraphs/resnet50_inference.json",
};

TEST(TarnawskiPlacers, RealGraphsDpBeatsCpuOnlyAndGreedy) {
  const std::string dir = shared_dir() + "/data/dnn-partitioning/latency-inputs";
  if (!file_exists(dir + "/LayerGraphs/bert24_inference.json"))
    GTEST_SKIP() << "no shared data at " << dir << " (the published graphs are not in this checkout)";
  auto dp = make_placer("tarnawski-dp");
  auto greedy = make_placer("tarnawski-greedy");
  PlaceOptions o;
  o.objective = Objective::tarnawski;
  std::printf(
      "| graph | ops | cpu-only (ms) | greedy (ms) | tarnawski-dp (ms) | dp vs greedy | dp: ops on cpu, accelerators "
      "used | dp time (s) |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const char* rel : kFiles) {
    Model m = import_tarnawski(dir + "/" + rel);
    Problem p(m.graph, *m.cluster, &*m.costs);
    const auto cpu = tarnawski_latency(p, Placement(p.num_ops(), p.host()));
    const auto base = tarnawski_latency(p, greedy->place(p, o));
    const auto t0 = std::chrono::steady_clock::now();
    const Placement pl = dp->place(p, o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto ours = tarnawski_latency(p, pl);
    EXPECT_TRUE(cpu.feasible) << rel << ": " << cpu.reason;
    EXPECT_TRUE(base.feasible) << rel << ": " << base.reason;
    ASSERT_TRUE(ours.feasible) << rel << ": " << ours.reason;
    EXPECT_LE(ours.latency, cpu.latency) << rel;
    EXPECT_LE(ours.latency, base.latency) << rel;
    // The table of docs/design/tarnawski.md (deterministic: default options, seed 0).
    static const std::map<std::string, double> kDpMs = {
        {"LayerGraphs/bert24_inference.json", 100.219},      {"LayerGraphs/gnmt_inference.json", 225.648},
        {"LayerGraphs/inceptionv3_inference.json", 1277.702}, {"LayerGraphs/resnet50_inference.json", 1156.881},
        {"OperatorGraphs/bert_l-12_inference.json", 729.570}, {"OperatorGraphs/bert_l-3_inference.json", 408.474},
        {"OperatorGraphs/bert_l-6_inference.json", 438.065},  {"OperatorGraphs/resnet50_inference.json", 651.121}};
    EXPECT_NEAR(ours.latency / ms, kDpMs.at(rel), 5e-4) << rel;
    const std::set<int> used(pl.begin(), pl.end());
    const long on_cpu = std::count(pl.begin(), pl.end(), p.host());
    std::printf("| %s | %d | %.3f | %.3f | %.3f | %+.1f%% | %ld, %d of %d | %.2f |\n", rel, p.num_ops(),
                cpu.latency / ms, base.latency / ms, ours.latency / ms, 100 * (ours.latency / base.latency - 1), on_cpu,
                static_cast<int>(used.size()) - (used.count(p.host()) ? 1 : 0), p.num_devices() - 1, secs);
  }
  std::fflush(stdout);
}


// --- Segment search (place/segment_search.h).

// Units of a chain: one op each, in chain order.
std::vector<std::vector<int>> chain_units(const Built& b, const std::vector<std::string>& names) {
  std::vector<std::vector<int>> u;
  for (const auto& n : names) u.push_back({b.op(n)});
  return u;
}

TEST(SegmentSearch, JoinsTwoAcceleratorSegmentsAcrossAnExpensiveEdge) {
  // a..f: 10 ms on the cpu, 1 ms on an accelerator, 5 ms per crossing. a-c on fpga0 and d-f on
  // fpga1 cost 3 + 5 (send c) + 5 (receive c) + 3 = 16 ms; one accelerator for all, 6 ms.
  json nodes = json::array(), edges = json::array();
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f"};
  for (int i = 0; i < 6; ++i) nodes.push_back(node(names[i], i + 1, 10, 1));
  for (int i = 1; i < 6; ++i) edges.push_back(edge(i, i + 1, 5));
  auto b = build(file(2, 1000, nodes, edges));
  const Problem& p = *b->problem;
  const Placement start = b->place({{"a", "fpga0"}, {"b", "fpga0"}, {"c", "fpga0"},
                                    {"d", "fpga1"}, {"e", "fpga1"}, {"f", "fpga1"}});
  ASSERT_NEAR(tarnawski_latency(p, start).latency, 16 * ms, 1e-12);
  const std::unique_ptr<Reward> reward = make_reward(p, Objective::tarnawski);
  ObjectiveFn score = score_with(*reward);
  std::int64_t used = 0;
  const Placement found = segment_search(p, chain_units(*b, names), score, start, 100, &used);
  EXPECT_NEAR(tarnawski_latency(p, found).latency, 6 * ms, 1e-12);
  EXPECT_EQ(std::set<int>(found.begin(), found.end()).size(), 1u);
  EXPECT_LE(used, 100);
}

TEST(SegmentSearch, OpensAnAcceleratorOnTheStretchThatPaysForIt) {
  // a, b, g, h: 1 ms on the cpu, 10 on an accelerator; c-f: 100 ms on the cpu, 1 on an
  // accelerator; 2 ms per crossing. CPU-only: 404 ms, a single host segment, so no shift or
  // join applies. Best: c-f on one accelerator, 1 + 1 + 2 (receive b) + 4 + 2 (send f) + 1 + 1 =
  // 12 ms: the search opens an accelerator on a stretch, then moves its ends to c and f.
  json nodes = json::array(), edges = json::array();
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g", "h"};
  for (int i = 0; i < 8; ++i) {
    const bool heavy = i >= 2 && i <= 5;
    nodes.push_back(node(names[i], i + 1, heavy ? 100 : 1, heavy ? 1 : 10));
  }
  for (int i = 1; i < 8; ++i) edges.push_back(edge(i, i + 1, 2));
  auto b = build(file(3, 1000, nodes, edges));
  const Problem& p = *b->problem;
  const Placement cpu(p.num_ops(), p.host());
  ASSERT_NEAR(tarnawski_latency(p, cpu).latency, 404 * ms, 1e-12);
  const std::unique_ptr<Reward> reward = make_reward(p, Objective::tarnawski);
  ObjectiveFn score = score_with(*reward);
  const Placement found = segment_search(p, chain_units(*b, names), score, cpu, 200);
  EXPECT_NEAR(tarnawski_latency(p, found).latency, 12 * ms, 1e-12);
  for (const char* o : {"a", "b", "g", "h"}) EXPECT_EQ(found[b->op(o)], p.host()) << o;
}

TEST(SegmentSearch, KeepsToItsBudgetScoresNoPlacementTwiceAndNeverWorsensItsStart) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    json j = random_dag(rng, 8 + trial, 1 + trial % 4);
    for (auto& nd : j["nodes"]) nd["size"] = static_cast<double>(rng() % 50);
    j["maxSizePerFPGA"] = 120.0;
    auto b = build(j);
    const Problem& p = *b->problem;
    TarnawskiEvaluator eval(p);
    std::set<Placement> scored;
    int calls = 0, repeats = 0;
    ObjectiveFn score = [&](const Placement& pl) {
      ++calls;
      repeats += !scored.insert(pl).second;
      return eval.latency(pl);
    };
    const Placement start = tarnawski_greedy_placement(p);
    const double before = eval.latency(start);
    ASSERT_LT(before, kInfeasibleTime);
    const std::int64_t budget = 5 + 7 * trial;
    std::int64_t used = 0;
    const Placement found = segment_search(p, segment_units(p), score, start, budget, &used);
    EXPECT_EQ(used, calls);
    EXPECT_LE(calls, budget);
    EXPECT_EQ(repeats, 0);
    const auto v = tarnawski_latency(p, found);
    ASSERT_TRUE(v.feasible) << v.reason;
    EXPECT_LE(v.latency, before);
  }
}

TEST(SegmentSearch, UnitsFollowTheGraphNotItsNumbering) {
  // The same DAG written with its nodes in reverse and other ids: the units come in the same
  // order, op names for op names.
  std::mt19937_64 rng(9);
  const json j = random_dag(rng, 14, 2);
  json k = j;
  k["nodes"] = json::array();
  for (auto it = j["nodes"].rbegin(); it != j["nodes"].rend(); ++it) {
    json nd = *it;
    nd["id"] = 100 - nd["id"].get<int>();
    k["nodes"].push_back(nd);
  }
  for (auto& e : k["edges"]) e["sourceId"] = 100 - e["sourceId"].get<int>(), e["destId"] = 100 - e["destId"].get<int>();
  auto a = build(j), b = build(k);
  auto names = [](const Built& x) {
    std::vector<std::string> out;
    for (const auto& unit : segment_units(*x.problem))
      for (int v : unit) out.push_back(x.model.graph.op(v).name);
    return out;
  };
  int moved = 0;
  for (int v = 0; v < a->problem->num_ops(); ++v) moved += b->op(a->model.graph.op(v).name) != v;
  ASSERT_GT(moved, 0);
  EXPECT_EQ(names(*a), names(*b));
}

TEST(SegmentSearch, ControlIsForTheTarnawskiObjectiveOnly) {
  auto b = build(chain());
  PlaceOptions o;
  EXPECT_THROW(make_placer("segment-search")->place(*b->problem, o), Error);
  o.objective = Objective::tarnawski;
  o.eval_budget = 50;
  EXPECT_NEAR(tarnawski_latency(*b->problem, make_placer("segment-search")->place(*b->problem, o)).latency, 6 * ms,
              1e-12);
}

}  // namespace
}  // namespace devplace
