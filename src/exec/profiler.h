// Profiler: measures a graph on an execution cluster and writes what it measured as a
// CostTable (cost/cost_table.h), so that every command's `--costs` calibrates the simulator
// to this machine. Torch-free; uses the Executor.
#pragma once

#include <functional>

#include "cost/cluster.h"
#include "cost/cost_table.h"
#include "exec/executor.h"

namespace devplace {

struct ProfileOptions {
  int runs = 5;  // timed runs per worker (after one warm-up); the table keeps medians
  // Called after each round (0-based) with the executor idle: a validation that must see the
  // same machine as the profile runs its placements here (devplace profile --validate).
  std::function<void(int round)> after_round;
};

// Op times: every op on each worker of `executor` (all ops on that worker), in rounds over the
// workers so that each sees the same machine; the median over `runs` rounds, keyed by
// the device names of `cluster` (worker i = device i). Transfers: the time to copy each tensor
// between workers 0 and 1 as the scheduler does it (copy + wake-up), the mean of both
// directions; left out with a single worker. Folded ops (Constant) get 0.
// REQUIRES executor.num_workers() == cluster.num_devices().
CostTable profile_costs(Executor& executor, const Graph& graph, const Cluster& cluster, const ProfileOptions& options);

}  // namespace devplace
