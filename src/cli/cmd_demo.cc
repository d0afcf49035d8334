// `devplace demo`: the main job on the bundled default (Inception-V3 on the `paper` cluster):
// train the HSDAG placer, set its placement beside the single devices and the classical
// placers, and write the placement, a trace, the training log and its plot to out/demo/.
#include <cmath>
#include <cstdio>

#include "cli/command_list.h"
#include "cli/training_output.h"
#include "io/placement_io.h"
#include "learn/hsdag/hsdag.h"
#include "place/compare.h"
#include "service/placing.h"
#include "report/plot.h"
#include "report/trace.h"
#include "sim/simulator.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace::cli {

void add_demo_command(CLI::App& app) {
  struct Args {
    ModelOptions model{"inception_v3", {}, "paper", ""};
    std::string out = "out/demo";
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("demo", "Run the main job on the bundled default model and cluster");
  cmd->add_option("--model", a->model.model, "Model (default inception_v3)");
  cmd->add_option("--cluster,-c", a->model.cluster, "Cluster (default paper)");
  cmd->add_option("--seed", a->seed, "Seed (default 1)");
  cmd->add_option("--out", a->out, "Output folder (default out/demo)");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Graph& g = pb.graph();
    const Cluster& c = pb.cluster();
    double flops = 0;
    for (const Op& op : g.ops()) flops += op.flops;
    std::printf("devplace demo: %s (%d ops, %zu edges, %.2f GFLOPs) on '%s': %s\n\n", g.name().c_str(), g.num_ops(),
                g.num_edges(), flops / 1e9, c.name.c_str(), c.description.c_str());

    // 1. Learn a placement (the policy's own; the polish is reported as a separate row).
    HsdagConfig cfg = hsdag_preset("default");
    cfg.seed = a->seed;
    SimulatedReward reward(pb);
    log::Progress progress("train hsdag", cfg.episodes);
    TrainResult r = train_hsdag(pb, reward, cfg, [&](const EpisodeLog& e) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "mean %.3f ms, groups %d", e.mean_latency * 1e3, e.groups);
      progress.update(e.episode, buf);
    });
    progress.finish();
    char what[256];
    std::snprintf(what, sizeof what,
                  "HSDAG: %d episodes x %d samples in %.1f s; %d ops -> %d coarse nodes -> %d groups", r.episodes,
                  cfg.samples, r.seconds, g.num_ops(), r.coarse_nodes, r.groups);
    print_result(what, r);
    std::printf("\n");

    // 2. Set it beside the references.
    PlaceOptions opts;
    opts.seed = a->seed;
    std::vector<std::string> algos;
    for (const auto& d : c.devices) algos.push_back(d.name + "-only");
    for (const char* n : {"heft", "m-etf", "metis", "local-search"}) algos.push_back(n);
    Comparison cmp = compare_placers(pb, algos, opts, [](const Problem& p, const std::string& name) { return make_any_placer(p, name); });
    const double cpu = cmp.rows.front().verdict.latency;
    std::printf("| %-14s | %12s | %14s |\n|%s|%s|%s|\n", "placement", "latency (ms)", "vs cpu-only",
                std::string(16, '-').c_str(), std::string(14, '-').c_str(), std::string(16, '-').c_str());
    for (const auto& row : cmp.rows)
      std::printf("| %-14s | %12s | %13.2fx |\n", row.algorithm.c_str(), ms(row.verdict.latency).c_str(),
                  std::isfinite(row.verdict.latency) ? cpu / row.verdict.latency : 0.0);
    auto row = [&](const char* name, double latency) {
      std::printf("| %-14s | %12s | %13.2fx |\n", name, ms(latency).c_str(),
                  std::isfinite(latency) ? cpu / latency : 0.0);
    };
    row("hsdag", r.greedy_latency);
    row("hsdag-sampled", r.sampled_latency);
    if (r.polish_evaluations > 0) row("hsdag+polish", r.polished_latency);
    std::printf("lower bound %s ms\n\n", ms(cmp.lower_bound).c_str());

    // 3. Outputs a person can open.
    Simulator sim(pb);
    Schedule s = sim.run(r.greedy);
    write_placement(a->out + "/placement.json", g, c, r.greedy,
                    {a->model.model, a->model.cluster, "hsdag-default", a->seed, s.makespan});
    write_chrome_trace(a->out + "/trace.json", pb, s);
    write_file_atomic(a->out + "/training.csv", log_csv(r.log));
    write_file_atomic(a->out + "/training.svg", training_svg("HSDAG training: " + g.name() + " on " + c.name, r.log));
    std::printf("wrote %s/: placement.json (the policy's), trace.json (open in Perfetto), training.csv, training.svg\n",
                a->out.c_str());
  });
}

}  // namespace devplace::cli
