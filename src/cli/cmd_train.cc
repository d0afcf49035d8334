// `devplace train MODEL`: train the HSDAG placer with progress, a CSV log, an SVG plot,
// checkpoints and resume; writes the best placement. Also the learned-placer factory that
// `place` and `compare` use for --algo hsdag.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/command_list.h"
#include "exec/measure.h"
#include "io/placement_io.h"
#include "learn/hsdag.h"
#include "learn/peers.h"
#include "place/compare.h"
#include "report/plot.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace::cli {

std::unique_ptr<Placer> make_any_placer(const Problem& problem, const std::string& name) {
  if (name == "hsdag") return make_hsdag_placer(hsdag_preset("default"));
  if (name == "hsdag-paper") return make_hsdag_placer(hsdag_preset("paper"));
  if (name == "rnn" || name == "hierarchical" || name == "placeto") {
    PeerConfig c;
    c.algo = name;
    return make_peer_placer(c);
  }
  // "placeto:POLICY" / "hsdag:POLICY" place zero-shot with a trained policy; a trailing ":N"
  // fine-tunes N episodes on the problem first.
  for (const std::string algo : {"placeto", "hsdag"}) {
    if (name.rfind(algo + ":", 0) != 0) continue;
    std::string rest = name.substr(algo.size() + 1);
    int episodes = 0;
    if (auto colon = rest.rfind(':'); colon != std::string::npos && colon + 1 < rest.size() &&
                                      rest.find_first_not_of("0123456789", colon + 1) == std::string::npos)
      episodes = std::stoi(rest.substr(colon + 1)), rest = rest.substr(0, colon);
    if (algo == "hsdag") {
      HsdagConfig c = hsdag_preset("default");
      c.episodes = episodes, c.init_policy = rest;
      c.refine_evals = 0;  // the policy's own answer, as Placeto's
      return make_hsdag_placer(c);
    }
    PeerConfig c;
    c.algo = "placeto";
    c.episodes = episodes, c.init_policy = rest;
    return make_peer_placer(c);
  }
  return make_placer_for(problem, name);
}

namespace {

// "-shape,-node_id,+cost": switch feature groups off (-) or on (+).
void apply_features(const std::string& spec, FeatureOptions& f) {
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.size() < 2 || (item[0] != '-' && item[0] != '+'))
      throw Error("", "", "--features items look like -shape or +cost, not '" + item + "'");
    bool on = item[0] == '+';
    std::string g = item.substr(1);
    if (g == "op_type") f.op_type = on;
    else if (g == "degree") f.degree = on;
    else if (g == "shape") f.output_shape = on;
    else if (g == "position") f.position = on;
    else if (g == "fractal") f.fractal = on;
    else if (g == "node_id") f.node_id = on;
    else if (g == "cost") f.cost = on;
    else if (g == "structure") f.degree = f.position = f.fractal = on;
    else
      throw Error("", "", "unknown feature group '" + g +
                              "' (op_type, degree, shape, position, fractal, node_id, cost, structure)");
  }
}

// The models named by --also (same cluster and options, no input bindings), each with its
// simulated reward; they live as long as this object.
struct OtherModels {
  std::vector<std::unique_ptr<Context>> contexts;
  std::vector<std::unique_ptr<SimulatedReward>> rewards;
};

OtherModels load_other_models(const ModelOptions& base, const std::vector<std::string>& names) {
  OtherModels o;
  for (const auto& name : names) {
    ModelOptions mo = base;
    mo.model = name;
    mo.inputs.clear();
    o.contexts.push_back(load_context(mo));
    o.rewards.push_back(std::make_unique<SimulatedReward>(*o.contexts.back()->problem));
  }
  return o;
}

// Training progress: a bar on a terminal, else a line every 10 episodes (not when quiet).
class TrainProgress {
 public:
  explicit TrainProgress(int episodes) : episodes_(episodes), bar_("train", static_cast<std::size_t>(std::max(1, episodes))) {}
  void operator()(const EpisodeLog& e) {
    char buf[160];
    int n = std::snprintf(buf, sizeof buf, "best %.3f ms  mean %.3f ms  entropy %.3f", e.best_latency * 1e3,
                          e.mean_latency * 1e3, e.entropy);
    if (e.groups > 0) std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), "  groups %d", e.groups);
    bar_.update(static_cast<std::size_t>(e.episode), buf);
    if (plain_ && (e.episode % 10 == 0 || e.episode == episodes_))
      std::fprintf(stderr, "episode %d/%d: %s\n", e.episode, episodes_, buf);
  }
  void finish() { bar_.finish(); }

 private:
  int episodes_;
  log::Progress bar_;
  bool plain_ = !log::progress_enabled() && !log::quiet();
};

