// `devplace calibrate MODEL -c C --costs COSTS --measured RUN.json -o CALIBRATED.json`: fit the
// execution model (cost/execution_model.h) to placements measured by `devplace run --json` and
// write COSTS with it, so that every command's `--costs CALIBRATED.json` simulates as the
// executor runs. Rows whose label contains a `--predict` pattern are held out and only reported.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "io/measured_runs.h"
#include "sim/calibrate.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace::cli {

namespace {

void print_fidelity(const char* what, const Fidelity& f) {
  std::printf("  %-22s %2d placements: median |error| %5.1f%%, worst %5.1f%%, median signed %+5.1f%%, optimistic on "
              "%d, pairs ordered as measured %d of %d\n",
              what, f.placements, f.median_abs_error * 100, f.worst_abs_error * 100, f.median_signed_error * 100,
              f.optimistic, f.pairs_ordered, f.pairs);
}

}  // namespace

void print_execution_model(const ExecutionModel& m) {
  std::printf("execution model (%s copies):\n", copies_name(m.copies));
  for (const DeviceExecution& d : m.devices) {
    std::printf("  %-8s %s  dispatch %.2f us/task (+%.2f us from idle)  op time x%.3f", d.device.c_str(),
                d.async ? "async" : "sync ", d.dispatch * 1e6, d.wake * 1e6, d.op_scale);
    if (d.async) std::printf("  kernel %.2f us + %.3f x roofline", d.kernel_min * 1e6, d.device_scale);
    std::printf("\n");
  }
  for (const CrossingExecution& c : m.crossings)
    std::printf("  %s -> %s: %.1f us + bytes / %.2f GB/s per crossing\n", c.from.c_str(), c.to.c_str(),
                c.fixed * 1e6, c.bandwidth / 1e9);
}

void add_calibrate_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    std::string measured, out, copies;
    std::vector<std::string> predict;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit the execution model to measured placements (run --json) and write a calibrated cost table");
  add_model_options(*cmd, a->model);
  cmd->add_option("--measured", a->measured, "Measured placements: the JSON of `devplace run ... --json`")->required();
  cmd->add_option("-o,--output", a->out, "Calibrated cost table to write (the --costs table with the fitted model)")
      ->required();
  cmd->add_option("--copies", a->copies,
                  "How the measuring executor copied to and from GPUs: async or blocking (default: what the run "
                  "file says, else blocking, the executor before pinned copies)")
      ->check(CLI::IsMember({"async", "blocking"}));
  cmd->add_option("--predict", a->predict,
                  "Hold out the rows whose label contains this text: not fitted to, only predicted (repeatable)");
  cmd->add_flag("--json", a->json, "Print the fitted model and its errors as JSON");
  cmd->callback([a] {
    if (a->model.costs.empty())
      throw Error("", "", "calibrate refines a cost table: pass the profiled one with --costs");
    auto ctx = load_context(a->model);
    Problem& pb = *ctx->problem;
    std::string recorded_copies;
    std::vector<MeasuredRun> runs = read_measured_runs(a->measured, pb.graph(), pb.cluster(), &recorded_copies);
    if (const int dropped = drop_unsettled_rounds(runs); dropped > 0 && !a->json)
      std::printf("the first %d rounds of %s ran before the machine settled (over 10%% slower): left out\n", dropped,
                  a->measured.c_str());
    const ExecutionModel::Copies copies = a->copies.empty() ? copies_from_name(recorded_copies, a->measured, "copies")
                                                            : copies_from_name(a->copies, "", "--copies");
    std::vector<Placement> fit, held;
    std::vector<double> fit_s, held_s;
    for (const MeasuredRun& r : runs) {
      bool out = false;
      for (const std::string& pat : a->predict) out = out || r.label.find(pat) != std::string::npos;
      (out ? held : fit).push_back(r.placement);
      (out ? held_s : fit_s).push_back(r.median);
    }
    if (fit.empty()) throw Error(a->measured, "", "every row is held out by --predict: nothing left to fit to");
    CostTable table = load_cost_table(a->model.costs);
    const Fidelity before_fit = fidelity(pb, fit, fit_s);
    Fidelity before_held;
    if (!held.empty()) before_held = fidelity(pb, held, held_s);
    const ExecutionModel start = table.execution ? *table.execution : default_execution_model(pb.cluster(), copies);
    table.execution = fit_execution_model(pb, fit, fit_s, start);
    const Fidelity after_fit = fidelity(pb, fit, fit_s);
    // The error a user should expect is the held-out one where there is one.
    Fidelity after_held;
    if (!held.empty()) {
      after_held = fidelity(pb, held, held_s);
      table.execution->fit_error = std::max(table.execution->fit_error, after_held.median_abs_error);
    }
    write_file_atomic(a->out, cost_table_to_json(table).dump(1) + "\n");
    if (a->json) {
      auto fj = [](const Fidelity& f) {
        return nlohmann::json{{"placements", f.placements},        {"median_abs_error", f.median_abs_error},
                              {"worst_abs_error", f.worst_abs_error}, {"median_signed_error", f.median_signed_error},
                              {"optimistic", f.optimistic},          {"pairs", f.pairs},
                              {"pairs_ordered", f.pairs_ordered}};
      };
      nlohmann::json j = {{"execution", execution_model_to_json(*table.execution)},
                          {"fitted", {{"before", fj(before_fit)}, {"after", fj(after_fit)}}},
                          {"output", a->out}};
      if (!held.empty()) j["held_out"] = {{"before", fj(before_held)}, {"after", fj(after_held)}};
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    print_execution_model(*table.execution);
    std::printf("simulated vs measured (%s):\n", a->measured.c_str());
    print_fidelity("fitted, before", before_fit);
    print_fidelity("fitted, after", after_fit);
    if (!held.empty()) {
      print_fidelity("held out, before", before_held);
      print_fidelity("held out, after", after_held);
    }
    std::printf("wrote %s (pass it as --costs to simulate, place, compare, train)\n", a->out.c_str());
  });
}

}  // namespace devplace::cli
