// HSDAG training: REINFORCE over sampled placements with a moving-average baseline, an
// entropy bonus and Adam; checkpoints (atomic) and resume; the placer wrapper.
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "learn/hsdag.h"
#include "learn/archive_io.h"
#include "learn/hsdag_net.h"
#include "learn/training_placer.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

namespace {

struct Prepared {
  Coarsening coarse;
  FeatureMatrix features;
  GraphTensors graph;
  torch::Tensor x;
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
  return p;
}

HsdagNet make_net(const Prepared& p, int devices, const HsdagConfig& c) {
  return HsdagNet(p.features.cols, c.hidden, devices, c.gcn_layers, c.pool_gcn_layers, c.pool_levels,
                  c.edge_threshold, c.dropout, c.node_policy, c.mutual_dominance);
}

void check_config(const HsdagConfig& c) {
  if (c.hidden <= 0 || c.gcn_layers < 0 || c.pool_levels < 0 || c.pool_gcn_layers < 0)
    throw Error("", "", "HSDAG: hidden must be positive and layer counts non-negative");
  if (c.episodes < 0 || c.samples <= 0)
    throw Error("", "", "HSDAG: episodes must be non-negative and samples positive");
  if (!(c.lr > 0)) throw Error("", "", "HSDAG: learning rate must be positive");
  if (c.reward != "speedup" && c.reward != "inverse")
    throw Error("", "", "HSDAG: reward must be 'speedup' or 'inverse', not '" + c.reward + "'");
}

// What training keeps per graph: the reward's moving baseline and the best placement seen.
struct TaskState {
  double baseline = 0;
  bool baseline_set = false;
  double best_latency = std::numeric_limits<double>::infinity();
  Placement best;
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
  double reference = 1;     // the best single device's latency (the speed-up reward's unit)
  double weight_bytes = 0;  // scales the overflow penalty
};

std::string checkpoint_path(const std::string& dir) { return dir + "/hsdag.ckpt"; }

void save_checkpoint(const std::string& dir, HsdagNet& net, torch::optim::Adam& opt, const TrainerState& st,
                     const Prepared& p) {
  torch::serialize::OutputArchive ar, model_ar, opt_ar;
  net->save(model_ar);
  opt.save(opt_ar);
  ar.write("model", model_ar);
  ar.write("optimizer", opt_ar);
  ar.write("shape", torch::tensor({static_cast<int64_t>(p.features.rows), static_cast<int64_t>(p.features.cols)}));
  ar.write("episode", torch::tensor(static_cast<int64_t>(st.episode)));
  ar.write("baseline",
           torch::tensor({st.task.baseline, st.task.baseline_set ? 1.0 : 0.0, st.task.best_latency}, torch::kDouble));
  std::vector<int64_t> best(st.task.best.begin(), st.task.best.end());
  ar.write("best", torch::tensor(best, torch::kLong));
  std::ostringstream rng;
  rng << st.rng;
  std::string r = rng.str();
  ar.write("rng", torch::from_blob(r.data(), {static_cast<int64_t>(r.size())}, torch::kUInt8).clone());
  ar.write("torch_rng", at::detail::getDefaultCPUGenerator().get_state());
  ar.write("log", episode_log_tensor(st.log));
  save_archive_atomically(ar, checkpoint_path(dir));
}

bool load_checkpoint(const std::string& dir, HsdagNet& net, torch::optim::Adam& opt, TrainerState& st,
                     const Prepared& p) {
  const std::string path = checkpoint_path(dir);
  if (!std::filesystem::exists(path)) return false;
  try {
    torch::serialize::InputArchive ar, model_ar, opt_ar;
    ar.load_from(path);
    torch::Tensor t;
    // Each read needs a fresh tensor: reading into one that holds storage tries to resize it.
    auto read = [&](const char* key) {
      t = torch::Tensor();
      ar.read(key, t);
    };
    read("shape");
    if (t[0].item<int64_t>() != p.features.rows || t[1].item<int64_t>() != p.features.cols)
      throw Error(path, "", "checkpoint was made for another graph or feature set");
    ar.read("model", model_ar);
    net->load(model_ar);
    ar.read("optimizer", opt_ar);
    opt.load(opt_ar);
    read("episode");
    st.episode = static_cast<int>(t.item<int64_t>());
    read("baseline");
    st.task.baseline = t[0].item<double>();
    st.task.baseline_set = t[1].item<double>() > 0;
    st.task.best_latency = t[2].item<double>();
    read("best");
    st.task.best.assign(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    read("rng");
    std::istringstream rng(std::string(reinterpret_cast<const char*>(t.data_ptr<uint8_t>()), t.numel()));
    rng >> st.rng;
    read("torch_rng");
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    gen.set_state(t);
    read("log");
    st.log = episode_log_from(t);
  } catch (const c10::Error& e) {
    throw Error(path, "", std::string("corrupt or incompatible checkpoint: ") + e.what_without_backtrace());
  }
  return true;
}

double reward_of(const Evaluation& e, double reference, const HsdagConfig& c, double weight_bytes) {
  if (!std::isfinite(e.latency) || e.latency <= 0) return 0;
  double r = c.reward == "speedup" ? reference / e.latency : 1e-3 / e.latency;
  // Infeasible placements lose in proportion to how far over memory they are.
  if (!e.feasible) r -= c.overflow_penalty * (1.0 + static_cast<double>(e.overflow_bytes) / std::max(1.0, weight_bytes));
  return r;
}

// Polishes a placement by simulated annealing under the same reward (beyond the paper; off in
// the paper preset). Infeasible placements score +inf so the polish never trades feasibility.
void refine(const Problem& problem, Reward& reward, int budget, std::uint64_t seed, Placement& best,
            double& best_latency) {
  PlaceOptions o;
  o.seed = seed;
  o.eval_budget = budget;
  ObjectiveFn score = [&reward](const Placement& p) {
    Evaluation e = reward.evaluate(p);
    return e.feasible ? e.latency : kInfeasibleTime;
  };
  Placement polished = anneal_placement(problem, best, o, score);
  const double l = score(polished);
  if (l < best_latency) best = std::move(polished), best_latency = l;
}

// The network's shape, stored with a policy so that loading it elsewhere is checked.
std::vector<int64_t> policy_shape(int features, int devices, const HsdagConfig& c) {
  return {features, devices, c.hidden, c.gcn_layers, c.pool_gcn_layers, c.pool_levels, c.node_policy ? 1 : 0};
}

void save_policy(const std::string& path, HsdagNet& net, int features, int devices, const HsdagConfig& c) {
  torch::serialize::OutputArchive ar, model_ar;
  net->save(model_ar);
  ar.write("model", model_ar);
  ar.write("hsdag_policy_shape", torch::tensor(policy_shape(features, devices, c), torch::kLong));
  save_archive_atomically(ar, path);
}

void load_policy(const std::string& path, HsdagNet& net, int features, int devices, const HsdagConfig& c) {
  if (!std::filesystem::exists(path)) throw Error(path, "", "no such policy file");
  try {
    torch::serialize::InputArchive ar, model_ar;
    ar.load_from(path);
    torch::Tensor t;
    ar.read("hsdag_policy_shape", t);
    const std::vector<int64_t> want = policy_shape(features, devices, c);
    std::vector<int64_t> have(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    if (have != want)
      throw Error(path, "",
                  "this HSDAG policy was made for " + std::to_string(have.empty() ? 0 : have[0]) + " feature columns and " +
                      std::to_string(have.size() > 1 ? have[1] : 0) + " devices (or other layer sizes); this problem has " +
                      std::to_string(features) + " and " + std::to_string(devices) +
                      ": use the same cluster, features and preset");
    ar.read("model", model_ar);
    net->load(model_ar);
  } catch (const c10::Error& e) {
    throw Error(path, "", std::string("not an HSDAG policy file: ") + e.what_without_backtrace());
  }
}

// Seeds a graph's state with the best single device (also the reward's unit).
Task make_task(const Problem& problem, Reward& reward, Prepared prep, TaskState& ts) {
  Task t;
  t.problem = &problem;
  t.reward = &reward;
  t.prep = std::move(prep);
  double reference = std::numeric_limits<double>::infinity();
  for (int d = 0; d < problem.num_devices(); ++d) {
    Evaluation e = reward.evaluate(Placement(problem.num_ops(), d));
    if (std::isfinite(e.latency) && (e.feasible || !std::isfinite(reference))) reference = std::min(reference, e.latency);
    if (e.feasible && e.latency < ts.best_latency) {
      ts.best_latency = e.latency;
      ts.best = Placement(problem.num_ops(), d);
    }
  }
  t.reference = std::isfinite(reference) ? reference : 1;
  for (int i = 0; i < problem.num_ops(); ++i) t.weight_bytes += static_cast<double>(problem.weight_bytes(i));
  return t;
}

// One REINFORCE step on one graph: sample cfg.samples placements from the policy, evaluate
// them, update the graph's baseline and best, and step the optimiser. The log's episode number
// is left to the caller.
EpisodeLog train_episode(HsdagNet& net, torch::optim::Adam& opt, Task& task, TaskState& ts, std::mt19937_64& rng,
                         const HsdagConfig& cfg) {
  const auto t_ep = std::chrono::steady_clock::now();
  const int G0 = task.prep.coarse.num_groups(), D = task.problem->num_devices();
  net->train();
  NetOutput out = net->forward(task.prep.x, task.prep.graph);
  const int G = static_cast<int>(out.logits.size(0));  // decision units
  auto logp = torch::log_softmax(out.logits, 1);
  auto probs = logp.exp().detach().contiguous();
  const float* pr = probs.data_ptr<float>();
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::vector<int64_t> actions(static_cast<std::size_t>(cfg.samples) * G);
  std::vector<double> rewards(cfg.samples), latencies(cfg.samples);
  std::vector<int> group_device;
  for (int k = 0; k < cfg.samples; ++k) {
    group_device.assign(G0, 0);
    std::vector<int> by_group(G);
    for (int g = 0; g < G; ++g) {
      double u = unif(rng), acc = 0;
      int d = D - 1;
      for (int j = 0; j < D; ++j)
        if ((acc += pr[g * D + j]) >= u) {
          d = j;
          break;
        }
      by_group[g] = d;
      actions[static_cast<std::size_t>(k) * G + g] = d;
    }
    for (int v = 0; v < G0; ++v) group_device[v] = by_group[out.unit_of_node[v]];
    Placement p = expand(task.prep.coarse, group_device);
    Evaluation e = task.reward->evaluate(p);
    latencies[k] = e.latency;
    rewards[k] = reward_of(e, task.reference, cfg, task.weight_bytes);
    if (e.feasible && e.latency < ts.best_latency) {
      ts.best_latency = e.latency;
      ts.best = std::move(p);
    }
  }
  double mean = 0;
  for (double r : rewards) mean += r;
  mean /= cfg.samples;
  if (!ts.baseline_set) ts.baseline = mean, ts.baseline_set = true;
  double var = 0;
  for (double r : rewards) var += (r - mean) * (r - mean);
  const double scale = 1.0 / (std::sqrt(var / cfg.samples) + 1e-6);
  std::vector<float> adv(cfg.samples);
  for (int k = 0; k < cfg.samples; ++k) adv[k] = static_cast<float>((rewards[k] - ts.baseline) * scale);
  ts.baseline = cfg.baseline_decay * ts.baseline + (1 - cfg.baseline_decay) * mean;

  auto a = torch::tensor(actions, torch::kLong).view({cfg.samples, G});
  auto lp = logp.unsqueeze(0).expand({cfg.samples, G, D}).gather(2, a.unsqueeze(2)).squeeze(2).sum(1);
  auto entropy = -(logp.exp() * logp).sum(1).mean();
  auto loss = -(torch::tensor(adv) * lp).mean() - cfg.entropy_weight * entropy;
  opt.zero_grad();
  loss.backward();
  opt.step();

  EpisodeLog e;
  double ml = 0;
  int finite = 0;
  for (double l : latencies)
    if (std::isfinite(l)) ml += l, ++finite;
  e.mean_latency = finite ? ml / finite : std::numeric_limits<double>::infinity();
  e.best_latency = ts.best_latency;
  e.mean_reward = mean;
  e.entropy = entropy.item<double>();
  e.groups = out.groups;
  e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_ep).count();
  return e;
}

// The trained policy's own answer for one graph (the most likely device for every group),
// kept if it beats the best seen, then the optional polish.
TrainResult finish_task(HsdagNet& net, Task& task, TaskState& ts, const HsdagConfig& cfg) {
  torch::NoGradGuard no_grad;
  net->eval();
  NetOutput out = net->forward(task.prep.x, task.prep.graph);
  auto best_dev = out.logits.argmax(1).contiguous();
  const int G0 = task.prep.coarse.num_groups();
  std::vector<int> group_device(G0, 0);
  for (int v = 0; v < G0; ++v) group_device[v] = static_cast<int>(best_dev[out.unit_of_node[v]].item<int64_t>());
  Placement greedy = expand(task.prep.coarse, group_device);
  Evaluation ge = task.reward->evaluate(greedy);
  if (ge.feasible && ge.latency < ts.best_latency) ts.best_latency = ge.latency, ts.best = greedy;
  if (ts.best.empty()) ts.best = greedy, ts.best_latency = ge.latency;
  TrainResult r;
  r.policy_latency = ts.best_latency;
  r.greedy_latency = ge.latency;
  if (cfg.refine_evals > 0) refine(*task.problem, *task.reward, cfg.refine_evals, cfg.seed, ts.best, ts.best_latency);
  r.best = ts.best;
  r.best_latency = ts.best_latency;
  r.coarse_nodes = G0;
  r.groups = out.groups;
  return r;
}

HsdagNet make_policy_net(const Prepared& prep, int devices, const HsdagConfig& cfg) {
  HsdagNet net = make_net(prep, devices, cfg);
  if (!cfg.init_policy.empty()) load_policy(cfg.init_policy, net, prep.features.cols, devices, cfg);
  return net;
}

}  // namespace

TrainResult train_hsdag(const Problem& problem, Reward& reward, const HsdagConfig& cfg,
                        const std::function<void(const EpisodeLog&)>& on_episode) {
  check_config(cfg);
  const auto t_start = std::chrono::steady_clock::now();
  torch::set_num_threads(1);  // fastest here, and deterministic
  torch::manual_seed(cfg.seed);
  TrainerState st;
  st.rng.seed(cfg.seed);
  Prepared prep = prepare(problem, cfg);
  HsdagNet net = make_policy_net(prep, problem.num_devices(), cfg);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  if (cfg.resume && !cfg.checkpoint_dir.empty()) load_checkpoint(cfg.checkpoint_dir, net, opt, st, prep);
  Task task = make_task(problem, reward, std::move(prep), st.task);

  int run_episodes = 0;
  for (; st.episode < cfg.episodes; ++st.episode) {
    if (cfg.stop_after > 0 && run_episodes >= cfg.stop_after) break;
    EpisodeLog e = train_episode(net, opt, task, st.task, st.rng, cfg);
    e.episode = st.episode + 1;
    st.log.push_back(e);
    ++run_episodes;
    if (on_episode) on_episode(e);
    if (!cfg.checkpoint_dir.empty() && cfg.checkpoint_every > 0 && (st.episode + 1) % cfg.checkpoint_every == 0) {
      st.episode += 1;  // the checkpoint records episodes completed
      save_checkpoint(cfg.checkpoint_dir, net, opt, st, task.prep);
      st.episode -= 1;
    }
  }
  if (!cfg.save_policy.empty()) save_policy(cfg.save_policy, net, task.prep.features.cols, problem.num_devices(), cfg);

  TrainResult r = finish_task(net, task, st.task, cfg);
  r.episodes = st.episode;
  r.log = st.log;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return r;
}

std::vector<TrainResult> train_hsdag_multi(const std::vector<HsdagTask>& tasks, const HsdagConfig& cfg,
                                           const std::function<void(const EpisodeLog&)>& on_episode) {
  check_config(cfg);
  if (tasks.empty()) throw Error("", "", "HSDAG: no graphs to train on");
  if (!cfg.checkpoint_dir.empty() || cfg.resume)
    throw Error("", "", "HSDAG: checkpoints are for training on one graph; train on several without --checkpoint");
  const auto t_start = std::chrono::steady_clock::now();
  torch::set_num_threads(1);
  torch::manual_seed(cfg.seed);
  std::mt19937_64 rng(cfg.seed);
  std::vector<TaskState> states(tasks.size());
  std::vector<Task> run;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    run.push_back(make_task(*tasks[i].problem, *tasks[i].reward, prepare(*tasks[i].problem, cfg), states[i]));
    if (run[i].problem->num_devices() != run[0].problem->num_devices() ||
        run[i].prep.features.cols != run[0].prep.features.cols)
      throw Error("", run[i].problem->graph().name(), "HSDAG: every graph must be placed on the same cluster");
  }
  HsdagNet net = make_policy_net(run[0].prep, run[0].problem->num_devices(), cfg);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(cfg.lr));
  std::vector<std::vector<EpisodeLog>> logs(tasks.size());
  for (int ep = 0; ep < cfg.episodes; ++ep) {
    const std::size_t i = static_cast<std::size_t>(ep) % tasks.size();  // graphs take turns
    EpisodeLog e = train_episode(net, opt, run[i], states[i], rng, cfg);
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
  torch::manual_seed(cfg.seed);
  Prepared prep = prepare(problem, cfg);
  HsdagNet net = make_net(prep, problem.num_devices(), cfg);
  torch::NoGradGuard no_grad;
  net->eval();
  return net->forward(prep.x, prep.graph).groups;
}

std::unique_ptr<Placer> make_hsdag_placer(HsdagConfig config) {
  const int episodes = config.episodes;
  return make_training_placer("hsdag", episodes, [config](const Problem& problem, Reward& reward, std::uint64_t seed,
                                                         const EpisodeCallback& on_episode) {
    HsdagConfig c = config;
    c.seed = seed;
    return train_hsdag(problem, reward, c, on_episode);
  });
}

}  // namespace devplace
