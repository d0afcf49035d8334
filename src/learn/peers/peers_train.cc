// Training of the learned peers (peers.h): the seq2seq trainer shared by the RNN placer and the
// hierarchical planner, the Placeto MDP trainer (one or several graphs), checkpoints, policy
// files and the placer wrapper. Same conventions as hsdag_train.cc.
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "learn/rl/archive_io.h"
#include "learn/peers/peers.h"
#include "learn/peers/peers_net.h"
#include "learn/rl/policy_gradient.h"
#include "learn/rl/torch_scope.h"
#include "learn/rl/training_placer.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_config(const PeerConfig& c) {
  if (c.hidden <= 0 || c.groups <= 0 || c.rounds < 0)
    throw Error("", "", std::string(peer_method_name(c.algo)) + ": hidden and groups must be positive");
  if (c.samples <= 0 || c.episodes < 0)
    throw Error("", "", std::string(peer_method_name(c.algo)) + ": samples must be positive, episodes non-negative");
  if (!(c.lr > 0)) throw Error("", "", std::string(peer_method_name(c.algo)) + ": learning rate must be positive");
  if (!c.init_policy.empty() && c.algo != PeerMethod::placeto)
    throw Error("", "", std::string("policy files are supported for placeto only, not ") + peer_method_name(c.algo));
}

// Normalised cost of an evaluation: latency / reference, plus the overflow penalty.
// Infeasible placements are ranked by how far from feasible they are (Evaluation::violation).
double cost_of(const Evaluation& e, const SingleDeviceReference& s, const PeerConfig& c) {
  const double penalty = e.feasible ? 0.0 : c.overflow_penalty * (1.0 + e.violation);
  if (!std::isfinite(e.latency) || e.latency <= 0) return 10.0 + penalty;
  return e.latency / s.latency + penalty;
}

// Fills the fields every learner reports: the policy's own placement, the best sampled one, the
// better of the two, and the evaluations spent.
void fill_result(PeerResult& r, Placement greedy, const Evaluation& ge, const Placement& sampled,
                 double sampled_latency, long long evaluations) {
  r.greedy = std::move(greedy);
  r.greedy_latency = ge.feasible ? ge.latency : kInf;
  r.sampled = sampled;
  r.sampled_latency = sampled_latency;
  r.polished_latency = kInf;
  r.evaluations = evaluations;
  const bool greedy_better = r.greedy_latency <= r.sampled_latency;
  r.best = greedy_better || sampled.empty() ? r.greedy : r.sampled;
  r.best_latency = greedy_better || sampled.empty() ? ge.latency : r.sampled_latency;
}

// Everything needed to continue training exactly where it stopped (per task: best placement).
struct TrainerState {
  int episode = 0;
  std::vector<double> baseline;      // rnn/hierarchical: 1; placeto: one per (task, step)
  std::vector<double> baseline_set;  // 0 / 1 per baseline
  std::vector<double> best_latency;  // per task
  std::vector<Placement> best;       // per task
  std::vector<EpisodeLog> log;
};

torch::Tensor doubles(const std::vector<double>& v) { return torch::tensor(v, torch::kDouble); }

std::string checkpoint_path(const PeerConfig& c) { return c.checkpoint_dir + "/" + peer_method_name(c.algo) + ".ckpt"; }

// A peer's checkpoint (rl/archive_io.h) adds its baselines and the best placement of each graph.
void save_peer_checkpoint(const PeerConfig& c, torch::nn::Module& net, torch::optim::Adam& opt,
                          const TrainerState& st) {
  save_checkpoint(checkpoint_path(c), net, opt, st.episode, st.log, [&](torch::serialize::OutputArchive& ar) {
    ar.write("baseline", doubles(st.baseline));
    ar.write("baseline_set", doubles(st.baseline_set));
    ar.write("best_latency", doubles(st.best_latency));
    std::vector<int64_t> best;
    for (const auto& p : st.best)
      best.push_back(static_cast<int64_t>(p.size())), best.insert(best.end(), p.begin(), p.end());
    ar.write("best", torch::tensor(best, torch::kLong));
  });
}

