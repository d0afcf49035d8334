// `devplace train MODEL`: train the HSDAG placer with progress, a CSV log, an SVG plot,
// checkpoints and resume; writes the best placement.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/command_list.h"
#include "cli/process_runs.h"
#include "cli/training_output.h"
#include "distributed/replica_reward.h"
#include "exec/measure.h"
#include "io/placement_io.h"
#include "learn/hsdag/hsdag.h"
#include "learn/learned_placers.h"
#include "learn/peers/peers.h"
#include "place/compare.h"
#include "report/plot.h"
#include "service/training_run.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace::cli {

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
    if (g == "op_type")
      f.op_type = on;
    else if (g == "degree")
      f.degree = on;
    else if (g == "shape")
      f.output_shape = on;
    else if (g == "position")
      f.position = on;
    else if (g == "fractal")
      f.fractal = on;
    else if (g == "node_id")
      f.node_id = on;
    else if (g == "cost")
      f.cost = on;
    else if (g == "structure")
      f.degree = f.position = f.fractal = on;
    else
      throw Error(
          "", "",
          "unknown feature group '" + g + "' (op_type, degree, shape, position, fractal, node_id, cost, structure)", ErrorKind::not_found);
  }
}

// Training progress: a bar on a terminal, else a line every 10 episodes (not when quiet).
class TrainProgress {
 public:
  explicit TrainProgress(int episodes)
      : episodes_(episodes), bar_("train", static_cast<std::size_t>(std::max(1, episodes))) {}
  void operator()(const EpisodeLog& e) {
    char buf[160];
    int n = std::snprintf(buf, sizeof buf, "mean %.3f ms  best sampled %.3f ms  entropy %.3f", e.mean_latency * 1e3,
                          e.best_latency * 1e3, e.entropy);
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

}  // namespace

void add_train_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    std::string algo = "hsdag", preset = "default", features, checkpoint, out, log, plot, policy, save_policy;
    std::string tuning = "expert";
    std::vector<std::string> overrides, also;
    int episodes = -1, samples = 0, levels = -1;
    std::uint64_t seed = 1;
    bool resume = false;
    int stop_after = 0;
    std::string reward = "simulated", objective = "sim";
    int runs = 3, warmup = 1, confirm = 20;
    bool json = false;
    ExecArgs exec;
    int replicas = 0;
    double fake_ms = 0;
    Rendezvous rv = Rendezvous::from_env();
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "train", "Train HSDAG (or --algo rnn, hierarchical, placeto) and write the best placement it found");
  add_model_options(*cmd, a->model);
  cmd->add_option("--algo", a->algo,
                  "hsdag (default), a learned peer (rnn, hierarchical, placeto), or learned: fine-tune the pretrained "
                  "learned placer (--policy, default the shipped one; --episodes updates of --samples placements, "
                  "default 3 x 20)")
      ->check(CLI::IsMember({"hsdag", "rnn", "hierarchical", "placeto", "learned"}));
  cmd->add_option("--also", a->also, "hsdag, placeto: also train on this model (repeatable; same cluster)");
  cmd->add_option("--policy", a->policy,
                  "hsdag, placeto: start from this policy file (with --episodes 0: zero-shot); learned: the policy to "
                  "fine-tune (default: the shipped one)");
  cmd->add_option("--save-policy", a->save_policy, "hsdag, placeto, learned: write the trained policy here");
  cmd->add_option("--tuning", a->tuning,
                  "learned: expert (each update a search of --samples evaluations, then imitation of the best "
                  "placement found; default) or policy_gradient (clipped policy gradient on --samples samples)")
      ->check(CLI::IsMember({"expert", "policy_gradient"}));
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
                  "simulated (default) or measured: run every sampled placement on the cluster's workers "
                  "(docs/design/execution.md); refinement off unless --set refine=N")
      ->check(CLI::IsMember({"simulated", "measured"}));
  cmd->add_option("--runs", a->runs, "--reward measured: timed runs per placement, reward = median (default 3)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", a->warmup, "--reward measured: untimed runs per placement first (default 1)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--confirm", a->confirm,
                  "--reward measured: re-measure the 5 best placements this many times each, in rounds beside every "
                  "single device, and keep the best only when its 95% interval beats the best single device, else "
                  "that device alone (default 20; 0 = off)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--objective", a->objective,
                  "Latency model the reward uses: sim (our event simulator, default) or tarnawski (their model: "
                  "contiguous accelerator sets, colour classes; infeasible samples are ranked by how far they are)")
      ->check(CLI::IsMember({"sim", "tarnawski"}));
  add_exec_options(*cmd, a->exec);
  cmd->add_option("--replicas", a->replicas,
                  "--reward measured: measure each episode's placements in parallel on N replicas of the cluster, "
                  "`devplace worker` processes of ranks 1..N (this process is rank 0; docs/design/distributed.md)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--master-addr", a->rv.master_addr,
                  "--replicas: address of this process's store (default $MASTER_ADDR or 127.0.0.1)");
  cmd->add_option("--master-port", a->rv.master_port,
                  "--replicas: port of this process's store (default $MASTER_PORT or 29500)");
  cmd->add_option("--timeout", a->rv.timeout_s,
                  "--replicas: seconds to wait for the replicas to join and for any one measurement (default 30)");
  cmd->add_option(
         "--fake-measure-ms", a->fake_ms,
         "--replicas: replicas answer with the simulator's latency after sleeping this long instead of running "
         "the model (shows how replicas scale when measuring does not compete for this machine's cores)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("-o,--output", a->out, "Placement file to write");
  cmd->add_option("--log", a->log, "Training log (CSV)");
  cmd->add_option("--plot", a->plot, "Plot of mean and best sampled latency over episodes (SVG)");
  cmd->add_flag(
      "--json", a->json,
      "Print the result as one JSON line per graph (greedy_ms, best_sampled_ms, polished_ms, evaluations, ...)");
  // The learned peers (rnn, hierarchical, placeto): same flags, same outputs.
  cmd->callback([a, cmd] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const bool hsdag = a->algo == "hsdag", learned = a->algo == "learned";
    TrainingRun run;
    run.learner = learner_from_name(a->algo, &run.peer.algo);
    if (learned) {
      run.learned_policy = a->policy;
      if (a->episodes >= 0) run.learned_updates = a->episodes;
      if (a->samples > 0) run.learned_samples = a->samples;
      run.learned_seed = a->seed;
      run.learned_tuning = tuning_from_name(a->tuning);
      run.learned_save_policy = a->save_policy;
    }
    run.objective = a->objective == "tarnawski" ? Objective::tarnawski : Objective::simulator;
    if (hsdag) {
      HsdagConfig& cfg = run.hsdag;
      cfg = hsdag_preset(a->preset);
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
    } else if (!learned) {
      PeerConfig& cfg = run.peer;
      if (a->episodes >= 0) cfg.episodes = a->episodes;
      if (a->samples > 0) cfg.samples = a->samples;
      cfg.seed = a->seed;
      cfg.checkpoint_dir = a->checkpoint;
      cfg.resume = a->resume;
      cfg.stop_after = a->stop_after;
      cfg.init_policy = a->policy;
      cfg.save_policy = a->save_policy;
      apply_features(a->features, cfg.features);
      for (const auto& o : a->overrides) apply_peer_override(cfg, o);
    }
    const int episodes = hsdag ? run.hsdag.episodes : learned ? run.learned_updates : run.peer.episodes;
    const int samples = hsdag ? run.hsdag.samples : learned ? run.learned_samples : run.peer.samples;
    const std::uint64_t seed = hsdag ? run.hsdag.seed : learned ? run.learned_seed : run.peer.seed;
    const std::string label = hsdag ? "hsdag-" + a->preset : a->algo;
    // More graphs (--also): one policy trained on all of them, each simulated.
    std::vector<std::unique_ptr<Context>> others;
    for (const auto& name : a->also) {
      ModelOptions mo = a->model;
      mo.model = name;
      mo.inputs.clear();
      others.push_back(load_context(mo));
      run.also.push_back(others.back()->problem.get());
    }
    std::unique_ptr<Executor> executor;
    std::unique_ptr<ProcessGroup> group;
    std::unique_ptr<ReplicaReward> replicas;
    if (a->replicas > 0 && a->reward != "measured") throw Error("", "", "--replicas measures: add --reward measured");
    if (a->fake_ms > 0 && a->replicas == 0) throw Error("", "", "--fake-measure-ms is for --replicas");
    check_training_run(run, a->reward == "measured");  // before anything starts measuring
    if (a->reward == "measured") {
      run.measure = MeasureOptions{a->warmup, a->runs, 5};
      if (a->replicas > 0) {
        // --confirm's default re-measures locally: off with replicas unless asked (then refused).
        run.confirm_runs = cmd->count("--confirm") ? a->confirm : 0;
        a->rv.rank = 0;
        a->rv.world_size = a->replicas + 1;
        group = std::make_unique<ProcessGroup>(a->rv);
        replicas = std::make_unique<ReplicaReward>(
            *group, replica_setup(a->model, a->exec, run.measure, a->fake_ms), [](const std::string& why) {
              log::warn(why, "replica lost, its placement goes to another: " + why);
              log::flush_warnings();
            });
        run.remote_measurements = replicas.get();
      } else {
        executor = make_executor(*ctx, a->exec);
        run.executor = executor.get();
        run.confirm_runs = a->confirm;
      }
    }
    TrainProgress progress(episodes);
    run.on_episode = [&](const EpisodeLog& e) { progress(e); };
    TrainingOutcome outcome;
    try {
      outcome = run_training(pb, run);
    } catch (...) {
      if (replicas) replicas->stop();  // the survivors end now, not after their timeout
      throw;
    }
    if (replicas) replicas->stop();
    progress.finish();
    const std::vector<TrainResult>& results = outcome.results;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Problem& p = i == 0 ? pb : *run.also[i - 1];
      const TrainResult& ri = results[i];
      if (a->json) {
        std::printf("%s\n", result_json(p.graph().name(), p.cluster().name, label, ri, samples).c_str());
        continue;
      }
      char what[512];
      if (hsdag)
        std::snprintf(
            what, sizeof what,
            "%s on %s: HSDAG (%s preset%s), %d episodes x %d samples in %.1f s; %d ops -> %d coarse "
            "nodes -> %d groups",
            p.graph().name().c_str(), p.cluster().name.c_str(), a->preset.c_str(),
            results.size() > 1 ? (", one policy for " + std::to_string(results.size()) + " graphs").c_str() : "",
            ri.episodes, samples, ri.seconds, p.num_ops(), ri.coarse_nodes, ri.groups);
      else
        std::snprintf(what, sizeof what,
                      "%s on %s: %s, %d episodes x %d samples in %.1f s; %d ops -> %d decision units",
                      p.graph().name().c_str(), p.cluster().name.c_str(), a->algo.c_str(), ri.episodes, samples,
                      ri.seconds, p.num_ops(), ri.coarse_nodes);
      print_result(what, ri);
    }
    const TrainResult& r = results[0];
    if (executor)
      std::printf("measured reward: %lld placements run (%d warm-up + %d timed runs each) in %.1f s\n",
                  outcome.measured_placements, a->warmup, a->runs, outcome.measuring_seconds);
    if (replicas) {
      char what[128];
      if (a->fake_ms > 0)
        std::snprintf(what, sizeof what, "answered by the simulator after %g ms each (--fake-measure-ms)", a->fake_ms);
      else
        std::snprintf(what, sizeof what, "run (%d warm-up + %d timed runs each)", a->warmup, a->runs);
      const long long n = replicas->evaluations();
      std::printf(
          "measured reward on %d replicas: %lld placements %s in %.2f s, %.3f s per %d placements (an episode); "
          "%zu replicas lost, their placements measured again elsewhere\n",
          a->replicas, n, what, replicas->seconds_measuring(),
          n ? replicas->seconds_measuring() * samples / static_cast<double>(n) : 0.0, samples, replicas->lost().size());
      for (const std::string& why : replicas->lost()) std::printf("  lost %s\n", why.c_str());
    }
    if (outcome.confirmed) {
      const Reconfirmed& c = outcome.reconfirmed;
      std::printf(
          "confirmed: the %zu best placements measured again, %d runs each in rounds (median, was in training):\n",
          c.candidates.size(), a->confirm);
      for (std::size_t k = 0; k < c.candidates.size(); ++k) {
        const Measurement& m = c.confirmation.measurements[k];
        std::printf("  %s%s ms (95%% interval %s-%s), was %s ms\n", k == c.confirmation.best ? "* " : "  ",
                    ms(m.median).c_str(), ms(m.ci.low).c_str(), ms(m.ci.high).c_str(), ms(c.seen[k]).c_str());
      }
      const Confirmation& cf = c.confirmation;
      const std::string dev = pb.cluster().devices[cf.reference_device].name;
      std::printf("  best single device %s: %s ms (95%% interval %s-%s)\n", dev.c_str(), ms(cf.reference.median).c_str(),
                  ms(cf.reference.ci.low).c_str(), ms(cf.reference.ci.high).c_str());
      if (cf.faster_than_single())
        std::printf("  faster than %s: %.3fx its time per round (interval %.3f-%.3f)\n", dev.c_str(),
                    cf.versus_reference.ratio, cf.versus_reference.ci.low, cf.versus_reference.ci.high);
      else
        std::printf("  no better than %s within noise (%.3fx its time per round, interval %.3f-%.3f): keeping %s "
                    "alone\n",
                    dev.c_str(), cf.versus_reference.ratio, cf.versus_reference.ci.low, cf.versus_reference.ci.high,
                    dev.c_str());
    }
    if (!a->out.empty()) {
      write_placement(a->out, pb.graph(), pb.cluster(), r.best,
                      {a->model.model, ctx->cluster_spec, label, seed, r.best_latency});
      std::printf("wrote %s\n", a->out.c_str());
    }
    if (!a->log.empty()) write_file_atomic(a->log, log_csv(r.log));
    if (!a->plot.empty()) {
      const std::string title =
          (hsdag ? std::string("HSDAG") : a->algo) + " training: " + pb.graph().name() + " on " + pb.cluster().name;
      write_file_atomic(a->plot, training_svg(title, r.log));
    }
    if (!a->save_policy.empty()) std::printf("wrote policy %s\n", a->save_policy.c_str());
  });
}

}  // namespace devplace::cli
