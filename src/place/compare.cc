#include "place/compare.h"

#include <chrono>
#include <cmath>

#include "place/reward.h"
#include "util/error.h"
#include "util/log.h"

namespace devplace {

std::unique_ptr<Placer> make_placer_for(const Problem& problem, const std::string& name) {
  static const PlacerRegistry classical = classical_placers();  // immutable once made
  return classical.make(problem, name);
}

std::vector<std::string> default_algorithms(const Problem& problem, Objective objective) {
  std::vector<std::string> names;
  for (const auto& d : problem.cluster().devices) names.push_back(d.name + "-only");
  for (const char* n : {"hetero", "random", "round-robin", "m-topo", "m-etf", "m-sct", "heft", "metis", "local-search"})
    names.push_back(n);
  if (problem.num_ops() <= 16) names.push_back("exact");
  if (objective == Objective::tarnawski)
    for (const char* n : {"tarnawski-greedy", "tarnawski-dp"}) names.push_back(n);
  return names;
}

ComparisonRow run_placer(const Problem& problem, const std::string& name, const PlaceOptions& options,
                         const std::function<std::unique_ptr<Placer>()>& make) {
  ComparisonRow row;
  row.algorithm = name;
  try {
    auto placer = make();
    // The placer evaluates through this reward (unless the caller passed its own), which counts.
    SearchReward search(problem, options);
    CountingReward counted(search.reward());
    PlaceOptions counted_options = options;
    counted_options.reward = &counted;
    auto t0 = std::chrono::steady_clock::now();
    row.placement = placer->place(problem, counted_options);
    row.place_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row.evaluations = counted.count();
    row.verdict = judge(problem, row.placement, options.objective);
  } catch (const std::exception& e) {
    row.error = e.what();
    row.verdict = {kInfeasibleTime, false, e.what()};
  }
  return row;
}

Comparison compare_placers(const Problem& problem, std::vector<std::string> algorithms, const PlaceOptions& options,
                           const PlacerFactory& factory) {
  if (algorithms.empty()) algorithms = default_algorithms(problem, options.objective);
  Comparison out;
  out.lower_bound = makespan_lower_bound(problem);
  log::Progress progress("compare", algorithms.size());
  for (std::size_t k = 0; k < algorithms.size(); ++k) {
    progress.update(k, algorithms[k]);
    ComparisonRow row = run_placer(problem, algorithms[k], options, [&] { return factory(problem, algorithms[k]); });
    out.rows.push_back(std::move(row));
  }
  progress.update(algorithms.size(), "done");
  progress.finish();
  // Single-device references, whether or not they were among the rows.
  double slow = 0, best = kInfeasibleTime;
  for (int d = 0; d < problem.num_devices(); ++d) {
    Verdict v = judge(problem, Placement(problem.num_ops(), d), options.objective);
    if (!v.feasible) continue;
    slow = std::max(slow, v.latency);
    best = std::min(best, v.latency);
  }
  out.slowest_single = slow;
  out.best_single = best;
  return out;
}

}  // namespace devplace