void load_peer_checkpoint(const PeerConfig& c, torch::nn::Module& net, torch::optim::Adam& opt, TrainerState& st) {
  const std::string path = checkpoint_path(c);
  load_checkpoint(path, net, opt, st.episode, st.log, [&](CheckpointReader& read) {
    auto b = read.doubles("baseline"), bs = read.doubles("baseline_set"), bl = read.doubles("best_latency");
    if (b.size() != st.baseline.size() || bl.size() != st.best_latency.size())
      throw Error(path, "", "checkpoint was made for another graph or algorithm");
    st.baseline = b, st.baseline_set = bs, st.best_latency = bl;
    const torch::Tensor best = read.tensor("best");
    const int64_t* p = best.data_ptr<int64_t>();
    for (auto& pl : st.best) {
      const int64_t n = *p++;
      pl.assign(p, p + n);
      p += n;
    }
  });
}

void maybe_checkpoint(const PeerConfig& c, torch::nn::Module& net, torch::optim::Adam& opt, TrainerState& st) {
  if (c.checkpoint_dir.empty() || c.checkpoint_every <= 0 || (st.episode + 1) % c.checkpoint_every != 0) return;
  st.episode += 1;  // the checkpoint records episodes completed
  save_peer_checkpoint(c, net, opt, st);
  st.episode -= 1;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<std::pair<int, int>> dag_edges(const Coarsening& c) {
  std::vector<std::pair<int, int>> e;
  for (int u = 0; u < c.num_groups(); ++u)
    for (int v : c.succs[u]) e.push_back({u, v});
  return e;
}

torch::Tensor feature_tensor(const FeatureMatrix& f) {
  return torch::from_blob(const_cast<float*>(f.data.data()), {f.rows, f.cols}, torch::kFloat).clone();
}

// ---- RNN placer and hierarchical planner ------------------------------------------------------

// One batch of K placements from the seq2seq policy (and the Grouper for hierarchical).
struct Seq2SeqBatch {
  std::vector<std::vector<int>> unit_device;  // per sample: device per decision unit (coarse node / op)
  torch::Tensor logp, entropy;
  int groups_used = 0;  // hierarchical: non-empty groups of sample 0
};

class Seq2SeqPolicy : public torch::nn::Module {
 public:
  Seq2SeqPolicy(const PeerConfig& c, const torch::Tensor& x, const Coarsening& units, int devices)
      : hierarchical_(c.algo == PeerMethod::hierarchical), groups_(c.groups), x_(x) {
    const int F = static_cast<int>(x.size(1));
    if (hierarchical_) {
      g1_ = register_module("grouper1", torch::nn::Linear(F, c.hidden));
      g2_ = register_module("grouper2", torch::nn::Linear(c.hidden, groups_));
      const int n = units.num_groups();
      adjacency_ = torch::zeros({n, n});
      for (int u = 0; u < n; ++u)
        for (int v : units.succs[u]) adjacency_[u][v] = 1.0f;
      placer_ = register_module("placer", Seq2Seq(F + 1 + 2 * groups_, c.hidden, devices));
    } else {
      placer_ = register_module("placer", Seq2Seq(F, c.hidden, devices));
    }
  }

  Seq2SeqBatch sample(int K, bool greedy) {
    Seq2SeqBatch b;
    const int64_t n = x_.size(0);
    if (!hierarchical_) {
      DecodeOutput d = placer_->forward(x_.unsqueeze(1).expand({n, K, x_.size(1)}), greedy);
      auto a = d.actions.t().contiguous();  // [K, n]
      const int64_t* p = a.data_ptr<int64_t>();
      for (int k = 0; k < K; ++k) b.unit_device.emplace_back(p + k * n, p + (k + 1) * n);
      b.logp = d.logp, b.entropy = d.entropy;
      return b;
    }
    // Grouper: a softmax over groups per op; group inputs are pooled from the sampled members.
    auto lg = torch::log_softmax(g2_->forward(torch::relu(g1_->forward(x_))), 1);  // [n, N]
    torch::Tensor assign = greedy ? lg.argmax(1).unsqueeze(0) : torch::multinomial(lg.exp().detach(), K, true).t();
    assign = assign.contiguous();  // [K, n]
    auto grp_logp = lg.unsqueeze(0).expand({K, n, groups_}).gather(2, assign.unsqueeze(2)).squeeze(2).sum(1);
    auto grp_entropy = -(lg.exp() * lg).sum(1).mean();
    torch::Tensor gx;
    {
      torch::NoGradGuard no_grad;
      auto A = torch::one_hot(assign, groups_).to(torch::kFloat);  // [K, n, N]
      auto At = A.transpose(1, 2);
      auto counts = A.sum(1);  // [K, N]
      auto mean = torch::bmm(At, x_.unsqueeze(0).expand({K, n, x_.size(1)})) / counts.clamp_min(1).unsqueeze(2);
      auto adj = torch::bmm(torch::bmm(At, adjacency_.unsqueeze(0).expand({K, n, n})), A);  // [K, N, N]
      gx =
          torch::cat({mean, torch::log1p(counts).unsqueeze(2), torch::log1p(adj), torch::log1p(adj.transpose(1, 2))}, 2)
              .transpose(0, 1)
              .contiguous();  // [N, K, F + 1 + 2N]
      b.groups_used = static_cast<int>((counts[0] > 0).sum().item<int64_t>());
    }
    DecodeOutput d = placer_->forward(gx, greedy);
    auto dev = d.actions.t().gather(1, assign).contiguous();  // [K, n]: device of each op's group
    const int64_t* p = dev.data_ptr<int64_t>();
    for (int k = 0; k < K; ++k) b.unit_device.emplace_back(p + k * n, p + (k + 1) * n);
    b.logp = d.logp + grp_logp;
    b.entropy = d.entropy + grp_entropy;
    return b;
  }

 private:
  bool hierarchical_;
  int groups_;
  torch::Tensor x_, adjacency_;
  torch::nn::Linear g1_{nullptr}, g2_{nullptr};
  Seq2Seq placer_{nullptr};
};

PeerResult train_seq2seq(const Problem& problem, Reward& uncounted, const PeerConfig& cfg,
                         const std::function<void(const EpisodeLog&)>& on_episode) {
  CountingReward reward(uncounted);
  const auto t_start = std::chrono::steady_clock::now();
  // Decision units: co-location groups for the RNN placer; for the hierarchical planner single
  // ops (zero-cost ops stay with their kernels), which its Grouper groups.
  CoarsenOptions co = cfg.coarsen;
  if (cfg.algo == PeerMethod::hierarchical) co.merge_single_predecessor = false, co.chains_only = false;
  // The RNN's attention and steps grow with the number of groups: cap it (hierarchical groups
  // per op through its Grouper, whose cost is linear).
  const Coarsening units = cfg.algo == PeerMethod::hierarchical
                               ? coarsen(problem.graph(), co)
                               : cap_groups(problem.graph(), coarsen(problem.graph(), co), cfg.max_groups);
  const FeatureMatrix features = node_features(problem, units, cfg.features);
  const torch::Tensor x = feature_tensor(features);
  auto net = std::make_shared<Seq2SeqPolicy>(cfg, x, units, problem.num_devices());
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  TrainerState st;
  st.baseline = {0}, st.baseline_set = {0}, st.best_latency = {kInf}, st.best.resize(1);
  const SingleDeviceReference scale = best_single_device(problem, reward);
  if (cfg.resume && !cfg.checkpoint_dir.empty()) load_peer_checkpoint(cfg, *net, opt, st);

  int run_episodes = 0;
  for (; st.episode < cfg.episodes; ++st.episode) {
    if (cfg.stop_after > 0 && run_episodes >= cfg.stop_after) break;
    const auto t_ep = std::chrono::steady_clock::now();
    net->train();
    Seq2SeqBatch b = net->sample(cfg.samples, false);
    std::vector<double> rewards, latencies;
    for (const auto& unit_device : b.unit_device) {
      Placement p = expand(units, unit_device);
      Evaluation e = reward.evaluate(p);
      latencies.push_back(e.latency);
      rewards.push_back(-std::sqrt(cost_of(e, scale, cfg)));  // Mirhoseini et al.: -sqrt(runtime)
      if (e.feasible && e.latency < st.best_latency[0]) st.best_latency[0] = e.latency, st.best[0] = std::move(p);
    }
    const std::vector<float> adv = centred_advantages(rewards, cfg.advantage_floor);
    // b.entropy is the mean over decisions; the log-probability sums them: weigh alike.
    const double decisions = static_cast<double>(b.unit_device.front().size());
    auto loss = -(torch::tensor(adv) * b.logp).mean() - cfg.entropy_weight * decisions * b.entropy;
    opt.zero_grad();
    loss.backward();
    opt.step();

    EpisodeLog e;
    e.episode = st.episode + 1;
    double ml = 0, mr = 0;
    int finite = 0;
    for (double l : latencies)
      if (std::isfinite(l)) ml += l, ++finite;
    for (double r : rewards) mr += r;
    e.mean_latency = finite ? ml / finite : kInf;
    e.best_latency = st.best_latency[0];
    e.mean_reward = mr / rewards.size();
    e.entropy = b.entropy.item<double>();
    e.groups = cfg.algo == PeerMethod::hierarchical ? b.groups_used : units.num_groups();
    e.seconds = seconds_since(t_ep);
    st.log.push_back(e);
    ++run_episodes;
    if (on_episode) on_episode(e);
    maybe_checkpoint(cfg, *net, opt, st);
  }

  torch::NoGradGuard no_grad;
  net->eval();
  Seq2SeqBatch g = net->sample(1, true);
  Placement greedy = expand(units, g.unit_device[0]);
  Evaluation ge = reward.evaluate(greedy);

  PeerResult r;
  fill_result(r, std::move(greedy), ge, st.best[0], st.best_latency[0], reward.count());
  r.episodes = st.episode;
  r.coarse_nodes = units.num_groups();
  r.groups = cfg.algo == PeerMethod::hierarchical ? g.groups_used : units.num_groups();
  r.log = st.log;
  r.seconds = seconds_since(t_start);
  return r;
}

// ---- Placeto ------------------------------------------------------------------------------------

struct PlacetoGraph {
  const Problem* problem = nullptr;
  Reward* reward = nullptr;
  Coarsening coarse;
  torch::Tensor x;
  DagTensors dag;
  SingleDeviceReference scale;  // what this graph's rewards are normalised by
  int G = 0;
  std::size_t baseline_offset = 0;  // this graph's per-step baselines in TrainerState::baseline
};

void save_policy(const std::string& path, PlacetoNet& net, const PeerConfig& c, int features, int devices) {
  torch::serialize::OutputArchive ar, model_ar;
  net->save(model_ar);
  ar.write("model", model_ar);
  ar.write("shape", torch::tensor({int64_t(features), int64_t(c.hidden), int64_t(devices), int64_t(c.rounds)}));
  save_archive_atomically(ar, path);
}

void load_policy(const std::string& path, PlacetoNet& net, const PeerConfig& c, int features, int devices) {
  if (!std::filesystem::exists(path)) throw Error(path, "", "no such policy file", ErrorKind::not_found);
  try {
    torch::serialize::InputArchive ar, model_ar;
    ar.load_from(path);
    torch::Tensor shape;
    ar.read("shape", shape);
    shape = shape.contiguous();
    const int64_t* s = shape.data_ptr<int64_t>();
    if (s[0] != features || s[1] != c.hidden || s[2] != devices || s[3] != c.rounds)
      throw Error(path, "",
                  "policy was trained with " + std::to_string(s[0]) + " features, hidden " + std::to_string(s[1]) +
                      ", " + std::to_string(s[2]) + " devices, " + std::to_string(s[3]) + " rounds; this run has " +
                      std::to_string(features) + ", " + std::to_string(c.hidden) + ", " + std::to_string(devices) +
                      ", " + std::to_string(c.rounds));
    ar.read("model", model_ar);
    net->load(model_ar);
  } catch (const c10::Error& e) {
    throw Error(path, "", std::string("corrupt or incompatible policy file: ") + e.what_without_backtrace(), ErrorKind::corrupt);
  }
}

struct Sweep {
  torch::Tensor before;                    // [G, K, G] long: the placement each step saw
  torch::Tensor actions;                   // [G, K] long
  std::vector<std::vector<double>> cost;   // [K][G + 1]: normalised cost before step 0 and after each step
  std::vector<Evaluation> final_eval;      // [K]
  std::vector<Placement> final_placement;  // [K], per op
};

// Visits every node once in topological order, starting from the best single device.
Sweep run_sweep(PlacetoNet& net, PlacetoGraph& g, int K, bool greedy, const PeerConfig& cfg) {
  torch::NoGradGuard no_grad;
  Sweep s;
  const int G = g.G;
  const Evaluation e0 = g.reward->evaluate(Placement(g.problem->num_ops(), g.scale.device));
  const double c0 = cost_of(e0, g.scale, cfg);
  auto place = torch::full({K, G}, g.scale.device, torch::kLong);
  s.before = torch::empty({G, K, G}, torch::kLong);
  s.actions = torch::empty({G, K}, torch::kLong);
  s.cost.assign(K, std::vector<double>(G + 1, c0));
  s.final_eval.assign(K, e0);
  std::vector<int> unit_device(G);
  for (int t = 0; t < G; ++t) {
    s.before[t] = place;
    auto logits = net->forward(g.x, place, torch::full({K}, t, torch::kLong), g.dag);
    torch::Tensor a = greedy ? logits.argmax(1) : torch::multinomial(torch::softmax(logits, 1), 1).squeeze(1);
    s.actions[t] = a;
    auto changed = (place.select(1, t) != a).contiguous();
    place.select(1, t).copy_(a);
    auto pc = place.contiguous();
    const int64_t* p = pc.data_ptr<int64_t>();
    const bool* ch = changed.data_ptr<bool>();
    for (int k = 0; k < K; ++k) {
      if (!ch[k]) {
        s.cost[k][t + 1] = s.cost[k][t];  // unchanged placement: no need to simulate again
        continue;
      }
      unit_device.assign(p + int64_t(k) * G, p + int64_t(k + 1) * G);
      Evaluation e = g.reward->evaluate(expand(g.coarse, unit_device));
      s.cost[k][t + 1] = cost_of(e, g.scale, cfg);
      s.final_eval[k] = e;
    }
  }
  auto pc = place.contiguous();
  const int64_t* p = pc.data_ptr<int64_t>();
  for (int k = 0; k < K; ++k) {
    unit_device.assign(p + int64_t(k) * G, p + int64_t(k + 1) * G);
    s.final_placement.push_back(expand(g.coarse, unit_device));
  }
  // final_eval[k] is the evaluation of the last changed placement, i.e. of the final one.
  return s;
}

}  // namespace

