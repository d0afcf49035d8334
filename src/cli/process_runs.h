// Rank 0's side of work spread over `devplace worker` processes (docs/design/distributed.md): placed runs
// across processes (run and profile --world-size), the jobs the workers run, and the rendezvous
// flags every group command shares.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_list.h"
#include "distributed/process_exchange.h"
#include "distributed/process_group.h"
#include "exec/measure.h"

namespace devplace::cli {

// --master-addr, --master-port, --world-size, (--rank), --timeout into `rv`.
void add_group_options(CLI::App& cmd, Rendezvous& rv, bool with_rank);

// The executor of one process of a run across processes: the workers of the devices that
// device_ranks puts in `rank` (from the cluster file's worker keys), in device order.
std::unique_ptr<Executor> make_share_executor(const Context& ctx, const ExecArgs& e, const std::vector<int>& device_ranks,
                                              int rank);

// The JSON every measurement job of a replica shares (`devplace worker` runs it; the job adds the
// placement): train --reward measured --replicas N. fake_ms > 0: the replica answers with the
// simulator's latency after sleeping that long instead of running the model.
std::string replica_setup(const ModelOptions& model, const ExecArgs& e, const MeasureOptions& m, double fake_ms);

// Placed runs across the processes of `group`, as rank 0: device d runs in process
// device_ranks[d]; each run sends the workers their job and runs rank 0's share.
class PlacedRuns {
 public:
  // Throws Error when device_ranks does not name a rank of the group for every device.
  PlacedRuns(const ModelOptions& model, const Context& ctx, const ExecArgs& e, ProcessGroup& group,
             std::vector<int> device_ranks);
  // One inference: the graph outputs and its wall time on rank 0.
  std::vector<HostTensor> run(const Placement& placement, double* seconds);
  // "cpu0=rank 0, cpu1=rank 1"
  std::string where() const;

 private:
  const Context& ctx_;
  ProcessGroup& group_;
  std::vector<int> device_ranks_;
  nlohmann::json job_;
  std::unique_ptr<Executor> ex_;
  ProcessExchange exchange_;
};

// `run --world-size N`: rank 0 of a placed run across processes (the workers run their shares);
// prints the measured latency, the simulated one and whether the outputs equal a one-process
// run; returns the exit status (1 when they differ).
int run_across_processes(const ModelOptions& model, const Context& ctx, const Placement& placement,
                         const std::string& label, const ExecArgs& e, const Rendezvous& rv,
                         const std::vector<int>& device_ranks, int warmup, int runs);

}  // namespace devplace::cli
