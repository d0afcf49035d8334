// `devplace worker` and `devplace links`: a process group over c10d/Gloo (dist/, docs/distributed.md).
// A worker joins and serves rank 0; `links` is rank 0 and measures every worker's link.
// Rendezvous as torchrun: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, or the flags.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/command_list.h"
#include "dist/link_profile.h"
#include "dist/process_exchange.h"
#include "exec/measure.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/files.h"
#include "util/stats.h"

namespace devplace::cli {

namespace {

struct GroupArgs {
  Rendezvous rv = Rendezvous::from_env();
};

void add_group_options(CLI::App& cmd, GroupArgs& a, bool with_rank) {
  cmd.add_option("--master-addr", a.rv.master_addr, "Address of rank 0's store (default $MASTER_ADDR or 127.0.0.1)");
  cmd.add_option("--master-port", a.rv.master_port, "Port of rank 0's store (default $MASTER_PORT or 29500)");
  cmd.add_option("--world-size", a.rv.world_size, "Processes in the group, rank 0 included (default $WORLD_SIZE)");
  if (with_rank) cmd.add_option("--rank", a.rv.rank, "This process's rank, 1 .. world size - 1 (default $RANK)");
  cmd.add_option("--timeout", a.rv.timeout_s,
                 "Seconds to wait for the group to form and for any peer to answer (default 30)");
}

}  // namespace

namespace {

// The jobs rank 0 sends a worker. "share" (run_across_processes): this rank's share of a placed
// run, its ops on one CPU worker. "measure" (a replica of train --reward measured): the whole
// placement on an executor with all the cluster's devices, the median of the timed runs back
// (with fake_ms > 0: the simulator's latency after sleeping that long, a stand-in for a device
// that measures without using this machine's cores). Every job names the same model, cluster
// and seed, so the same weights and inputs; the model and executor are kept while the jobs differ
// only in their placement (timed runs and training repeat them).
class JobRunner {
 public:
  explicit JobRunner(ProcessGroup& group) : group_(group) {}
  std::string operator()(const std::string& text) {
    auto j = nlohmann::json::parse(text);
    const Placement placement = j.at("placement").get<Placement>();
    j.erase("placement");
    const std::string kind = j.value("kind", "share");
    if (j != setup_) {
      ex_.reset();
      ModelOptions m;
      m.model = j.at("model"), m.inputs = j.at("inputs").get<std::vector<std::string>>();
      m.cluster = j.at("cluster"), m.costs = j.at("costs"), m.fusion = j.at("fusion");
      ctx_ = load_context(m);
      ExecArgs e;
      e.weights_seed = j.at("seed"), e.threads = j.at("threads"), e.no_pin = j.value("no_pin", false);
      if (kind == "share") {
        ex_ = make_share_executor(*ctx_, e, j.at("device_ranks").get<std::vector<int>>(), group_.rank());
      } else if (j.value("fake_ms", 0.0) <= 0) {
        ex_ = make_executor(*ctx_, e);
      }
      setup_ = j;
    }
    if (kind == "share") {
      ProcessExchange x(group_);
      ex_->run_share(placement, j.at("device_ranks").get<std::vector<int>>(), group_.rank(), x);
      return {};
    }
    if (kind != "measure") throw Error("", "", "unknown job kind '" + kind + "'");
    if (const double fake_ms = j.value("fake_ms", 0.0); fake_ms > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<std::int64_t>(fake_ms * 1000)));
      return nlohmann::json{{"latency", Simulator(*ctx_->problem).makespan(placement)}}.dump();
    }
    const Measurement m = measure(*ex_, placement, j.at("warmup"), j.at("runs"));
    return nlohmann::json{{"latency", m.median}, {"samples", m.samples}}.dump();
  }

 private:
  ProcessGroup& group_;
  nlohmann::json setup_;
  std::unique_ptr<Context> ctx_;
  std::unique_ptr<Executor> ex_;
};

bool same_outputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].shape != b[k].shape || a[k].values != b[k].values) return false;
  return true;
}

}  // namespace

std::unique_ptr<Executor> make_share_executor(const Context& ctx, const ExecArgs& e, const std::vector<int>& device_ranks,
                                              int rank) {
  const Problem& pb = *ctx.problem;
  const std::vector<WorkerSpec> all = workers_for_cluster(pb.cluster(), ctx.cluster_spec);
  std::vector<WorkerSpec> mine;
  for (std::size_t d = 0; d < all.size() && d < device_ranks.size(); ++d)
    if (device_ranks[d] == rank) mine.push_back(all[d]);
  if (mine.empty()) mine.push_back(WorkerSpec{});  // hosts no device: relays nothing, runs nothing
  ExecOptions o;
  o.keep_freed_memory = true;  // the CLI owns its process (executor.h)
  o.intra_op_threads = e.threads;
  o.pin_threads = !e.no_pin;
  o.seed = e.weights_seed;
  return std::make_unique<Executor>(pb.graph(), mine, o);
}

std::string replica_setup(const ModelOptions& model, const ExecArgs& e, const MeasureOptions& m, double fake_ms) {
  return nlohmann::json{{"kind", "measure"},    {"model", model.model},      {"inputs", model.inputs},
                        {"cluster", model.cluster}, {"costs", model.costs},  {"fusion", model.fusion},
                        {"seed", e.weights_seed}, {"threads", e.threads},    {"no_pin", e.no_pin},
                        {"warmup", m.warmup},     {"runs", m.runs},          {"fake_ms", fake_ms}}
      .dump();
}

