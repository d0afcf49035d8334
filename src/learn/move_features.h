// Features of relocation moves on a complete placement, for devplace's learned move policy
// (learn/move_policy.h, after GiPH: a network that proposes improvements of a placement). A move
// sends one op to another device and keeps every other decision.
//
// The features come from the timeline of the placement: the reward's trace of it where the
// reward keeps one (the simulator's schedule of a placement it has evaluated: Reward::trace, no
// further evaluation), else the list scheduler's own estimate (learn/schedule_env.h replayed with
// the placement's decisions: HEFT's model without insertion). The trace ranks moves better: on
// held-out synthetic graphs the search with it ends 0.6-1.7% lower (docs/learned.md). Per move: the op's time on both devices, its slack in the
// estimated schedule (how late it may finish without delaying the end), how late it would be on
// the other device given where its producers and consumers are, the idle time of that device
// around it, both devices' load, the transfers it adds or saves, the fusion it breaks, memory,
// how much earlier the next op on its device could start without it and how much earlier its
// output would reach a critical consumer, and the size of what moves. A kernel's head also moves
// with the ops fused into it: moved alone, an op of a fused chain breaks the kernel and pays a
// transfer inside it.
// Nothing names an op or a device, so one trained scorer applies to any graph and cluster.
// Simulator objective only (moves would break Tarnawski's contiguity). Torch-free.
#pragma once

#include <vector>

#include "cost/cost_model.h"
#include "learn/schedule_env.h"
#include "sim/schedule.h"

namespace devplace {

struct Move {
  int op = -1, device = -1;
  bool whole = false;  // with every op fused into op's kernel on its device (fused_group)
  auto operator<=>(const Move&) const = default;
};

class MoveFeatures {
 public:
  static constexpr int kFeatures = 28;

  // REQUIRES: problem outlives this.
  explicit MoveFeatures(const Problem& problem);

  // Every move of a decision op to another device that runs it and can hold its weights (by the
  // weights already there; activations are the reward's to check), and of every kernel head with
  // the ops fused into it, into `moves`, and their
  // feature rows, [moves.size() x kFeatures] row-major, into `rows`. With `trace` (the reward's
  // timeline of this placement: Reward::trace) the op times come from it instead of the
  // estimate. REQUIRES a complete placement.
  void compute(const Placement& placement, std::vector<Move>& moves, std::vector<float>& rows,
               const Schedule* trace = nullptr);
  // The makespan of the placement last given to compute() (seconds), as its features saw it.
  double estimated_makespan() const { return makespan_; }

 private:
  const Problem& p_;
  ScheduleEnv env_;
  std::vector<int> position_;  // op -> its place in the decision order, -1 for constants
  double makespan_ = 0;
};

// `head` and the ops fused into its kernel on its device, transitively (head first; one op when
// nothing fuses into it).
std::vector<int> fused_group(const Problem& problem, const Placement& placement, int head);

// `placement` with every move applied, whole moves taking the fused group they have in
// `placement` (an op moved twice ends on its last move's device).
Placement apply_moves(const Problem& problem, const Placement& placement, const std::vector<Move>& moves);

}  // namespace devplace
