// `devplace worker` and `devplace links`: a process group over c10d/Gloo (dist/, docs/distributed.md).
// A worker joins and serves rank 0; `links` is rank 0 and measures every worker's link.
// Rendezvous as torchrun: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, or the flags.
#include <cstdio>

#include "cli/command_list.h"
#include "dist/link_profile.h"
#include "util/error.h"
#include "util/files.h"

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
    serve_worker(group, *die_after);
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
