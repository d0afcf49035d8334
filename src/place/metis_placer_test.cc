#include <gtest/gtest.h>

#include <cmath>

#include "place/placer.h"
#include "place/small_graphs.h"
#include "sim/simulator.h"

namespace devplace {
namespace {

// Two identical devices "a" (host) and "b".
Cluster two_identical() {
  Cluster c;
  c.name = "pair";
  Device a, b;
  a.name = "a";
  b.name = "b";
  c.devices = {a, b};
  c.set_link({0, 1, 1e9, 0});
  c.set_link({1, 0, 1e9, 0});
  return c;
}

// Two chains x0 -> ... -> x4 and y0 -> ... -> y4, 1 ms per op, 0.5 ms per transfer.
void add_chain(Graph& g, CostTable& t, const std::string& prefix) {
  for (int i = 0; i < 5; ++i) {
    Op op;
    op.name = prefix + std::to_string(i);
    op.type = "Test";
    if (i > 0) op.inputs = {g.tensor_id(prefix + std::to_string(i - 1) + ":0")};
    op.outputs = {g.tensor_id(op.name + ":0")};
    g.tensor(op.outputs[0]).fixed_bytes = 1000;
    t.op_time[op.name] = {{"a", 1e-3}, {"b", 1e-3}};
    t.transfer_time[op.name + ":0"] = 0.5e-3;
    g.add_op(op);
  }
}

TEST(MetisPlacer, PutsTwoDisconnectedChainsOnTheirOwnDevices) {
  Graph g("chains");
  CostTable t;
  add_chain(g, t, "x");
  add_chain(g, t, "y");
  g.finalize();
  Problem p(g, two_identical(), &t);
  Placement pl = make_metis_placer()->place(p, {});
  const int x = pl[g.find_op("x0")], y = pl[g.find_op("y0")];
  EXPECT_NE(x, y);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(pl[g.find_op("x" + std::to_string(i))], x);
    EXPECT_EQ(pl[g.find_op("y" + std::to_string(i))], y);
  }
  EXPECT_NEAR(Simulator(p).makespan(pl), 5e-3, 1e-12);
}

TEST(MetisPlacer, HandlesOneDeviceAndGraphsWithoutEdges) {
  // Ten independent ops: no edges for METIS to cut.
  Graph g("flat");
  CostTable t;
  for (int i = 0; i < 10; ++i) {
    Op op;
    op.name = "op" + std::to_string(i);
    op.type = "Test";
    op.outputs = {g.tensor_id(op.name + ":0")};
    t.op_time[op.name] = {{"a", 1e-3 * (1 + i % 3)}, {"b", 1e-3 * (1 + i % 3)}};
    g.add_op(op);
  }
  g.finalize();
  Problem p(g, two_identical(), &t);
  const double lb = makespan_lower_bound(p);
  Placement pl = make_metis_placer()->place(p, {});
  EXPECT_NEAR(Simulator(p).makespan(pl), lb, 1e-3 + 1e-12);  // within one op of a perfect split

  Cluster one;
  one.devices = {Device{}};
  one.devices[0].name = "a";
  Problem single(g, one, &t);
  EXPECT_EQ(make_metis_placer()->place(single, {}), Placement(10, 0));
}

TEST(MetisPlacer, FeasibleAboveTheLowerBoundAndDeterministic) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto sp = make_small_problem({.ops = 14, .devices = 2 + static_cast<int>(seed % 3), .seed = seed});
    const Problem& p = *sp->problem;
    PlaceOptions o;
    o.seed = seed;
    Placement a = make_metis_placer()->place(p, o);
    Placement b = make_metis_placer()->place(p, o);
    EXPECT_EQ(a, b) << "seed " << seed;
    const double m = Simulator(p).makespan(a);
    ASSERT_TRUE(std::isfinite(m)) << "seed " << seed;
    EXPECT_GE(m, makespan_lower_bound(p) * (1 - 1e-12)) << "seed " << seed;
    // Never worse than the best single device (k' = 1 is one of the candidates).
    for (int d = 0; d < p.num_devices(); ++d)
      EXPECT_LE(m, Simulator(p).makespan(Placement(p.num_ops(), d)) * (1 + 1e-12)) << "seed " << seed;
  }
}

TEST(MetisPlacer, ManyDevicesUseTheGreedyMap) {
  auto sp = make_small_problem({.ops = 40, .devices = 8, .seed = 3});
  const Problem& p = *sp->problem;
  Placement pl = make_metis_placer()->place(p, {});
  ASSERT_EQ(static_cast<int>(pl.size()), p.num_ops());
  EXPECT_TRUE(std::isfinite(Simulator(p).makespan(pl)));
}

}  // namespace
}  // namespace devplace
