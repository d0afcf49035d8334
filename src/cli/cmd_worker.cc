// `devplace worker` and `devplace links`: a process group over c10d/Gloo (dist/, docs/design/distributed.md).
// A worker joins and serves rank 0; `links` is rank 0 and measures every worker's link.
// Rendezvous as torchrun: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, or the flags.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/command_list.h"
#include "cli/process_runs.h"
#include "distributed/link_profile.h"
#include "distributed/process_exchange.h"
#include "exec/measure.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/files.h"
#include "util/stats.h"

namespace devplace::cli {

namespace {

// The jobs rank 0 sends a worker. "share" (PlacedRuns): this rank's share of a placed run, its
// ops on the workers of the devices it hosts. "measure" (a replica of train --reward measured): the whole
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
    if (kind != "measure") throw Error("", "", "unknown job kind '" + kind + "'", ErrorKind::not_found);
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

}  // namespace

void add_worker_command(CLI::App& app) {
  auto a = std::make_shared<Rendezvous>(Rendezvous::from_env());
  auto die_after = std::make_shared<int>(0);
  auto* cmd = app.add_subcommand("worker", "Join a process group as a worker and serve rank 0 (devplace links)");
  add_group_options(*cmd, *a, true);
  cmd->add_option("--die-after", *die_after, "Fault injection for tests: exit abruptly after N answered messages")
      ->group("");
  cmd->callback([a, die_after] {
    if (a->rank == 0) throw Error("", "", "rank 0 is the process that measures (devplace links), not a worker");
    ProcessGroup group(*a);
    JobRunner runner(group);
    serve_worker(group, *die_after, [&](const std::string& job) { return runner(job); });
  });
}

void add_links_command(CLI::App& app) {
  auto a = std::make_shared<Rendezvous>(Rendezvous::from_env());
  auto out = std::make_shared<std::string>();
  auto opts = std::make_shared<LinkProfileOptions>();
  auto* cmd = app.add_subcommand("links", "As rank 0 of a process group, measure the link to every worker");
  add_group_options(*cmd, *a, false);
  cmd->add_option("--sizes", opts->sizes, "Message sizes in bytes (default 4 4096 65536 1048576 8388608)")
      ->delimiter(',');
  cmd->add_option("--repeats", opts->repeats, "Timed round trips per size (default 5)");
  cmd->add_option("-o,--output", *out, "Write the measurements as JSON");
  cmd->callback([a, out, opts] {
    a->rank = 0;
    if (a->world_size < 2) throw Error("", "", "links needs at least one worker: --world-size 2 or more");
    opts->check();  // before waiting for the group
    ProcessGroup group(*a);
    const auto links = measure_links(group, *opts);
    stop_workers(group);
    std::printf("%s", links_table(links).c_str());
    if (!out->empty()) write_file_atomic(*out, links_json(links));
  });
}

}  // namespace devplace::cli
