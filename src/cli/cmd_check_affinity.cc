// `devplace check-affinity MODEL MAP.json [-c C]`: does an OpenVINO affinity map follow the rules
// HETERO's manual mode needs (io/openvino_affinity.h)? Prints each violation (the first 20 and
// counts per rule); exits 0 when the map is valid, 1 with a one-line error when it is not.
#include <cstdio>
#include <map>

#include "cli/command_list.h"
#include "io/openvino_affinity.h"
#include "io/placement_export.h"
#include "util/error.h"

namespace devplace::cli {

void add_check_affinity_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    std::string map;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("check-affinity", "Check an OpenVINO affinity map against the model and HETERO's rules");
  add_model_options(*cmd, a->model);
  cmd->add_option("map", a->map, "Affinity map (JSON, as --export-affinity writes it)")->required();
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Graph& g = ctx->problem->graph();
    const auto violations =
        check_openvino_affinity(g, read_openvino_affinity(a->map), openvino_device_names(ctx->problem->cluster()));
    std::map<std::string, int> per_rule;
    for (const auto& v : violations) ++per_rule[v.rule];
    for (std::size_t k = 0; k < violations.size() && k < 20; ++k)
      std::printf("%s: %s: %s\n", violations[k].rule.c_str(), violations[k].op.c_str(), violations[k].detail.c_str());
    if (violations.size() > 20) std::printf("... and %zu more\n", violations.size() - 20);
    std::printf("%s: %d ops, %zu violations", a->map.c_str(), g.num_ops(), violations.size());
    for (auto& [rule, n] : per_rule) std::printf(", %s %d", rule.c_str(), n);
    std::printf("\n");
    std::fflush(stdout);
    if (!violations.empty())
      throw Error(a->map, "", std::to_string(violations.size()) + " violations of HETERO's rules (listed above)");
  });
}

}  // namespace devplace::cli
