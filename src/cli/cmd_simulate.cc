// `devplace simulate MODEL --placement P.json | --device NAME`: one simulated inference.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "io/placement_io.h"
#include "report/trace.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace::cli {

void add_simulate_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    std::string placement, device, trace;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("simulate", "Simulate one inference of a placed model: makespan, busy time, memory");
  add_model_options(*cmd, a->model);
  auto* p = cmd->add_option("--placement,-p", a->placement, "Placement file (JSON: op name -> device name)");
  auto* d = cmd->add_option("--device,-d", a->device, "Place every op on this one device instead");
  p->excludes(d);
  cmd->add_option("--trace", a->trace, "Write a Chrome trace (open in Perfetto or chrome://tracing)");
  cmd->add_flag("--json", a->json, "Print JSON instead of text");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    const Graph& g = pb.graph();
    Placement placement = placement_from_options(g, c, a->placement, a->device, a->model.model);
    Simulator sim(pb);
    Schedule s = sim.run(placement);
    if (!a->trace.empty() && !s.ops.empty()) write_chrome_trace(a->trace, pb, s);
    if (a->json) {
      nlohmann::json j = {{"model", g.name()},
                          {"cluster", c.name},
                          {"makespan_ms", s.feasible ? nlohmann::json(s.makespan * 1e3) : nullptr},
                          {"feasible", s.feasible},
                          {"reason", s.infeasible_reason},
                          {"transfers", s.transfers.size()}};
      for (int di = 0; di < c.num_devices() && !s.busy.empty(); ++di)
        j["devices"][c.devices[di].name] = {{"busy_ms", s.busy[di] * 1e3}, {"peak_memory_bytes", s.peak_memory[di]}};
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    std::printf("model %s on cluster %s: makespan %s ms%s\n", g.name().c_str(), c.name.c_str(), ms(s.makespan).c_str(),
                s.feasible ? "" : " (INFEASIBLE)");
    if (!s.feasible) std::printf("  infeasible: %s\n", s.infeasible_reason.c_str());
    if (s.busy.empty()) return;
    std::printf("  %zu transfers\n", s.transfers.size());
    std::vector<int> count(c.num_devices(), 0);
    for (int v : placement) ++count[v];
    for (int di = 0; di < c.num_devices(); ++di)
      std::printf("  %-8s %5d ops  busy %s ms  peak memory %.1f MiB\n", c.devices[di].name.c_str(), count[di],
                  ms(s.busy[di]).c_str(), static_cast<double>(s.peak_memory[di]) / 1048576.0);
  });
}

}  // namespace devplace::cli
