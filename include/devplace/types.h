// The values that cross devplace's public API: a placement, what it is judged by, how a placer
// is asked to work, and the verdict on a placement. Internal code uses the same types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace devplace {

// Device index for every op, indexed like the graph's ops (topological order; Workload::op_names).
using Placement = std::vector<int>;

// What a placement is judged by: our event simulator, or the latency model of Tarnawski et al.
// (contiguous accelerator sets, serial accelerators, unlimited CPU parallelism).
enum class Objective { simulator, tarnawski };

struct PlaceOptions {
  Objective objective = Objective::simulator;
  std::uint64_t seed = 1;
  double time_budget_s = 0;  // wall-clock budget for searches; 0 = the placer's default
  // Reward evaluations for searches and learned placers; 0 = the placer's default.
  std::int64_t eval_budget = 0;
  std::vector<std::string> device_priority;  // for hetero: device names in order; empty = cluster order
  // Learned placers that take one (hsdag, placeto): start from this trained policy file and
  // place zero-shot, or after fine_tune_episodes of training on the problem.
  std::string policy_file;
  int fine_tune_episodes = 0;
  // learned-moves rows: the move policy (learn/move_policy.h); empty = the shipped one.
  std::string move_policy_file;
  // Learned placers: training episodes and placements sampled per episode; 0 = the placer's
  // default (a set eval_budget decides the episodes instead).
  int episodes = 0;
  int samples = 0;
  // hsdag+polish: annealing evaluations after training; -1 = the preset's.
  std::int64_t polish_evals = -1;
};

// A placement judged in full under an objective: latency in seconds (+inf if infeasible) and,
// when infeasible, why.
struct Verdict {
  double latency = 0;
  bool feasible = true;
  std::string reason;
};

}  // namespace devplace
