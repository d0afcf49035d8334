// devplace's own learned placer ("learned"): a policy that chooses each op's device in a list
// scheduler (learn/learned/schedule_env.h), scoring every (op, device) pair with one shared network
// from features of the partial schedule. It learns in two stages on a corpus of graphs and
// clusters: imitation (of the rollout choice, ScheduleEnv::rollout_device, or of a classical
// placer's placements where they are faster), then clipped policy gradient on the simulator's
// makespan. Because nothing it sees names an op or a device, one trained policy places any graph
// on any cluster (zero-shot) and can be fine-tuned on one graph with a given number of reward
// evaluations. docs/design/learned.md has the design and figures.
// Torch-free header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "learn/rl/policy_gradient.h"
#include "place/reward.h"
#include "sim/schedule.h"

namespace devplace {

struct ListPolicyConfig {
  int hidden = 64;               // width of the scorer's two hidden layers
  int samples = 16;              // placements per update
  double lr = 1e-3;              // Adam, both stages
  int imitation_iterations = 0;  // updates imitating the rollout choice (ScheduleEnv::rollout_device)
  // When set, the imitation stage imitates instead, per problem, the better of the
  // rollout placement and this classical placer's (e.g. local-search, tarnawski-dp) with
  // imitation_budget evaluations (0: its default): the policy first learns placements a search
  // found good, not the list scheduler's choices.
  std::string imitation_placer;
  long long imitation_budget = 0;
  int iterations = 0;            // policy-gradient updates
  // Expert iteration after policy gradient: each update searches one problem with the policy
  // (limited-discrepancy decoding, expert_budget rollouts), keeps the best placement ever found for
  // it and takes expert_steps imitation steps towards that placement's decisions (in proportion
  // to the evaluations the search spent, at least one).
  int expert_iterations = 0;
  int expert_budget = 32;
  int expert_steps = 1;
  // How fine_tune_list_policy learns on its one problem: expert iteration (each update a search
  // with the policy of `samples` evaluations, then tune_steps imitation steps towards the best
  // placement found so far, fewer in proportion where the search spent less; it stops once a
  // search has no change left to try), or clipped policy gradient on `samples` sampled placements. Expert
  // iteration is the default: the tuned policy's own placement ends at or near the best placement
  // it found (docs/results/2026-12-04-learned-placer.md compares the two).
  enum class Tuning { expert, policy_gradient } tuning = Tuning::expert;
  int tune_steps = 16;
  PolicyGradientOptions pg;
  double infeasible_penalty = 1;
  // The latency model training decides and is rewarded under (train_list_policy; fine-tuning
  // takes it from its Reward).
  Objective objective = Objective::simulator;
};

// One line of a training log.
struct ListTrainingStep {
  int iteration = 0;
  std::string graph;
  double mean_latency = 0, best_latency = 0, greedy_latency = 0;  // seconds
  double reference = 0;                                           // best single device, seconds
  double entropy = 0, loss = 0;
  enum class Stage { imitation, policy_gradient, expert } stage = Stage::policy_gradient;
};

// "imitation", "rl" or "expert", as training logs name the stages.
const char* stage_name(ListTrainingStep::Stage stage);

class ListPolicy {
 public:
  // context > 0: a network of that width also reads the graph around each op (message passing
  // over producers and consumers from static op features) and the scorer sees its vector.
  explicit ListPolicy(int hidden = 64, std::uint64_t seed = 1, int context = 0);
  ~ListPolicy();
  ListPolicy(ListPolicy&&) noexcept;
  ListPolicy& operator=(ListPolicy&&) noexcept;

  // Throws Error naming the file when it is not a list-policy archive.
  static ListPolicy load(const std::string& path);
  void save(const std::string& path) const;  // atomically

  // The policy's own placement: the most likely device at every decision. No evaluation.
  // Under Objective::tarnawski every placement is feasible by construction (schedule_env.h).
  Placement greedy(const Problem& problem, Objective objective = Objective::simulator) const;
  // `count` placements: the greedy one first, then samples drawn with `seed`.
  std::vector<Placement> sample(const Problem& problem, int count, std::uint64_t seed,
                                Objective objective = Objective::simulator) const;

  // Limited-discrepancy decoding: the policy's own placement, then rollouts that each take the
  // second most likely device at one decision where the policy was least sure (the highest
  // probability of another device) and decide greedily after it, so later decisions adapt. In
  // `rounds` rounds, each from the best placement so far (or, when a round found nothing better,
  // at the next most doubtful decisions; once every single change is tried, pairs of them). At
  // most `budget` evaluations of `reward`; the best. rounds <= 0: rounds of 16 rollouts, at least
  // 2. Under Tarnawski's model about one rollout in four instead moves a run of 4, 16 or 64
  // decisions (units in topological order) to one device (in turn the second most likely one and
  // the host), keeping the incumbent's other decisions; from 1,000 evaluations
  // (with rounds <= 0) half the budget searches from the policy's own placement and half from the
  // best start that leaves the first 2, 4, 8, ... decisions on the host.
  Placement decode_with_discrepancies(const Problem& problem, Reward& reward, int budget, int rounds = 0,
                                      Objective objective = Objective::simulator) const;

  struct Impl;

 private:
  friend struct ListPolicyTraining;  // the trainers (list_policy.cc) reach the network
  std::unique_ptr<Impl> impl_;
};

// Trains `policy` on `corpus` (round-robin, a fresh order each pass): config.imitation_iterations
// updates of imitation, then config.iterations of policy gradient, then config.expert_iterations
// of expert iteration, under config.objective (the simulator, or Tarnawski's model with its
// feasibility mask). `on_step` sees every update.
// Scoped LibTorch state (TorchScope).
void train_list_policy(ListPolicy& policy, const std::vector<const Problem*>& corpus, const ListPolicyConfig& config,
                       std::uint64_t seed, const std::function<void(const ListTrainingStep&)>& on_step = {});

struct ListTuneResult {
  Placement policy;  // the fine-tuned policy's own (greedy) placement
  Placement best;    // the best placement evaluated (greedy ones included)
  double policy_latency = 0, best_latency = 0;
  long long evaluations = 0;  // reward evaluations spent, references and the final greedy included
};

// Fine-tunes `policy` on one problem with at most `budget` reward evaluations (one per device for
// the single-device references, config.samples per update, one for the final greedy placement),
// deciding under reward.objective(), by config.tuning.
ListTuneResult fine_tune_list_policy(ListPolicy& policy, const Problem& problem, Reward& reward, long long budget,
                                     const ListPolicyConfig& config, std::uint64_t seed,
                                     const std::function<void(const ListTrainingStep&)>& on_update = {});

// The pretrained policy shipped with devplace for `objective`: policies/learned.pt, or
// policies/learned-tarnawski.pt (trained under Tarnawski's model), under home_dir().
std::string default_list_policy_path(Objective objective = Objective::simulator);

}  // namespace devplace
