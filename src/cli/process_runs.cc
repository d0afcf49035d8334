#include "cli/process_runs.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "distributed/link_profile.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/stats.h"

namespace devplace::cli {

namespace {

bool same_outputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].shape != b[k].shape || a[k].values != b[k].values) return false;
  return true;
}

// Every device of the cluster names a rank of the group.
void check_device_ranks(const Problem& pb, const std::vector<int>& device_ranks, int world_size) {
  if (static_cast<int>(device_ranks.size()) != pb.num_devices())
    throw Error("", "",
                "--device-ranks names " + std::to_string(device_ranks.size()) + " ranks for the " +
                    std::to_string(pb.num_devices()) + " devices of cluster '" + pb.cluster().name + "'");
  for (int r : device_ranks)
    if (r < 0 || r >= world_size)
      throw Error(
          "", "",
          "--device-ranks: rank " + std::to_string(r) + " is outside the group of " + std::to_string(world_size));
}

}  // namespace

void add_group_options(CLI::App& cmd, Rendezvous& rv, bool with_rank) {
  cmd.add_option("--master-addr", rv.master_addr, "Address of rank 0's store (default $MASTER_ADDR or 127.0.0.1)");
  cmd.add_option("--master-port", rv.master_port, "Port of rank 0's store (default $MASTER_PORT or 29500)");
  cmd.add_option("--world-size", rv.world_size, "Processes in the group, rank 0 included (default $WORLD_SIZE)");
  if (with_rank) cmd.add_option("--rank", rv.rank, "This process's rank, 1 .. world size - 1 (default $RANK)");
  cmd.add_option("--timeout", rv.timeout_s,
                 "Seconds to wait for the group to form and for any peer to answer (default 30)");
}

std::unique_ptr<Executor> make_share_executor(const Context& ctx, const ExecArgs& e,
                                              const std::vector<int>& device_ranks, int rank) {
  const Problem& pb = *ctx.problem;
  const std::vector<WorkerSpec> all = workers_for_cluster(pb.cluster(), ctx.cluster_spec);
  std::vector<WorkerSpec> mine;
  for (std::size_t d = 0; d < all.size() && d < device_ranks.size(); ++d)
    if (device_ranks[d] == rank) mine.push_back(all[d]);
  if (mine.empty()) mine.push_back(WorkerSpec{});  // hosts no device: runs nothing
  ExecOptions o;
  o.keep_freed_memory = true;  // the CLI owns its process (executor.h)
  o.intra_op_threads = e.threads;
  o.pin_threads = !e.no_pin;
  o.seed = e.weights_seed;
  // Idle workers sleep at once: a spinning worker takes the core from this process's receiving
  // thread and Gloo's, which matters most where the processes have few cores.
  o.spin_us = 0;
  return std::make_unique<Executor>(pb.graph(), mine, o);
}

std::string replica_setup(const ModelOptions& model, const ExecArgs& e, const MeasureOptions& m, double fake_ms) {
  return nlohmann::json{{"kind", "measure"},        {"model", model.model}, {"inputs", model.inputs},
                        {"cluster", model.cluster}, {"costs", model.costs}, {"fusion", model.fusion},
                        {"seed", e.weights_seed},   {"threads", e.threads}, {"no_pin", e.no_pin},
                        {"warmup", m.warmup},       {"runs", m.runs},       {"fake_ms", fake_ms}}
      .dump();
}

PlacedRuns::PlacedRuns(const ModelOptions& model, const Context& ctx, const ExecArgs& e, ProcessGroup& group,
                       std::vector<int> device_ranks)
    : ctx_(ctx), group_(group), device_ranks_(std::move(device_ranks)), exchange_(group) {
  check_device_ranks(*ctx.problem, device_ranks_, group.size());
  job_ = {{"kind", "share"},      {"model", model.model},         {"inputs", model.inputs}, {"cluster", model.cluster},
          {"costs", model.costs}, {"fusion", model.fusion},       {"seed", e.weights_seed}, {"threads", e.threads},
          {"no_pin", e.no_pin},   {"device_ranks", device_ranks_}};
  ex_ = make_share_executor(ctx, e, device_ranks_, 0);
}

std::vector<HostTensor> PlacedRuns::run(const Placement& placement, double* seconds) {
  job_["placement"] = placement;
  send_job(group_, job_.dump());
  std::vector<HostTensor> got = ex_->run_share(placement, device_ranks_, 0, exchange_, seconds);
  wait_for_jobs(group_);
  return got;
}

std::string PlacedRuns::where() const {
  const Cluster& c = ctx_.problem->cluster();
  std::string out;
  for (int d = 0; d < c.num_devices(); ++d)
    out += (d ? ", " : "") + c.devices[d].name + "=rank " + std::to_string(device_ranks_[d]);
  return out;
}

int run_across_processes(const ModelOptions& model, const Context& ctx, const Placement& placement,
                         const std::string& label, const ExecArgs& e, const Rendezvous& rv,
                         const std::vector<int>& device_ranks, int warmup, int runs) {
  const Problem& pb = *ctx.problem;
  check_device_ranks(pb, device_ranks, rv.world_size);  // before waiting for the group
  std::vector<HostTensor> reference;
  {
    // The reference: every op in this process, on one worker.
    ExecOptions o;
    o.seed = e.weights_seed, o.intra_op_threads = e.threads;
    Executor one(pb.graph(), {WorkerSpec{}}, o);
    one.run(Placement(pb.num_ops(), 0));
    reference = one.outputs();
  }
  ProcessGroup group(rv);
  PlacedRuns runs_across(model, ctx, e, group, device_ranks);
  std::vector<double> times;
  bool identical = true;
  std::size_t outputs = 0;
  for (int k = 0; k < warmup + runs; ++k) {
    double seconds = 0;
    const std::vector<HostTensor> got = runs_across.run(placement, &seconds);
    identical = identical && same_outputs(got, reference);
    outputs = got.size();
    if (k >= warmup) times.push_back(seconds);
  }
  stop_workers(group);
  std::sort(times.begin(), times.end());
  std::printf("%s on %s across %d processes (%s), %s\n", pb.graph().name().c_str(), pb.cluster().name.c_str(),
              rv.world_size, runs_across.where().c_str(), label.c_str());
  std::printf("  measured median %s ms over %d runs after %d warm-up (min %s, max %s); simulated %s ms\n",
              ms(times[times.size() / 2]).c_str(), runs, warmup, ms(times.front()).c_str(), ms(times.back()).c_str(),
              ms(Simulator(pb).makespan(placement)).c_str());
  std::printf("  outputs identical to one process: %s (%zu tensors)\n", identical ? "yes" : "NO", outputs);
  return identical ? 0 : 1;
}

}  // namespace devplace::cli
