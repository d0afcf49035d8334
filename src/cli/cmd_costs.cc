// `devplace costs MODEL... --cluster C...`: the sanity check of a cost model. For every model
// and cluster: each single device's makespan and the share of ops on which each device is the
// fastest, and how many kernels it launches running the whole model (fewer than its kernel ops
// where it fuses). A preset where one device wins every op makes placement trivial; this shows it.
#include <cmath>
#include <cstdio>

#include "cli/command_list.h"
#include "graph/op_costs.h"
#include "sim/simulator.h"

namespace devplace::cli {

namespace {

void report(const ModelOptions& mo) {
  auto ctx = load_context(mo);
  const Problem& pb = *ctx->problem;
  const Graph& g = pb.graph();
  const Cluster& c = pb.cluster();
  const int D = c.num_devices();
  Simulator sim(pb);
  std::vector<double> single(D);
  std::vector<int> wins(D, 0);
  int kernels = 0;
  for (int i = 0; i < g.num_ops(); ++i) {
    int best = -1;
    for (int d = 0; d < D; ++d)
      if (best < 0 || pb.op_time(i, d) < pb.op_time(i, best)) best = d;
    // Free ops (no kernel) cost 0 everywhere and say nothing about devices.
    if (pb.op_time(i, best) <= 0) continue;
    ++kernels;
    ++wins[best];
  }
  std::vector<int> launches(D, 0);
  for (int d = 0; d < D; ++d) {
    single[d] = sim.makespan(Placement(g.num_ops(), d));
    for (int i = 0; i < g.num_ops(); ++i)
      launches[d] += pb.standalone_time(i, d) > 0 && std::isfinite(pb.op_time(i, d)) && pb.fusion_parent(i, d) < 0;
  }
  for (int d = 0; d < D; ++d) {
    std::printf("%-14s %-22s %-8s %10s ms   fastest on %5.1f%% of %d kernel ops, %d kernels alone\n", g.name().c_str(),
                c.name.c_str(), c.devices[d].name.c_str(), ms(single[d]).c_str(),
                kernels ? 100.0 * wins[d] / kernels : 0.0, kernels, launches[d]);
  }
  int cpu = c.first_of_kind("cpu");
  for (int d = 0; d < D; ++d)
    if (d != cpu && cpu >= 0 && std::isfinite(single[d]) && single[d] > 0) {
      std::printf("%-14s %-22s %-8s cpu-only / %s-only = %.2fx\n", g.name().c_str(), c.name.c_str(), "",
                  c.devices[d].name.c_str(), single[cpu] / single[d]);
      break;
    }
}

}  // namespace

void add_costs_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> models{"resnet50", "inception_v3", "bert_base"};
    std::vector<std::string> clusters;  // empty: the model's own devices, else every preset
    std::vector<std::string> inputs;
    std::string costs;
    bool fusion = true;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "costs", "Single-device makespans and the share of ops each device wins, per model and cluster");
  cmd->add_option("models", a->models, "Models (default: the three bundled ones)");
  cmd->add_option("--cluster,-c", a->clusters, "Clusters (default: the model's own devices, else every preset)");
  cmd->add_option("--input", a->inputs, "Bind a dynamic input shape (repeatable)");
  cmd->add_flag("--no-fusion{false}", a->fusion, "Cost every op as its own kernel (docs/design/cost-model.md)");
  cmd->callback([a] {
    std::printf("%-14s %-22s %-8s %13s\n", "model", "cluster", "device", "single-device");
    for (const auto& m : a->models) {
      std::vector<std::string> clusters = a->clusters;
      if (clusters.empty()) {
        Model model = load_model_only(ModelOptions{m, a->inputs, "", ""});
        clusters = model.cluster ? std::vector<std::string>{""} : cluster_presets();
      }
      for (const auto& c : clusters) report(ModelOptions{m, a->inputs, c, a->costs, a->fusion});
    }
  });
}

}  // namespace devplace::cli
