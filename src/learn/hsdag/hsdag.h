// HSDAG (Duan et al., NeurIPS 2024): a structure-aware learned placer. The graph is coarsened,
// each coarse node gets features, a GCN embeds them, graph-parsing pooling splits the graph
// into a learned number of groups, and a policy picks a device per group; a policy gradient
// (policy_gradient.h: batch-centred advantages, clipped steps, a decaying entropy bonus) trains
// it end to end on a Reward.
// This header is LibTorch-free; the network lives in hsdag_net.h (learn/ only).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "learn/representation/coarsen.h"
#include "learn/representation/features.h"
#include "learn/rl/policy_gradient.h"
#include "learn/rl/training_result.h"
#include "place/reward.h"
#include "place/placer.h"

namespace devplace {

// A default-constructed HsdagConfig is the "default" preset (ours; docs/design/hsdag.md says why
// each setting); hsdag_preset("paper") is the released configuration.
struct HsdagConfig {
  // Network.
  int hidden = 64;
  int gcn_layers = 2;
  int pool_gcn_layers = 1;      // GCN layers on the pooled graph, per parsing level
  int pool_levels = 1;          // graph-parsing levels
  double edge_threshold = 0.5;  // a dominant edge merges only if its score exceeds this
  // true: an edge merges only when it is the dominant edge of both its ends (groups at most
  // double per level, so a level can never collapse a chain into one group); false: every
  // node's dominant edge merges, as in Graph Parsing Networks.
  bool mutual_dominance = true;
  double dropout = 0.0;
  // Beyond the paper: each coarse node's device logits add its own term to its group's, so
  // a group is a strong prior rather than a hard tie (false = the paper's per-group policy).
  bool node_policy = true;
  // Training.
  double lr = 1e-3;
  int episodes = 1000;
  int samples = 32;  // placements sampled per episode
  // Advantages, clipped steps, entropy schedule: the bonus (0.1 per decision at first) adapts
  // so that the entropy per decision falls linearly from the untrained policy's to 0 over 60%
  // of the run (EntropyBonus), 8 clipped steps per batch, lr falling to 10%, stop once settled
  // (the entropy per decision under 0.001, or the batches within 0.1% of the best sampled
  // latency, for 20 episodes once the target is 0).
  PolicyGradientOptions pg{.advantage_floor = 0.02,
                           .entropy_start = 0.1,
                           .entropy_end = 0.0,
                           .entropy_decay_share = 0.6,
                           .update_epochs = 8,
                           .lr_end_share = 0.1,
                           .settled_entropy = 1e-3,
                           .settled_gap = 1e-3,
                           .patience = 20,
                           .entropy_target = true,
                           .entropy_gain = 2.0};
  // Beyond the paper: a batch's steps are undone when the policy, as the stepped network
  // regroups the graph, moved more than this mean KL per coarse node from the one sampled
  // (the clip sees only the batch's grouping); 0 = off (the paper).
  double reparse_kl = 0.1;
  // Beyond the paper (chained_decisions.h): every coarse node decides given its main parent's
  // device, with this log-odds bonus for staying on it, so samples are regions on one device
  // rather than independent choices; the policy's own placement is the most likely joint one
  // (with learned sibling or join terms, the more likely of two in-order decodings:
  // chained_decisions.h).
  // With D devices and no preference, a node stays with probability e^stay / (e^stay + D - 1)
  // (0.88 on two devices). 0 = off (independent decisions, the paper's). Not under a
  // feasibility mask (the Tarnawski objective), which decides node by node.
  double stay = 2;
  // Beyond the paper: each node's stay bonus is `stay` plus a term the network learns from the
  // node's embedding (0 at first), so that the policy can learn to keep a region together on
  // whichever device its parent drew. With a fixed bonus it can only do that by favouring one
  // named device at every node, and on alike devices (four alike GPUs) regions then settle on
  // different ones. false: the fixed bonus.
  bool learn_stay = true;
  // Beyond the paper: each node also sees how many of its earlier siblings (nodes with the same
  // main parent) drew each device, weighted by a term the network learns from its embedding (0
  // at first). A negative term spreads parallel branches (an inception module's, attention's
  // heads) over alike devices, which decisions given only the parent cannot coordinate.
  // false: decisions see only the parent.
  bool learn_siblings = true;
  // Beyond the paper: each node also sees how many of its other inputs (predecessors besides the
  // main parent: a residual add's shortcut, a concatenation's other branches) drew each device,
  // weighted by a term the network learns from its embedding (0 at first), so a join can follow
  // whichever of its inputs it should. false: a join sees only its main parent.
  bool learn_joins = true;
  RewardKind reward = RewardKind::speedup;  // policy_gradient.h: speed-up over the best single device, or 1 ms / latency
  double overflow_penalty = 1.0;   // infeasible: reward -this * (1 + Evaluation::violation)
  // Under the Tarnawski objective, sample only feasible placements: coarse nodes decide in
  // topological order, each from its group's distribution restricted to the devices that keep
  // the placement feasible (contiguity_mask.h). Off: infeasible samples are ranked instead.
  bool feasibility_mask = true;
  // Under the Tarnawski objective, every single-predecessor chain is one decision unit (the
  // preset's units otherwise): an accelerator's ops must form a contiguous set there, so a chain
  // is the natural unit, kept whole by one decision.
  bool chains_under_contiguity = true;
  // Beyond the paper: the untrained policy's probability of the best single device at every
  // unit (the others share the rest), as Placeto starts from that device. 0 = no lean (the
  // default); 0.5 changes nothing on two devices and starts many-device clusters half on the
  // best one.
  double start_share = 0;
  // Beyond the paper (DOPPLER's first stage imitates a list scheduler): before the policy
  // gradient, the untrained policy learns to give the better of HEFT's placement and the best
  // single device `imitate_share` probability at every coarse node, in `imitate_steps` steps
  // (HEFT's placement costs one evaluation). Simulator objective only; off: 0 steps.
  int imitate_steps = 0;
  double imitate_share = 0.9;
  // Beyond the paper (learning from a demonstration): when HEFT's placement is faster than the
  // best single device by more than demonstration_margin, the last placement of every batch is
  // HEFT's as the decision units group the graph (each unit its nodes' majority device), scored
  // with the batch; the clipped steps pull the policy towards it while it beats the batch's mean
  // and leave it alone after (self-imitation's rule). A HEFT no better than one device would
  // only pull towards that device. It is re-evaluated only when the grouping changes it and is
  // never the policy's sample. One graph only (not train_hsdag_multi).
  bool demonstration = false;
  double demonstration_margin = 0.05;
  // Beyond the paper (self-imitation, Oh et al. 2018): once the entropy target reaches zero
  // (pg.entropy_decay_share of the episodes), the demonstration is the best placement the policy
  // has sampled so far (or HEFT's, with `demonstration`, while that is faster), by the same rule.
  // It is known already and costs no evaluation, and it keeps a policy from settling above the
  // best it found; earlier, it would end the exploration. Simulator objective, no feasibility mask.
  bool imitate_best = true;
  // Beyond the paper (relocation proposals, as GiPH's moves): while imitating the best sampled,
  // this share of each batch (rounded down; the policy keeps at least one sample) is the
  // demonstration (the best sampled, or HEFT's while faster) with one coarse node moved: the
  // nodes in an order shuffled by the seed, round and round, each to a device drawn by the
  // policy's probabilities among the others. They compete for the best sampled (which the policy
  // then imitates) with zero advantage in the update, so that a policy sure of its answer still
  // tries every single move from it, and a policy counts as settled only after as many settled
  // episodes as moving every node once takes. Chained decisions only; 0 = off.
  double relocation_share = 0.25;
  std::uint64_t seed = 1;
  // Beyond the paper: after training, improve the best placement by single-op moves for at
  // most this many evaluations (0 = off; reported separately from the pure policy).
  int refine_evals = 5000;
  FeatureOptions features{.cost = true};
  // Every op its own decision unit (zero-cost ops co-located); pooling works on chains.
  CoarsenOptions coarsen{.merge_single_predecessor = false, .chains_only = true};
  // Bookkeeping.
  std::string checkpoint_dir;  // empty: no checkpoints
  int checkpoint_every = 5;    // episodes
  bool resume = false;
  int stop_after = 0;  // stop after this many episodes in this run (tests); 0 = no limit
  // Generalisation (beyond the paper): start from a trained policy's weights (with episodes 0:
  // zero-shot), and write the trained weights. A policy fits any graph placed on a cluster
  // with as many devices, under the same features and network sizes (checked on load).
  std::string init_policy;
  std::string save_policy;
};

// The configuration training on `objective` uses: `config` with chains_under_contiguity applied.
HsdagConfig hsdag_config_for(HsdagConfig config, Objective objective);

// "paper": the released configuration; "default": ours (docs/design/hsdag.md, "Presets").
HsdagConfig hsdag_preset(const std::string& name);
// Applies "key=value" (e.g. "lr=0.003", "levels=2", "merge=false"); throws Error on a bad key.
void apply_hsdag_override(HsdagConfig& config, const std::string& assignment);

// Trains on `reward` and returns the policy's own placement, the best it sampled and (if
// asked) the polished one, with their evaluations. `on_episode` (optional) is called
// after every episode, e.g. for progress. Throws Error on bad config or a corrupt checkpoint.
TrainResult train_hsdag(const Problem& problem, Reward& reward, const HsdagConfig& config,
                        const std::function<void(const EpisodeLog&)>& on_episode = {});

// One policy trained on several graphs placed on the same cluster: episode e trains on
// tasks[e % tasks.size()]. Returns one result per task (its best sampled placement and the final
// policy's); each log holds that task's episodes. No checkpoints (throws Error if asked).
std::vector<TrainResult> train_hsdag_multi(const std::vector<RewardTask>& tasks, const HsdagConfig& config,
                                           const std::function<void(const EpisodeLog&)>& on_episode = {});

// The number of groups the untrained / trained pooling produces (for tests and reports).
int hsdag_group_count(const Problem& problem, const HsdagConfig& config);

// `name` names the placer's row; `pick` says which of its placements it returns.
std::unique_ptr<Placer> make_hsdag_placer(HsdagConfig config, std::string name = "hsdag",
                                          TrainedPick pick = TrainedPick::policy);

}  // namespace devplace
