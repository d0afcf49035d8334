// The learned peers of HSDAG, on the same trainer plumbing (Reward, seeds, progress callback,
// EpisodeLog / TrainResult, checkpoints) so that a comparison differs only in the method:
//   rnn           Mirhoseini et al. 2017: co-location groups (coarsen()) read in topological
//                 order by a seq2seq LSTM whose attention decoder emits one device per group;
//                 REINFORCE, reward -sqrt(normalised latency), advantages centred on the
//                 batch (policy_gradient.h).
//   hierarchical  Mirhoseini et al. 2018: a feed-forward Grouper samples one of `groups`
//                 groups per op, the same seq2seq Placer places the groups; trained jointly
//                 (the sum of both log-probabilities).
//   placeto       Addanki et al. 2019: a GNN over the coarse DAG whose node inputs include the
//                 current placement; an MDP visits the nodes once in topological order (one
//                 sweep = one episode of the MDP = one "sample") and picks a device for each;
//                 reward = the drop in simulated latency after every step, per-step baselines.
//                 The policy does not depend on the graph size, so it can be trained on several
//                 graphs and applied to an unseen one (save_policy / init_policy).
// Budget: episodes x samples = sampled placements, for every algorithm (a Placeto sample is a
// full sweep; it also evaluates the intermediate placement after each step, G per sweep).
// Latencies are normalised by the best single-device latency, so rewards are unitless and
// comparable across graphs; an infeasible placement costs 1 + overflow_penalty * (1 + overflow
// / total weight bytes) more, as in HSDAG. The best placement kept is always feasible when any
// feasible one was seen. This header is LibTorch-free; the networks live in peers_net.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "learn/representation/coarsen.h"
#include "learn/representation/features.h"
#include "learn/rl/training_result.h"
#include "place/reward.h"
#include "place/placer.h"

namespace devplace {

// The learned peers of HSDAG (docs/design/peers.md).
enum class PeerMethod { rnn, hierarchical, placeto };
// "rnn", "hierarchical", "placeto"; peer_method throws Error (not found) for another name.
const char* peer_method_name(PeerMethod method);
PeerMethod peer_method(const std::string& name);

struct PeerConfig {
  PeerMethod algo = PeerMethod::rnn;
  int hidden = 64;
  // rnn and placeto: at most this many decision groups (consecutive co-location groups merged,
  // see cap_groups); attention and per-group steps make larger counts quadratic in memory/time.
  int max_groups = 256;
  int groups = 16;  // hierarchical: groups the Grouper chooses from
  int rounds = 2;   // placeto: message-passing rounds in each direction
  double lr = 3e-3;
  int episodes = 100;
  int samples = 20;               // placements (Placeto: sweeps) sampled per episode
  // placeto: when set, training stops before an episode whose sweeps (each step evaluated, at
  // worst) could take the evaluations, the greedy answer's included, past this budget.
  std::int64_t eval_budget = 0;
  double entropy_weight = 0.01;   // per decision (the entropy is summed over decisions)
  double baseline_decay = 0.9;    // placeto: moving average of each step's return
  double advantage_floor = 0.02;  // rewards are centred on the batch and divided by max(spread, this)
  double gamma = 0.95;            // placeto: discount of the per-step improvements
  double overflow_penalty = 1.0;
  std::uint64_t seed = 1;
  // The same decision units and features as HSDAG's default preset, so the comparison differs
  // in the method only. The cost block is cluster-width (2 + devices), so a Placeto policy
  // applies to any graph on the same cluster.
  FeatureOptions features = [] {
    FeatureOptions f;
    f.cost = true;
    return f;
  }();
  CoarsenOptions coarsen = [] {
    CoarsenOptions c;
    c.chains_only = true;
    return c;
  }();
  // Bookkeeping, as in HsdagConfig.
  std::string checkpoint_dir;  // empty: no checkpoints
  int checkpoint_every = 5;
  bool resume = false;
  int stop_after = 0;
  std::string init_policy;  // placeto: start from these weights (zero-shot / fine-tuning)
  std::string save_policy;  // placeto: write the trained weights here
};

// Applies "key=value" (hidden, groups, rounds, lr, episodes, samples, entropy, baseline_decay,
// gamma, overflow_penalty, chains, merge, colocate); throws Error on a bad key or value.
void apply_peer_override(PeerConfig& config, const std::string& assignment);

// The same fields as HSDAG's: the policy's own (greedy) placement, the best sampled, their cost.
struct PeerResult : TrainResult {};

// Trains config.algo on `reward`: the greedy placement, the best sampled, and the better one.
// episodes may be 0: the result is then the untrained (or, with init_policy, the loaded)
// policy's greedy placement, e.g. zero-shot. Throws Error on a bad config, a corrupt
// checkpoint or a policy made for another cluster or shape.
PeerResult train_peer(const Problem& problem, Reward& reward, const PeerConfig& config,
                      const std::function<void(const EpisodeLog&)>& on_episode = {});

// Placeto on several graphs (same cluster): episode e trains on tasks[e % tasks.size()].
// Returns one result per task (its best and greedy placements; log entries are shared).
std::vector<PeerResult> train_placeto_multi(const std::vector<RewardTask>& tasks, const PeerConfig& config,
                                            const std::function<void(const EpisodeLog&)>& on_episode = {});

// A Placer that trains config.algo on the placer's objective and returns the policy's own placement.
std::unique_ptr<Placer> make_peer_placer(PeerConfig config);

}  // namespace devplace
