// `devplace run MODEL --placement P --cluster C`: run a placed model for real on the cluster's
// workers and report its measured latency (median, mean, spread, the paper's mean of the last 5)
// next to the simulated makespan; `--random N` does the same for N random placements and
// reports the simulator's error against the measurements.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "cli/process_runs.h"
#include "exec/measure.h"
#include "io/placement_io.h"
#include "place/random_placement.h"
#include "report/gantt.h"
#include "report/trace.h"
#include "sim/simulator.h"
#include "util/blas_kernel.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"
#include "util/stats.h"

namespace devplace::cli {

void add_exec_options(CLI::App& cmd, ExecArgs& e) {
  cmd.add_option("--threads", e.threads, "ATen intra-op threads per cpu worker (default 1)")
      ->check(CLI::Range(1, 1000000));
  cmd.add_flag("--no-pin", e.no_pin, "Do not pin cpu workers to cores");
  cmd.add_option("--weights-seed", e.weights_seed, "Seed of the random weights and inputs (default 1)");
}

std::unique_ptr<Executor> make_executor(const Context& ctx, const ExecArgs& e) {
  ExecOptions o;
  o.keep_freed_memory = true;  // the CLI owns its process (executor.h)
  o.intra_op_threads = e.threads;
  o.pin_threads = !e.no_pin;
  o.seed = e.weights_seed;
  const Problem& pb = *ctx.problem;
  return std::make_unique<Executor>(pb.graph(), workers_for_cluster(pb.cluster(), ctx.cluster_spec), o);
}

namespace {

void print_measurement(const char* label, const Measurement& m) {
  std::printf("%s: median %.3f ms (95%% interval %.3f-%.3f)  mean %.3f ms  min %.3f  p25 %.3f  p75 %.3f  max %.3f ms  "
              "mean(last %zu) %.3f ms\n",
              label, m.median * 1e3, m.ci.low * 1e3, m.ci.high * 1e3, m.mean * 1e3, m.min * 1e3, m.p25 * 1e3,
              m.p75 * 1e3, m.max * 1e3, std::min<std::size_t>(5, m.samples.size()), m.mean_last5 * 1e3);
}

nlohmann::json measurement_json(const Measurement& m) {
  return {{"median_ms", m.median * 1e3},
          {"mean_ms", m.mean * 1e3},
          {"min_ms", m.min * 1e3},
          {"max_ms", m.max * 1e3},
          {"p25_ms", m.p25 * 1e3},
          {"p75_ms", m.p75 * 1e3},
          {"mean_last5_ms", m.mean_last5 * 1e3},
          {"ci_low_ms", m.ci.low * 1e3},
          {"ci_high_ms", m.ci.high * 1e3},
          {"warmup_rounds", m.warmup_rounds},
          {"copies", m.last.copies},
          {"copied_bytes", m.last.copied_bytes}};
}

}  // namespace

void add_run_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    ExecArgs exec;
    std::vector<std::string> placements, devices;
    std::string trace, gantt;
    int runs = 10, warmup = 5, random = 0;
    std::uint64_t seed = 1;
    bool json = false;
    Rendezvous rv = Rendezvous::from_env();
    std::vector<int> device_ranks;
    std::vector<std::string> input_files;
    std::string output_dir, write_inputs, write_model;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "run", "Run placed models for real on the cluster's workers (docs/design/execution.md) and measure their latency");
  a->model.local_by_default = true;  // runs on this machine unless told otherwise
  add_model_options(*cmd, a->model);
  auto* p = cmd->add_option("--placement,-p", a->placements,
                            "Placement file (JSON: op name -> device name); repeat to compare placements");
  auto* d = cmd->add_option("--device,-d", a->devices,
                            "Place every op on this one device (default: the first); repeatable, with -p too");
  auto* r = cmd->add_option("--random", a->random,
                            "Instead: measure this many uniformly random placements and report the simulator's error")
                ->check(CLI::Range(1, 1000000));
  p->excludes(r), d->excludes(r);
  cmd->add_option("--runs", a->runs, "Timed runs of each placement (default 10)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--warmup", a->warmup, "Untimed runs of each placement first (default 5)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", a->seed, "Seed of --random placements (default 1)");
  cmd->add_flag("--json", a->json, "Print JSON instead of text");
  cmd->add_option("--trace", a->trace,
                  "Write the last timed run's measured timeline as a Chrome trace (one placement)");
  cmd->add_option("--gantt", a->gantt,
                  "Write the last timed run's measured timeline as an SVG Gantt chart (one placement)");
  add_exec_options(*cmd, a->exec);
  cmd->add_option("--input-file", a->input_files,
                  "NAME=FILE: graph input NAME from a NumPy .npy or an ONNX TensorProto .pb instead of seeded random "
                  "values (repeatable)");
  cmd->add_option(
      "--output-dir", a->output_dir,
      "Write the graph outputs of the last run as DIR/<name>.npy (to check a placed run against a reference)");
  cmd->add_option("--write-inputs", a->write_inputs,
                  "Write the graph inputs this run uses as DIR/<name>.npy (seeded random ones included)");
  cmd->add_option("--write-model", a->write_model,
                  "Write the ONNX model with the weights this run uses (seeded random ones where the file has none), "
                  "so that another runtime can compute the same thing (tools/compare_onnxruntime.py)");
  cmd->add_option("--world-size", a->rv.world_size,
                  "Run across this many processes (this one is rank 0; start the others with devplace worker; "
                  "docs/design/distributed.md)");
  cmd->add_option("--device-ranks", a->device_ranks,
                  "With --world-size: the process of each cluster device, in order (default: each device's "
                  "`rank` key in the cluster file, else 0)")
      ->delimiter(',');
  cmd->add_option("--master-addr", a->rv.master_addr, "With --world-size: this process's address for the workers");
  cmd->add_option("--master-port", a->rv.master_port, "With --world-size: the port of the group's store");
  cmd->add_option("--timeout", a->rv.timeout_s, "With --world-size: seconds any process may stay silent (default 30)");
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    const Graph& g = pb.graph();
    // What to measure, with a label each. Several placements are measured in rounds
    // (measure_interleaved) so that the machine's drift touches them alike.
    std::vector<std::string> labels;
    std::vector<Placement> placements;
    for (const std::string& dev : a->devices) {
      placements.push_back(placement_from_options(g, c, "", dev, a->model.model));
      labels.push_back("all on " + dev);
    }
    for (const std::string& file : a->placements) {
      placements.push_back(placement_from_options(g, c, file, "", a->model.model));
      labels.push_back(file);
    }
    const bool random = a->random > 0;
    if (random) {
      // The first device alone is the reference: it shows how far the machine's speed now is
      // from what the cost model (or profile) says, apart from anything about placement.
      placements.push_back(Placement(g.num_ops(), 0));
      labels.push_back("reference: all on " + c.devices[0].name);
      RandomPlacements random(a->seed);
      for (int k = 0; k < a->random; ++k) {
        Placement pl = random.any_device(g.num_ops(), c.num_devices());
        placements.push_back(std::move(pl));
        labels.push_back("random #" + std::to_string(k));
      }
    }
    if (placements.empty()) {
      placements.push_back(Placement(g.num_ops(), 0));
      labels.push_back("all on " + c.devices[0].name);
    }
    if ((!a->trace.empty() || !a->gantt.empty()) && placements.size() != 1)
      throw Error("", "", "--trace and --gantt take a single placement (one -p or -d)");
    if (a->rv.world_size > 1) {
      a->rv.rank = 0;
      const std::size_t pick = random ? 1 : 0;  // --random 1: the random placement, not the reference
      if (placements.size() != pick + 1 || a->json || !a->trace.empty() || !a->gantt.empty())
        throw Error("", "",
                    "--world-size runs one placement (one -p, -d or --random 1), without --json/--trace/--gantt");
      if (!a->input_files.empty() || !a->output_dir.empty() || !a->write_inputs.empty() || !a->write_model.empty())
        throw Error("", "",
                    "--input-file, --output-dir, --write-inputs and --write-model are for runs in one process (not "
                    "with --world-size)");
      const std::vector<int> ranks =
          a->device_ranks.empty() ? device_ranks_for_cluster(c, ctx->cluster_spec) : a->device_ranks;
      if (run_across_processes(a->model, *ctx, placements[pick], labels[pick], a->exec, a->rv, ranks, a->warmup,
                               a->runs) != 0)
        throw Error("", "", "the outputs across processes differ from a one-process run");
      return;
    }

    auto ex = make_executor(*ctx, a->exec);
    for (const std::string& binding : a->input_files) {
      const auto eq = binding.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == binding.size())
        throw Error("", "", "--input-file wants NAME=FILE, got '" + binding + "'");
      ex->set_input(binding.substr(0, eq), binding.substr(eq + 1));
    }
    if (!a->write_model.empty()) ex->write_model(a->write_model);
    if (!a->write_inputs.empty()) ex->write_inputs(a->write_inputs);
    std::string workers;
    for (int w = 0; w < ex->num_workers(); ++w)
      workers += (w ? ", " : "") + c.devices[w].name + "=" + ex->workers()[w].str();
    if (!a->json)
      std::printf("%s on %s (%s): %zu placement%s, %d runs each after %d warm-up%s\n", g.name().c_str(), c.name.c_str(),
                  workers.c_str(), placements.size(), placements.size() == 1 ? "" : "s", a->runs, a->warmup,
                  placements.size() > 1 ? ", in rounds" : "");
    if (!a->json)
      std::printf("CPU kernels: %s; BLAS: %s\n", Executor::cpu_kernels(), describe_blas(loaded_blas_kernel()).c_str());
    if (const std::string hint = forced_kernel_hint(loaded_blas_kernel(), this_cpu()); !hint.empty() && !a->json)
      log::warn("blas-kernel", hint);
    log::Progress progress("run", static_cast<std::size_t>(a->warmup + a->runs));
    std::vector<Measurement> ms_all = measure_interleaved(*ex, placements, a->warmup, a->runs, [&](int done, int) {
      progress.update(static_cast<std::size_t>(done), done <= a->warmup ? "warm-up" : "timed rounds");
    });
    progress.finish();
    Simulator sim(pb);
    std::vector<double> simulated;
    for (const Placement& pl : placements) simulated.push_back(sim.makespan(pl));
    // The best single-device placement measured here is what every other one must beat, and only
    // an interval wholly below it counts (measure.h, versus).
    int reference = -1;
    for (std::size_t k = 0; k < placements.size(); ++k)
      if (is_single_device(placements[k]) && (reference < 0 || ms_all[k].median < ms_all[reference].median))
        reference = static_cast<int>(k);

    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t k = 0; k < placements.size(); ++k) {
      const Measurement& m = ms_all[k];
      const double err = (simulated[k] - m.median) / m.median;
      nlohmann::json j = measurement_json(m);
      j["label"] = labels[k], j["simulated_ms"] = simulated[k] * 1e3, j["error"] = err;
      j["samples_ms"] = nlohmann::json::array();
      for (double v : m.samples) j["samples_ms"].push_back(v * 1e3);
      for (int op = 0; op < g.num_ops(); ++op) j["placement"][g.op(op).name] = c.devices[placements[k][op]].name;
      std::string verdict;
      if (reference >= 0 && !is_single_device(placements[k])) {
        const Versus v = versus(m, ms_all[reference]);
        const std::string dev = c.devices[placements[reference][0]].name;
        j["vs_best_single"] = {{"device", dev},    {"ratio", v.ratio}, {"ci_low", v.ci.low},
                               {"ci_high", v.ci.high}, {"faster", v.faster}};
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s %s: %.3fx its time per round (95%% interval %.3f-%.3f)",
                      v.faster ? "faster than" : v.ci.low > 1.0 ? "slower than" : "no better within noise than",
                      dev.c_str(), v.ratio, v.ci.low, v.ci.high);
        verdict = buf;
      }
      rows.push_back(j);
      if (a->json) continue;
      if (random) {
        std::printf("  %-22s measured median %s ms (p25 %s, p75 %s; %d copies)  simulated %s ms  error %+.1f%%\n",
                    labels[k].c_str(), ms(m.median).c_str(), ms(m.p25).c_str(), ms(m.p75).c_str(), m.last.copies,
                    ms(simulated[k]).c_str(), err * 100);
      } else {
        std::printf("%s\n", labels[k].c_str());
        print_measurement("  measured", m);
        std::printf("  copies %d (%.2f MiB) per run; simulated makespan %s ms (%+.1f%%)\n", m.last.copies,
                    static_cast<double>(m.last.copied_bytes) / 1048576.0, ms(simulated[k]).c_str(), err * 100);
        if (!verdict.empty()) std::printf("  %s\n", verdict.c_str());
      }
    }
    // How this executor copies to and from GPUs, for `calibrate` (cost/execution_model.h).
    nlohmann::json out = {{"model", g.name()}, {"cluster", c.name},    {"runs", a->runs},
                          {"warmup", a->warmup}, {"copies", Executor::gpu_copies()}, {"placements", rows}};

    if (random) {
      // Error of the latency itself, and of the speed-up over the reference measured in the same
      // rounds: the second does not see the machine's drift since the costs were taken.
      const double ref_meas = ms_all[0].median, ref_sim = simulated[0];
      std::vector<double> abs_err, speedup_err;
      for (std::size_t k = 1; k < placements.size(); ++k) {
        abs_err.push_back(std::abs(simulated[k] - ms_all[k].median) / ms_all[k].median);
        const double meas_speedup = ref_meas / ms_all[k].median, sim_speedup = ref_sim / simulated[k];
        speedup_err.push_back(std::abs(sim_speedup - meas_speedup) / meas_speedup);
      }
      const double med = median(abs_err), med_speedup = median(speedup_err);
      out["median_abs_error"] = med, out["max_abs_error"] = *std::max_element(abs_err.begin(), abs_err.end());
      out["median_speedup_error"] = med_speedup;
      out["reference_error"] = (ref_sim - ref_meas) / ref_meas;
      if (!a->json) {
        std::printf("simulator vs measured over the %d random placements: median absolute error %.1f%% (max %.1f%%)\n",
                    a->random, med * 100, out["max_abs_error"].get<double>() * 100);
        std::printf(
            "speed-up over the reference, simulated vs measured: median absolute error %.1f%% "
            "(the reference itself is off by %+.1f%%: the machine's speed now against the costs)\n",
            med_speedup * 100, out["reference_error"].get<double>() * 100);
      }
    }
    if (a->json) std::printf("%s\n", out.dump(2).c_str());
    if (!a->output_dir.empty()) {
      const std::vector<std::string> written = ex->write_outputs(a->output_dir);
      if (!a->json)
        std::printf("wrote %zu output%s of the last run (%s) to %s\n", written.size(), written.size() == 1 ? "" : "s",
                    labels.back().c_str(), a->output_dir.c_str());
    }

    if (placements.size() == 1) {
      const Schedule measured = ex->timeline();
      if (!a->trace.empty()) write_chrome_trace(a->trace, pb, measured);
      if (!a->gantt.empty()) {
        GanttOptions go;
        go.title = g.name() + " on " + c.name + ", measured: " + ms(measured.makespan) + " ms";
        write_file_atomic(a->gantt, gantt_svg(pb, measured, go));
      }
      if (a->json) return;
      // Where the time went in the last run, against the simulator.
      const Schedule sim_schedule = sim.run(placements[0]);
      std::printf("  last run, time in ops per worker (measured / simulated ms):");
      for (int w = 0; w < c.num_devices(); ++w)
        std::printf("  %s %s / %s", c.devices[w].name.c_str(), ms(measured.busy[w]).c_str(),
                    ms(sim_schedule.busy[w]).c_str());
      double copy_time = 0, sim_copy_time = 0;
      for (const TransferSpan& t : measured.transfers) copy_time += t.end - t.start;
      for (const TransferSpan& t : sim_schedule.transfers) sim_copy_time += t.end - t.start;
      std::printf("; in copies %s / %s\n", ms(copy_time).c_str(), ms(sim_copy_time).c_str());
    }
  });
}

}  // namespace devplace::cli
