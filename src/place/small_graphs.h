// Small random placement problems for tests and for checking heuristics against the exact
// solver: seeded layered DAGs of a few ops whose op times (per device) and tensor transfer
// costs come from a CostTable, on a cluster of one host cpu and some accelerators. Everything
// is a pure function of the options, so a failing seed can be replayed.
#pragma once

#include <cstdint>
#include <memory>

#include "cost/cost_model.h"

namespace devplace {

struct SmallProblemOptions {
  int ops = 10;     // op count, >= 1
  int devices = 2;  // device count, >= 1: "cpu" (host) then "gpu0", "gpu1" ...
  std::uint64_t seed = 1;
  int max_width = 3;               // ops per layer are drawn from 1..max_width
  bool identical_devices = false;  // every device gets the same op times and kind "cpu"
};

// A Problem with the Graph and CostTable it refers to; not movable (the Problem keeps a
// reference to `graph`), hence handed out by pointer.
struct SmallProblem {
  Graph graph{"small"};
  CostTable costs;
  std::unique_ptr<Problem> problem;
};

// Op times are milliseconds-scale seconds (1e-3 .. 1e-2 on the host; each accelerator is
// 0.2x .. 2x of that per op); transfers 0.2e-3 .. 4e-3 per host crossing.
std::unique_ptr<SmallProblem> make_small_problem(const SmallProblemOptions& options);

}  // namespace devplace
