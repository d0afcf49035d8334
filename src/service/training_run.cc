#include "service/training_run.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "learn/learned/learned_compositions.h"
#include "learn/learned/list_policy.h"
#include "learn/learned/schedule_env.h"
#include "util/error.h"

namespace devplace {

Learner learner_from_name(const std::string& name, PeerMethod* peer) {
  if (name == "hsdag") return Learner::hsdag;
  if (name == "learned") return Learner::learned;
  try {
    const PeerMethod m = peer_method(name);
    if (peer) *peer = m;
    return Learner::peer;
  } catch (const Error&) {
    throw Error("", name, "train: the algorithm must be hsdag, learned, rnn, hierarchical or placeto",
                ErrorKind::not_found);
  }
}

void check_training_run(const TrainingRun& run, bool measured) {
  const bool hsdag = run.learner == Learner::hsdag, learned = run.learner == Learner::learned;
  const bool placeto = run.learner == Learner::peer && run.peer.algo == PeerMethod::placeto;
  if (run.executor && run.remote_measurements)
    throw Error("", "", "measure on the local executor or on replicas, not both");
  if (run.remote_measurements && run.confirm_runs > 0)
    throw Error("", "", "--confirm re-measures on the local executor: drop it with --replicas");
  if (measured && !hsdag && !learned)
    throw Error("", "", "a measured reward trains hsdag and learned only (--algo hsdag or learned)");
  if (learned && !run.also.empty())
    throw Error("", "", "--algo learned fine-tunes on one graph (the simulator, Tarnawski's model or measurements)");
  if (measured && !run.also.empty()) throw Error("", "", "--also trains on the simulator; drop --reward measured");
  if (run.objective == Objective::tarnawski && (measured || !run.also.empty()))
    throw Error("", "", "--objective tarnawski trains on their latency model: drop --reward measured and --also");
  if (!hsdag && !learned && !placeto &&
      (!run.also.empty() || !run.peer.init_policy.empty() || !run.peer.save_policy.empty()))
    throw Error("", peer_method_name(run.peer.algo),
                "more graphs (--also) and a policy to start from or save need hsdag, learned or placeto");
  if ((hsdag && run.hsdag.resume && run.hsdag.checkpoint_dir.empty()) ||
      (!hsdag && !learned && run.peer.resume && run.peer.checkpoint_dir.empty()))
    throw Error("", "", "resuming (--resume) needs a checkpoint folder (--checkpoint DIR)");
}

namespace {

// The lowest of hundreds of noisy measurements is a lucky run more often than the best
// placement: measure the best few again, together and beside every single device, and keep the
// best only when it is faster than the best single device beyond the noise.
void reconfirm(const TrainingRun& run, const MeasuredReward& measured, TrainingOutcome& out) {
  TrainResult& r = out.results[0];
  Reconfirmed& c = out.reconfirmed;
  for (const auto& [p, latency] : measured.best_seen()) c.candidates.push_back(p), c.seen.push_back(latency);
  if (std::find(c.candidates.begin(), c.candidates.end(), r.best) == c.candidates.end())
    c.candidates.push_back(r.best), c.seen.push_back(r.best_latency);
  c.confirmation = confirm_best(*run.executor, c.candidates, 1, run.confirm_runs);
  // Only a placement whose interval says it beats the best single device replaces it.
  r.best = c.confirmation.chosen(c.candidates);
  r.best_latency = c.confirmation.faster_than_single() ? c.confirmation.measurements[c.confirmation.best].median
                                                       : c.confirmation.reference.median;
  out.confirmed = true;
}

}  // namespace

ListPolicyConfig::Tuning tuning_from_name(const std::string& name) {
  if (name == "expert") return ListPolicyConfig::Tuning::expert;
  if (name == "policy_gradient") return ListPolicyConfig::Tuning::policy_gradient;
  throw Error("", "", "unknown tuning '" + name + "' (expert or policy_gradient)", ErrorKind::not_found);
}

TrainingOutcome run_training(const Problem& problem, const TrainingRun& run) {
  check_training_run(run, run.executor || run.remote_measurements);
  std::unique_ptr<Reward> simulated = make_reward(problem, run.objective);
  std::unique_ptr<MeasuredReward> measured;
  if (run.executor) measured = std::make_unique<MeasuredReward>(*run.executor, run.measure);
  Reward& reward = measured                   ? static_cast<Reward&>(*measured)
                   : run.remote_measurements ? *run.remote_measurements
                                             : *simulated;
  std::vector<std::unique_ptr<SimulatedReward>> other_rewards;
  for (const Problem* p : run.also) other_rewards.push_back(std::make_unique<SimulatedReward>(*p));

  TrainingOutcome out;
  if (run.learner == Learner::learned) {
    ListPolicy policy =
        ListPolicy::load(run.learned_policy.empty() ? default_list_policy_path(run.objective) : run.learned_policy);
    ListPolicyConfig c;
    c.samples = run.learned_samples;
    c.lr = LearnedOptions().tuning_lr;  // as the learned-tuned placer
    c.tuning = run.learned_tuning;
    const auto t0 = std::chrono::steady_clock::now();
    // The updates asked for, plus one reference per device and the final greedy placement.
    const long long budget = static_cast<long long>(run.learned_updates) * c.samples + problem.num_devices() + 1;
    std::function<void(const ListTrainingStep&)> on_update;
    if (run.on_episode)
      on_update = [&](const ListTrainingStep& s) {
        EpisodeLog e;
        e.episode = s.iteration, e.mean_latency = s.mean_latency, e.best_latency = s.best_latency;
        e.entropy = s.entropy;
        run.on_episode(e);
      };
    const ListTuneResult r = fine_tune_list_policy(policy, problem, reward, budget, c, run.learned_seed, on_update);
    if (!run.learned_save_policy.empty()) policy.save(run.learned_save_policy);
    TrainResult t;
    t.greedy = r.policy, t.greedy_latency = r.policy_latency;
    t.sampled = r.best, t.sampled_latency = r.best_latency;
    t.polished_latency = kInfeasibleTime;
    t.best = r.best, t.best_latency = r.best_latency;
    t.evaluations = r.evaluations;
    t.episodes = run.learned_updates;
    t.coarse_nodes = t.groups = ScheduleEnv(problem, run.objective).num_decisions();  // per op (unit) but constants
    t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.results = {t};
  } else if (run.learner == Learner::hsdag) {
    std::vector<RewardTask> tasks{{&problem, &reward}};
    for (std::size_t i = 0; i < run.also.size(); ++i) tasks.push_back({run.also[i], other_rewards[i].get()});
    out.results = tasks.size() > 1 ? train_hsdag_multi(tasks, run.hsdag, run.on_episode)
                                   : std::vector<TrainResult>{train_hsdag(problem, reward, run.hsdag, run.on_episode)};
  } else {
    const PeerConfig& cfg = run.peer;
    std::vector<RewardTask> tasks{{&problem, &reward}};
    for (std::size_t i = 0; i < run.also.size(); ++i) tasks.push_back({run.also[i], other_rewards[i].get()});
    const std::vector<PeerResult> peers =
        cfg.algo == PeerMethod::placeto ? train_placeto_multi(tasks, cfg, run.on_episode)
                              : std::vector<PeerResult>{train_peer(problem, reward, cfg, run.on_episode)};
    out.results.assign(peers.begin(), peers.end());
  }
  if (measured) {
    out.measured_placements = measured->evaluations();
    out.measuring_seconds = measured->seconds_measuring();
    if (run.confirm_runs > 0) reconfirm(run, *measured, out);
  }
  return out;
}

}  // namespace devplace
