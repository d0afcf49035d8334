// The public API (include/devplace/devplace.h) over the modules: io loads, the placer registry
// places, place/ judges, learn/ trains, exec/ runs.
#include "devplace/devplace.h"

#include <chrono>
#include <cmath>

#include "cost/cost_model.h"
#include "exec/executor.h"
#include "exec/local_gpus.h"
#include "exec/measure.h"
#include "io/model.h"
#include "io/placement_io.h"
#include "learn/hsdag.h"
#include "learn/learned_placers.h"
#include "learn/list_policy.h"
#include "learn/peers.h"
#include "place/placer.h"

namespace devplace {

struct Workload::Impl {
  std::unique_ptr<LoadedProblem> loaded;
};

Workload::Workload(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Workload::~Workload() = default;
Workload::Workload(Workload&&) noexcept = default;
Workload& Workload::operator=(Workload&&) noexcept = default;

Workload Workload::load(const WorkloadSpec& spec) {
  auto impl = std::make_unique<Impl>();
  LocalCluster local;
  if (spec.cluster == "local") local.cluster = local_cluster();
  impl->loaded = load_problem(spec.model, spec.inputs, spec.cluster, spec.costs, spec.fusion, local);
  return Workload(std::move(impl));
}

const std::string& Workload::model_name() const { return impl_->loaded->model.graph.name(); }
const std::string& Workload::cluster_name() const { return impl_->loaded->problem->cluster().name; }
const std::string& Workload::cluster_spec() const { return impl_->loaded->cluster_spec; }
int Workload::num_ops() const { return impl_->loaded->problem->num_ops(); }
int Workload::num_devices() const { return impl_->loaded->problem->num_devices(); }
const Problem& Workload::problem() const { return *impl_->loaded->problem; }

std::vector<std::string> Workload::op_names() const {
  std::vector<std::string> names;
  for (const auto& op : impl_->loaded->model.graph.ops()) names.push_back(op.name);
  return names;
}

std::vector<std::string> Workload::device_names() const {
  std::vector<std::string> names;
  for (const auto& d : impl_->loaded->problem->cluster().devices) names.push_back(d.name);
  return names;
}

std::vector<std::string> placer_names() { return all_placers().names(); }

Placement place(const Workload& w, const std::string& algorithm, const PlaceOptions& options) {
  return all_placers().make(w.problem(), algorithm, options)->place(w.problem(), options);
}

Verdict judge(const Workload& w, const Placement& placement, Objective objective) {
  return judge(w.problem(), placement, objective);  // throws Error naming the op for a bad placement
}

void write_placement(const Workload& w, const Placement& placement, const std::string& path) {
  const Verdict v = judge(w, placement);
  PlacementInfo info;
  info.model = w.model_name(), info.cluster = w.cluster_name(), info.algorithm = "api";
  info.makespan = v.feasible ? v.latency : 0;
  write_placement(path, w.problem().graph(), w.problem().cluster(), placement, info);
}

Placement read_placement(const Workload& w, const std::string& path) {
  return read_placement(path, w.problem().graph(), w.problem().cluster());
}

namespace {

TrainSummary fine_tune_learned(const Workload& w, const TrainOptions& options) {
  ListPolicy policy =
      ListPolicy::load(options.policy.empty() ? default_list_policy_path(options.objective) : options.policy);
  ListPolicyConfig c;
  c.samples = options.samples > 0 ? options.samples : 20;
  c.lr = 3e-3;  // as the learned-tuned placer
  if (options.tuning != "expert" && options.tuning != "policy_gradient")
    throw Error("", "", "train: unknown tuning '" + options.tuning + "' (expert or policy_gradient)", ErrorKind::not_found);
  c.tuning = options.tuning == "expert" ? ListPolicyConfig::Tuning::expert : ListPolicyConfig::Tuning::policy_gradient;
  const int updates = options.episodes > 0 ? options.episodes : 3;
  std::unique_ptr<Reward> reward = make_reward(w.problem(), options.objective);
  const long long budget = static_cast<long long>(updates) * c.samples + w.num_devices() + 1;
  const auto t0 = std::chrono::steady_clock::now();
  std::function<void(const ListTrainingStep&)> on_update;
  if (options.on_episode)
    on_update = [&](const ListTrainingStep& s) {
      options.on_episode(EpisodeProgress{s.iteration, updates, s.mean_latency, s.best_latency, s.entropy});
    };
  const ListTuneResult r = fine_tune_list_policy(policy, w.problem(), *reward, budget, c, options.seed, on_update);
  if (!options.save_policy.empty()) policy.save(options.save_policy);
  TrainSummary s;
  s.policy = r.policy, s.policy_latency = r.policy_latency;
  s.best_sampled = r.best, s.best_sampled_latency = r.best_latency;
  s.evaluations = r.evaluations, s.episodes = updates;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

// The trainers' per-episode log as the API's progress callback (none when the caller has none).
std::function<void(const EpisodeLog&)> progress_of(const TrainOptions& options, int episodes) {
  if (!options.on_episode) return {};
  return [&options, episodes](const EpisodeLog& e) {
    options.on_episode(EpisodeProgress{e.episode, episodes, e.mean_latency, e.best_latency, e.entropy});
  };
}

TrainSummary summary_of(const TrainResult& r) {
  TrainSummary s;
  s.policy = r.greedy, s.policy_latency = r.greedy_latency;
  s.best_sampled = r.sampled, s.best_sampled_latency = r.sampled_latency;
  s.evaluations = r.evaluations, s.episodes = r.episodes, s.seconds = r.seconds;
  return s;
}

// HSDAG's learned peers (learn/peers.h) with their own defaults; `preset` is not theirs.
TrainSummary train_peer_algorithm(const Workload& w, const TrainOptions& options) {
  PeerConfig c;
  c.algo = options.algorithm;
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  c.seed = options.seed;
  c.checkpoint_dir = options.checkpoint_dir, c.resume = options.resume;
  c.save_policy = options.save_policy, c.init_policy = options.policy;
  if (c.algo != "placeto" && (!c.save_policy.empty() || !c.init_policy.empty()))
    throw Error("", c.algo, "train: only placeto (and hsdag, learned) save or load a policy");
  std::unique_ptr<Reward> reward = make_reward(w.problem(), options.objective);
  const auto on_episode = progress_of(options, c.episodes);
  return summary_of(train_peer(w.problem(), *reward, c, on_episode));
}

}  // namespace

TrainSummary train(const Workload& w, const TrainOptions& options) {
  if (options.algorithm == "learned") return fine_tune_learned(w, options);
  if (options.algorithm == "rnn" || options.algorithm == "hierarchical" || options.algorithm == "placeto")
    return train_peer_algorithm(w, options);
  if (options.algorithm != "hsdag")
    throw Error("", options.algorithm, "train: the algorithm must be hsdag, learned, rnn, hierarchical or placeto");
  HsdagConfig c = hsdag_preset(options.preset);
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  c.seed = options.seed;
  c.refine_evals = 0;
  c.checkpoint_dir = options.checkpoint_dir, c.resume = options.resume, c.save_policy = options.save_policy;
  std::unique_ptr<Reward> reward = make_reward(w.problem(), options.objective);
  const auto on_episode = progress_of(options, c.episodes);
  return summary_of(train_hsdag(w.problem(), *reward, c, on_episode));
}

ExecutionResult execute(const Workload& w, const Placement& placement, const ExecuteOptions& options) {
  if (options.runs < 1) throw Error("", w.model_name(), "execute: runs must be at least 1");
  ExecOptions o;
  o.intra_op_threads = options.threads, o.seed = options.seed;
  Executor ex(w.problem().graph(), workers_for_cluster(w.problem().cluster(), w.cluster_spec()), o);
  const Measurement m = measure(ex, placement, options.warmup, options.runs);
  ExecutionResult r;
  r.median = m.median, r.min = m.min, r.max = m.max, r.samples = m.samples, r.copies = m.last.copies;
  r.ci_low = m.ci.low, r.ci_high = m.ci.high;
  return r;
}

}  // namespace devplace
