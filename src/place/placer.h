// Placer: the one interface of every placement method, classical or learned. A placer takes a
// Problem (graph + cluster + costs) and returns a device for every op. Placers are
// deterministic for a given seed; a placer object may keep state between calls but is used
// from one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

// What a placement is judged by: our event simulator, or the latency model of Tarnawski et al.
// (contiguous accelerator sets, serial accelerators, unlimited CPU parallelism).
enum class Objective { simulator, tarnawski };

struct PlaceOptions {
  Objective objective = Objective::simulator;
  std::uint64_t seed = 1;
  double time_budget_s = 0;         // wall-clock budget for searches; 0 = the placer's default
  std::int64_t eval_budget = 0;     // simulator evaluations for searches; 0 = the placer's default
  std::vector<std::string> device_priority;  // for hetero: device names in order; empty = cluster order
  int device = -1;                  // for single-device placers built by name: which device
};

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // Returns a placement with one valid device index per op.
  virtual Placement place(const Problem& problem, const PlaceOptions& options) = 0;
};

// Algorithm names accepted by make_placer (single-device placers are "<device>-only" and
// resolved against the cluster by the caller through make_single_device).
std::vector<std::string> placer_names();
// Throws Error listing the known names when `name` is unknown.
std::unique_ptr<Placer> make_placer(const std::string& name);
std::unique_ptr<Placer> make_single_device(int device, const std::string& device_name);

// Factories, one per algorithm file.
std::unique_ptr<Placer> make_hetero_placer();       // hetero.cc: first supporting device in priority order
std::unique_ptr<Placer> make_random_placer();       // simple.cc
std::unique_ptr<Placer> make_round_robin_placer();  // simple.cc
std::unique_ptr<Placer> make_heft_placer();         // heft.cc
std::unique_ptr<Placer> make_mtopo_placer();        // baechi.cc
std::unique_ptr<Placer> make_metf_placer();         // baechi.cc
std::unique_ptr<Placer> make_msct_placer();         // baechi.cc
std::unique_ptr<Placer> make_metis_placer();        // metis_placer.cc
std::unique_ptr<Placer> make_local_search_placer(); // local_search.cc
std::unique_ptr<Placer> make_exact_placer();        // exact.cc (small graphs only)

// A scorer of placements under `objective`: seconds, +inf when infeasible. Owns its scratch;
// not thread-safe. REQUIRES: problem outlives it.
using ObjectiveFn = std::function<double(const Placement&)>;
ObjectiveFn make_objective(const Problem& problem, Objective objective);

// A placement judged in full under an objective: latency (+inf if infeasible) and why not.
struct Verdict {
  double latency = 0;
  bool feasible = true;
  std::string reason;
};
Verdict judge(const Problem& problem, const Placement& placement, Objective objective);

// Simulated annealing from `start` (the moves and schedule of local-search) under `score` and
// the budgets in `options`; returns the best placement seen (never worse than `start`).
Placement anneal_placement(const Problem& problem, Placement start, const PlaceOptions& options, ObjectiveFn score);

// Lower bound on the makespan of any placement: the larger of the critical path with every op
// at its fastest device (transfers free) and the total of fastest op times over the device count.
double makespan_lower_bound(const Problem& problem);

}  // namespace devplace
