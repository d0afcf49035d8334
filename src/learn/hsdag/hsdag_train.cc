// HSDAG training: a clipped policy gradient (policy_gradient.h, ppo.h) over sampled
// placements with Adam; checkpoints (atomic) and resume; the placer wrapper.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <sstream>

#include "learn/rl/archive_io.h"
#include "learn/representation/contiguity_mask.h"
#include "learn/hsdag/chained_decisions.h"
#include "learn/hsdag/hsdag.h"
#include "learn/hsdag/hsdag_net.h"
#include "learn/rl/ppo.h"
#include "learn/rl/torch_scope.h"
#include "learn/rl/training_placer.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

struct Prepared {
  Coarsening coarse;
  FeatureMatrix features;
  GraphTensors graph;
  torch::Tensor x;
  std::vector<int> parent;  // every coarse node's main parent (HsdagConfig::stay)
  std::vector<std::vector<int>> other_inputs;  // every coarse node's other predecessors (HsdagConfig::stay)
};

Prepared prepare(const Problem& problem, const HsdagConfig& cfg) {
  Prepared p;
  p.coarse = coarsen(problem.graph(), cfg.coarsen);
  p.features = node_features(problem, p.coarse, cfg.features);
  std::vector<std::pair<int, int>> edges;
  for (int u = 0; u < p.coarse.num_groups(); ++u)
    for (int v : p.coarse.succs[u]) edges.push_back({u, v});
  p.graph = GraphTensors::build(p.coarse.num_groups(), std::move(edges));
  p.x = torch::from_blob(p.features.data.data(), {p.features.rows, p.features.cols}, torch::kFloat).clone();
  if (cfg.stay > 0) {
    p.parent = main_parents(problem.graph(), p.coarse);
    p.other_inputs = other_inputs_of(p.coarse, p.parent);
  }
  return p;
}

// Whether the network learns a stay term (only chained decisions have a stay bonus).
bool learns_stay(const HsdagConfig& c) { return c.learn_stay && c.stay > 0; }
// Whether it learns sibling terms (likewise).
bool learns_siblings(const HsdagConfig& c) { return c.learn_siblings && c.stay > 0; }
// Whether it learns join terms (likewise).
bool learns_joins(const HsdagConfig& c) { return c.learn_joins && c.stay > 0; }

HsdagNet make_net(const Prepared& p, int devices, const HsdagConfig& c) {
  HsdagNetSpec spec;
  spec.features = p.features.cols, spec.hidden = c.hidden, spec.devices = devices;
  spec.gcn_layers = c.gcn_layers, spec.pool_gcn_layers = c.pool_gcn_layers, spec.pool_levels = c.pool_levels;
  spec.edge_threshold = c.edge_threshold, spec.dropout = c.dropout;
  spec.node_policy = c.node_policy, spec.mutual = c.mutual_dominance;
  spec.learn_stay = learns_stay(c);
  spec.learn_siblings = learns_siblings(c);
  spec.learn_joins = learns_joins(c);
  return HsdagNet(spec);
}