std::string log_csv(const std::vector<EpisodeLog>& log) {
  std::string out = "episode,mean_latency_ms,best_latency_ms,mean_reward,entropy,groups,seconds\n";
  char buf[256];
  for (const auto& e : log) {
    std::snprintf(buf, sizeof buf, "%d,%.6f,%.6f,%.6f,%.6f,%d,%.4f\n", e.episode, e.mean_latency * 1e3,
                  e.best_latency * 1e3, e.mean_reward, e.entropy, e.groups, e.seconds);
    out += buf;
  }
  return out;
}

}  // namespace

void add_train_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    std::string algo = "hsdag", preset = "default", features, checkpoint, out, log, plot, policy, save_policy;
    std::vector<std::string> overrides, also;
    int episodes = -1, samples = 0, levels = -1;
    std::uint64_t seed = 1;
    bool resume = false;
    int stop_after = 0;
    std::string reward = "simulated";
    int runs = 3, warmup = 1, confirm = 10;
    ExecArgs exec;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("train", "Train HSDAG (or --algo rnn, hierarchical, placeto) and write the best placement it found");
  add_model_options(*cmd, a->model);
  cmd->add_option("--algo", a->algo, "hsdag (default), or a learned peer: rnn, hierarchical, placeto")
      ->check(CLI::IsMember({"hsdag", "rnn", "hierarchical", "placeto"}));
  cmd->add_option("--also", a->also, "hsdag, placeto: also train on this model (repeatable; same cluster)");
  cmd->add_option("--policy", a->policy, "hsdag, placeto: start from this policy file (with --episodes 0: zero-shot)");
  cmd->add_option("--save-policy", a->save_policy, "hsdag, placeto: write the trained policy here");
  cmd->add_option("--preset", a->preset, "default (ours) or paper (the released configuration)");
  cmd->add_option("--episodes", a->episodes, "Episodes (default: the preset's)");
  cmd->add_option("--samples", a->samples, "Placements sampled per episode (default: the preset's)");
  cmd->add_option("--levels", a->levels, "Graph-parsing pooling levels (default: the preset's)");
  cmd->add_option("--seed", a->seed, "Seed (default 1)");
  cmd->add_option("--set", a->overrides, "Override a setting, e.g. --set lr=0.003 --set levels=2 (repeatable)");
  cmd->add_option("--features", a->features, "Feature groups on/off, e.g. -shape,-node_id,+cost");
  cmd->add_option("--checkpoint", a->checkpoint, "Checkpoint folder (written atomically every few episodes)");
  cmd->add_flag("--resume", a->resume, "Continue from the checkpoint in --checkpoint");
  cmd->add_option("--stop-after", a->stop_after, "Stop after this many episodes in this run (to test resume)");
  cmd->add_option("--reward", a->reward,
                  "simulated (default) or measured: run every sampled placement on the cluster's workers (docs/execution.md); refinement off unless --set refine=N")
      ->check(CLI::IsMember({"simulated", "measured"}));
  cmd->add_option("--runs", a->runs, "--reward measured: timed runs per placement, reward = median (default 3)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", a->warmup, "--reward measured: untimed runs per placement first (default 1)")->check(CLI::Range(0, 1000000));
  cmd->add_option("--confirm", a->confirm,
                  "--reward measured: re-measure the 5 best placements this many times each, in rounds, and keep the "
                  "best median (default 10; 0 = off)")
      ->check(CLI::Range(0, 1000000));
  add_exec_options(*cmd, a->exec);
  cmd->add_option("-o,--output", a->out, "Placement file to write");
  cmd->add_option("--log", a->log, "Training log (CSV)");
  cmd->add_option("--plot", a->plot, "Plot of reward and best latency over episodes (SVG)");
  // The learned peers (rnn, hierarchical, placeto): same flags, same outputs.
  auto train_peer_command = [](const Args& a) {
    auto ctx = load_context(a.model);
    const Problem& pb = *ctx->problem;
    PeerConfig cfg;
    cfg.algo = a.algo;
    if (a.episodes >= 0) cfg.episodes = a.episodes;
    if (a.samples > 0) cfg.samples = a.samples;
    cfg.seed = a.seed;
    cfg.checkpoint_dir = a.checkpoint;
    cfg.resume = a.resume;
    cfg.stop_after = a.stop_after;
    cfg.init_policy = a.policy;
    cfg.save_policy = a.save_policy;
    apply_features(a.features, cfg.features);
    for (const auto& o : a.overrides) apply_peer_override(cfg, o);
    if (cfg.algo != "placeto" && (!a.also.empty() || !a.policy.empty() || !a.save_policy.empty()))
      throw Error("", "", "--also, --policy and --save-policy need --algo hsdag or placeto");
    SimulatedReward reward(pb);
    OtherModels others = load_other_models(a.model, a.also);
    std::vector<PeerTask> tasks{{&pb, &reward}};
    for (std::size_t i = 0; i < others.contexts.size(); ++i)
      tasks.push_back({others.contexts[i]->problem.get(), others.rewards[i].get()});
    TrainProgress progress(cfg.episodes);
    auto on_episode = [&](const EpisodeLog& e) { progress(e); };
    std::vector<PeerResult> results = cfg.algo == "placeto" ? train_placeto_multi(tasks, cfg, on_episode)
                                                            : std::vector<PeerResult>{train_peer(pb, reward, cfg, on_episode)};
    progress.finish();
    for (std::size_t i = 0; i < results.size(); ++i) {
      const PeerResult& r = results[i];
      const Problem& p = *tasks[i].problem;
      std::printf("%s on %s: %s best %s ms (greedy policy %s ms) after %d episodes x %d samples in %.1f s; %d ops -> "
                  "%d decision units\n",
                  p.graph().name().c_str(), p.cluster().name.c_str(), cfg.algo.c_str(), ms(r.best_latency).c_str(),
                  ms(r.greedy_latency).c_str(), r.episodes, cfg.samples, r.seconds, p.num_ops(), r.coarse_nodes);
    }
    if (!a.save_policy.empty()) std::printf("wrote policy %s\n", a.save_policy.c_str());
    const PeerResult& r = results[0];
    if (!a.out.empty()) {
      write_placement(a.out, pb.graph(), pb.cluster(), r.best, {a.model.model, ctx->cluster_spec, cfg.algo, cfg.seed, r.best_latency});
      std::printf("wrote %s\n", a.out.c_str());
    }
    if (!a.log.empty()) write_file_atomic(a.log, log_csv(r.log));
    if (!a.plot.empty()) {
      Series reward_s{"mean reward", {}, {}}, best_s{"best latency (ms)", {}, {}};
      for (const auto& e : r.log) {
        reward_s.x.push_back(e.episode), reward_s.y.push_back(e.mean_reward);
        best_s.x.push_back(e.episode), best_s.y.push_back(e.best_latency * 1e3);
      }
      write_file_atomic(a.plot, two_panel_svg(cfg.algo + " training: " + pb.graph().name() + " on " + pb.cluster().name,
                                              "episode", reward_s, best_s));
    }
  };
  cmd->callback([a, train_peer_command] {
    if (a->resume && a->checkpoint.empty()) throw Error("", "", "--resume needs --checkpoint DIR");
    if (a->algo != "hsdag") return train_peer_command(*a);
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    HsdagConfig cfg = hsdag_preset(a->preset);
    if (a->episodes >= 0) cfg.episodes = a->episodes;
    if (a->samples > 0) cfg.samples = a->samples;
    if (a->levels >= 0) cfg.pool_levels = a->levels;
    cfg.seed = a->seed;
    cfg.init_policy = a->policy;
    cfg.save_policy = a->save_policy;
    cfg.checkpoint_dir = a->checkpoint;
    cfg.resume = a->resume;
    cfg.stop_after = a->stop_after;
    apply_features(a->features, cfg.features);
    // Refinement is thousands of evaluations: cheap simulated, minutes measured. Off unless asked.
    if (a->reward == "measured") cfg.refine_evals = 0;
    for (const auto& o : a->overrides) apply_hsdag_override(cfg, o);
    SimulatedReward simulated(pb);
    std::unique_ptr<Executor> executor;
    std::unique_ptr<MeasuredReward> measured;
    if (a->reward == "measured") {
      executor = make_executor(*ctx, a->exec);
      measured = std::make_unique<MeasuredReward>(*executor, MeasureOptions{a->warmup, a->runs, 5});
    }
    Reward& reward = measured ? static_cast<Reward&>(*measured) : simulated;
    // More graphs (--also): one policy trained on all of them, each simulated.
    if (!a->also.empty() && measured) throw Error("", "", "--also trains on the simulator; drop --reward measured");
    OtherModels others = load_other_models(a->model, a->also);
    std::vector<HsdagTask> tasks{{&pb, &reward}};
    for (std::size_t i = 0; i < others.contexts.size(); ++i)
      tasks.push_back({others.contexts[i]->problem.get(), others.rewards[i].get()});
    TrainProgress progress(cfg.episodes);
    auto on_episode = [&](const EpisodeLog& e) { progress(e); };
    std::vector<TrainResult> results =
        tasks.size() > 1 ? train_hsdag_multi(tasks, cfg, on_episode)
                         : std::vector<TrainResult>{train_hsdag(pb, reward, cfg, on_episode)};
    progress.finish();
    for (std::size_t i = 1; i < results.size(); ++i)
      std::printf("%s on %s: HSDAG (%s preset, trained with %s) best %s ms (final policy %s ms)\n",
                  tasks[i].problem->graph().name().c_str(), pb.cluster().name.c_str(), a->preset.c_str(),
                  pb.graph().name().c_str(), ms(results[i].best_latency).c_str(), ms(results[i].greedy_latency).c_str());
    TrainResult& r = results[0];
    std::printf("%s on %s: HSDAG (%s preset) best %s ms (policy alone %s ms) after %d episodes x %d samples in "
                "%.1f s; %d ops -> %d coarse nodes -> %d groups\n",
                pb.graph().name().c_str(), pb.cluster().name.c_str(), a->preset.c_str(), ms(r.best_latency).c_str(),
                ms(r.policy_latency).c_str(), r.episodes, cfg.samples, r.seconds, pb.num_ops(), r.coarse_nodes,
                r.groups);
    if (measured)
      std::printf("measured reward: %lld placements run (%d warm-up + %d timed runs each) in %.1f s\n",
                  measured->evaluations(), a->warmup, a->runs, measured->seconds_measuring());
    if (measured && a->confirm > 0) {
      // The lowest of hundreds of noisy measurements is a lucky run more often than the best
      // placement: measure the best few again, together, and keep the best median.
      std::vector<Placement> candidates;
      std::vector<double> seen;
      for (const auto& [p, latency] : measured->best_seen()) candidates.push_back(p), seen.push_back(latency);
      if (std::find(candidates.begin(), candidates.end(), r.best) == candidates.end())
        candidates.push_back(r.best), seen.push_back(r.best_latency);
      Confirmation c = confirm_best(*executor, candidates, 1, a->confirm);
      std::printf("confirmed: the %zu best placements measured again, %d runs each in rounds (median, was in training):\n",
                  candidates.size(), a->confirm);
      for (std::size_t k = 0; k < candidates.size(); ++k)
        std::printf("  %s%s ms (p25 %s, p75 %s), was %s ms\n", k == c.best ? "* " : "  ",
                    ms(c.measurements[k].median).c_str(), ms(c.measurements[k].p25).c_str(),
                    ms(c.measurements[k].p75).c_str(), ms(seen[k]).c_str());
      r.best = candidates[c.best];
      r.best_latency = c.measurements[c.best].median;
    }
    if (!a->out.empty()) {
      write_placement(a->out, pb.graph(), pb.cluster(), r.best,
                      {a->model.model, ctx->cluster_spec, "hsdag-" + a->preset, cfg.seed, r.best_latency});
      std::printf("wrote %s\n", a->out.c_str());
    }
    if (!a->log.empty()) write_file_atomic(a->log, log_csv(r.log));
    if (!a->plot.empty()) {
      Series reward_s{"mean reward", {}, {}}, best_s{"best latency (ms)", {}, {}};
      for (const auto& e : r.log) {
        reward_s.x.push_back(e.episode), reward_s.y.push_back(e.mean_reward);
        best_s.x.push_back(e.episode), best_s.y.push_back(e.best_latency * 1e3);
      }
      write_file_atomic(a->plot, two_panel_svg("HSDAG training: " + pb.graph().name() + " on " + pb.cluster().name,
                                               "episode", reward_s, best_s));
    }
    if (!a->save_policy.empty()) std::printf("wrote policy %s\n", a->save_policy.c_str());
  });
}

}  // namespace devplace::cli