int run_across_processes(const ModelOptions& model, const Context& ctx, const Placement& placement,
                         const std::string& label, const ExecArgs& e, const Rendezvous& rv,
                         const std::vector<int>& device_ranks, int warmup, int runs) {
  const Problem& pb = *ctx.problem;
  if (static_cast<int>(device_ranks.size()) != pb.num_devices())
    throw Error("", "", "--device-ranks names " + std::to_string(device_ranks.size()) + " ranks for the " +
                            std::to_string(pb.num_devices()) + " devices of cluster '" + pb.cluster().name + "'");
  for (int r : device_ranks)
    if (r < 0 || r >= rv.world_size)
      throw Error("", "", "--device-ranks: rank " + std::to_string(r) + " is outside the group of " +
                              std::to_string(rv.world_size));
  std::vector<HostTensor> reference;
  {
    // The reference: every op in this process, on one worker.
    ExecOptions o;
    o.seed = e.weights_seed, o.intra_op_threads = e.threads;
    Executor one(pb.graph(), {WorkerSpec{}}, o);
    one.run(Placement(pb.num_ops(), 0));
    reference = one.outputs();
  }
  std::unique_ptr<Executor> ex = make_share_executor(ctx, e, device_ranks, 0);

  ProcessGroup group(rv);
  const nlohmann::json job = {{"model", model.model},     {"inputs", model.inputs},   {"cluster", model.cluster},
                              {"costs", model.costs},     {"fusion", model.fusion},   {"seed", e.weights_seed},
                              {"threads", e.threads},     {"no_pin", e.no_pin},       {"placement", placement},
                              {"device_ranks", device_ranks}};
  ProcessExchange x(group);
  std::vector<double> times;
  bool identical = true;
  std::size_t outputs = 0;
  for (int k = 0; k < warmup + runs; ++k) {
    send_job(group, job.dump());
    double seconds = 0;
    const std::vector<HostTensor> got = ex->run_share(placement, device_ranks, 0, x, &seconds);
    wait_for_jobs(group);
    identical = identical && same_outputs(got, reference);
    outputs = got.size();
    if (k >= warmup) times.push_back(seconds);
  }
  stop_workers(group);
  std::string ranks;
  for (int d = 0; d < pb.num_devices(); ++d)
    ranks += (d ? ", " : "") + pb.cluster().devices[d].name + "=rank " + std::to_string(device_ranks[d]);
  std::sort(times.begin(), times.end());
  std::printf("%s on %s across %d processes (%s), %s\n", pb.graph().name().c_str(), pb.cluster().name.c_str(),
              rv.world_size, ranks.c_str(), label.c_str());
  std::printf("  measured median %s ms over %d runs after %d warm-up (min %s, max %s); simulated %s ms\n",
              ms(times[times.size() / 2]).c_str(), runs, warmup, ms(times.front()).c_str(), ms(times.back()).c_str(),
              ms(Simulator(pb).makespan(placement)).c_str());
  std::printf("  outputs identical to one process: %s (%zu tensors)\n", identical ? "yes" : "NO", outputs);
  return identical ? 0 : 1;
}

void add_worker_command(CLI::App& app) {
  auto a = std::make_shared<GroupArgs>();
  auto die_after = std::make_shared<int>(0);
  auto* cmd = app.add_subcommand("worker", "Join a process group as a worker and serve rank 0 (devplace links)");
  add_group_options(*cmd, *a, true);
  cmd->add_option("--die-after", *die_after, "Fault injection for tests: exit abruptly after N answered messages")
      ->group("");
  cmd->callback([a, die_after] {
    if (a->rv.rank == 0) throw Error("", "", "rank 0 is the process that measures (devplace links), not a worker");
    ProcessGroup group(a->rv);
    JobRunner runner(group);
    serve_worker(group, *die_after, [&](const std::string& job) { return runner(job); });
  });
}

void add_links_command(CLI::App& app) {
  auto a = std::make_shared<GroupArgs>();
  auto out = std::make_shared<std::string>();
  auto opts = std::make_shared<LinkProfileOptions>();
  auto* cmd = app.add_subcommand("links", "As rank 0 of a process group, measure the link to every worker");
  add_group_options(*cmd, *a, false);
  cmd->add_option("--sizes", opts->sizes, "Message sizes in bytes (default 4 4096 65536 1048576 8388608)")
      ->delimiter(',');
  cmd->add_option("--repeats", opts->repeats, "Timed round trips per size (default 5)");
  cmd->add_option("-o,--output", *out, "Write the measurements as JSON");
  cmd->callback([a, out, opts] {
    a->rv.rank = 0;
    if (a->rv.world_size < 2) throw Error("", "", "links needs at least one worker: --world-size 2 or more");
    opts->check();  // before waiting for the group
    ProcessGroup group(a->rv);
    const auto links = measure_links(group, *opts);
    stop_workers(group);
    std::printf("| link | latency (us) | bandwidth (GB/s) | one-way time per size |\n|---|---|---|---|\n");
    for (const auto& m : links) {
      std::string per;
      for (std::size_t i = 0; i < m.bytes.size(); ++i) {
        char cell[64];
        std::snprintf(cell, sizeof cell, "%s%lld B: %.1f us", i ? ", " : "", static_cast<long long>(m.bytes[i]),
                      m.one_way_s[i] * 1e6);
        per += cell;
      }
      std::printf("| 0 -> %d | %.1f | %.3f | %s |\n", m.peer, m.latency_s * 1e6, m.bandwidth_Bps / 1e9, per.c_str());
    }
    if (!out->empty()) write_file_atomic(*out, links_json(links));
  });
}

}  // namespace devplace::cli