std::vector<PeerResult> train_placeto_multi(const std::vector<RewardTask>& uncounted, const PeerConfig& cfg0,
                                            const std::function<void(const EpisodeLog&)>& on_episode) {
  std::vector<std::unique_ptr<CountingReward>> counters;
  std::vector<RewardTask> tasks = uncounted;
  for (auto& t : tasks) {
    counters.push_back(std::make_unique<CountingReward>(*t.reward));
    t.reward = counters.back().get();
  }
  PeerConfig cfg = cfg0;
  cfg.algo = PeerMethod::placeto;
  check_config(cfg);
  if (tasks.empty()) throw Error("", "", "placeto: no graphs to train on");
  const auto t_start = std::chrono::steady_clock::now();
  TorchScope torch_scope(cfg.seed);
  const int D = tasks[0].problem->num_devices();
  TrainerState st;
  std::vector<PlacetoGraph> graphs;
  for (const auto& t : tasks) {
    if (t.problem->num_devices() != D) throw Error("", "", "placeto: all graphs must be placed on the same cluster");
    PlacetoGraph g;
    g.problem = t.problem, g.reward = t.reward;
    g.coarse = cap_groups(t.problem->graph(), coarsen(t.problem->graph(), cfg.coarsen), cfg.max_groups);
    FeatureMatrix f = node_features(*t.problem, g.coarse, cfg.features);
    g.x = feature_tensor(f);
    g.G = g.coarse.num_groups();
    g.dag = DagTensors::build(g.G, dag_edges(g.coarse));
    st.best_latency.push_back(kInf);
    st.best.emplace_back();
    g.scale = best_single_device(*t.problem, *t.reward);
    g.baseline_offset = st.baseline.size();
    st.baseline.resize(st.baseline.size() + g.G, 0.0);
    graphs.push_back(std::move(g));
  }
  st.baseline_set.assign(st.baseline.size(), 0.0);
  for (const auto& g : graphs)
    if (g.x.size(1) != graphs[0].x.size(1)) throw Error("", "", "placeto: feature widths differ between graphs");
  const int F = static_cast<int>(graphs[0].x.size(1));
  PlacetoNet net(F, cfg.hidden, D, cfg.rounds);
  if (!cfg.init_policy.empty()) load_policy(cfg.init_policy, net, cfg, F, D);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  if (cfg.resume && !cfg.checkpoint_dir.empty()) load_peer_checkpoint(cfg, *net, opt, st);

  const int K = cfg.samples;
  int run_episodes = 0;
  // The most the greedy answers can cost (one sweep per graph), kept out of the budget's reach.
  std::int64_t answers = 0;
  for (const auto& g : graphs) answers += 1 + g.G;
  for (; st.episode < cfg.episodes; ++st.episode) {
    if (cfg.stop_after > 0 && run_episodes >= cfg.stop_after) break;
    const auto t_ep = std::chrono::steady_clock::now();
    const int task = st.episode % static_cast<int>(graphs.size());
    PlacetoGraph& g = graphs[task];
    const int G = g.G;
    if (cfg.eval_budget > 0) {
      std::int64_t spent = 0;
      for (const auto& c : counters) spent += c->count();
      if (spent + 1 + static_cast<std::int64_t>(K) * G + answers > cfg.eval_budget) break;
    }
    net->train();
    Sweep s = run_sweep(net, g, K, false, cfg);
    // Per-step returns of the improvements, their per-step baselines, advantages.
    std::vector<float> adv(static_cast<std::size_t>(G) * K);  // [t][k]
    std::vector<double> ret(K, 0.0);
    double sum = 0, sq = 0;
    for (int t = G - 1; t >= 0; --t) {
      double mean = 0;
      for (int k = 0; k < K; ++k) {
        ret[k] = (s.cost[k][t] - s.cost[k][t + 1]) + cfg.gamma * ret[k];
        mean += ret[k];
      }
      mean /= K;
      double& b = st.baseline[g.baseline_offset + t];
      double& set = st.baseline_set[g.baseline_offset + t];
      if (set == 0) b = mean, set = 1;
      for (int k = 0; k < K; ++k) {
        const double a = ret[k] - b;
        adv[static_cast<std::size_t>(t) * K + k] = static_cast<float>(a);
        sum += a, sq += a * a;
      }
      b = cfg.baseline_decay * b + (1 - cfg.baseline_decay) * mean;
    }
    const double n = static_cast<double>(adv.size()), m = sum / n;
    // Centred on the batch, and scaled down by its spread only to a floor (policy_gradient.h).
    const double inv_std = 1.0 / std::max(std::sqrt(std::max(0.0, sq / n - m * m)), cfg.advantage_floor);
    for (auto& a : adv) a = static_cast<float>((a - m) * inv_std);
    auto adv_t = torch::tensor(adv).view({G, K});
    // Recompute the policy with gradients, a chunk of steps at a time (bounded memory).
    opt.zero_grad();
    const int chunk = std::max(1, 40000 / std::max(1, K * G));
    double entropy_sum = 0;
    for (int t0 = 0; t0 < G; t0 += chunk) {
      const int t1 = std::min(G, t0 + chunk), B = (t1 - t0) * K;
      auto before = s.before.slice(0, t0, t1).reshape({B, G});
      auto steps = torch::arange(t0, t1, torch::kLong).unsqueeze(1).expand({t1 - t0, K}).reshape({B});
      auto lp = torch::log_softmax(net->forward(g.x, before, steps, g.dag), 1);
      auto a = s.actions.slice(0, t0, t1).reshape({B, 1});
      auto logp = lp.gather(1, a).squeeze(1);
      auto ent = -(lp.exp() * lp).sum(1);
      auto loss = (-(adv_t.slice(0, t0, t1).reshape({B}) * logp).sum() - cfg.entropy_weight * ent.sum()) / (G * K);
      loss.backward();
      entropy_sum += ent.sum().item<double>();
    }
    opt.step();

    EpisodeLog e;
    e.episode = st.episode + 1;
    double ml = 0, mr = 0;
    int finite = 0;
    for (int k = 0; k < K; ++k) {
      const Evaluation& ev = s.final_eval[k];
      if (std::isfinite(ev.latency)) ml += ev.latency, ++finite;
      mr += s.cost[k][0] - s.cost[k][G];
      if (ev.feasible && ev.latency < st.best_latency[task])
        st.best_latency[task] = ev.latency, st.best[task] = s.final_placement[k];
    }
    e.mean_latency = finite ? ml / finite : kInf;
    e.best_latency = st.best_latency[task];
    e.mean_reward = mr / K;  // mean total improvement of a sweep, in units of the reference latency
    e.entropy = entropy_sum / (G * K);
    e.groups = G;
    e.seconds = seconds_since(t_ep);
    st.log.push_back(e);
    ++run_episodes;
    if (on_episode) on_episode(e);
    maybe_checkpoint(cfg, *net, opt, st);
  }
  if (!cfg.save_policy.empty()) save_policy(cfg.save_policy, net, cfg, F, D);

  net->eval();
  std::vector<PeerResult> results;
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    Sweep s = run_sweep(net, graphs[i], 1, true, cfg);
    const Evaluation& ge = s.final_eval[0];
    PeerResult r;
    fill_result(r, s.final_placement[0], ge, st.best[i], st.best_latency[i], counters[i]->count());
    r.episodes = st.episode;
    r.coarse_nodes = r.groups = graphs[i].G;
    r.log = st.log;
    r.seconds = seconds_since(t_start);
    results.push_back(std::move(r));
  }
  return results;
}

