#include "cli/commands.h"

#include <cstdio>

#include "cli/command_list.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace::cli {

void add_model_options(CLI::App& cmd, ModelOptions& opts, bool with_cluster) {
  cmd.add_option("model", opts.model,
                 "Model file (.onnx, .xml, .json) or bundled name (resnet50, inception_v3, bert_base)")
      ->required();
  cmd.add_option("--input", opts.inputs, "Bind a dynamic input shape, e.g. --input input_ids=1,128 (repeatable)");
  if (with_cluster) {
    cmd.add_option(
        "--cluster,-c", opts.cluster,
        opts.local_by_default
            ? "Cluster file (.toml, .json), preset (paper, server, nvlink4) or local (this machine: devplace cluster "
              "--local); default: the model's own devices, else local"
            : "Cluster file (.toml, .json), preset (paper, server, nvlink4) or local (this machine: devplace cluster "
              "--local); default: the model's own devices, else paper");
    cmd.add_option("--costs", opts.costs, "Cost table (JSON) overriding the roofline model for the ops it names");
    cmd.add_flag("--no-fusion{false}", opts.fusion,
                 "Cost every op as its own kernel (ignore the cluster's fusion rules; docs/design/cost-model.md)");
  }
}

int run(int argc, char** argv) {
  CLI::App app{"devplace: learn where to run each op of a neural network on heterogeneous devices"};
  app.require_subcommand(1);
  app.fallthrough();  // --quiet may follow the subcommand
  bool quiet = false;
  app.add_flag("--quiet,-q", quiet, "No progress or warnings on stderr");
  app.parse_complete_callback([&] { log::set_quiet(quiet); });
  add_info_command(app);
  add_cluster_command(app);
  add_simulate_command(app);
  add_costs_command(app);
  add_export_command(app);
  add_check_affinity_command(app);
  add_pretrain_command(app);
  add_place_command(app);
  add_train_command(app);
  add_compare_command(app);
  add_run_command(app);
  add_profile_command(app);
  add_calibrate_command(app);
  add_conformance_command(app);
  add_worker_command(app);
  add_links_command(app);
  add_bench_command(app);
  add_demo_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Error& e) {
    log::flush_warnings();
    std::fprintf(stderr, "devplace: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "devplace: error: %s\n", e.what());
    return 1;
  }
  log::flush_warnings();
  return 0;
}

}  // namespace devplace::cli
