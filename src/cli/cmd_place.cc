// `devplace place MODEL --algo NAME`: run one placer, print its verdict, write the placement
// (and optionally a trace, an annotated ONNX copy, an OpenVINO affinity map).
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/command_list.h"
#include "io/placement_export.h"
#include "io/placement_io.h"
#include "place/compare.h"
#include "report/trace.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace::cli {

void add_search_options(CLI::App& cmd, SearchArgs& s) {
  cmd.add_option("--seed", s.seed, "Seed for every random choice (default 1)");
  cmd.add_option("--budget", s.evals, "Evaluation budget for searches (simulator calls)");
  cmd.add_option("--time-budget", s.seconds, "Wall-clock budget for searches, seconds");
  cmd.add_option("--objective", s.objective, "Latency model: sim (our event simulator) or tarnawski")
      ->check(CLI::IsMember({"sim", "tarnawski"}));
}

PlaceOptions place_options(const SearchArgs& s) {
  PlaceOptions o;
  o.seed = s.seed;
  o.eval_budget = s.evals;
  o.time_budget_s = s.seconds;
  o.objective = s.objective == "tarnawski" ? Objective::tarnawski : Objective::simulator;
  return o;
}

void add_place_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    SearchArgs search;
    std::string algo = "local-search", out, trace, onnx, affinity, policy;
    int finetune = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("place", "Place a model with one algorithm and write the placement");
  add_model_options(*cmd, a->model);
  cmd->add_option(
      "--algo,-a", a->algo, "Algorithm: " + [] {
        std::string s;
        for (auto& n : classical_placer_names()) s += n + ", ";
        return s +
               "hsdag (the policy's own placement; --budget N sets its episodes), hsdag-sampled (the best it sampled), "
               "hsdag+polish, hsdag-paper, rnn, hierarchical, placeto, <device>-only (default local-search)";
      }());
  add_search_options(*cmd, a->search);
  cmd->add_option("--policy", a->policy,
                  "Place zero-shot with a trained policy (devplace train --save-policy): HSDAG's with --algo hsdag, "
                  "else Placeto's");
  cmd->add_option("--finetune", a->finetune, "With --policy: fine-tune for N episodes on this model first");
  cmd->add_option("-o,--output", a->out, "Placement file to write (JSON)");
  cmd->add_option("--trace", a->trace, "Chrome trace of the simulated schedule");
  cmd->add_option("--export-onnx", a->onnx, "Copy of the ONNX model annotated with the placement");
  cmd->add_option("--export-affinity", a->affinity, "OpenVINO affinity map (op -> CPU/GPU) for HETERO");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const PlaceOptions opts = place_options(a->search);
    if (a->finetune > 0 && a->policy.empty()) throw Error("", "", "--finetune needs --policy FILE");
    // A policy file goes with --algo hsdag, else it is a Placeto policy (the default algorithm
    // is no learner).
    const std::string learner = a->algo == "hsdag" ? "hsdag" : "placeto";
    const std::string algo =
        a->policy.empty() ? a->algo
                          : learner + ":" + a->policy + (a->finetune > 0 ? ":" + std::to_string(a->finetune) : "");
    auto placer = make_any_placer(pb, algo);
    auto t0 = std::chrono::steady_clock::now();
    Placement p = placer->place(pb, opts);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Verdict v = judge(pb, p, opts.objective);
    double lb = makespan_lower_bound(pb);
    const Cluster& c = pb.cluster();
    std::printf("%s on %s with %s: latency %s ms%s (lower bound %s ms, gap %.1f%%), placed in %.3f s\n",
                pb.graph().name().c_str(), c.name.c_str(), placer->name().c_str(), ms(v.latency).c_str(),
                v.feasible ? "" : " INFEASIBLE", ms(lb).c_str(), v.feasible ? 100.0 * (v.latency / lb - 1) : 0.0, secs);
    if (!v.feasible) std::printf("  infeasible: %s\n", v.reason.c_str());
    std::vector<int> count(c.num_devices(), 0);
    for (int d : p) ++count[d];
    for (int d = 0; d < c.num_devices(); ++d) std::printf("  %-8s %5d ops\n", c.devices[d].name.c_str(), count[d]);
    if (!a->out.empty()) {
      write_placement(a->out, pb.graph(), c, p,
                      {a->model.model, ctx->cluster_spec, placer->name(), opts.seed, v.latency});
      std::printf("wrote %s\n", a->out.c_str());
    }
    if (!a->trace.empty()) {
      Simulator sim(pb);
      Schedule s = sim.run(p);
      if (!s.ops.empty()) write_chrome_trace(a->trace, pb, s);
    }
    if (!a->onnx.empty()) {
      if (std::filesystem::path(pb.graph().source()).extension() != ".onnx")
        throw Error(pb.graph().source(), "", "--export-onnx needs an ONNX model");
      export_onnx_with_placement(pb.graph().source(), pb.graph(), c, p, a->onnx);
    }
    if (!a->affinity.empty()) export_openvino_affinity(pb.graph(), c, p, a->affinity);
  });
}

}  // namespace devplace::cli
