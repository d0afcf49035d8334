// `devplace cluster [--local] [-o FILE]`: this machine as a cluster file (cost/local_machine.h).
#include <cstdio>

#include "cli/command_list.h"
#include "exec/local_gpus.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace devplace::cli {

void add_cluster_command(CLI::App& app) {
  struct Args {
    bool local = false;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("cluster", "Describe this machine as a cluster file (what --cluster local uses)");
  // This machine is the one description there is, so --local (kept for scripts that say it) is
  // also what `devplace cluster` alone does.
  cmd->add_flag("--local", a->local,
                "This machine (the default): one single-thread CPU worker per core, every CUDA GPU LibTorch sees");
  cmd->add_option("-o,--output", a->out, "Write the TOML cluster file here (default: print it)");
  cmd->callback([a] {
    const CpuDescription cpu = describe_cpu();
    const std::vector<GpuDescription> gpus = cuda_devices();
    const Cluster c = machine_cluster({cpu, gpus});
    char head[512];
    std::snprintf(head, sizeof head,
                  "Written by `devplace cluster --local`. CPU: %s, %d cores usable, %.2f GHz, %d FP32 FLOP per core\n"
                  "and cycle (AVX-512: 64, AVX2 + FMA: 32, else 8). GPUs: %zu CUDA device(s) LibTorch sees.\n"
                  "Bandwidths, per-op overheads and links are assumed starting points: measure them with\n"
                  "`devplace profile MODEL -c THIS_FILE -o costs.json` and pass --costs costs.json.",
                  cpu.model.c_str(), cpu.cores, cpu.ghz, cpu.flops_per_cycle, gpus.size());
    const std::string toml = cluster_toml(c, head);
    if (a->out.empty()) {
      std::fputs(toml.c_str(), stdout);
      return;
    }
    write_file_atomic(a->out, toml);
    log::infof("wrote %s (%d devices)", a->out.c_str(), c.num_devices());
  });
}

}  // namespace devplace::cli
