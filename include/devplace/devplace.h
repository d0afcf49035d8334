// devplace's public C++ API: load a model onto a cluster, place it by any placer's name, judge
// or simulate the placement, train HSDAG on it, run it for real. Everything here throws only
// devplace::Error (devplace/error.h): bad input names the file, the node and the problem.
//
//   devplace::Workload w = devplace::Workload::load({.model = "resnet50", .cluster = "paper"});
//   devplace::Placement p = devplace::place(w, "heft");
//   double ms = devplace::judge(w, p).latency * 1e3;
//
// Thread safety: a Workload is immutable after load and may be shared between threads; each
// call below is independent. Learned placers and train() scope LibTorch's thread count and
// default generator to the call (restored afterwards), so two of them must not run at once in
// one process. Logging and progress go through devplace/log.h's replaceable sink.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "devplace/error.h"
#include "devplace/types.h"

namespace devplace {

class Problem;  // internal: graph + cluster + costs

struct WorkloadSpec {
  std::string model;  // a model file (ONNX, OpenVINO IR .xml, devplace or Tarnawski JSON) or a bundled name
  std::vector<std::string> inputs;  // input shape bindings, "name=1,3,224,224"
  std::string cluster;              // a cluster file (TOML/JSON), a preset name or "local" (this machine:
                                    // a CPU worker per core and its CUDA GPUs); empty: the model's own, else "paper"
  std::string costs;                // optional cost table (JSON) overriding the cost model for the ops it names
  bool fusion = true;               // false: every op its own kernel (the cluster's fusion rules ignored)
};

// A model placed on a cluster: the graph, the devices and the cost of every op on every device.
class Workload {
 public:
  static Workload load(const WorkloadSpec& spec);
  ~Workload();
  Workload(Workload&&) noexcept;
  Workload& operator=(Workload&&) noexcept;

  const std::string& model_name() const;
  const std::string& cluster_name() const;
  const std::string& cluster_spec() const;        // the file or preset the cluster came from
  std::vector<std::string> op_names() const;      // in Placement order
  std::vector<std::string> device_names() const;  // device index -> name
  int num_ops() const;
  int num_devices() const;
  // For code built inside devplace's tree: the internal problem (cost/cost_model.h).
  const Problem& problem() const;

 private:
  struct Impl;
  explicit Workload(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Every placer's name, classical and learned ("<device>-only" also works for each device).
std::vector<std::string> placer_names();

// Places `w` as `request` asks (the same path as `devplace place`): the placement, its verdict,
// the placer's time, and whether a fitted execution model replaced it by one device
// (PlaceRequest::keep_placement). Learned placers train on the call (options.eval_budget bounds
// their reward evaluations; options.learned.policy_file places zero-shot with a trained policy).
PlaceResult place(const Workload& w, const PlaceRequest& request);
// The placement alone: place(w, {algorithm, options}).placement.
Placement place(const Workload& w, const std::string& algorithm, const PlaceOptions& options = {});

// The latency of `placement` under `objective` (infeasible: +inf and why).
Verdict judge(const Workload& w, const Placement& placement, Objective objective = Objective::simulator);

// Writes `placement` as a devplace placement file (JSON, op name -> device name), atomically.
void write_placement(const Workload& w, const Placement& placement, const std::string& path);
// Reads a placement file; throws Error naming the file and op for unknown ops or devices.
Placement read_placement(const Workload& w, const std::string& path);

// One finished training episode, for TrainOptions::on_episode.
struct EpisodeProgress {
  int episode = 0, episodes = 0;  // 1-based, and the planned total
  double mean_latency = 0;        // seconds, over the episode's samples
  double best_latency = 0;        // seconds, the best sampled so far
  double entropy = 0;             // of the policy, mean per decision
};

struct TrainOptions {
  // "hsdag" (the paper's method); "learned": fine-tune devplace's pretrained learned placer
  // (the shipped policy, or `policy`) with episodes updates of samples placements each; or one
  // of HSDAG's learned peers "rnn", "hierarchical", "placeto" (docs/design/peers.md; their defaults).
  std::string algorithm = "hsdag";
  std::string policy;              // learned: the policy to fine-tune (empty: the shipped one); placeto: start from it
  std::string preset = "default";  // hsdag: "default" (ours, docs/design/hsdag.md) or "paper"
  int episodes = 0;                // 0: the preset's
  int samples = 0;                 // placements sampled per episode; 0: the preset's
  std::uint64_t seed = 1;
  Objective objective = Objective::simulator;
  std::string checkpoint_dir;  // empty: no checkpoints
  bool resume = false;         // continue from checkpoint_dir
  std::string save_policy;     // write the trained policy here (for PlaceOptions::learned.policy_file)
  // learned: "expert" (each update a search with the policy of `samples` evaluations, then
  // imitation of the best placement found; the default) or "policy_gradient" (clipped policy
  // gradient on `samples` sampled placements).
  std::string tuning = "expert";
  // Called after every episode on the training thread. An exception it throws ends training and
  // leaves train() (a caller's way to interrupt it).
  std::function<void(const EpisodeProgress&)> on_episode;
};

// What HSDAG's training produced, each placement with the reward evaluations it cost.
struct TrainSummary {
  Placement policy;           // the trained policy's own (greedy) placement
  double policy_latency = 0;  // seconds, under TrainOptions::objective
  Placement best_sampled;     // the best placement sampled in training
  double best_sampled_latency = 0;
  long long evaluations = 0;  // reward evaluations of training
  int episodes = 0;           // episodes completed
  double seconds = 0;         // wall time
};

// Trains HSDAG on `w` (no annealing polish: the policy's own results), fine-tunes the learned
// placer, or trains a learned peer (TrainOptions::algorithm). Throws Error for another algorithm.
TrainSummary train(const Workload& w, const TrainOptions& options = {});

struct ExecuteOptions {
  int warmup = 1;
  int runs = 5;
  int threads = 1;         // intra-op threads per CPU worker
  std::uint64_t seed = 1;  // random weights and inputs
};

struct ExecutionResult {
  double median = 0, min = 0, max = 0;  // seconds over the timed runs
  double ci_low = 0, ci_high = 0;       // 95% confidence interval of the median (order statistics)
  std::vector<double> samples;
  int copies = 0;  // tensors copied between workers in a run
};

// Runs the placed ONNX model for real, one worker per device of the cluster (cpu:N / cuda:N as
// the cluster names them), and times it. Throws Error for models that are not ONNX and for
// clusters whose devices this machine lacks.
ExecutionResult execute(const Workload& w, const Placement& placement, const ExecuteOptions& options = {});

}  // namespace devplace
