// `devplace demo`: the main job on the bundled default (Inception-V3 on the `paper` cluster):
// what the model is, what each device alone achieves, and a trace of the best single device.
// Outputs go to out/demo/ (or --out).
#include <cmath>
#include <cstdio>

#include "cli/command_list.h"
#include "io/placement_io.h"
#include "report/trace.h"
#include "sim/simulator.h"

namespace devplace::cli {

void add_demo_command(CLI::App& app) {
  struct Args {
    ModelOptions model{"inception_v3", {}, "paper", ""};
    std::string out = "out/demo";
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("demo", "Run the main job on the bundled default model and cluster");
  cmd->add_option("--model", a->model.model, "Model (default inception_v3)");
  cmd->add_option("--cluster,-c", a->model.cluster, "Cluster (default paper)");
  cmd->add_option("--out", a->out, "Output folder (default out/demo)");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Graph& g = pb.graph();
    const Cluster& c = pb.cluster();
    double flops = 0;
    for (const Op& op : g.ops()) flops += op.flops;
    std::printf("devplace demo: %s (%d ops, %zu edges, %.2f GFLOPs) on cluster '%s' (%d devices)\n\n",
                g.name().c_str(), g.num_ops(), g.num_edges(), flops / 1e9, c.name.c_str(), c.num_devices());
    Simulator sim(pb);
    int best = -1;
    std::vector<double> mk(c.num_devices());
    for (int d = 0; d < c.num_devices(); ++d) {
      mk[d] = sim.makespan(Placement(g.num_ops(), d));
      std::printf("  %-10s-only  %10s ms\n", c.devices[d].name.c_str(), ms(mk[d]).c_str());
      if (std::isfinite(mk[d]) && (best < 0 || mk[d] < mk[best])) best = d;
    }
    if (best < 0) return;
    Placement p(g.num_ops(), best);
    Schedule s = sim.run(p);
    write_placement(a->out + "/placement.json", g, c, p, {a->model.model, a->model.cluster, "single-device", 0, s.makespan});
    write_chrome_trace(a->out + "/trace.json", pb, s);
    std::printf("\nbest single device: %s (%s ms)\nwrote %s/placement.json and %s/trace.json (open in Perfetto)\n",
                c.devices[best].name.c_str(), ms(s.makespan).c_str(), a->out.c_str(), a->out.c_str());
  });
}

}  // namespace devplace::cli
