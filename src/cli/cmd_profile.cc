// `devplace profile MODEL --cluster C -o costs.json`: measure every op on every worker of the
// cluster and every crossing tensor's copy, and write them as a cost table that `--costs`
// accepts in every command (calibrating the simulator to this machine).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_list.h"
#include "exec/profiler.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace::cli {

void add_profile_command(CLI::App& app) {
  struct Args {
    ModelOptions model;
    ExecArgs exec;
    std::string out;
    int runs = 5;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("profile", "Measure each op on each worker and each copy; write a cost table (--costs)");
  add_model_options(*cmd, a->model);
  cmd->add_option("-o,--output", a->out, "Cost table to write (JSON)")->required();
  cmd->add_option("--runs", a->runs, "Timed runs per worker; the table keeps medians (default 5)");
  add_exec_options(*cmd, a->exec);
  cmd->callback([a] {
    if (!a->model.costs.empty()) throw Error(a->model.costs, "", "profile measures costs; do not pass --costs");
    auto ctx = load_context(a->model);
    const Problem& pb = *ctx->problem;
    const Cluster& c = pb.cluster();
    auto ex = make_executor(*ctx, a->exec);
    CostTable t = profile_costs(*ex, pb.graph(), c, {a->runs});
    write_file_atomic(a->out, cost_table_to_json(t).dump(1) + "\n");
    std::printf("%s on %s: profiled %d ops on %d workers (%d runs each), %zu tensor copies\n",
                pb.graph().name().c_str(), c.name.c_str(), pb.num_ops(), ex->num_workers(), a->runs,
                t.transfer_time.size());
    for (int d = 0; d < c.num_devices(); ++d) {
      double sum = 0;
      for (auto& [op, row] : t.op_time) sum += row.at(c.devices[d].name);
      std::printf("  %-8s (%s) sum of op times %s ms\n", c.devices[d].name.c_str(), ex->workers()[d].str().c_str(),
                  ms(sum).c_str());
    }
    double copies = 0;
    for (auto& [tensor, s] : t.transfer_time) copies += s;
    std::printf("  copies: sum %s ms over %zu tensors\nwrote %s\n", ms(copies).c_str(), t.transfer_time.size(),
                a->out.c_str());
  });
}

}  // namespace devplace::cli
