#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "cost/cluster.h"
#include "io/model.h"
#include "place/placer.h"
#include "place/small_graphs.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

// The best score among the placers local search starts from.
double best_start(const Problem& p, const PlaceOptions& o) {
  Simulator sim(p);
  double best = kInfeasibleTime;
  for (int d = 0; d < p.num_devices(); ++d) best = std::min(best, sim.makespan(Placement(p.num_ops(), d)));
  for (const char* name : {"hetero", "round-robin", "heft", "m-etf", "metis"}) {
    try {
      best = std::min(best, sim.makespan(make_placer(name)->place(p, o)));
    } catch (const Error&) {
    }
  }
  return best;
}

TEST(LocalSearch, NoWorseThanItsStartFeasibleAndAboveTheBound) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto sp = make_small_problem(
        {.ops = 12 + static_cast<int>(seed), .devices = 2 + static_cast<int>(seed % 2), .seed = seed});
    const Problem& p = *sp->problem;
    PlaceOptions o;
    o.seed = seed;
    o.eval_budget = 3000;
    const double m = Simulator(p).makespan(make_local_search_placer()->place(p, o));
    ASSERT_TRUE(std::isfinite(m)) << "seed " << seed;
    EXPECT_GE(m, makespan_lower_bound(p) * (1 - 1e-12)) << "seed " << seed;
    EXPECT_LE(m, best_start(p, o) * (1 + 1e-12)) << "seed " << seed;
  }
}

TEST(LocalSearch, SameSeedSamePlacement) {
  auto sp = make_small_problem({.ops = 30, .devices = 3, .seed = 5});
  PlaceOptions o;
  o.seed = 42;
  o.eval_budget = 2000;
  EXPECT_EQ(make_local_search_placer()->place(*sp->problem, o), make_local_search_placer()->place(*sp->problem, o));
}

TEST(LocalSearch, StopsAtTheTimeBudget) {
  auto sp = make_small_problem({.ops = 40, .devices = 3, .seed = 2});
  PlaceOptions o;
  o.time_budget_s = 0.2;
  const auto t0 = std::chrono::steady_clock::now();
  Placement pl = make_local_search_placer()->place(*sp->problem, o);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 1.0);
  EXPECT_TRUE(std::isfinite(Simulator(*sp->problem).makespan(pl)));
}

TEST(LocalSearch, KeepsOpsOffDevicesThatCannotRunThem) {
  auto sp = make_small_problem({.ops = 12, .devices = 2, .seed = 9});
  // Op 3 runs on the cpu only.
  sp->costs.op_time["op3"].erase("gpu0");
  Problem p(sp->graph, sp->problem->cluster(), &sp->costs);
  PlaceOptions o;
  o.eval_budget = 2000;
  Placement pl = make_local_search_placer()->place(p, o);
  EXPECT_EQ(pl[sp->graph.find_op("op3")], 0);
  EXPECT_TRUE(std::isfinite(Simulator(p).makespan(pl)));
}

// Measurements for the report, not a check: run with --gtest_also_run_disabled_tests.
TEST(LocalSearch, DISABLED_BundledModelsOnThePaperCluster) {
  for (const char* model : {"resnet50", "inception_v3", "bert_base"}) {
    Model m = load_model(model);
    Problem p(m.graph, load_cluster("paper"));
    Simulator sim(p);
    std::printf("%s (%d ops): lower bound %.3f ms\n", model, p.num_ops(), makespan_lower_bound(p) * 1e3);
    for (int d = 0; d < p.num_devices(); ++d)
      std::printf("  %-14s %8.3f ms\n", (p.cluster().devices[d].name + "-only").c_str(),
                  sim.makespan(Placement(p.num_ops(), d)) * 1e3);
    struct Run {
      const char* name;
      std::int64_t evals;
    };
    for (Run r :
         {Run{"heft", 0}, Run{"m-etf", 0}, Run{"metis", 0}, Run{"local-search", 20000}, Run{"local-search", 100000}}) {
      PlaceOptions o;
      o.eval_budget = r.evals;
      const auto t0 = std::chrono::steady_clock::now();
      Placement pl;
      try {
        pl = make_placer(r.name)->place(p, o);
      } catch (const Error& e) {
        std::printf("  %-14s %s\n", r.name, e.what());
        continue;
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      int on[8] = {0};
      for (int d : pl) ++on[d];
      std::printf("  %-14s %8.3f ms  %6.2f s  evals %-7lld ops per device %d / %d\n", r.name, sim.makespan(pl) * 1e3, s,
                  static_cast<long long>(r.evals), on[0], on[1]);
    }
  }
}

}  // namespace
}  // namespace devplace
