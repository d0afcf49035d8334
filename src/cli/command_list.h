// Registration of each subcommand on the CLI11 app; one file per command (cmd_<name>.cc).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/context.h"
#include "exec/executor.h"
#include "place/placer.h"

namespace devplace::cli {

// Adds the model / --input / --cluster / --costs options shared by most commands.
void add_model_options(CLI::App& cmd, ModelOptions& opts, bool with_cluster = true);

// Seed, budgets and objective for commands that run placers.
struct SearchArgs {
  std::uint64_t seed = 1;
  std::int64_t evals = 0;
  double seconds = 0;
  std::string objective = "sim";
  std::string move_policy;  // learned-moves rows
};
void add_search_options(CLI::App& cmd, SearchArgs& s);
PlaceOptions place_options(const SearchArgs& s);

void add_info_command(CLI::App& app);
// `cluster --local`: this machine as a cluster file; cmd_cluster.cc.
void add_cluster_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_costs_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_check_affinity_command(CLI::App& app);
void add_pretrain_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_place_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_compare_command(CLI::App& app);
// `bench`: the benchmark report (docs/results/benchmark.md); cmd_bench.cc.
void add_bench_command(CLI::App& app);

// Real execution (exec/, docs/design/execution.md): `run` and `profile`, cmd_run.cc / cmd_profile.cc.
struct ExecArgs {
  int threads = 1;
  bool no_pin = false;
  std::uint64_t weights_seed = 1;
};
void add_exec_options(CLI::App& cmd, ExecArgs& e);
// An executor for the context's graph on its cluster's workers.
std::unique_ptr<Executor> make_executor(const Context& ctx, const ExecArgs& e);
void add_run_command(CLI::App& app);
void add_profile_command(CLI::App& app);
// `calibrate`: the execution model fitted to measured runs (sim/calibrate.h): cmd_calibrate.cc.
void add_calibrate_command(CLI::App& app);
void print_execution_model(const ExecutionModel& model);
// The ONNX backend test suite on the executor (exec/conformance.h): cmd_conformance.cc.
void add_conformance_command(CLI::App& app);
// Process groups over c10d/Gloo (dist/, docs/design/distributed.md): cmd_worker.cc.
void add_worker_command(CLI::App& app);
void add_links_command(CLI::App& app);
}  // namespace devplace::cli