void check_config(const HsdagConfig& c) {
  if (c.hidden <= 0 || c.gcn_layers < 0 || c.pool_levels < 0 || c.pool_gcn_layers < 0)
    throw Error("", "", "HSDAG: hidden must be positive and layer counts non-negative");
  if (c.episodes < 0 || c.samples <= 0)
    throw Error("", "", "HSDAG: episodes must be non-negative and samples positive");
  if (!(c.lr > 0)) throw Error("", "", "HSDAG: learning rate must be positive");
  if (c.start_share != 0 && !(c.start_share > 0 && c.start_share < 1))
    throw Error("", "", "HSDAG: start must be 0 (off) or in (0, 1)");
  if (c.imitate_steps > 0 && !(c.imitate_share > 0 && c.imitate_share < 1))
    throw Error("", "", "HSDAG: imitate_share must be in (0, 1)");
  if (!(c.relocation_share >= 0 && c.relocation_share < 1))
    throw Error("", "", "HSDAG: relocation_share must be in [0, 1) (0: off)");
  if (!(c.stay >= 0)) throw Error("", "", "HSDAG: stay must be non-negative (0: off)");
  if (c.pg.update_epochs < 1 || !(c.pg.advantage_floor > 0) || !(c.pg.clip > 0))
    throw Error("", "", "HSDAG: epochs must be at least 1, floor and clip positive");
  if (c.pg.entropy_target && !(c.pg.entropy_rate > 0 && c.pg.entropy_start > 0))
    throw Error("", "", "HSDAG: with entropy_target, entropy and entropy_rate must be positive");
  if (!(c.pg.entropy_gain >= 0)) throw Error("", "", "HSDAG: entropy_gain must be non-negative (0: off)");
  if (!(c.pg.settled_gap >= 0 && c.pg.settled_gap < 1))
    throw Error("", "", "HSDAG: settled_gap must be in [0, 1) (0: off)");
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// What training keeps per graph: the best placement sampled and the evaluations spent.
struct TaskState {
  double best_latency = std::numeric_limits<double>::infinity();
  Placement best;
  long long evaluations = 0;
};

// Everything needed to continue training exactly where it stopped (one graph).
struct TrainerState {
  int episode = 0;
  TaskState task;
  std::mt19937_64 rng;
  std::vector<EpisodeLog> log;
};

// One graph being trained on, with what its rewards are measured against.
struct Task {
  const Problem* problem = nullptr;
  Reward* reward = nullptr;
  Prepared prep;
  SingleDeviceReference reference;       // the speed-up reward's unit
  std::shared_ptr<ContiguityMask> mask;  // set: sample feasible placements only (per coarse node)
  // HsdagConfig::demonstration: the demonstration's device per coarse node (empty: none), and the
  // last placement it gave with its evaluation (re-evaluated only when that changes).
  std::vector<int> demo_node_device;
  Placement demo_placement;
  Evaluation demo_evaluation;
  // HsdagConfig::imitate_best: the latency of the best sampled placement the demonstration was
  // last taken from.
  double demo_from_best = std::numeric_limits<double>::infinity();
};

std::string checkpoint_path(const std::string& dir) { return dir + "/hsdag.ckpt"; }

// HSDAG's checkpoint (rl/archive_io.h) adds the feature shape, the best sampled placement, the
// evaluations spent and the sampling generator.
void save_hsdag_checkpoint(const std::string& dir, HsdagNet& net, torch::optim::Adam& opt, const TrainerState& st,
                           const Prepared& p) {
  save_checkpoint(checkpoint_path(dir), *net, opt, st.episode, st.log, [&](torch::serialize::OutputArchive& ar) {
    ar.write("shape",
             torch::tensor({static_cast<int64_t>(p.features.rows), static_cast<int64_t>(p.features.cols)}));
    ar.write("sampled",
             torch::tensor({st.task.best_latency, static_cast<double>(st.task.evaluations)}, torch::kDouble));
    std::vector<int64_t> best(st.task.best.begin(), st.task.best.end());
    ar.write("best", torch::tensor(best, torch::kLong));
    std::ostringstream rng;
    rng << st.rng;
    const std::string r = rng.str();
    ar.write("rng", torch::from_blob(const_cast<char*>(r.data()), {static_cast<int64_t>(r.size())}, torch::kUInt8)
                        .clone());
  });
}

bool load_hsdag_checkpoint(const std::string& dir, HsdagNet& net, torch::optim::Adam& opt, TrainerState& st,
                           const Prepared& p) {
  const std::string path = checkpoint_path(dir);
  return load_checkpoint(path, *net, opt, st.episode, st.log, [&](CheckpointReader& read) {
    const torch::Tensor shape = read.tensor("shape");
    if (shape[0].item<int64_t>() != p.features.rows || shape[1].item<int64_t>() != p.features.cols)
      throw Error(path, "", "checkpoint was made for another graph or feature set");
    const torch::Tensor sampled = read.tensor("sampled");
    st.task.best_latency = sampled[0].item<double>();
    st.task.evaluations = static_cast<long long>(sampled[1].item<double>());
    const torch::Tensor best = read.tensor("best");
    st.task.best.assign(best.data_ptr<int64_t>(), best.data_ptr<int64_t>() + best.numel());
    const torch::Tensor rng = read.tensor("rng");
    std::istringstream in(std::string(reinterpret_cast<const char*>(rng.data_ptr<uint8_t>()), rng.numel()));
    in >> st.rng;
  });
}

// Polishes a placement by simulated annealing under the same reward (beyond the paper; off in
// the paper preset). Infeasible placements score +inf so the polish never trades feasibility.
// Returns the polished placement and its latency; `evaluations` counts what it cost.
std::pair<Placement, double> refine(const Problem& problem, Reward& reward, int budget, std::uint64_t seed,
                                    const Placement& start, double start_latency, long long& evaluations) {
  PlaceOptions o;
  o.seed = seed;
  o.eval_budget = budget;
  CountingReward counted(reward);
  ObjectiveFn score = score_with(counted);
  Placement polished = anneal_placement(problem, start, o, score, start_latency);
  const double l = score(polished);
  evaluations += counted.count();
  if (l < start_latency) return {std::move(polished), l};
  return {start, start_latency};
}

// The network's shape, stored with a policy so that loading it elsewhere is checked.
std::vector<int64_t> policy_shape(int features, int devices, const HsdagConfig& c) {
  return {features,
          devices,
          c.hidden,
          c.gcn_layers,
          c.pool_gcn_layers,
          c.pool_levels,
          c.node_policy ? 1 : 0,
          learns_stay(c) ? 1 : 0,
          learns_siblings(c) ? 1 : 0,
          learns_joins(c) ? 1 : 0};
}

void save_policy(const std::string& path, HsdagNet& net, int features, int devices, const HsdagConfig& c) {
  torch::serialize::OutputArchive ar, model_ar;
  net->save(model_ar);
  ar.write("model", model_ar);
  ar.write("hsdag_policy_shape", torch::tensor(policy_shape(features, devices, c), torch::kLong));
  save_archive_atomically(ar, path);
}

void load_policy(const std::string& path, HsdagNet& net, int features, int devices, const HsdagConfig& c) {
  if (!std::filesystem::exists(path)) throw Error(path, "", "no such policy file", ErrorKind::not_found);
  try {
    torch::serialize::InputArchive ar, model_ar;
    ar.load_from(path);
    torch::Tensor t;
    ar.read("hsdag_policy_shape", t);
    const std::vector<int64_t> want = policy_shape(features, devices, c);
    std::vector<int64_t> have(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    // Saved before the stay bonus (7 entries), sibling terms (8) or join terms (9) could be
    // learned: without them.
    if (have.size() >= 7 && have.size() <= 9) have.resize(10, 0);
    // The last three entries are switches: a mismatch there names the setting to load it with.
    const struct {
      std::size_t at;
      const char *what, *key;
    } switches[] = {{7, "a learned stay bonus", "learn_stay"},
                    {8, "learned sibling terms", "learn_siblings"},
                    {9, "learned join terms", "learn_joins"}};
    if (have.size() == want.size() && std::equal(have.begin(), have.begin() + 7, want.begin()))
      for (const auto& s : switches)
        if (have[s.at] != want[s.at])
          throw Error(path, "",
                      std::string("this HSDAG policy was trained ") + (have[s.at] ? "with " : "without ") + s.what +
                          ": load it with --set " + s.key + "=" + (have[s.at] ? "true" : "false"));
    if (have != want)
      throw Error(path, "",
                  "this HSDAG policy was made for " + std::to_string(have.empty() ? 0 : have[0]) +
                      " feature columns and " + std::to_string(have.size() > 1 ? have[1] : 0) +
                      " devices (or other layer sizes); this problem has " + std::to_string(features) + " and " +
                      std::to_string(devices) + ": use the same cluster, features and preset");
    ar.read("model", model_ar);
    net->load(model_ar);
  } catch (const c10::Error& e) {
    throw Error(path, "", std::string("not an HSDAG policy file: ") + e.what_without_backtrace());
  }
}

// Measures the reward's unit (the best single device's latency). The single-device
// placements are evaluated for that only: they are not samples of the policy.
Task make_task(const Problem& problem, Reward& reward, Prepared prep, TaskState& ts, bool resumed, bool mask) {
  Task t;
  t.problem = &problem;
  t.reward = &reward;
  t.prep = std::move(prep);
  t.reference = best_single_device(problem, reward);
  if (!resumed) ts.evaluations += problem.num_devices();
  if (mask && reward.objective() == Objective::tarnawski)
    t.mask = std::make_shared<ContiguityMask>(problem, t.prep.coarse);
  return t;
}

void set_lr(torch::optim::Adam& opt, double lr) {
  for (auto& group : opt.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
}

// The device of every coarse node under a choice per decision unit.
Placement placement_of(const Task& task, const std::vector<int>& unit_of_node, const int64_t* unit_device) {
  std::vector<int> group_device(task.prep.coarse.num_groups());
  for (std::size_t v = 0; v < group_device.size(); ++v)
    group_device[v] = static_cast<int>(unit_device[unit_of_node[v]]);
  return expand(task.prep.coarse, group_device);
}

// The majority device of each of `groups` groups, where item i belongs to group_of[i] and is on
// device_of[i] (ties: the lower device index).
std::vector<int> majority_devices(int groups, int devices, const std::vector<int>& group_of,
                                  const std::vector<int>& device_of) {
  std::vector<int> votes(static_cast<std::size_t>(groups) * devices, 0);
  for (std::size_t i = 0; i < group_of.size(); ++i) ++votes[static_cast<std::size_t>(group_of[i]) * devices + device_of[i]];
  std::vector<int> majority(groups);
  for (int g = 0; g < groups; ++g) {
    const auto first = votes.begin() + static_cast<std::ptrdiff_t>(g) * devices;
    majority[g] = static_cast<int>(std::max_element(first, first + devices) - first);
  }
  return majority;
}

// Up to cfg.pg.update_epochs optimiser steps on one batch, with the grouping it was sampled in;
// stops once the policy has moved more than target_kl (mean per decision) from the sampling one.
void clipped_updates(HsdagNet& net, torch::optim::Adam& opt, const Task& task, const NetOutput& sampled,
                     const HsdagConfig& cfg, double& kl, double& entropy,
                     const std::function<torch::Tensor(const NetOutput& now, double& kl, double& entropy)>& loss_of) {
  net->train();
  for (int epoch = 0; epoch < cfg.pg.update_epochs; ++epoch) {
    NetOutput now = net->forward(task.prep.x, task.prep.graph, &sampled.parse);
    torch::Tensor loss = loss_of(now, kl, entropy);
    if (epoch > 0 && kl > cfg.pg.target_kl) break;  // the batch no longer describes this policy
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// clipped_updates for decisions whose distribution differs per sample (a feasibility mask, or
// chained decisions): logp_of maps the network's output to [samples, nodes, devices]
// log-probabilities, read once before the steps (the sampling policy) and at every step.
void per_sample_updates(HsdagNet& net, torch::optim::Adam& opt, const Task& task, const NetOutput& sampled,
                        const HsdagConfig& cfg, double entropy_weight,
                        const std::function<torch::Tensor(const NetOutput& out)>& logp_of,
                        const torch::Tensor& actions, const torch::Tensor& adv, double& kl, double& entropy) {
  torch::Tensor old_logp;
  {
    torch::NoGradGuard no_grad;
    old_logp = logp_of(sampled);
  }
  clipped_updates(net, opt, task, sampled, cfg, kl, entropy, [&](const NetOutput& now, double& k, double& h) {
    return ppo_loss_per_sample(logp_of(now), old_logp, actions, adv, cfg.pg.clip, entropy_weight, k, h);
  });
}

// Under a feasibility mask every coarse node decides on its own, from its group's logits:
// the logits row of each node, and the nodes' device probabilities [nodes, devices].
struct NodeRows {
  torch::Tensor rows, probs;
};
// The decision unit of every coarse node, as an index tensor into `out.logits`.
torch::Tensor unit_rows(const NetOutput& out) {
  return torch::tensor(std::vector<int64_t>(out.unit_of_node.begin(), out.unit_of_node.end()), torch::kLong);
}

NodeRows node_rows(const NetOutput& out) {
  NodeRows n;
  n.rows = unit_rows(out);
  n.probs = torch::softmax(out.logits.index_select(0, n.rows), 1).contiguous();
  return n;
}

// The device of every coarse node under a feasibility mask: in topological order, each takes
// the device `pick` chooses among those still feasible, from its group's probabilities `pr`.
template <class Pick>
std::vector<int> masked_choice(ContiguityMask& mask, const float* pr, int units, int devices, bool* allowed_out,
                               Pick pick) {
  std::vector<int> unit_device(units);
  mask.reset();
  for (int u = 0; u < units; ++u) {
    const std::uint64_t ok = mask.allowed(u);
    for (int d = 0; d < devices; ++d) allowed_out[u * devices + d] = (ok >> d) & 1;
    const int d = pick(pr + u * devices, ok);
    unit_device[u] = d;
    mask.choose(u, d);
  }
  return unit_device;
}

// One batch with a feasibility mask (Task::mask): every coarse node decides, from its group's
// distribution restricted to the devices that keep the placement feasible; the update scores
// each sample's decisions under the same restriction.
void masked_episode(HsdagNet& net, torch::optim::Adam& opt, Task& task, const NetOutput& out,
                    std::uniform_real_distribution<double>& unif, std::mt19937_64& rng, const HsdagConfig& cfg,
                    double entropy_weight, const std::function<void(std::vector<Placement>)>& score,
                    const std::vector<double>& rewards, double& kl, double& entropy) {
  const int D = task.problem->num_devices(), K = cfg.samples, U = task.prep.coarse.num_groups();
  const auto [rows, probs] = node_rows(out);
  auto allowed = torch::zeros({K, U, D}, torch::kBool);
  std::vector<int64_t> actions(static_cast<std::size_t>(K) * U);
  std::vector<Placement> batch;
  for (int k = 0; k < K; ++k) {
    std::vector<int> unit_device = masked_choice(*task.mask, probs.data_ptr<float>(), U, D,
                                                 allowed.data_ptr<bool>() + static_cast<std::size_t>(k) * U * D,
                                                 [&](const float* p, std::uint64_t ok) {
                                                   double total = 0;
                                                   int last = 0;
                                                   for (int d = 0; d < D; ++d)
                                                     if ((ok >> d) & 1) total += p[d], last = d;
                                                   double x = unif(rng) * total, acc = 0;
                                                   for (int d = 0; d < D; ++d)
                                                     if (((ok >> d) & 1) && (acc += p[d]) >= x) return d;
                                                   return last;
                                                 });
    std::copy(unit_device.begin(), unit_device.end(), actions.begin() + static_cast<std::ptrdiff_t>(k) * U);
    batch.push_back(expand(task.prep.coarse, unit_device));
  }
  score(std::move(batch));
  const std::vector<float> adv = centred_advantages(rewards, cfg.pg.advantage_floor);
  auto a = torch::from_blob(actions.data(), {K, U}, torch::kLong);
  auto adv_t = torch::from_blob(const_cast<float*>(adv.data()), {K}, torch::kFloat);
  const auto blocked = allowed.logical_not();
  auto logp_of = [&](const NetOutput& o) {
    // -1e9, not -inf: a blocked device then has probability 0 and adds 0 (not NaN) to the entropy.
    return torch::log_softmax(o.logits.index_select(0, rows).unsqueeze(0).expand({K, U, D}).masked_fill(blocked, -1e9),
                              2);
  };
  per_sample_updates(net, opt, task, out, cfg, entropy_weight, logp_of, a, adv_t, kl, entropy);
}

// Every coarse node's chained terms under `out`: the configured stay bonus plus the network's
// term where it learns one (HsdagConfig::learn_stay), and its sibling and join terms where it
// learns them.
ChainTerms node_terms(const NetOutput& out, const Prepared& prep, double stay) {
  ChainTerms t;
  t.stay.assign(out.unit_of_node.size(), stay);
  auto values = [](const torch::Tensor& x) {
    const torch::Tensor d = x.detach().to(torch::kDouble).contiguous();
    return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
  };
  if (out.stay.defined()) {
    const std::vector<double> learned = values(out.stay);
    for (std::size_t v = 0; v < t.stay.size(); ++v) t.stay[v] += learned[v];
  }
  if (out.sibling.defined()) t.sibling = values(out.sibling);
  if (out.join.defined()) t.join = values(out.join), t.other_inputs = prep.other_inputs;
  return t;
}

double mean_of(const std::vector<double>& x) {
  return x.empty() ? 0.0 : std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// HsdagConfig::relocation_share: `device` with node v moved, to a device drawn by the policy's own
// probabilities given the others (`logp`, [nodes * devices]) among those v is not on.
std::vector<int> relocated(std::vector<int> device, int v, const std::vector<double>& logp, int devices,
                           std::mt19937_64& rng) {
  const double* p = &logp[static_cast<std::size_t>(v) * devices];
  double others = 0;
  for (int d = 0; d < devices; ++d) others += d == device[v] ? 0.0 : std::exp(p[d]);
  const double x = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  int to = (device[v] + 1 + static_cast<int>(x * (devices - 1))) % devices;  // every other underflowed: any
  double acc = 0;
  if (others > 0)
    for (int d = 0; d < devices; ++d)
      if (d != device[v] && (acc += std::exp(p[d]) / others) >= x) {
        to = d;
        break;
      }
  device[v] = to;
  return device;
}

// The order relocations move the nodes in: fixed, shuffled by the seed, round and round, so that
// every node is moved once in every `nodes` relocations (and a resumed run moves the same ones).
std::vector<int> relocation_order(int nodes, std::uint64_t seed) {
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 g(seed);
  for (int j = nodes - 1; j > 0; --j) std::swap(order[j], order[std::uniform_int_distribution<int>(0, j)(g)]);
  return order;
}

// One batch of chained decisions (HsdagConfig::stay, no feasibility mask): every coarse node
// draws its device from its unit's logits plus its stay bonus on its main parent's device (and its
// sibling term per earlier sibling on each device); the update scores each sample's decisions
// given the parents' and siblings' devices it drew. The demonstration (demo_k >= 0) is the batch's
// last placement, its advantage clipped at zero; the `relocations` before it are the
// demonstration with one node moved (relocated; the graph's relocations `first_relocation_index`
// on), with zero advantage. `terms_used`: the nodes' mean terms the batch was drawn with (the join
// term's over the nodes with other inputs).
void chained_episode(HsdagNet& net, torch::optim::Adam& opt, Task& task, const NetOutput& out, std::mt19937_64& rng,
                     const HsdagConfig& cfg, double entropy_weight, int demo_k, int relocations,
                     long long first_relocation_index,
                     const std::function<void(std::vector<Placement>)>& score, const std::vector<double>& rewards,
                     double& kl, double& entropy, EpisodeLog& terms_used) {
  const int D = task.problem->num_devices(), K = cfg.samples, N = task.prep.coarse.num_groups();
  const std::vector<int>& parent = task.prep.parent;
  const torch::Tensor logits = out.logits.contiguous();
  std::vector<int64_t> actions(static_cast<std::size_t>(K) * N);
  std::vector<float> on_parent(static_cast<std::size_t>(K) * N * D, 0.0f);  // 1 on each parent's device
  const ChainTerms terms = node_terms(out, task.prep, cfg.stay);
  const bool siblings = !terms.sibling.empty(), joins = !terms.join.empty();
  terms_used.stay = mean_of(terms.stay), terms_used.sibling = mean_of(terms.sibling);
  if (joins) {
    std::vector<double> joining;
    for (int v = 0; v < N; ++v)
      if (!terms.other_inputs[v].empty()) joining.push_back(terms.join[v]);
    terms_used.join = mean_of(joining);
  }
  std::vector<float> siblings_on(siblings ? on_parent.size() : 0, 0.0f);  // earlier siblings per device
  std::vector<float> inputs_on(joins ? on_parent.size() : 0, 0.0f);      // other inputs per device
  std::vector<Placement> batch;
  const int first_relocation = demo_k >= 0 ? demo_k - relocations : K;
  std::vector<double> demo_logp;  // every node's device log-probabilities given the demonstration
  std::vector<int> order;
  if (relocations > 0) {
    demo_logp = conditional_log_probs(logits.data_ptr<float>(), out.unit_of_node, parent, D, terms,
                                      task.demo_node_device);
    order = relocation_order(N, cfg.seed);
  }
  for (int k = 0; k < K; ++k) {
    std::vector<int> device;
    if (k == demo_k)
      device = task.demo_node_device;
    else if (k >= first_relocation)
      device = relocated(task.demo_node_device, order[(first_relocation_index + k - first_relocation) % N], demo_logp,
                         D, rng);
    else
      device = sample_chained(logits.data_ptr<float>(), out.unit_of_node, parent, D, terms, rng);
    for (int v = 0; v < N; ++v) {
      const std::size_t i = static_cast<std::size_t>(k) * N + v;
      actions[i] = device[v];
      if (parent[v] >= 0) on_parent[i * D + device[parent[v]]] = 1.0f;
    }
    if (siblings) {
      const std::vector<int> on = earlier_siblings_on(device, parent, D);
      std::copy(on.begin(), on.end(), siblings_on.begin() + static_cast<std::ptrdiff_t>(k) * N * D);
    }
    if (joins) {
      const std::vector<int> on = other_inputs_on(device, terms.other_inputs, D);
      std::copy(on.begin(), on.end(), inputs_on.begin() + static_cast<std::ptrdiff_t>(k) * N * D);
    }
    batch.push_back(expand(task.prep.coarse, device));
  }
  score(std::move(batch));
  // The relocations are not the policy's samples: their advantage is zero (their rows still count
  // in the batch's entropy and KL, as the demonstration's do).
  std::vector<double> scored(rewards.begin(), rewards.begin() + first_relocation);
  if (demo_k >= 0) scored.push_back(rewards[demo_k]);
  std::vector<float> adv = centred_advantages(scored, cfg.pg.advantage_floor);
  if (demo_k >= 0) {
    adv.insert(adv.end() - 1, static_cast<std::size_t>(relocations), 0.0f);
    adv[demo_k] = std::max(adv[demo_k], 0.0f);
  }
  auto a = torch::from_blob(actions.data(), {K, N}, torch::kLong);
  auto adv_t = torch::from_blob(adv.data(), {K}, torch::kFloat);
  auto on_parent_t = torch::from_blob(on_parent.data(), {K, N, D}, torch::kFloat);
  const torch::Tensor rows = unit_rows(out);
  auto logp_of = [&](const NetOutput& o) {
    torch::Tensor stay = torch::full({N}, cfg.stay, torch::kFloat);
    if (o.stay.defined()) stay = stay + o.stay;
    torch::Tensor z = o.logits.index_select(0, rows).unsqueeze(0) + on_parent_t * stay.view({1, N, 1});
    if (o.sibling.defined())
      z = z + torch::from_blob(siblings_on.data(), {K, N, D}, torch::kFloat) * o.sibling.view({1, N, 1});
    if (o.join.defined()) z = z + torch::from_blob(inputs_on.data(), {K, N, D}, torch::kFloat) * o.join.view({1, N, 1});
    return torch::log_softmax(z, 2);
  };
  per_sample_updates(net, opt, task, out, cfg, entropy_weight, logp_of, a, adv_t, kl, entropy);
}

// Every coarse node's device log-probabilities under `out` ([nodes, devices]): comparable
// across groupings, where the decision units are not.
torch::Tensor node_log_probs(const NetOutput& out) {
  return torch::log_softmax(out.logits.index_select(0, unit_rows(out)), 1);
}

// The clipped steps keep the grouping the batch was sampled in, but the next batch is drawn
// under the grouping the stepped network makes, so a regrouping moves the policy by an amount
// the clip never saw (docs/design/hsdag.md, "Regrouping outside the trust region"). Returns the mean
// KL per coarse node from `before` to the policy as the network now groups the graph.
double reparsed_kl(HsdagNet& net, const Task& task, const torch::Tensor& before) {
  torch::NoGradGuard no_grad;
  net->eval();
  const torch::Tensor after = node_log_probs(net->forward(task.prep.x, task.prep.graph));
  return (before.exp() * (before - after)).sum(1).mean().item<double>();
}

// The batch's steps moved the policy, as the stepped network regroups the graph, more than
// `limit` mean KL per coarse node from `before`: keep the largest of 1/2, 1/4, 1/8 and 1/16 of
// the steps (from `snapshot`, the parameters before them) that stays within it, or none. Undoing
// the whole step every time would freeze a policy whose every step regroups: Adam's moments
// grow in the same direction, each next step is undone again, and nothing is learnt until the
// learning rate has fallen far enough (S3D on nvlink4 sat unchanged for 181-409 episodes).
void backtrack_regrouping(HsdagNet& net, const Task& task, const std::vector<torch::Tensor>& snapshot,
                          const torch::Tensor& before, double limit) {
  torch::NoGradGuard no_grad;
  auto params = net->parameters();
  std::vector<torch::Tensor> stepped;
  for (const auto& w : params) stepped.push_back(w.detach().clone());
  for (double share = 0.5; share >= 1.0 / 16; share /= 2) {
    for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(snapshot[i] + share * (stepped[i] - snapshot[i]));
    if (reparsed_kl(net, task, before) <= limit) return;
  }
  for (std::size_t i = 0; i < params.size(); ++i) params[i].copy_(snapshot[i]);
}

// HsdagConfig::imitate_best applies from episode share x episodes. The entropy target reaches zero
// at share x (episodes - 1) (entropy_decay_done), the same episode in a 1,000-episode run and at
// most one episode earlier in a short one.
bool imitating_best(const HsdagConfig& cfg, int episode) {
  return cfg.imitate_best && episode >= cfg.pg.entropy_decay_share * cfg.episodes;
}

// HsdagConfig::relocation_share: the relocations in a batch of `task` that ends with the best
// sampled as its demonstration (the policy keeps at least one sample); 0 where there are none
// (independent decisions, a feasibility mask, one device, no imitation).
int relocations_per_batch(const HsdagConfig& cfg, const Task& task) {
  if (!cfg.imitate_best || cfg.stay <= 0 || task.mask || task.problem->num_devices() < 2) return 0;
  return std::max(0, std::min(static_cast<int>(cfg.relocation_share * cfg.samples), cfg.samples - 2));
}

// HsdagConfig::imitate_best: the demonstration becomes the best sampled placement whenever that
// improved and beats the current demonstration. It is feasible and its latency is known, which
// is all its reward reads, so it is not evaluated again unless the grouping changes it.
void imitate_best_sampled(Task& task, const TaskState& ts) {
  if (task.mask || ts.best.empty() || ts.best_latency >= task.demo_from_best) return;
  const bool given = !task.demo_node_device.empty();
  if (given && (task.demo_placement.empty() || task.demo_evaluation.latency <= ts.best_latency)) return;
  task.demo_node_device = majority_devices(task.prep.coarse.num_groups(), task.problem->num_devices(),
                                           task.prep.coarse.group_of_op, ts.best);
  task.demo_from_best = ts.best_latency;
  task.demo_placement = ts.best;
  task.demo_evaluation = Evaluation{.latency = ts.best_latency};
}

// One policy-gradient step on one graph: sample cfg.samples placements from the policy (eval
// mode: the same policy the greedy answer reads), evaluate them, keep the best feasible one,
// and take up to cfg.pg.update_epochs clipped steps on the batch with the grouping it was
// sampled in. `episode`: of the run (0-based); `graph_batches`: the batches this graph had
// before (the same on one graph). The log's episode number is left to the caller.
EpisodeLog train_episode(HsdagNet& net, torch::optim::Adam& opt, Task& task, TaskState& ts, std::mt19937_64& rng,
                         const HsdagConfig& cfg, double entropy_weight, int episode, int graph_batches) {
  const bool imitate_best = imitating_best(cfg, episode);
  const auto t_ep = std::chrono::steady_clock::now();
  const int D = task.problem->num_devices(), K = cfg.samples;
  NetOutput out;
  torch::Tensor old_logp;
  {
    torch::NoGradGuard no_grad;
    net->eval();
    out = net->forward(task.prep.x, task.prep.graph);
    old_logp = torch::log_softmax(out.logits, 1);
  }
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::vector<double> rewards(K), latencies(K);
  int feasible = 0;
  const RewardKind kind = cfg.reward;
  if (imitate_best) imitate_best_sampled(task, ts);
  // The K samples are evaluated together (a replicated measured reward runs them in parallel).
  // The demonstration (the batch's last placement when set) is evaluated only when it changed,
  // and is neither a sample of the policy in the log nor a candidate for the best sampled.
  const int demo_k = !task.mask && !task.demo_node_device.empty() && K > 1 ? K - 1 : -1;
  // HsdagConfig::relocation_share: the samples before the demonstration, while imitating the best
  // sampled (chained decisions only). Samples [0, policy_samples) are the policy's.
  const int relocations = imitate_best && demo_k >= 0 ? relocations_per_batch(cfg, task) : 0;
  const int policy_samples = demo_k >= 0 ? demo_k - relocations : K;
  auto score = [&](std::vector<Placement> batch) {
    std::vector<Evaluation> evaluations;
    if (demo_k >= 0) {
      Placement demo = std::move(batch.back());
      batch.pop_back();
      evaluations = task.reward->evaluate_batch(batch);
      if (demo != task.demo_placement) {
        task.demo_evaluation = task.reward->evaluate(demo);
        task.demo_placement = std::move(demo);
        ++ts.evaluations;
      }
      evaluations.push_back(task.demo_evaluation);
      batch.push_back(task.demo_placement);
    } else {
      evaluations = task.reward->evaluate_batch(batch);
    }
    for (int k = 0; k < K; ++k) {
      const Evaluation& e = evaluations[k];
      rewards[k] = placement_reward(e, task.reference.latency, kind, cfg.overflow_penalty);
      if (k == demo_k) {
        latencies[k] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      ++ts.evaluations;
      const bool policy_sample = k < policy_samples;
      latencies[k] = policy_sample ? e.latency : std::numeric_limits<double>::quiet_NaN();
      feasible += policy_sample && e.feasible ? 1 : 0;
      if (e.feasible && e.latency < ts.best_latency) {
        ts.best_latency = e.latency;
        ts.best = std::move(batch[k]);
      }
    }
  };
  double kl = 0, entropy = 0;
  EpisodeLog terms_used;
  // What the guard against regrouping (HsdagConfig::reparse_kl) restores when a step moved the
  // re-parsed policy too far.
  std::vector<torch::Tensor> snapshot;
  torch::Tensor before_nodes;
  if (cfg.reparse_kl > 0) {
    torch::NoGradGuard no_grad;
    for (const auto& w : net->parameters()) snapshot.push_back(w.detach().clone());
    before_nodes = node_log_probs(out);
  }
  if (task.mask) {
    masked_episode(net, opt, task, out, unif, rng, cfg, entropy_weight, score, rewards, kl, entropy);
  } else if (cfg.stay > 0) {
    chained_episode(net, opt, task, out, rng, cfg, entropy_weight, demo_k, relocations,
                    static_cast<long long>(graph_batches) * relocations, score, rewards, kl, entropy, terms_used);
  } else {
    const int U = static_cast<int>(out.logits.size(0));  // decision units
    auto probs = old_logp.exp().contiguous();
    const float* pr = probs.data_ptr<float>();
    std::vector<int64_t> actions(static_cast<std::size_t>(K) * U);
    std::vector<Placement> batch;
    for (int k = 0; k < K; ++k) {
      int64_t* a = &actions[static_cast<std::size_t>(k) * U];
      if (k == demo_k) {  // each unit on its nodes' majority device of the demonstration
        const std::vector<int> unit_device = majority_devices(U, D, out.unit_of_node, task.demo_node_device);
        std::copy(unit_device.begin(), unit_device.end(), a);
        batch.push_back(placement_of(task, out.unit_of_node, a));
        continue;
      }
      for (int u = 0; u < U; ++u) {
        double x = unif(rng), acc = 0;
        int d = D - 1;
        for (int j = 0; j < D; ++j)
          if ((acc += pr[u * D + j]) >= x) {
            d = j;
            break;
          }
        a[u] = d;
      }
      batch.push_back(placement_of(task, out.unit_of_node, a));
    }
    score(std::move(batch));
    std::vector<float> adv = centred_advantages(rewards, cfg.pg.advantage_floor);
    // The demonstration pulls while it beats the batch and is left alone once it does not (as in
    // self-imitation learning): pushing its every decision down would push each unit away from
    // its device, towards a single other one.
    if (demo_k >= 0) adv[demo_k] = std::max(adv[demo_k], 0.0f);
    auto a = torch::from_blob(actions.data(), {K, U}, torch::kLong);
    auto adv_t = torch::from_blob(const_cast<float*>(adv.data()), {K}, torch::kFloat);
    clipped_updates(net, opt, task, out, cfg, kl, entropy, [&](const NetOutput& now, double& k, double& h) {
      return ppo_loss(torch::log_softmax(now.logits, 1), old_logp, a, adv_t, cfg.pg.clip, entropy_weight, k, h);
    });
  }

  if (cfg.reparse_kl > 0 && reparsed_kl(net, task, before_nodes) > cfg.reparse_kl)
    backtrack_regrouping(net, task, snapshot, before_nodes, cfg.reparse_kl);

  EpisodeLog e;
  double ml = 0;
  int finite = 0;
  for (double l : latencies)
    if (std::isfinite(l)) ml += l, ++finite;  // NaN: the demonstration and the relocations
  double mr = 0;
  for (int k = 0; k < policy_samples; ++k) mr += rewards[k];
  e.mean_latency = finite ? ml / finite : kInf;
  e.best_latency = ts.best_latency;
  e.mean_reward = mr / policy_samples;
  e.entropy = entropy;
  e.groups = out.groups;
  e.stay = terms_used.stay;
  e.sibling = terms_used.sibling;
  e.join = terms_used.join;
  e.feasible_share = static_cast<double>(feasible) / policy_samples;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_ep).count();
  return e;
}

// The trained policy's own answer for one graph (the most likely device of every unit), the
// best it sampled, and (beyond the method, when asked) the polish of the better of the two.
TrainResult finish_task(HsdagNet& net, Task& task, TaskState& ts, const HsdagConfig& cfg) {
  torch::NoGradGuard no_grad;
  net->eval();
  NetOutput out = net->forward(task.prep.x, task.prep.graph);
  TrainResult r;
  if (task.mask) {  // the most likely device among those still feasible, node by node
    const int D = task.problem->num_devices(), U = task.prep.coarse.num_groups();
    const torch::Tensor probs = node_rows(out).probs;
    std::unique_ptr<bool[]> scratch(new bool[static_cast<std::size_t>(U) * D]);
    r.greedy = expand(task.prep.coarse, masked_choice(*task.mask, probs.data_ptr<float>(), U, D, scratch.get(),
                                                      [&](const float* p, std::uint64_t ok) {
                                                        int best = -1;
                                                        for (int d = 0; d < D; ++d)
                                                          if (((ok >> d) & 1) && (best < 0 || p[d] > p[best])) best = d;
                                                        return best;
                                                      }));
  } else if (cfg.stay > 0) {
    const torch::Tensor logits = out.logits.contiguous();
    r.greedy = expand(task.prep.coarse, most_likely_chained(logits.data_ptr<float>(), out.unit_of_node,
                                                            task.prep.parent, task.problem->num_devices(),
                                                            node_terms(out, task.prep, cfg.stay)));
  } else {
    const torch::Tensor best_dev = out.logits.argmax(1).contiguous();
    r.greedy = placement_of(task, out.unit_of_node, best_dev.data_ptr<int64_t>());
  }
  Evaluation ge = task.reward->evaluate(r.greedy);
  ++ts.evaluations;
  r.greedy_latency = ge.feasible ? ge.latency : kInf;
  r.sampled = ts.best;
  r.sampled_latency = ts.best_latency;
  r.evaluations = ts.evaluations;
  const bool greedy_better = r.greedy_latency <= r.sampled_latency;
  r.best = greedy_better ? r.greedy : r.sampled;
  r.best_latency = greedy_better ? r.greedy_latency : r.sampled_latency;
  r.polished_latency = kInf;
  if (cfg.refine_evals > 0 && std::isfinite(r.best_latency)) {
    std::tie(r.polished, r.polished_latency) =
        refine(*task.problem, *task.reward, cfg.refine_evals, cfg.seed, r.best, r.best_latency, r.polish_evaluations);
    r.best = r.polished, r.best_latency = r.polished_latency;
  }
  if (r.best.empty()) r.best = r.greedy, r.best_latency = ge.latency;  // nothing feasible at all
  r.coarse_nodes = task.prep.coarse.num_groups();
  r.groups = out.groups;
  return r;
}

// The untrained policy leans towards the best single device (HsdagConfig::start_share); a
// loaded policy keeps what it learned.
void lean_to_reference(HsdagNet& net, const Task& task, const HsdagConfig& cfg) {
  const int D = task.problem->num_devices();
  if (!cfg.init_policy.empty() || D < 2 || cfg.start_share == 0) return;
  const double log_odds = std::log((D - 1) * cfg.start_share / (1 - cfg.start_share));
  if (log_odds != 0) net->lean_towards(task.reference.device, log_odds);
}

// The start HsdagConfig::imitate_steps and ::demonstration use: the better of HEFT's placement
// and the best single device, as the device of every coarse node (its ops' majority), and HEFT's
// gain over that device (latency share saved; <= 0 when none). HEFT's placement costs one
// evaluation (counted unless `counted` already: a resumed run).
struct Start {
  std::vector<int> node_device;
  double heft_gain = 0;
};
Start start_devices(Task& task, TaskState& ts, bool counted) {
  const Problem& pb = *task.problem;
  Placement start = make_heft_placer()->place(pb, PlaceOptions{});
  const Evaluation e = task.reward->evaluate(start);
  if (!counted) ++ts.evaluations;
  Start s;
  s.heft_gain = e.feasible ? 1 - e.latency / task.reference.latency : 0;
  if (s.heft_gain <= 0) start.assign(pb.num_ops(), task.reference.device);
  s.node_device = majority_devices(task.prep.coarse.num_groups(), pb.num_devices(), task.prep.coarse.group_of_op, start);
  return s;
}

// HsdagConfig::imitate_steps: the untrained policy learns to give `node_device` imitate_share
// probability at every coarse node, by Adam steps on the cross-entropy to that soft target.
void imitate_start(HsdagNet& net, const Task& task, const std::vector<int>& node_device, const HsdagConfig& cfg) {
  const int D = task.problem->num_devices(), N = task.prep.coarse.num_groups();
  std::vector<float> target(static_cast<std::size_t>(N) * D, static_cast<float>((1 - cfg.imitate_share) / (D - 1)));
  for (int g = 0; g < N; ++g) target[static_cast<std::size_t>(g) * D + node_device[g]] = static_cast<float>(cfg.imitate_share);
  const torch::Tensor t = torch::from_blob(target.data(), {N, D}, torch::kFloat);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  net->train();
  for (int step = 0; step < cfg.imitate_steps; ++step) {
    const torch::Tensor loss = -(t * node_log_probs(net->forward(task.prep.x, task.prep.graph))).sum(1).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// Sets up what HsdagConfig::imitate_steps and ::demonstration ask for (simulator objective, no
// feasibility mask, two or more devices; imitation only for a fresh, untrained policy).
void start_from_heft(HsdagNet& net, Task& task, TaskState& ts, const HsdagConfig& cfg, bool resumed) {
  const bool imitate = cfg.imitate_steps > 0 && cfg.init_policy.empty() && !resumed;
  if ((!imitate && !cfg.demonstration) || task.problem->num_devices() < 2 || task.mask ||
      task.reward->objective() != Objective::simulator)
    return;
  const Start start = start_devices(task, ts, resumed);
  if (imitate) imitate_start(net, task, start.node_device, cfg);
  if (cfg.demonstration && start.heft_gain > cfg.demonstration_margin) task.demo_node_device = start.node_device;
}

HsdagNet make_policy_net(const Prepared& prep, int devices, const HsdagConfig& cfg) {
  HsdagNet net = make_net(prep, devices, cfg);
  if (!cfg.init_policy.empty()) load_policy(cfg.init_policy, net, prep.features.cols, devices, cfg);
  return net;
}

}  // namespace

TrainResult train_hsdag(const Problem& problem, Reward& reward, const HsdagConfig& config,
                        const std::function<void(const EpisodeLog&)>& on_episode) {
  const HsdagConfig cfg = hsdag_config_for(config, reward.objective());
  check_config(cfg);
  const auto t_start = std::chrono::steady_clock::now();
  TorchScope torch_scope(cfg.seed);
  TrainerState st;
  st.rng.seed(cfg.seed);
  Prepared prep = prepare(problem, cfg);
  HsdagNet net = make_policy_net(prep, problem.num_devices(), cfg);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  if (cfg.resume && !cfg.checkpoint_dir.empty()) load_hsdag_checkpoint(cfg.checkpoint_dir, net, opt, st, prep);
  const bool resumed = st.episode > 0;
  Task task = make_task(problem, reward, std::move(prep), st.task, resumed, cfg.feasibility_mask);
  if (!resumed) lean_to_reference(net, task, cfg);
  start_from_heft(net, task, st.task, cfg, resumed);

  int run_episodes = 0;
  // With relocations, a policy counts as settled only after as many settled episodes as moving
  // every node once takes.
  PolicyGradientOptions settle = cfg.pg;
  if (const int r = relocations_per_batch(cfg, task); r > 0)
    settle.patience = std::max(settle.patience, (task.prep.coarse.num_groups() + r - 1) / r);
  SettledWatch watch(settle);
  EntropyBonus bonus(cfg.pg);
  // A resumed run replays the log, so it stops, and weighs the entropy, where an uninterrupted
  // run would.
  bool settled_before = false;
  for (const EpisodeLog& e : st.log) {
    settled_before = watch.settled(e.entropy, e.episode - 1, cfg.episodes, e.mean_latency, e.best_latency);
    bonus.observe(e.entropy, e.episode - 1, cfg.episodes);
  }
  for (; !settled_before && st.episode < cfg.episodes; ++st.episode) {
    if (cfg.stop_after > 0 && run_episodes >= cfg.stop_after) break;
    set_lr(opt, cfg.lr * lr_share_at(cfg.pg, st.episode, cfg.episodes));
    // A reward that fails mid-episode (every measuring replica lost) leaves the network and the
    // optimiser as the last episode left them (the update follows the evaluations): checkpoint
    // that state, with the generator rewound, so --resume repeats this episode exactly.
    const std::mt19937_64 rng_before = st.rng;
    EpisodeLog e;
    try {
      e = train_episode(net, opt, task, st.task, st.rng, cfg, bonus.weight(st.episode, cfg.episodes), st.episode,
                        st.episode);
    } catch (const Error& failure) {
      if (cfg.checkpoint_dir.empty()) throw;
      st.rng = rng_before;
      save_hsdag_checkpoint(cfg.checkpoint_dir, net, opt, st, task.prep);
      throw Error(failure.file(), failure.node(),
                  failure.reason() + "; training stopped after " + std::to_string(st.episode) +
                      " episodes, checkpoint in " + cfg.checkpoint_dir + " (continue with --resume)");
    }
    e.episode = st.episode + 1;
    st.log.push_back(e);
    ++run_episodes;
    if (on_episode) on_episode(e);
    const bool settled = watch.settled(e.entropy, st.episode, cfg.episodes, e.mean_latency, e.best_latency);
    bonus.observe(e.entropy, st.episode, cfg.episodes);
    if (!cfg.checkpoint_dir.empty() && cfg.checkpoint_every > 0 && (st.episode + 1) % cfg.checkpoint_every == 0) {
      st.episode += 1;  // the checkpoint records episodes completed
      save_hsdag_checkpoint(cfg.checkpoint_dir, net, opt, st, task.prep);
      st.episode -= 1;
    }
    if (settled) {
      ++st.episode;
      break;
    }
  }
  if (!cfg.save_policy.empty()) save_policy(cfg.save_policy, net, task.prep.features.cols, problem.num_devices(), cfg);

  TrainResult r = finish_task(net, task, st.task, cfg);
  r.episodes = st.episode;
  r.log = st.log;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

std::vector<TrainResult> train_hsdag_multi(const std::vector<RewardTask>& tasks, const HsdagConfig& config,
                                           const std::function<void(const EpisodeLog&)>& on_episode) {
  if (tasks.empty()) throw Error("", "", "HSDAG: no graphs to train on");
  const HsdagConfig cfg = hsdag_config_for(config, tasks[0].reward->objective());
  check_config(cfg);
  if (!cfg.checkpoint_dir.empty() || cfg.resume)
    throw Error("", "", "HSDAG: checkpoints are for training on one graph; train on several without --checkpoint");
  const auto t_start = std::chrono::steady_clock::now();
  TorchScope torch_scope(cfg.seed);
  std::mt19937_64 rng(cfg.seed);
  std::vector<TaskState> states(tasks.size());
  std::vector<Task> run;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    run.push_back(make_task(*tasks[i].problem, *tasks[i].reward, prepare(*tasks[i].problem, cfg), states[i], false,
                            cfg.feasibility_mask));
    if (run[i].problem->num_devices() != run[0].problem->num_devices() ||
        run[i].prep.features.cols != run[0].prep.features.cols)
      throw Error("", run[i].problem->graph().name(), "HSDAG: every graph must be placed on the same cluster");
  }
  HsdagNet net = make_policy_net(run[0].prep, run[0].problem->num_devices(), cfg);
  lean_to_reference(net, run[0], cfg);  // the first graph's best device
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  std::vector<std::vector<EpisodeLog>> logs(tasks.size());
  EntropyBonus bonus(cfg.pg);  // one network, one entropy to track
  for (int ep = 0; ep < cfg.episodes; ++ep) {
    const std::size_t i = static_cast<std::size_t>(ep) % tasks.size();  // graphs take turns
    set_lr(opt, cfg.lr * lr_share_at(cfg.pg, ep, cfg.episodes));
    EpisodeLog e =
        train_episode(net, opt, run[i], states[i], rng, cfg, bonus.weight(ep, cfg.episodes), ep,
                      ep / static_cast<int>(tasks.size()));
    bonus.observe(e.entropy, ep, cfg.episodes);
    e.episode = ep + 1;
    logs[i].push_back(e);
    if (on_episode) on_episode(e);
  }
  if (!cfg.save_policy.empty())
    save_policy(cfg.save_policy, net, run[0].prep.features.cols, run[0].problem->num_devices(), cfg);
  std::vector<TrainResult> results;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    TrainResult r = finish_task(net, run[i], states[i], cfg);
    r.episodes = cfg.episodes;
    r.log = logs[i];
    r.seconds = seconds;
    results.push_back(std::move(r));
  }
  return results;
}

int hsdag_group_count(const Problem& problem, const HsdagConfig& cfg) {
  TorchScope torch_scope(cfg.seed);
  Prepared prep = prepare(problem, cfg);
  HsdagNet net = make_net(prep, problem.num_devices(), cfg);
  torch::NoGradGuard no_grad;
  net->eval();
  return net->forward(prep.x, prep.graph).groups;
}

std::unique_ptr<Placer> make_hsdag_placer(HsdagConfig config, std::string name, TrainedPick pick) {
  const int episodes = config.episodes;
  return make_training_placer(
      std::move(name), episodes,
      [config](const Problem& problem, Reward& reward, const PlaceOptions& options, const EpisodeCallback& on_episode) {
        HsdagConfig c = config;
        c.seed = options.seed;
        // An evaluation budget sets the episodes: the references and the greedy answer count too,
        // and so does the polish (a quarter of the budget at most; it scores its answer once more).
        // A loaded policy placing zero-shot stays untrained.
        if (options.eval_budget > 0 && (c.init_policy.empty() || c.episodes > 0)) {
          const std::int64_t one_episode = c.samples + problem.num_devices() + 1;
          std::int64_t training = options.eval_budget;
          if (c.refine_evals > 0) {
            const std::int64_t polish =
                std::min<std::int64_t>({c.refine_evals + 1, options.eval_budget / 4, options.eval_budget - one_episode});
            c.refine_evals = static_cast<int>(std::max<std::int64_t>(0, polish - 1));
            training -= c.refine_evals > 0 ? c.refine_evals + 1 : 0;
          }
          if (options.eval_budget < one_episode)
            throw Error("", problem.graph().name(),
                        "HSDAG: a budget of " + std::to_string(options.eval_budget) +
                            " evaluations is less than one episode (" + std::to_string(c.samples) + " samples + " +
                            std::to_string(problem.num_devices()) +
                            " single-device references + its answer = " + std::to_string(one_episode) + ")");
          c.episodes = static_cast<int>((training - problem.num_devices() - 1) / c.samples);
        }
        return train_hsdag(problem, reward, c, on_episode);
      },
      pick);
}

}  // namespace devplace
