// `devplace profile MODEL --cluster C -o costs.json`: measure every op on every worker of the
// cluster and every crossing tensor's copy, and write them as a cost table that `--costs`
// accepts in every command (calibrating the simulator to this machine). `--validate N` also runs
// N random placements in the same rounds as the profile, so that they see the same machine, and
// reports how far the calibrated simulator is from their measured latency.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "exec/profiler.h"
#include "place/random_placement.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"
#include "util/stats.h"

namespace devplace::cli {

void add_profile_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    ExecArgs exec;
    std::string out;
    int runs = 5, validate = 0;
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("profile", "Measure each op on each worker and each copy; write a cost table (--costs)");
  add_model_options(*cmd, a->model);
  cmd->add_option("-o,--output", a->out, "Cost table to write (JSON)")->required();
  cmd->add_option("--runs", a->runs, "Timed runs per worker; the table keeps medians (default 5)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--validate", a->validate,
                  "Also measure this many random placements in the profile's rounds and report the calibrated "
                  "simulator's error on them")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", a->seed, "Seed of the --validate placements (default 1)");
  add_exec_options(*cmd, a->exec);
  cmd->callback([a] {
    if (!a->model.costs.empty()) throw Error(a->model.costs, "", "profile measures costs; do not pass --costs");
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    auto ex = make_executor(*ctx, a->exec);
    const Graph& g = pb.graph();
    std::vector<Placement> held_out;
    RandomPlacements random(a->seed);
    for (int k = 0; k < a->validate; ++k) {
      Placement p = random.any_device(g.num_ops(), c.num_devices());
      held_out.push_back(std::move(p));
    }
    std::vector<std::vector<double>> latency(held_out.size());
    ProfileOptions po;
    po.runs = a->runs;
    log::Progress progress("profile", static_cast<std::size_t>(a->runs));
    po.after_round = [&](int round) {
      if (!held_out.empty()) {
        if (round == 0)
          for (const Placement& p : held_out) ex->run(p);  // warm-up
        for (std::size_t k = 0; k < held_out.size(); ++k) latency[k].push_back(ex->run(held_out[k]).latency);
      }
      progress.update(static_cast<std::size_t>(round + 1), held_out.empty() ? "rounds" : "rounds with validation");
    };
    CostTable t = profile_costs(*ex, g, c, po);
    progress.finish();
    write_file_atomic(a->out, cost_table_to_json(t).dump(1) + "\n");
    std::printf("%s on %s: profiled %d ops on %d workers (%d runs each), %zu tensor copies\n",
                pb.graph().name().c_str(), c.name.c_str(), pb.num_ops(), ex->num_workers(), a->runs,
                t.transfer_time.size());
    for (int d = 0; d < c.num_devices(); ++d) {
      double sum = 0;
      for (auto& [op, row] : t.op_time) sum += row.at(c.devices[d].name);
      std::printf("  %-8s (%s) sum of op times %s ms\n", c.devices[d].name.c_str(), ex->workers()[d].str().c_str(),
                  ms(sum).c_str());
    }
    double copies = 0;
    for (auto& [tensor, s] : t.transfer_time) copies += s;
    std::printf("  copies: sum %s ms over %zu tensors\nwrote %s\n", ms(copies).c_str(), t.transfer_time.size(),
                a->out.c_str());
    if (held_out.empty()) return;
    Problem calibrated(g, c, &t);
    Simulator sim(calibrated);
    std::vector<double> errors;
    std::printf("validation: %zu random placements (seed %llu), measured in the same %d rounds\n", held_out.size(),
                static_cast<unsigned long long>(a->seed), a->runs);
    for (std::size_t k = 0; k < held_out.size(); ++k) {
      std::vector<double> v = latency[k];
      std::sort(v.begin(), v.end());
      const double measured = quantile_of_sorted(v, 0.5);
      const double simulated = sim.makespan(held_out[k]);
      errors.push_back(std::abs(simulated - measured) / measured);
      std::printf("  #%zu measured median %s ms (min %s, max %s)  simulated %s ms  error %+.1f%%\n", k,
                  ms(measured).c_str(), ms(v.front()).c_str(), ms(v.back()).c_str(), ms(simulated).c_str(),
                  (simulated - measured) / measured * 100);
    }
    std::printf("calibrated simulator vs measured: median absolute error %.1f%% (max %.1f%%)\n", median(errors) * 100,
                *std::max_element(errors.begin(), errors.end()) * 100);
  });
}

}  // namespace devplace::cli
