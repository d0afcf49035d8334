// HSDAG configurations: the presets and key=value overrides (torch-free).
#include <sstream>

#include "learn/hsdag/hsdag.h"
#include "util/error.h"

namespace devplace {

HsdagConfig hsdag_preset(const std::string& name) {
  // "default": ours (docs/design/hsdag.md says why), as HsdagConfig's own defaults: every
  // op its own decision unit (zero-cost ops co-located), pooling that merges mutually dominant
  // edges and acts as a prior (each node adds its own logits to its group's), cost features,
  // the clipped policy gradient with a decaying entropy bonus and learning rate, an early stop
  // once the policy has settled, and (for the separate hsdag+polish row only) a short polish.
  if (name == "default") return HsdagConfig{};
  if (name == "paper") {
    // The released configuration (paper-notes.md): hidden 128, 2 GCN layers, 1 pooling GCN
    // layer, dropout 0.2, lr 1e-3, 25 episodes x 20 samples, reward 1 / latency, plain
    // REINFORCE, chains merged, every node's dominant edge merges, no polish.
    HsdagConfig c;
    c.hidden = 128, c.gcn_layers = 2, c.pool_gcn_layers = 1, c.pool_levels = 1, c.dropout = 0.2, c.lr = 1e-3;
    c.mutual_dominance = false, c.node_policy = false;
    c.episodes = 25, c.samples = 20, c.reward = RewardKind::inverse;
    c.pg = PolicyGradientOptions{};
    c.pg.update_epochs = 1, c.pg.entropy_start = c.pg.entropy_end = 0.01;
    c.edge_threshold = 0;  // Graph Parsing Networks: every node's dominant edge merges
    c.coarsen = CoarsenOptions{};
    c.features = FeatureOptions{};
    c.refine_evals = 0;
    c.reparse_kl = 0;
    c.stay = 0, c.learn_stay = false, c.learn_siblings = false, c.learn_joins = false, c.imitate_best = false;
    c.relocation_share = 0;
    return c;
  }
  throw Error("", "", "unknown HSDAG preset '" + name + "' (known: default, paper)", ErrorKind::not_found);
}

HsdagConfig hsdag_config_for(HsdagConfig config, Objective objective) {
  if (objective == Objective::tarnawski && config.chains_under_contiguity)
    config.coarsen.merge_single_predecessor = true;
  return config;
}

void apply_hsdag_override(HsdagConfig& c, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos) throw Error("", "", "--set expects KEY=VALUE, got '" + assignment + "'");
  const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  auto num = [&]() {
    try {
      std::size_t used = 0;
      double v = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
      return v;
    } catch (const std::exception&) {
      throw Error("", "", "--set " + key + ": '" + value + "' is not a number");
    }
  };
  auto flag = [&]() {
    if (value == "1" || value == "true" || value == "on") return true;
    if (value == "0" || value == "false" || value == "off") return false;
    throw Error("", "", "--set " + key + ": expected true or false, got '" + value + "'");
  };
  if (key == "hidden")
    c.hidden = static_cast<int>(num());
  else if (key == "gcn_layers")
    c.gcn_layers = static_cast<int>(num());
  else if (key == "pool_gcn_layers")
    c.pool_gcn_layers = static_cast<int>(num());
  else if (key == "levels")
    c.pool_levels = static_cast<int>(num());
  else if (key == "threshold")
    c.edge_threshold = num();
  else if (key == "dropout")
    c.dropout = num();
  else if (key == "lr")
    c.lr = num();
  else if (key == "episodes")
    c.episodes = static_cast<int>(num());
  else if (key == "samples")
    c.samples = static_cast<int>(num());
  else if (key == "entropy")
    c.pg.entropy_start = num();
  else if (key == "entropy_end")
    c.pg.entropy_end = num();
  else if (key == "entropy_target")
    c.pg.entropy_target = flag();
  else if (key == "entropy_rate")
    c.pg.entropy_rate = num();
  else if (key == "entropy_gain")
    c.pg.entropy_gain = num();
  else if (key == "entropy_decay")
    c.pg.entropy_decay_share = num();
  else if (key == "lr_end")
    c.pg.lr_end_share = num();
  else if (key == "settled")
    c.pg.settled_entropy = num();
  else if (key == "settled_gap")
    c.pg.settled_gap = num();
  else if (key == "patience")
    c.pg.patience = static_cast<int>(num());
  else if (key == "epochs")
    c.pg.update_epochs = static_cast<int>(num());
  else if (key == "clip")
    c.pg.clip = num();
  else if (key == "kl")
    c.pg.target_kl = num();
  else if (key == "floor")
    c.pg.advantage_floor = num();
  else if (key == "overflow_penalty")
    c.overflow_penalty = num();
  else if (key == "reward") {
    if (value != "speedup" && value != "inverse")
      throw Error("", "", "--set reward: expected speedup or inverse, got '" + value + "'");
    c.reward = value == "speedup" ? RewardKind::speedup : RewardKind::inverse;
  }
  else if (key == "merge")
    c.coarsen.merge_single_predecessor = flag();
  else if (key == "colocate")
    c.coarsen.colocate = flag();
  else if (key == "node_policy")
    c.node_policy = flag();
  else if (key == "mutual")
    c.mutual_dominance = flag();
  else if (key == "chains")
    c.coarsen.chains_only = flag();
  else if (key == "refine")
    c.refine_evals = static_cast<int>(num());
  else if (key == "mask")
    c.feasibility_mask = flag();
  else if (key == "demonstration")
    c.demonstration = flag();
  else if (key == "imitate_best")
    c.imitate_best = flag();
  else if (key == "relocation_share")
    c.relocation_share = num();
  else if (key == "demonstration_margin")
    c.demonstration_margin = num();
  else if (key == "imitate_steps")
    c.imitate_steps = static_cast<int>(num());
  else if (key == "imitate_share")
    c.imitate_share = num();
  else if (key == "start")
    c.start_share = num();
  else if (key == "stay")
    c.stay = num();
  else if (key == "learn_stay")
    c.learn_stay = flag();
  else if (key == "learn_siblings")
    c.learn_siblings = flag();
  else if (key == "learn_joins")
    c.learn_joins = flag();
  else if (key == "reparse_kl")
    c.reparse_kl = num();
  else if (key == "tarnawski_chains")
    c.chains_under_contiguity = flag();
  else
    throw Error("", "",
                "--set: unknown key '" + key +
                    "' (hidden, gcn_layers, pool_gcn_layers, levels, threshold, dropout, lr, episodes, samples, "
                    "entropy, entropy_end, entropy_decay, entropy_target, entropy_rate, entropy_gain, lr_end, settled, settled_gap, patience, epochs, clip, kl, floor, "
                    "overflow_penalty, reward, merge, chains, colocate, node_policy, mutual, refine, mask, start, imitate_steps, demonstration, "
                    "demonstration_margin, imitate_best, relocation_share, "
                    "imitate_share, "
                    "tarnawski_chains, reparse_kl, stay, learn_stay, learn_siblings, learn_joins)", ErrorKind::not_found);
}

}  // namespace devplace
