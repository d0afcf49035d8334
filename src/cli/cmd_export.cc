// `devplace export MODEL -o graph.json`: the model in devplace's native JSON graph format.
#include <cstdio>

#include "cli/command_list.h"
#include "io/native_json.h"

namespace devplace::cli {

void add_export_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("export", "Write a model as a devplace JSON graph (ops, tensors, shapes, FLOPs)");
  add_model_options(*cmd, *opts, false);
  cmd->add_option("-o,--output", *out, "Output file")->required();
  cmd->callback([opts, out] {
    Model m = load_model_only(*opts);
    write_graph_json(m.graph, *out);
    std::printf("wrote %s (%d ops)\n", out->c_str(), m.graph.num_ops());
  });
}

}  // namespace devplace::cli
