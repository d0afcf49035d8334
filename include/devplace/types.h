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

// Options of the hetero placer (OpenVINO HETERO's rule: each op on the first device in
// priority order that supports it).
struct HeteroOptions {
  std::vector<std::string> device_priority;  // device names in order; empty = the cluster's order
};

// Options of the learned placers: hsdag*, the peers (rnn, hierarchical, placeto) and learned*.
// 0, empty or -1 leaves the placer's own default, stated where the placer is defined: HSDAG's in
// learn/hsdag/hsdag.h (HsdagConfig: 1,000 episodes x 32 samples, stopping once settled; 5,000
// polish evaluations), the peers' in learn/peers/peers.h (PeerConfig: 100 x 20), devplace's
// learned placer's in learn/learned/learned_compositions.h (LearnedOptions: 64 evaluations,
// 2,000 for the rows that fine-tune) with the shipped policies under policies/.
struct LearnedPlacerOptions {
  // hsdag and placeto: start from this trained policy file and place zero-shot, or after
  // fine_tune_episodes of training on the problem; learned*: another list policy.
  std::string policy_file;
  int fine_tune_episodes = 0;
  std::string move_policy_file;  // learned-*moves rows: another move policy
  // Training episodes and placements sampled per episode (a set eval_budget decides the
  // episodes instead).
  int episodes = 0;
  int samples = 0;
  std::int64_t polish_evals = -1;  // hsdag+polish: annealing evaluations after training
};

class Reward;  // library-internal (src/place/reward.h): how a placement is evaluated

// How a placer is asked to work: what every placer reads, then one struct per family.
struct PlaceOptions {
  Objective objective = Objective::simulator;
  std::uint64_t seed = 1;
  // Reward evaluations of searches and learned placers; 0 = the placer's default (local search
  // 20,000; random-best 64; segment search 2,000; tarnawski-dp up to 200,000 by graph size).
  std::int64_t eval_budget = 0;
  // Wall-clock seconds for searches (local search, exact, tarnawski-dp); 0 = none, the
  // evaluation budget decides.
  double time_budget_s = 0;
  // What searches and learned placers evaluate placements with, and count them on (compare
  // passes a counting one); null: each makes its own for `objective`. Must judge under
  // `objective`. Not owned; outlives the call.
  Reward* reward = nullptr;
  HeteroOptions hetero;
  LearnedPlacerOptions learned;
};

// A placement judged in full under an objective: latency in seconds (+inf if infeasible) and,
// when infeasible, why.
struct Verdict {
  double latency = 0;
  bool feasible = true;
  std::string reason;
};

// One request to place a model: the placer's name and how it is asked to work.
struct PlaceRequest {
  // A placer's name (placer_names()), "<device>-only", or the shorthand "hsdag:POLICY[:N]" /
  // "placeto:POLICY[:N]" for options.policy_file and options.fine_tune_episodes.
  std::string algorithm = "local-search";
  PlaceOptions options;
  // On a cost table with an execution model fitted to measured runs, a placement no faster than
  // the best single device by more than the model's error (at least 5%) is replaced by that
  // device alone; true keeps the placer's placement.
  bool keep_placement = false;
};

// What placing produced: the placement, its verdict under the request's objective and its cost.
struct PlaceResult {
  std::string placer;  // the placer's own name for its row (e.g. "hsdag (zero-shot policy)")
  Placement placement;
  Verdict verdict;
  double seconds = 0;  // wall time of the placer
  // The fitted-model rule of PlaceRequest::keep_placement: the device that replaced the
  // placer's placement (-1: none did), the placer's own latency and the margin applied.
  int replaced_by_device = -1;
  double placer_latency = 0;
  double margin = 0;
};

}  // namespace devplace