PeerResult train_peer(const Problem& problem, Reward& reward, const PeerConfig& cfg,
                      const std::function<void(const EpisodeLog&)>& on_episode) {
  check_config(cfg);
  if (cfg.algo == PeerMethod::placeto) return train_placeto_multi({{&problem, &reward}}, cfg, on_episode).front();
  TorchScope torch_scope(cfg.seed);
  return train_seq2seq(problem, reward, cfg, on_episode);
}

const char* peer_method_name(PeerMethod method) {
  switch (method) {
    case PeerMethod::rnn:
      return "rnn";
    case PeerMethod::hierarchical:
      return "hierarchical";
    case PeerMethod::placeto:
      return "placeto";
  }
  return "rnn";
}

PeerMethod peer_method(const std::string& name) {
  for (PeerMethod m : {PeerMethod::rnn, PeerMethod::hierarchical, PeerMethod::placeto})
    if (name == peer_method_name(m)) return m;
  throw Error("", "", "unknown learned peer '" + name + "' (rnn, hierarchical, placeto)", ErrorKind::not_found);
}

void apply_peer_override(PeerConfig& c, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos) throw Error("", "", "--set expects KEY=VALUE, got '" + assignment + "'");
  const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  double v = 0;
  bool is_num = true;
  try {
    std::size_t used = 0;
    v = std::stod(value, &used);
    is_num = used == value.size();
  } catch (const std::exception&) {
    is_num = false;
  }
  auto flag = [&] {
    if (value == "1" || value == "true" || value == "on") return true;
    if (value == "0" || value == "false" || value == "off") return false;
    throw Error("", "", "--set " + key + ": expected true or false, got '" + value + "'");
  };
  if (key == "chains") return void(c.coarsen.chains_only = flag());
  if (key == "merge") return void(c.coarsen.merge_single_predecessor = flag());
  if (key == "colocate") return void(c.coarsen.colocate = flag());
  if (!is_num) throw Error("", "", "--set " + key + ": '" + value + "' is not a number");
  if (key == "hidden")
    c.hidden = static_cast<int>(v);
  else if (key == "max_groups")
    c.max_groups = static_cast<int>(v);
  else if (key == "groups")
    c.groups = static_cast<int>(v);
  else if (key == "rounds")
    c.rounds = static_cast<int>(v);
  else if (key == "lr")
    c.lr = v;
  else if (key == "episodes")
    c.episodes = static_cast<int>(v);
  else if (key == "samples")
    c.samples = static_cast<int>(v);
  else if (key == "entropy")
    c.entropy_weight = v;
  else if (key == "baseline_decay")
    c.baseline_decay = v;
  else if (key == "gamma")
    c.gamma = v;
  else if (key == "floor")
    c.advantage_floor = v;
  else if (key == "overflow_penalty")
    c.overflow_penalty = v;
  else
    throw Error("", "",
                "--set: unknown key '" + key + "' for " + peer_method_name(c.algo) +
                    " (hidden, groups, rounds, lr, episodes, samples, entropy, baseline_decay, "
                    "gamma, floor, overflow_penalty, max_groups, chains, merge, colocate)", ErrorKind::not_found);
}

