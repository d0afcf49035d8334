// The exact solver against brute force on tiny problems, and every heuristic against the exact
// solver on 20 seeded random problems (<= 12 ops, 2-3 devices); the gaps are printed. A
// DISABLED_ test prints solve times near the size limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "place/placer.h"
#include "place/reward.h"
#include "place/small_graphs.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

double brute_force(const Problem& p) {
  Simulator sim(p);
  const int n = p.num_ops(), D = p.num_devices();
  Placement pl(n, 0);
  double best = kInfeasibleTime;
  while (true) {
    best = std::min(best, sim.makespan(pl));
    int i = 0;
    for (; i < n && ++pl[i] == D; ++i) pl[i] = 0;
    if (i == n) return best;
  }
}

TEST(Exact, EqualsBruteForceOnTinyProblems) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    for (bool identical : {false, true}) {
      auto sp = make_small_problem({.ops = 6 + static_cast<int>(seed % 3),
                                    .devices = 2 + static_cast<int>(seed % 2),
                                    .seed = seed,
                                    .identical_devices = identical});
      const Problem& p = *sp->problem;
      const double opt = Simulator(p).makespan(make_exact_placer()->place(p, {}));
      EXPECT_DOUBLE_EQ(opt, brute_force(p)) << "seed " << seed << (identical ? " identical" : "");
    }
  }
}

TEST(Exact, NeverBeatenByAHeuristic) {
  std::vector<std::string> names = {"hetero", "round-robin", "random", "heft",        "m-topo",
                                    "m-etf",  "m-sct",       "metis",  "local-search"};
  std::map<std::string, std::vector<double>> gaps;  // percent above the optimum
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto sp = make_small_problem(
        {.ops = 8 + static_cast<int>(seed % 5), .devices = 2 + static_cast<int>(seed % 2), .seed = 100 + seed});
    const Problem& p = *sp->problem;
    Simulator sim(p);
    PlaceOptions o;
    o.seed = seed;
    const double opt = sim.makespan(make_exact_placer()->place(p, o));
    ASSERT_TRUE(std::isfinite(opt));
    const double lb = makespan_lower_bound(p);
    EXPECT_GE(opt, lb * (1 - 1e-12));
    auto check = [&](const std::string& name, const Placement& pl) {
      const double m = sim.makespan(pl);
      EXPECT_TRUE(std::isfinite(m)) << name << " seed " << seed;
      EXPECT_GE(m, lb * (1 - 1e-12)) << name << " seed " << seed;
      EXPECT_LE(opt, m * (1 + 1e-12)) << name << " beat the optimum, seed " << seed;
      gaps[name].push_back(100 * (m / opt - 1));
    };
    for (int d = 0; d < p.num_devices(); ++d) check("single-device", Placement(p.num_ops(), d));
    for (const auto& name : names) {
      Placement pl;
      try {
        pl = make_placer(name)->place(p, o);
      } catch (const Error&) {
        continue;  // not landed yet
      }
      check(name, pl);
    }
  }
  for (auto& [name, g] : gaps) {
    double mean = 0;
    for (double x : g) mean += x;
    std::printf("  gap to optimum %-14s mean %6.2f%%  max %6.2f%%  (%zu runs)\n", name.c_str(), mean / g.size(),
                *std::max_element(g.begin(), g.end()), g.size());
  }
}

TEST(Exact, RefusesLargeGraphs) {
  auto sp = make_small_problem({.ops = 25, .devices = 2, .seed = 1});
  EXPECT_THROW(make_exact_placer()->place(*sp->problem, {}), Error);
}

TEST(Exact, SolvesTwentyOpsOnThreeDevices) {
  auto sp = make_small_problem({.ops = 20, .devices = 3, .seed = 7});
  const Problem& p = *sp->problem;
  Simulator sim(p);
  const double opt = sim.makespan(make_exact_placer()->place(p, {}));
  PlaceOptions o;
  o.eval_budget = 20000;
  EXPECT_LE(opt, sim.makespan(make_local_search_placer()->place(p, o)) * (1 + 1e-12));
}

// Solve times near the size limit, for the record: run with --gtest_also_run_disabled_tests.
TEST(Exact, DISABLED_SolveTimes) {
  for (int n : {16, 20, 24})
    for (int D : {2, 3})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        auto sp = make_small_problem({.ops = n, .devices = D, .seed = seed});
        const auto t0 = std::chrono::steady_clock::now();
        make_exact_placer()->place(*sp->problem, {});
        std::printf("  %2d ops, %d devices, seed %d: %.3f s\n", n, D, static_cast<int>(seed),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
}

TEST(Exact, TarnawskiObjectiveByEnumeration) {
  auto sp = make_small_problem({.ops = 8, .devices = 2, .seed = 4});
  const Problem& p = *sp->problem;
  const std::unique_ptr<Reward> reward = make_reward(p, Objective::tarnawski);
  ObjectiveFn score = score_with(*reward);
  PlaceOptions o;
  o.objective = Objective::tarnawski;
  const Placement pl = make_exact_placer()->place(p, o);
  Placement all(p.num_ops(), 0);
  double best = kInfeasibleTime;
  for (int mask = 0; mask < (1 << p.num_ops()); ++mask) {
    for (int i = 0; i < p.num_ops(); ++i) all[i] = (mask >> i) & 1;
    best = std::min(best, score(all));
  }
  EXPECT_DOUBLE_EQ(score(pl), best);
  o.eval_budget = 2000;
  EXPECT_LE(best, score(make_local_search_placer()->place(p, o)));
  EXPECT_LE(best, score(make_metis_placer()->place(p, o)));
}

}  // namespace
}  // namespace devplace
