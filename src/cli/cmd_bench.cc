// `devplace bench`: flags for the benchmark report (benchmark/report_run.h) and the
// equal-budget comparison (benchmark/equal_budget.h).
#include <filesystem>
#include <memory>

#include "benchmark_report/equal_budget.h"
#include "benchmark_report/report_run.h"
#include "cli/command_list.h"

namespace devplace::cli {

void add_bench_command(CLI::App& app) {
  struct Args {
    bool quick = false, scale_only = false, equal_budget = false, fusion = true;
    std::vector<std::int64_t> budgets;
    std::vector<std::uint64_t> seeds;
    std::string out = "docs/results";
    std::vector<std::string> models, presets;
    std::uint64_t seed = 1;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark report: every placer on every bundled model and cluster, the HSDAG ablation, the Tarnawski "
      "cost graphs, Gantt charts and a scale test; writes OUT/benchmark.md, OUT/benchmark.csv and OUT/img/*.svg");
  cmd->add_flag("--quick", a->quick, "Small budgets (a smoke test: under 5 minutes on 2 cores)");
  cmd->add_flag("--scale", a->scale_only, "Only the scale test on synthetic DAGs");
  cmd->add_flag("--equal-budget", a->equal_budget,
                "Only HSDAG against its controls at equal evaluation budgets: OUT/equal-budget.md (about 40 minutes)");
  cmd->add_option("--budgets", a->budgets, "--equal-budget: evaluation budgets (default 500,2000,32000)")
      ->delimiter(',');
  cmd->add_option("--seeds", a->seeds, "--equal-budget: seeds (default 1,2,3,4,5)")->delimiter(',');
  cmd->add_option("--out", a->out, "Output folder (default: docs)");
  cmd->add_option("--models", a->models, "Bundled models (default: resnet50,inception_v3,bert_base)")->delimiter(',');
  cmd->add_option("--presets", a->presets, "Cluster presets (default: paper,server,nvlink4)")->delimiter(',');
  cmd->add_option("--seed", a->seed, "Seed of every placer and of the synthetic graphs (default 1)");
  cmd->add_flag("--no-fusion{false}", a->fusion, "Cost every op as its own kernel (docs/design/cost-model.md)");
  cmd->callback([a] {
    if (a->equal_budget) {
      EqualBudgetOptions o;
      o.out = a->out;
      o.fusion = a->fusion;
      if (!a->models.empty()) o.models = a->models;
      if (!a->budgets.empty()) o.budgets = a->budgets;
      if (!a->seeds.empty()) o.seeds = a->seeds;
      std::filesystem::create_directories(o.out);
      return run_equal_budget(o);
    }
    BenchReportOptions o;
    o.quick = a->quick, o.scale_only = a->scale_only, o.out = a->out, o.models = a->models, o.presets = a->presets;
    o.seed = a->seed;
    o.fusion = a->fusion;
    run_bench_report(o);
  });
}

}  // namespace devplace::cli
