// `devplace place MODEL --algo NAME`: run one placer, print its verdict, write the placement
// (and optionally a trace, an annotated ONNX copy, an OpenVINO affinity map, a PyTorch device
// map). docs/guide/placement-export.md says how to apply each.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/command_list.h"
#include "io/placement_export.h"
#include "io/placement_io.h"
#include "io/torch_device_map.h"
#include "place/compare.h"
#include "service/placing.h"
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
  cmd.add_option("--move-policy", s.move_policy,
                 "Move policy for the learned-moves rows (default: policies/learned-moves.pt)")
      ->check(CLI::ExistingFile);
}

PlaceOptions place_options(const SearchArgs& s) {
  PlaceOptions o;
  o.seed = s.seed;
  o.eval_budget = s.evals;
  o.time_budget_s = s.seconds;
  o.objective = s.objective == "tarnawski" ? Objective::tarnawski : Objective::simulator;
  o.learned.move_policy_file = s.move_policy;
  return o;
}

void add_place_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    SearchArgs search;
    std::string algo = "local-search", out, trace, onnx, affinity, device_map, policy;
    int finetune = 0;
    bool keep = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("place", "Place a model with one algorithm and write the placement");
  add_model_options(*cmd, a->model);
  CLI::Option* algo_flag = cmd->add_option(
      "--algo,-a", a->algo, "Algorithm: " + [] {
        std::string s;
        for (auto& n : classical_placer_names()) s += n + ", ";
        return s +
               "hsdag (the policy's own placement; --budget N sets its episodes), hsdag-sampled (the best it sampled), "
               "hsdag+polish, hsdag-paper, rnn, hierarchical, placeto, learned (devplace's own, pretrained; "
               "docs/design/learned.md), learned-sampled, learned-discrepancy, learned-tuned, learned-tuned-sampled, "
               "learned-tuned-discrepancy, learned-moves, learned-discrepancy-moves (with the learned move policy), "
               "lookahead and rollout (the learned placer's decision rules alone: no network; rollout is its "
               "teacher), "
               "<device>-only (default local-search)";
      }());
  add_search_options(*cmd, a->search);
  cmd->add_option("--policy", a->policy,
                  "A trained policy: devplace pretrain's with --algo learned*, HSDAG's (devplace train --save-policy) "
                  "with --algo hsdag, "
                  "else Placeto's");
  cmd->add_option("--finetune", a->finetune, "With --policy: fine-tune for N episodes on this model first");
  cmd->add_option("-o,--output", a->out, "Placement file to write (JSON)");
  cmd->add_flag("--keep-placement", a->keep,
                "On a cost table with a fitted execution model: keep the placer's placement even when it is no "
                "faster than the best single device by more than the model's error");
  cmd->add_option("--trace", a->trace, "Chrome trace of the simulated schedule");
  cmd->add_option("--export-onnx", a->onnx, "Copy of the ONNX model annotated with the placement");
  cmd->add_option("--export-affinity", a->affinity,
                  "OpenVINO affinity map (op -> CPU/GPU) for HETERO, adjusted to HETERO's rules (changes reported)");
  cmd->add_option("--export-device-map", a->device_map,
                  "PyTorch device map (module path -> cpu/cuda:N) of a torch.onnx export");
  cmd->callback([a, algo_flag] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    PlaceRequest request;
    request.options = place_options(a->search);
    request.options.learned.policy_file = a->policy, request.options.learned.fine_tune_episodes = a->finetune;
    request.keep_placement = a->keep;
    // A policy with no --algo is a Placeto policy (the default algorithm loads none).
    request.algorithm = !a->policy.empty() && algo_flag->count() == 0 ? "placeto" : a->algo;
    const PlaceResult r = place_problem(pb, request);
    const Placement& p = r.placement;
    const Verdict& v = r.verdict;
    const PlaceOptions& opts = request.options;
    const double secs = r.seconds;
    const double lb = makespan_lower_bound(pb);
    const Cluster& c = pb.cluster();
    if (r.replaced_by_device >= 0) {
      const std::string& device = c.devices[r.replaced_by_device].name;
      std::printf("%s's placement (%s ms) is no better than %s alone (%s ms) within the calibrated model's error "
                  "(%.0f%%): placing every op on %s (--keep-placement keeps %s's)\n",
                  r.placer.c_str(), ms(r.placer_latency).c_str(), device.c_str(), ms(v.latency).c_str(),
                  r.margin * 100, device.c_str(), r.placer.c_str());
    }
    std::printf("%s on %s with %s: latency %s ms%s (lower bound %s ms, gap %.1f%%), placed in %.3f s\n",
                pb.graph().name().c_str(), c.name.c_str(), r.placer.c_str(), ms(v.latency).c_str(),
                v.feasible ? "" : " INFEASIBLE", ms(lb).c_str(), v.feasible ? 100.0 * (v.latency / lb - 1) : 0.0, secs);
    if (!v.feasible) std::printf("  infeasible: %s\n", v.reason.c_str());
    std::vector<int> count(c.num_devices(), 0);
    for (int d : p) ++count[d];
    for (int d = 0; d < c.num_devices(); ++d) std::printf("  %-8s %5d ops\n", c.devices[d].name.c_str(), count[d]);
    if (!a->out.empty()) {
      write_placement(a->out, pb.graph(), c, p,
                      {a->model.model, ctx->cluster_spec, r.placer, opts.seed, v.latency});
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
    auto simulated = [&](const Placement& q) { return ms(judge(pb, q, opts.objective).latency); };
    if (!a->affinity.empty()) {
      // What the placer's own map would break, before the adjustment.
      const auto before =
          check_openvino_affinity(pb.graph(), openvino_affinity_map(pb.graph(), c, p), openvino_device_names(c));
      AdjustedPlacement adj = export_openvino_affinity(pb.graph(), c, p, a->affinity);
      std::printf("wrote %s: OpenVINO affinity map; the placement as placed breaks HETERO's rules at %zu ops, ",
                  a->affinity.c_str(), before.size());
      if (adj.changes.empty()) {
        std::printf(before.empty() ? "nothing to change\n"
                                   : "constants, Parameters and Results now follow their readers; no op with a kernel "
                                     "moved, latency unchanged\n");
      } else {
        std::printf("%zu ops moved to follow HETERO's rules (docs/guide/placement-export.md); latency %s ms -> %s ms\n",
                    adj.changes.size(), ms(v.latency).c_str(), simulated(adj.placement).c_str());
        for (std::size_t k = 0; k < adj.changes.size() && k < 10; ++k)
          std::printf("  %s: %s -> %s (%s)\n", adj.changes[k].op.c_str(), c.devices[adj.changes[k].from].name.c_str(),
                      c.devices[adj.changes[k].to].name.c_str(), adj.changes[k].reason.c_str());
        if (adj.changes.size() > 10) std::printf("  ... and %zu more\n", adj.changes.size() - 10);
      }
    }
    if (!a->device_map.empty()) {
      TorchDeviceMap dm = torch_device_map(pb.graph(), p);
      write_torch_device_map(a->device_map, dm, c);
      std::printf(
          "wrote %s: %zu modules, %zu loose ops; %d of %d kernel ops (%.1f%%) keep their device at module "
          "level; latency %s ms module level, %s ms op level\n",
          a->device_map.c_str(), dm.modules.size(), dm.loose_ops.size(), dm.preserved, dm.kernel_ops,
          dm.kernel_ops ? 100.0 * dm.preserved / dm.kernel_ops : 100.0, simulated(dm.module_level).c_str(),
          ms(v.latency).c_str());
    }
  });
}

}  // namespace devplace::cli
