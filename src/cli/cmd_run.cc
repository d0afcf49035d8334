// `devplace run MODEL --placement P --cluster C`: run a placed model for real on the cluster's
// workers and report its measured latency (median, mean, spread, the paper's mean of the last 5)
// next to the simulated makespan; `--random N` does the same for N random placements and
// reports the simulator's error against the measurements.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/command_list.h"
#include "exec/measure.h"
#include "io/placement_io.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace::cli {

void add_exec_options(CLI::App& cmd, ExecArgs& e) {
  cmd.add_option("--threads", e.threads, "ATen intra-op threads per cpu worker (default 1)");
  cmd.add_flag("--no-pin", e.no_pin, "Do not pin cpu workers to cores");
  cmd.add_option("--weights-seed", e.weights_seed, "Seed of the random weights and inputs (default 1)");
}

std::unique_ptr<Executor> make_executor(const Context& ctx, const ExecArgs& e) {
  ExecOptions o;
  o.intra_op_threads = e.threads;
  o.pin_threads = !e.no_pin;
  o.seed = e.weights_seed;
  const Problem& pb = *ctx.problem;
  return std::make_unique<Executor>(pb.graph(), workers_for_cluster(pb.cluster(), ctx.cluster_spec), o);
}

namespace {

void print_measurement(const char* label, const Measurement& m) {
  std::printf("%s: median %.3f ms  mean %.3f ms  min %.3f  p25 %.3f  p75 %.3f  max %.3f ms  mean(last %zu) %.3f ms\n",
              label, m.median * 1e3, m.mean * 1e3, m.min * 1e3, m.p25 * 1e3, m.p75 * 1e3, m.max * 1e3,
              std::min<std::size_t>(5, m.samples.size()), m.mean_last5 * 1e3);
}

nlohmann::json measurement_json(const Measurement& m) {
  return {{"median_ms", m.median * 1e3}, {"mean_ms", m.mean * 1e3},   {"min_ms", m.min * 1e3},
          {"max_ms", m.max * 1e3},       {"p25_ms", m.p25 * 1e3},     {"p75_ms", m.p75 * 1e3},
          {"mean_last5_ms", m.mean_last5 * 1e3}, {"copies", m.last.copies}, {"copied_bytes", m.last.copied_bytes}};
}

}  // namespace

void add_run_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    ExecArgs exec;
    std::string placement, device;
    int runs = 10, warmup = 5, random = 0;
    std::uint64_t seed = 1;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "run", "Run a placed model for real on the cluster's workers (docs/execution.md) and measure its latency");
  add_model_options(*cmd, a->model);
  auto* p = cmd->add_option("--placement,-p", a->placement, "Placement file (JSON: op name -> device name)");
  auto* d = cmd->add_option("--device,-d", a->device, "Place every op on this one device (default: the first)");
  auto* r = cmd->add_option("--random", a->random,
                            "Instead: measure this many uniformly random placements and report the simulator's error");
  p->excludes(d), p->excludes(r), d->excludes(r);
  cmd->add_option("--runs", a->runs, "Timed runs (default 10)");
  cmd->add_option("--warmup", a->warmup, "Untimed runs first (default 5)");
  cmd->add_option("--seed", a->seed, "Seed of --random placements (default 1)");
  cmd->add_flag("--json", a->json, "Print JSON instead of text");
  add_exec_options(*cmd, a->exec);
  cmd->callback([a] {
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    const Graph& g = pb.graph();
    auto ex = make_executor(*ctx, a->exec);
    std::string workers;
    for (int w = 0; w < ex->num_workers(); ++w)
      workers += (w ? ", " : "") + c.devices[w].name + "=" + ex->workers()[w].str();
    Simulator sim(pb);
    if (a->random > 0) {
      std::mt19937_64 rng(a->seed);
      std::vector<double> errors;
      nlohmann::json rows = nlohmann::json::array();
      if (!a->json)
        std::printf("%s on %s (%s): %d random placements, %d runs each\n", g.name().c_str(), c.name.c_str(),
                    workers.c_str(), a->random, a->runs);
      for (int k = 0; k < a->random; ++k) {
        Placement pl(g.num_ops());
        for (int& v : pl) v = static_cast<int>(rng() % static_cast<std::uint64_t>(c.num_devices()));
        Measurement m = measure(*ex, pl, a->warmup, a->runs);
        const double s = sim.makespan(pl);
        const double err = (s - m.median) / m.median;
        errors.push_back(std::abs(err));
        rows.push_back({{"measured", measurement_json(m)}, {"simulated_ms", s * 1e3}, {"error", err}});
        if (!a->json)
          std::printf("  #%d measured median %.3f ms (p25 %.3f, p75 %.3f; %d copies)  simulated %.3f ms  error %+.1f%%\n", k,
                      m.median * 1e3, m.p25 * 1e3, m.p75 * 1e3, m.last.copies, s * 1e3, err * 100);
      }
      std::sort(errors.begin(), errors.end());
      const double med = errors.size() % 2 ? errors[errors.size() / 2]
                                           : 0.5 * (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]);
      if (a->json)
        std::printf("%s\n", nlohmann::json({{"model", g.name()}, {"cluster", c.name}, {"placements", rows},
                                            {"median_abs_error", med}})
                                .dump(2)
                                .c_str());
      else
        std::printf("simulator vs measured: median absolute error %.1f%% (max %.1f%%)\n", med * 100,
                    errors.back() * 100);
      return;
    }
    Placement placement = placement_from_options(g, c, a->placement, a->device, a->model.model);
    Measurement m = measure(*ex, placement, a->warmup, a->runs);
    const double s = sim.makespan(placement);
    if (a->json) {
      nlohmann::json j = measurement_json(m);
      j["model"] = g.name(), j["cluster"] = c.name, j["simulated_ms"] = s * 1e3, j["runs"] = a->runs;
      j["samples_ms"] = nlohmann::json::array();
      for (double v : m.samples) j["samples_ms"].push_back(v * 1e3);
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    std::printf("%s on %s (%s), %d runs after %d warm-up\n", g.name().c_str(), c.name.c_str(), workers.c_str(), a->runs,
                a->warmup);
    print_measurement("measured", m);
    std::printf("copies %d (%.2f MiB) per run; simulated makespan %s ms\n", m.last.copies,
                static_cast<double>(m.last.copied_bytes) / 1048576.0, ms(s).c_str());
  });
}

}  // namespace devplace::cli
