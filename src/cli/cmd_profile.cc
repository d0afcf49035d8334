// `devplace profile MODEL --cluster C -o costs.json`: measure every op on every worker of the
// cluster and every crossing tensor's copy, and write them as a cost table that `--costs`
// accepts in every command (calibrating the simulator to this machine). `--validate N` also runs
// N random placements in the same rounds as the profile, so that they see the same machine, and
// reports how far the calibrated simulator is from their measured latency.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "cli/process_runs.h"
#include "distributed/link_profile.h"
#include "exec/measure.h"
#include "exec/profiler.h"
#include "place/random_placement.h"
#include "sim/calibrate.h"
#include "sim/simulator.h"
#include "util/blas_kernel.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"
#include "util/stats.h"

namespace devplace::cli {

namespace {

// Each placement run across the processes: one warm-up round, then `runs` rounds, each running
// every placement once (so that the machine's drift touches them alike); the medians.
std::vector<Measurement> measure_across(PlacedRuns& across, const std::vector<Placement>& placements, int runs) {
  std::vector<Measurement> out(placements.size());
  for (int r = 0; r <= runs; ++r)
    for (std::size_t k = 0; k < placements.size(); ++k) {
      double seconds = 0;
      across.run(placements[k], &seconds);
      if (r > 0) out[k].samples.push_back(seconds);
    }
  for (Measurement& m : out) {
    std::vector<double> v = m.samples;
    std::sort(v.begin(), v.end());
    m.median = quantile_of_sorted(v, 0.5), m.min = v.front(), m.max = v.back();
  }
  return out;
}

// The cost of a tensor crossing processes in a real run is more than a ping-pong's: the
// receiving thread and then the worker must wake up, and the sender's worker copies the bytes.
// Fit one overhead per crossing tensor, added to every measured link's latency, to placements
// measured across the processes (least squares of the log ratio simulated / measured over a
// geometric grid from 0 to 20 ms), and return it.
double fit_crossing_overhead(const Context& ctx, CostTable& table, const std::vector<Placement>& placements,
                             const std::vector<Measurement>& measured) {
  const std::vector<MeasuredLink> pinged = table.links;
  auto loss = [&](double overhead) {
    for (std::size_t l = 0; l < pinged.size(); ++l) table.links[l].latency = pinged[l].latency + overhead;
    const Problem calibrated(ctx.problem->graph(), ctx.problem->cluster(), &table);
    Simulator sim(calibrated);
    double sum = 0;
    for (std::size_t k = 0; k < placements.size(); ++k) {
      const double r = std::log(sim.makespan(placements[k]) / measured[k].median);
      sum += r * r;
    }
    return sum;
  };
  double best = 0, best_loss = loss(0);
  for (double o = 10e-6; o <= 20e-3; o *= 1.15)
    if (const double l = loss(o); l < best_loss) best = o, best_loss = l;
  for (std::size_t l = 0; l < pinged.size(); ++l) table.links[l].latency = pinged[l].latency + best;
  return best;
}

// --validate with --world-size: each placement's median across the processes against the
// simulator calibrated by `table`.
void report_validation(const Context& ctx, const CostTable& table, const std::vector<Placement>& placements,
                       const std::vector<Measurement>& measured) {
  const Problem calibrated(ctx.problem->graph(), ctx.problem->cluster(), &table);
  Simulator sim(calibrated);
  std::vector<double> errors;
  for (std::size_t k = 0; k < placements.size(); ++k) {
    const Measurement& m = measured[k];
    const double simulated = sim.makespan(placements[k]);
    errors.push_back(std::abs(simulated - m.median) / m.median);
    std::printf("  #%zu measured median %s ms (min %s, max %s)  simulated %s ms  error %+.1f%%\n", k,
                ms(m.median).c_str(), ms(m.min).c_str(), ms(m.max).c_str(), ms(simulated).c_str(),
                (simulated - m.median) / m.median * 100);
  }
  std::printf("calibrated simulator vs measured across processes: median absolute error %.1f%% (max %.1f%%)\n",
              median(errors) * 100, *std::max_element(errors.begin(), errors.end()) * 100);
}

// The execution model (cost/execution_model.h) fitted to placements run on this executor: each
// device alone and `n` random placements of `seed`, in interleaved rounds after a warm-up; the
// table's op times and transfers stay as profiled.
void fit_execution_here(const Context& ctx, Executor& ex, CostTable& table, int n, std::uint64_t seed, int runs) {
  const Graph& g = ctx.problem->graph();
  const Cluster& c = ctx.problem->cluster();
  std::vector<Placement> placements;
  for (int d = 0; d < c.num_devices(); ++d) placements.push_back(Placement(g.num_ops(), d));
  RandomPlacements random(seed);
  for (int k = 0; k < n; ++k) placements.push_back(random.any_device(g.num_ops(), c.num_devices()));
  log::Progress progress("fit", static_cast<std::size_t>(runs + 2));
  const std::vector<Measurement> measured =
      measure_interleaved(ex, placements, 2, std::max(runs, 5), [&](int done, int total) {
        progress.update(static_cast<std::size_t>(std::min(done, total)), "single devices and random placements");
      });
  progress.finish();
  std::vector<double> medians;
  for (const Measurement& m : measured) medians.push_back(m.median);
  Problem pb(g, c, &table);
  const ExecutionModel start = default_execution_model(c, copies_from_name(Executor::gpu_copies(), "", "executor"));
  table.execution = fit_execution_model(pb, placements, medians, start);
  print_execution_model(*table.execution);
  std::printf("fitted to %d single-device and %d random placements (seed %llu): median |error| %.1f%%\n",
              c.num_devices(), n, static_cast<unsigned long long>(seed), table.execution->fit_error * 100);
}

}  // namespace

void add_profile_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    ExecArgs exec;
    std::string out;
    int runs = 5, validate = 0;
    std::uint64_t seed = 1;
    Rendezvous rv = Rendezvous::from_env();
    std::vector<int> device_ranks;
    int fit = 5;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("profile", "Measure each op on each worker and each copy; write a cost table (--costs)");
  a->model.local_by_default = true;  // profiles this machine unless told otherwise
  add_model_options(*cmd, a->model);
  cmd->add_option("-o,--output", a->out, "Cost table to write (JSON)")->required();
  cmd->add_option("--runs", a->runs, "Timed runs per worker; the table keeps medians (default 5)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--validate", a->validate,
                  "Also measure this many random placements in the profile's rounds (with --world-size: across the "
                  "processes, after the profile) and report the calibrated simulator's error on them")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--seed", a->seed, "Seed of the --validate placements (default 1)");
  add_exec_options(*cmd, a->exec);
  add_group_options(*cmd, a->rv, false);
  cmd->add_option("--device-ranks", a->device_ranks,
                  "With --world-size N: the process of each device, in cluster order (default: the cluster file's "
                  "rank keys); the links between processes are measured and written into the table")
      ->delimiter(',');
  cmd->add_option("--fit", a->fit,
                  "Run each device alone and this many random placements after the profile and fit the execution "
                  "model to them (docs/design/cost-model.md; default 5; 0 = none, the simulator's link model); with "
                  "--world-size: random placements across the processes, fitting the extra cost of a crossing tensor")
      ->check(CLI::Range(0, 1000000));
  cmd->callback([a] {
    if (!a->model.costs.empty()) throw Error(a->model.costs, "", "profile measures costs; do not pass --costs");
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    auto ex = make_executor(*ctx, a->exec);
    const Graph& g = pb.graph();
    std::vector<Placement> held_out;
    RandomPlacements random(a->seed);
    for (int k = 0; k < a->validate; ++k) {
      Placement p = random.any_device(g.num_ops(), c.num_devices());
      held_out.push_back(std::move(p));
    }
    std::vector<std::vector<double>> latency(held_out.size());
    ProfileOptions po;
    po.runs = a->runs;
    log::Progress progress("profile", static_cast<std::size_t>(a->runs));
    po.after_round = [&](int round) {
      if (!held_out.empty() && a->rv.world_size == 1) {
        if (round == 0)
          for (const Placement& p : held_out) ex->run(p);  // warm-up
        for (std::size_t k = 0; k < held_out.size(); ++k) latency[k].push_back(ex->run(held_out[k]).latency);
      }
      progress.update(static_cast<std::size_t>(round + 1), held_out.empty() ? "rounds" : "rounds with validation");
    };
    CostTable t = profile_costs(*ex, g, c, po);
    progress.finish();
    if (a->rv.world_size <= 1 && a->fit > 0) fit_execution_here(*ctx, *ex, t, a->fit, a->seed + 1, a->runs);
    const std::vector<WorkerSpec> workers = ex->workers();
    ex.reset();  // its worker threads would compete with the processes below
    std::unique_ptr<ProcessGroup> group;
    std::vector<Measurement> measured_across;  // of held_out, with --world-size
    std::vector<int> ranks;
    if (a->rv.world_size > 1) {
      ranks = a->device_ranks.empty() ? device_ranks_for_cluster(c, ctx->cluster_spec) : a->device_ranks;
      a->rv.rank = 0;
      group = std::make_unique<ProcessGroup>(a->rv);
      LinkProfileOptions lo;
      lo.as_tensors = true;
      const std::vector<LinkMeasurement> links = measure_links(*group, lo);
      std::printf("links between the processes, as a placed run moves a tensor:\n%s", links_table(links).c_str());
      t.links = device_links(c, ranks, links);
      // The placements the fit uses and those that check it, measured together in rounds.
      PlacedRuns across(a->model, *ctx, a->exec, *group, ranks);
      std::vector<Placement> fitted;
      RandomPlacements other(a->seed + 1);
      for (int k = 0; k < a->fit; ++k) fitted.push_back(other.any_device(g.num_ops(), c.num_devices()));
      std::vector<Placement> all = fitted;
      all.insert(all.end(), held_out.begin(), held_out.end());
      if (!all.empty())
        std::printf("running %d + %zu random placements across the processes (%s), 1 warm-up + %d rounds\n", a->fit,
                    held_out.size(), across.where().c_str(), a->runs);
      measured_across = measure_across(across, all, a->runs);
      if (a->fit > 0) {
        const std::vector<Measurement> of_fit(measured_across.begin(), measured_across.begin() + a->fit);
        const double overhead = fit_crossing_overhead(*ctx, t, fitted, of_fit);
        std::printf(
            "a crossing tensor costs %.1f us more than the ping-pong says (fitted to the %d placements of "
            "seed %llu); the table's links include it\n",
            overhead * 1e6, a->fit, static_cast<unsigned long long>(a->seed + 1));
      }
      measured_across.erase(measured_across.begin(), measured_across.begin() + a->fit);
    }
    write_file_atomic(a->out, cost_table_to_json(t).dump(1) + "\n");
    std::printf("CPU kernels: %s; BLAS: %s\n", Executor::cpu_kernels(), describe_blas(loaded_blas_kernel()).c_str());
    if (const std::string hint = forced_kernel_hint(loaded_blas_kernel(), this_cpu()); !hint.empty())
      log::warn("blas-kernel", hint);
    std::printf("%s on %s: profiled %d ops on %d workers (%d runs each), %zu tensor copies\n",
                pb.graph().name().c_str(), c.name.c_str(), pb.num_ops(), static_cast<int>(workers.size()), a->runs,
                t.transfer_time.size());
    for (int d = 0; d < c.num_devices(); ++d) {
      double sum = 0;
      for (auto& [op, row] : t.op_time) sum += row.at(c.devices[d].name);
      std::printf("  %-8s (%s) sum of op times %s ms\n", c.devices[d].name.c_str(), workers[d].str().c_str(),
                  ms(sum).c_str());
    }
    double copies = 0;
    for (auto& [tensor, s] : t.transfer_time) copies += s;
    std::printf("  copies: sum %s ms over %zu tensors\nwrote %s\n", ms(copies).c_str(), t.transfer_time.size(),
                a->out.c_str());
    if (group) {
      if (!held_out.empty()) {
        std::printf("validation: the %zu placements of seed %llu\n", held_out.size(),
                    static_cast<unsigned long long>(a->seed));
        report_validation(*ctx, t, held_out, measured_across);
      }
      stop_workers(*group);
      return;
    }
    if (held_out.empty()) return;
    Problem calibrated(g, c, &t);
    Simulator sim(calibrated);
    std::vector<double> errors;
    std::printf("validation: %zu random placements (seed %llu), measured in the same %d rounds\n", held_out.size(),
                static_cast<unsigned long long>(a->seed), a->runs);
    for (std::size_t k = 0; k < held_out.size(); ++k) {
      std::vector<double> v = latency[k];
      std::sort(v.begin(), v.end());
      const double measured = quantile_of_sorted(v, 0.5);
      const double simulated = sim.makespan(held_out[k]);
      errors.push_back(std::abs(simulated - measured) / measured);
      std::printf("  #%zu measured median %s ms (min %s, max %s)  simulated %s ms  error %+.1f%%\n", k,
                  ms(measured).c_str(), ms(v.front()).c_str(), ms(v.back()).c_str(), ms(simulated).c_str(),
                  (simulated - measured) / measured * 100);
    }
    std::printf("calibrated simulator vs measured: median absolute error %.1f%% (max %.1f%%)%s\n", median(errors) * 100,
                *std::max_element(errors.begin(), errors.end()) * 100,
                t.execution ? " (execution model fitted to other placements)" : " (link model: --fit 0)");
  });
}

}  // namespace devplace::cli
