// One training run as a library call, the one path behind `devplace train`, the C++ API's
// train() and Python's: HSDAG, a learned peer (rnn, hierarchical, placeto) or the fine-tuning
// of devplace's learned placer on one graph, optionally with more graphs for one shared policy,
// on the simulator, the Tarnawski model or real measurements, and for measured rewards a final
// confirmation of the best placements. The CLI only parses flags into a TrainingRun and prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exec/measure.h"
#include "learn/hsdag/hsdag.h"
#include "learn/learned/list_policy.h"
#include "learn/peers/peers.h"

namespace devplace {

// What a training run trains: HSDAG, the fine-tuning of devplace's learned placer, or a learned
// peer (which one: TrainingRun::peer.algo).
enum class Learner { hsdag, learned, peer };
// "hsdag", "learned", or a peer's name ("rnn", "hierarchical", "placeto"; then *peer is set to
// it when given). Throws Error (not found) for another name.
Learner learner_from_name(const std::string& name, PeerMethod* peer = nullptr);

struct TrainingRun {
  Learner learner = Learner::hsdag;
  // learned: the pretrained policy to fine-tune (empty: the shipped one), updates of `samples`
  // placements each (the budget is updates x samples + 3 evaluations), seed.
  std::string learned_policy;
  int learned_updates = 3, learned_samples = 20;
  std::uint64_t learned_seed = 1;
  ListPolicyConfig::Tuning learned_tuning = ListPolicyConfig::Tuning::expert;
  std::string learned_save_policy;  // write the fine-tuned policy here (empty: not)
  HsdagConfig hsdag;  // Learner::hsdag
  PeerConfig peer;    // Learner::peer (peer.algo says which)
  Objective objective = Objective::simulator;
  // More graphs on the same cluster for one policy (hsdag, placeto); each is simulated.
  // REQUIRES: they outlive the call.
  std::vector<const Problem*> also;
  // Set: the reward is the measured median latency on this executor (hsdag and learned). REQUIRES: it
  // outlives the call.
  Executor* executor = nullptr;
  // Set instead of an executor: measurements made elsewhere (dist/replica_reward.h: replicas in
  // other processes, a batch of samples measured in parallel). REQUIRES: it outlives the call.
  Reward* remote_measurements = nullptr;
  MeasureOptions measure{1, 3, 5};
  // Measured rewards: re-measure the best few placements this many times each and keep the best
  // median (0 = keep the training's own best).
  int confirm_runs = 0;
  std::function<void(const EpisodeLog&)> on_episode;
};

struct Reconfirmed {
  std::vector<Placement> candidates;
  std::vector<double> seen;  // latency each had in training, seconds
  Confirmation confirmation;
};

struct TrainingOutcome {
  std::vector<TrainResult> results;  // per graph, the main one first
  // Measured rewards on the executor only (the remote reward keeps its own figures).
  long long measured_placements = 0;
  double measuring_seconds = 0;
  bool confirmed = false;  // results[0].best / best_latency come from the confirmation below
  Reconfirmed reconfirmed;
};

// Runs `run` on `problem`. Throws Error (naming the flag-level option) on a combination that
// cannot work: measured rewards with more graphs or the Tarnawski model, more graphs for a peer
// other than placeto.
// "expert" or "policy_gradient" (ListPolicyConfig::Tuning); throws Error (not found) otherwise.
ListPolicyConfig::Tuning tuning_from_name(const std::string& name);

// The checks run_training makes first, for callers that want them before setting up what
// measures (`measured`: the reward will be measured, on an executor or on replicas). Throws
// Error naming the options that do not go together.
void check_training_run(const TrainingRun& run, bool measured);

TrainingOutcome run_training(const Problem& problem, const TrainingRun& run);

}  // namespace devplace
