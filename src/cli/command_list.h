// Registration of each subcommand on the CLI11 app; one file per command (cmd_<name>.cc).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"

namespace devplace::cli {

// Adds the model / --input / --cluster / --costs options shared by most commands.
void add_model_options(CLI::App& cmd, ModelOptions& opts, bool with_cluster = true);

void add_info_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_costs_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_demo_command(CLI::App& app);

}  // namespace devplace::cli
