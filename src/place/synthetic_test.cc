#include "place/synthetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

TEST(Synthetic, SizesSeedsAndCosts) {
  auto a = make_synthetic_problem({.ops = 1000, .seed = 3});
  auto b = make_synthetic_problem({.ops = 1000, .seed = 3});
  auto c = make_synthetic_problem({.ops = 1000, .seed = 4});
  ASSERT_EQ(a->graph.num_ops(), 1000);
  EXPECT_EQ(a->problem->num_devices(), 3);
  EXPECT_EQ(a->graph.num_edges(), b->graph.num_edges());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a->graph.op(i).name, b->graph.op(i).name);
  EXPECT_NE(a->graph.num_edges() + a->graph.op(500).flops, c->graph.num_edges() + c->graph.op(500).flops);
  // Every op past the first layer has a predecessor; times are positive and finite.
  int sources = 0;
  for (int i = 0; i < 1000; ++i) {
    sources += a->graph.preds(i).empty();
    for (int d = 0; d < 3; ++d) {
      EXPECT_GT(a->problem->op_time(i, d), 0);
      EXPECT_TRUE(std::isfinite(a->problem->op_time(i, d)));
    }
  }
  EXPECT_EQ(sources, 4);
  Simulator sim(*a->problem);
  EXPECT_TRUE(std::isfinite(sim.makespan(Placement(1000, 1))));
  EXPECT_LT(sim.makespan(Placement(1000, 1)), sim.makespan(Placement(1000, 0)));
}

TEST(Synthetic, RejectsBadSizes) { EXPECT_THROW(make_synthetic_problem({.ops = 0}), Error); }

}  // namespace
}  // namespace devplace
