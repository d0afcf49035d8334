// The equal-budget comparison of `devplace bench --equal-budget`: HSDAG against its controls
// (uniform random policy, local search, HEFT) at equal reward-evaluation budgets.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace devplace {

struct EqualBudgetOptions {
  std::string out = "docs/results";
  std::vector<std::string> models = {"resnet50", "inception_v3", "bert_base"};
  std::vector<std::int64_t> budgets = {500, 2000, 32000};
  std::vector<std::uint64_t> seeds = {1, 2, 3, 4, 5};
  bool fusion = true;  // false: every op its own kernel (--no-fusion)
  // Best known latencies (s), printed beside the table: local search, 200,000 evaluations,
  // best of seeds 1-5 (`devplace place M --cluster paper --algo local-search --budget 200000
  // --seed S [--no-fusion]`; shared/learning-notes.md has the unfused ones).
  std::map<std::string, double> best_known_with_fusion = {
      {"resnet50", 2.757e-3}, {"inception_v3", 3.901e-3}, {"bert_base", 7.615e-3}};
  std::map<std::string, double> best_known_without_fusion = {
      {"resnet50", 4.379e-3}, {"inception_v3", 4.858e-3}, {"bert_base", 10.825e-3}};
};

// Runs every method at every budget and seed; writes <out>/equal-budget.md and .csv (after
// every model, so a run that dies late keeps what it did).
void run_equal_budget(const EqualBudgetOptions& options);

}  // namespace devplace
