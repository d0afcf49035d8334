// Placer: the one interface of every placement method, classical or learned. A placer takes a
// Problem (graph + cluster + costs) and returns a device for every op. Placers are
// deterministic for a given seed; a placer object may keep state between calls but is used
// from one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "devplace/types.h"
#include "sim/schedule.h"

namespace devplace {

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // Returns a placement with one valid device index per op.
  virtual Placement place(const Problem& problem, const PlaceOptions& options) = 0;
};

// Makes a placer for `problem` (so "<device>-only" resolves against its cluster); the options
// are those of the call that asked for it (a learned placer reads policy_file here).
using PlacerMaker = std::function<std::unique_ptr<Placer>(const Problem& problem, const PlaceOptions& options)>;

// Placers by name: every placer, classical and learned, registers here. A value, not a global:
// classical_placers() has the classical set, learn/learned_placers.h's all_placers() adds the
// learned ones, and a caller may add its own.
class PlacerRegistry {
 public:
  // Registers `maker` under `name`, replacing any placer of that name.
  void add(const std::string& name, PlacerMaker maker);
  // True for registered names ("<device>-only" is resolved by make against the problem).
  bool contains(const std::string& name) const;
  std::vector<std::string> names() const;
  // Throws Error listing the known names when `name` is neither registered nor "<device>-only"
  // with a device of the cluster.
  std::unique_ptr<Placer> make(const Problem& problem, const std::string& name, const PlaceOptions& options = {}) const;

 private:
  std::vector<std::pair<std::string, PlacerMaker>> makers_;  // in registration order
};

// The classical placers (hetero, random, round-robin, heft, m-topo, m-etf, m-sct, metis,
// local-search, exact, tarnawski-greedy, tarnawski-dp).
PlacerRegistry classical_placers();

// Names of the classical placers, and one made by name (problem-free: not "<device>-only").
std::vector<std::string> classical_placer_names();
// Throws Error listing the known names when `name` is unknown.
std::unique_ptr<Placer> make_placer(const std::string& name);
std::unique_ptr<Placer> make_single_device(int device, const std::string& device_name);

// Factories, one per algorithm file.
std::unique_ptr<Placer> make_hetero_placer();        // hetero.cc: first supporting device in priority order
std::unique_ptr<Placer> make_random_placer();        // simple.cc
std::unique_ptr<Placer> make_random_best_placer();   // simple.cc: best of eval_budget random placements
std::unique_ptr<Placer> make_round_robin_placer();   // simple.cc
std::unique_ptr<Placer> make_heft_placer();          // heft.cc
std::unique_ptr<Placer> make_mtopo_placer();         // baechi.cc
std::unique_ptr<Placer> make_metf_placer();          // baechi.cc
std::unique_ptr<Placer> make_msct_placer();          // baechi.cc
std::unique_ptr<Placer> make_metis_placer();         // metis_placer.cc
std::unique_ptr<Placer> make_local_search_placer();  // local_search.cc
std::unique_ptr<Placer> make_exact_placer();         // exact.cc (small graphs only)

// A scorer of placements: seconds, +inf when infeasible (SearchReward::score in reward.h makes
// one from a Reward, which counts what it evaluates).
using ObjectiveFn = std::function<double(const Placement&)>;

Verdict judge(const Problem& problem, const Placement& placement, Objective objective);

// Simulated annealing from `start` (the moves and schedule of local-search) under `score` and
// the budgets in `options`; returns the best placement seen (never worse than `start`). At most
// options.eval_budget calls of `score`, scoring `start` included unless the caller passes its
// score as `start_score`.
Placement anneal_placement(const Problem& problem, Placement start, const PlaceOptions& options, ObjectiveFn score,
                           std::optional<double> start_score = std::nullopt);

// Lower bound on the makespan of any placement: the larger of the critical path with every op
// at its fastest device (transfers free) and the total of fastest op times over the device count.
double makespan_lower_bound(const Problem& problem);

}  // namespace devplace
