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
#include "learn/hsdag/hsdag.h"
#include "learn/learned_placers.h"
#include "learn/learned/list_policy.h"
#include "service/placing.h"
#include "service/training_run.h"
#include "learn/peers/peers.h"
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
  impl->loaded =
      load_problem(spec.model, spec.inputs, spec.cluster, spec.costs, spec.fusion, local_cluster_for(spec.cluster));
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

PlaceResult place(const Workload& w, const PlaceRequest& request) { return place_problem(w.problem(), request); }

Placement place(const Workload& w, const std::string& algorithm, const PlaceOptions& options) {
  PlaceRequest request;
  request.algorithm = algorithm, request.options = options;
  return place(w, request).placement;
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

// The caller's progress callback as the training run's per-episode log (none when it has none).
std::function<void(const EpisodeLog&)> progress_of(const TrainOptions& options, int episodes) {
  if (!options.on_episode) return {};
  return [&options, episodes](const EpisodeLog& e) {
    options.on_episode(EpisodeProgress{e.episode, episodes, e.mean_latency, e.best_latency, e.entropy});
  };
}

}  // namespace

// One training path (service/training_run.h), as `devplace train` takes it: the options map
// onto a TrainingRun with each method's own defaults.
TrainSummary train(const Workload& w, const TrainOptions& options) {
  TrainingRun run;
  run.learner = learner_from_name(options.algorithm, &run.peer.algo);
  run.objective = options.objective;
  int episodes = 0;
  if (run.learner == Learner::learned) {
    run.learned_policy = options.policy;
    if (options.episodes > 0) run.learned_updates = options.episodes;
    if (options.samples > 0) run.learned_samples = options.samples;
    run.learned_seed = options.seed;
    run.learned_tuning = tuning_from_name(options.tuning);
    run.learned_save_policy = options.save_policy;
    episodes = run.learned_updates;
  } else if (run.learner == Learner::hsdag) {
    run.hsdag = hsdag_preset(options.preset);
    if (options.episodes > 0) run.hsdag.episodes = options.episodes;
    if (options.samples > 0) run.hsdag.samples = options.samples;
    run.hsdag.seed = options.seed;
    run.hsdag.refine_evals = 0;
    run.hsdag.checkpoint_dir = options.checkpoint_dir, run.hsdag.resume = options.resume;
    run.hsdag.save_policy = options.save_policy;
    episodes = run.hsdag.episodes;
  } else {  // a learned peer, with its own defaults; `preset` is not theirs
    if (options.episodes > 0) run.peer.episodes = options.episodes;
    if (options.samples > 0) run.peer.samples = options.samples;
    run.peer.seed = options.seed;
    run.peer.checkpoint_dir = options.checkpoint_dir, run.peer.resume = options.resume;
    run.peer.save_policy = options.save_policy, run.peer.init_policy = options.policy;
    episodes = run.peer.episodes;
  }
  run.on_episode = progress_of(options, episodes);
  const TrainingOutcome out = run_training(w.problem(), run);
  const TrainResult& r = out.results.front();
  TrainSummary s;
  s.policy = r.greedy, s.policy_latency = r.greedy_latency;
  s.best_sampled = r.sampled, s.best_sampled_latency = r.sampled_latency;
  s.evaluations = r.evaluations, s.episodes = r.episodes, s.seconds = r.seconds;
  return s;
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
