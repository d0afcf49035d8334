// Runs several placers on one Problem and judges each placement the same way: the table of
// `devplace compare` and of the benchmark report.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "place/placer.h"

namespace devplace {

struct ComparisonRow {
  std::string algorithm;
  Placement placement;
  Verdict verdict;
  double place_seconds = 0;  // wall time of the placer
  // Placements the placer evaluated in full (through PlaceOptions::reward, which run_placer
  // sets to a counting one); the verdict's own evaluation is not counted.
  std::int64_t evaluations = 0;
  std::string error;         // set when the placer refused (e.g. exact on a large graph)
};

struct Comparison {
  std::vector<ComparisonRow> rows;
  double lower_bound = 0;
  double slowest_single = 0;  // slowest feasible single-device latency
  double best_single = 0;     // fastest feasible single-device latency
};

// Resolves "<device>-only" against the cluster, else make_placer(name).
std::unique_ptr<Placer> make_placer_for(const Problem& problem, const std::string& name);

// Makes a placer from a name; the command line extends the classical set with learned placers.
using PlacerFactory = std::function<std::unique_ptr<Placer>(const Problem&, const std::string&)>;

// One placer (made by `make`) on one problem, timed and judged under options.objective; never
// throws: an Error (or any exception) lands in the row's `error`.
ComparisonRow run_placer(const Problem& problem, const std::string& name, const PlaceOptions& options,
                         const std::function<std::unique_ptr<Placer>()>& make);

// Names: classical_placer_names() entries or "<device>-only". An empty list means default_algorithms for
// options.objective. Placers that throw Error get a row with `error` set.
Comparison compare_placers(const Problem& problem, std::vector<std::string> algorithms, const PlaceOptions& options,
                           const PlacerFactory& factory = make_placer_for);
// Every single device plus the classical set (exact on graphs of at most 16 ops); under the
// Tarnawski objective also its own placers, tarnawski-greedy and tarnawski-dp.
std::vector<std::string> default_algorithms(const Problem& problem, Objective objective = Objective::simulator);

}  // namespace devplace
