// The benchmark report of `devplace bench`: every placer on every bundled model and cluster
// preset (the paper's main table), the HSDAG feature ablation, the cost graphs of Tarnawski et
// al. under their latency model, a Gantt chart of the best placement of each model, and a
// scale test on synthetic layered DAGs. Writes <out>/benchmark.md, <out>/benchmark.csv and SVG
// charts under <out>/img/ (rewritten after every section, atomically); status lines go to
// log::info.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace devplace {

struct BenchReportOptions {
  bool quick = false;       // small budgets: a smoke test (under 5 minutes on 2 cores)
  bool scale_only = false;  // only the scale test
  std::string out = "docs/results";
  std::vector<std::string> models;   // empty: resnet50, inception_v3, bert_base
  std::vector<std::string> presets;  // empty: paper, server, nvlink4
  std::uint64_t seed = 1;            // every placer's and the synthetic graphs'
  bool fusion = true;                // false: every op its own kernel (--no-fusion)
};

void run_bench_report(BenchReportOptions options);

}  // namespace devplace
