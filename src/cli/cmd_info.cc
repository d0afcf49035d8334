// `devplace info MODEL`: size, FLOPs, parameters and the op-type histogram of a model.
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "graph/op_costs.h"

namespace devplace::cli {

void add_info_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info", "Ops, edges, FLOPs, parameters and op-type histogram of a model");
  add_model_options(*cmd, *opts, false);
  cmd->add_flag("--json", *as_json, "Print JSON instead of text");
  cmd->callback([opts, as_json] {
    Model m = load_model_only(*opts);
    const Graph& g = m.graph;
    double flops = 0, macs = 0;
    std::int64_t params = 0;
    std::map<std::string, int> hist;
    int unknown_shapes = 0;
    // Folded: evaluated once at load time by a runtime (Constant ops, constant subgraphs, shape
    // arithmetic on static shapes: graph/static_folding.h), so no per-inference cost.
    std::map<std::string, int> folded;
    int folded_ops = 0;
    for (const Op& op : g.ops()) {
      flops += op.flops;
      macs += op.macs;
      params += op.weight_bytes;
      ++hist[op.type];
      if (is_folded(g, op)) ++folded[op.type], ++folded_ops;
    }
    // Why dims stay unknown: group the tensors where unknown dims start (a graph input with a
    // symbolic dim, or an op whose inputs are all known but whose output shape is not) by cause;
    // every other unknown tensor only inherits them.
    std::map<std::string, std::pair<int, std::string>> unknown_roots;  // cause -> (count, example)
    for (const Tensor& t : g.tensors()) {
      if (t.shape_known() || t.fixed_bytes >= 0) continue;
      ++unknown_shapes;
      std::string cause;
      if (t.producer < 0) {
        cause = "graph input with a symbolic dim (bind it with --input)";
      } else {
        const Op& op = g.op(t.producer);
        const bool inherited = std::any_of(op.inputs.begin(), op.inputs.end(), [&](int i) {
          return !g.tensor(i).shape_known() && g.tensor(i).fixed_bytes < 0;
        });
        if (inherited) continue;
        cause = op.type +
                " with known input shapes: its output shape is not static (it depends on values, or shape inference "
                "does not cover the type)";
      }
      auto& [count, example] = unknown_roots[cause];
      if (count++ == 0) example = t.name;
    }
    std::vector<std::pair<std::string, int>> rows(hist.begin(), hist.end());
    std::stable_sort(rows.begin(), rows.end(), [](auto& a, auto& b) { return a.second > b.second; });
    if (*as_json) {
      nlohmann::json j = {
          {"model", g.name()},      {"file", g.source()},         {"ops", g.num_ops()},
          {"edges", g.num_edges()}, {"tensors", g.num_tensors()}, {"flops", flops},
          {"macs", macs},           {"weight_bytes", params},     {"tensors_with_unknown_dims", unknown_shapes},
          {"op_types", hist},       {"folded_ops", folded_ops},   {"folded_op_types", folded}};
      for (auto& [cause, ce] : unknown_roots)
        j["unknown_dims_start_at"].push_back({{"cause", cause}, {"tensors", ce.first}, {"example", ce.second}});
      if (m.cluster) j["own_cluster"] = m.cluster->name;
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    std::printf("model       %s (%s)\n", g.name().c_str(), g.source().c_str());
    std::printf("ops         %d\nedges       %zu\ntensors     %d\n", g.num_ops(), g.num_edges(), g.num_tensors());
    std::printf("FLOPs       %.3f G (%.3f GMACs in Conv/MatMul/Gemm; 1 MAC = 2 FLOPs)\n", flops / 1e9, macs / 1e9);
    std::printf("weights     %.2f MiB\n", static_cast<double>(params) / 1048576.0);
    if (folded_ops) {
      std::printf("folded      %d ops evaluated once at load time (", folded_ops);
      const char* sep = "";
      for (auto& [type, n] : folded) std::printf("%s%s %d", sep, type.c_str(), n), sep = ", ";
      std::printf("): no cost per inference\n");
    }
    if (unknown_shapes) {
      std::printf("unknown     %d tensors keep dynamic dims; they start at:\n", unknown_shapes);
      for (auto& [cause, ce] : unknown_roots)
        std::printf("  %d x %s (e.g. '%s')\n", ce.first, cause.c_str(), ce.second.c_str());
    }
    if (m.cluster) std::printf("devices     the file defines its own cluster '%s'\n", m.cluster->name.c_str());
    std::printf("op types:\n");
    for (auto& [type, n] : rows) std::printf("  %-28s %5d  (%s)\n", type.c_str(), n, op_class_name(classify(type)));
  });
}

}  // namespace devplace::cli
