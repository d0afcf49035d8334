// Features of relocation moves on a complete placement, for devplace's learned move policy
// (learn/learned/move_policy.h, after GiPH: a network that proposes improvements of a placement). A move
// sends one op to another device and keeps every other decision.
//
// The features come from the timeline of the placement: the reward's trace of it where the
// reward keeps one (the simulator's schedule of a placement it has evaluated: Reward::trace, no
// further evaluation), else the list scheduler's own estimate (learn/learned/schedule_env.h replayed with
// the placement's decisions). The trace ranks moves better: it is
// the timeline the reward itself computed. Per move: the op's time on both devices, its slack in
// the estimated schedule (how late it may finish without delaying the end), how late it would be on
// the other device given where its producers and consumers are, the idle time of that device
// around it, both devices' load, the transfers it adds or saves, the fusion it breaks, memory,
// how much earlier the next op on its device could start without it and how much earlier its
// output would reach a critical consumer, and the size of what moves. A kernel's head also moves
// with the ops fused into it: moved alone, an op of a fused chain breaks the kernel and pays a
// transfer inside it. The head of a chain (a path whose every link is its tail's only consumer
// and its head's only producer, weights aside: an Inception tower, a run of elementwise ops) also
// moves with the whole chain on its device: moved one kernel at a time, each step of it pays two
// transfers that the whole move does not. And an island (the ops connected through edges that
// stay on one device) moves whole from its first op: merging two devices' regions, or emptying a
// device, takes one move instead of many that each add transfers. And every op moves with the
// next 3 or 7 ops along its data's main path (each time the consumer that gets the most bytes):
// an attention's core (transposes, scores, mask, softmax, weighted sum) moves as one.
// Nothing names an op or a device, so one trained scorer applies to any graph and cluster.
// Simulator objective only (moves would break Tarnawski's contiguity). Torch-free.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "learn/learned/schedule_env.h"
#include "sim/schedule.h"

namespace devplace {

// What a move takes along with its op.
enum class MoveUnit : std::uint8_t {
  op,      // the op alone
  kernel,  // every op fused into op's kernel on its device (fused_group)
  chain,   // the chain op heads on its device (chain_group)
  island,  // every op connected to op through ops on its device (island_group)
  path4,   // op and the next 3 ops along its data's main path on its device (path_group)
  path8,   // the same, 8 ops
};

struct Move {
  int op = -1, device = -1;
  MoveUnit unit = MoveUnit::op;
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
  std::vector<int> position_;  // op -> its place in the last placement's decision order, -1 for constants
  double makespan_ = 0;
};

// `head` and the ops fused into its kernel on its device, transitively (head first; one op when
// nothing fuses into it).
std::vector<int> fused_group(const Problem& problem, const Placement& placement, int head);

// The op after `op` in its chain: its only consumer, when that is on its device and has `op` as
// its only producer (folded constants aside); else -1.
int chain_successor(const Problem& problem, const Placement& placement, int op);

// `head` and the ops after it in its chain (chain_successor), head first, at most 64 ops.
std::vector<int> chain_group(const Problem& problem, const Placement& placement, int head);

// `head` and every op connected to it through edges between ops on its device, folded
// constants aside (head first, then by name).
std::vector<int> island_group(const Problem& problem, const Placement& placement, int head);

// `head` and the ops after it along the main path of its data on its device: each step to the
// consumer on that device (folded constants aside) that reads the most bytes from the op before
// (ties by name); `length` ops at most.
std::vector<int> path_group(const Problem& problem, const Placement& placement, int head, int length);

// The ops `move` moves on `placement`, its op first.
std::vector<int> moved_ops(const Problem& problem, const Placement& placement, const Move& move);

// `placement` with every move applied, each taking the ops it moves on `placement` (moved_ops;
// an op moved twice ends on its last move's device).
Placement apply_moves(const Problem& problem, const Placement& placement, const std::vector<Move>& moves);

}  // namespace devplace