namespace {

// Fits c's training within `budget` evaluations (the single-device references and the policy's
// answer included): fewer episodes where the configured ones would pass it. A Placeto sweep
// evaluates only the steps that change the placement, so Placeto keeps its episodes and stops on
// what it has spent (PeerConfig::eval_budget). Throws Error when not even one episode fits at
// worst, as HSDAG does.
void fit_to_budget(const Problem& problem, PeerConfig& c, std::int64_t budget) {
  std::int64_t per_episode = c.samples, answer = 1;
  if (c.algo == PeerMethod::placeto) {
    const std::int64_t G = cap_groups(problem.graph(), coarsen(problem.graph(), c.coarsen), c.max_groups).num_groups();
    per_episode = 1 + c.samples * G;  // at worst: the sweeps' start, then one evaluation per step
    answer = 1 + G;                   // the greedy sweep
  }
  const std::int64_t fixed = problem.num_devices() + answer;
  if (budget < fixed + per_episode)
    throw Error("", problem.graph().name(),
                std::string(peer_method_name(c.algo)) + ": a budget of " + std::to_string(budget) +
                    " evaluations is less than one episode (" + std::to_string(per_episode) + " at most) plus " +
                    std::to_string(problem.num_devices()) + " single-device references and its answer (" +
                    std::to_string(answer) + ")");
  if (c.algo == PeerMethod::placeto)
    c.eval_budget = budget;
  else
    c.episodes = static_cast<int>(std::min<std::int64_t>((budget - fixed) / per_episode, c.episodes));
}

}  // namespace

std::unique_ptr<Placer> make_peer_placer(PeerConfig config) {
  const std::string name = peer_method_name(config.algo);
  const int episodes = config.episodes;
  return make_training_placer(name, episodes,
                              [config](const Problem& problem, Reward& reward, const PlaceOptions& options,
                                       const EpisodeCallback& on_episode) -> TrainResult {
                                PeerConfig c = config;
                                c.seed = options.seed;
                                // An evaluation budget caps the episodes (a loaded policy placing
                                // zero-shot stays untrained).
                                if (options.eval_budget > 0 && (c.init_policy.empty() || c.episodes > 0))
                                  fit_to_budget(problem, c, options.eval_budget);
                                return train_peer(problem, reward, c, on_episode);
                              });
}

}  // namespace devplace
