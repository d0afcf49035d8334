// Segments of a topological order under the latency model of Tarnawski et al.
// (tarnawski_objective.h): what `tarnawski-dp` cuts and what the learned placer's cut-point
// features value. Units (groups of ops that share a device) in a topological order are cut into
// runs, each on the CPU or on its own accelerator. A run of a topological order is a contiguous
// set, so every such placement is feasible when each run fits its device. Runs are valued by a
// serial upper bound of the latency: each starts when everything before it has finished; an
// accelerator run costs receive + compute + send, a CPU run its longest CPU path.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"

namespace devplace {

// Grows one run at a time, unit by unit, keeping its cost on the CPU and on every accelerator:
// inputs are stamped once per run start, a send is added when a tensor has a reader beyond the
// run and removed when its last reader joins. Extending by a unit is O(its ops' edges x K).
// REQUIRES: problem (with a host) outlives the scan; unit_ops lists every op once, units in a
// topological order of the ops, each unit's ops in topological order.
class SegmentScan {
 public:
  SegmentScan(const Problem& problem, std::vector<std::vector<int>> unit_ops);
  int size() const { return static_cast<int>(unit_ops_.size()); }
  // The accelerators (every device but the host), in cluster order; index k below is acc()[k].
  const std::vector<int>& acc() const { return acc_; }
  // Starts an empty run at unit i (0 <= i <= size()).
  void start(int i);
  // Adds unit end() to the run. REQUIRES end() < size().
  void extend();
  int end() const { return end_; }
  // The run's serial cost on the CPU, and on accelerator k (kInfeasibleTime when an op cannot run
  // there or the run's weights exceed its memory).
  double cpu() const { return cpu_; }
  double accel(int k) const { return accel_after(0.0, k); }
  // base + accel(k), summed in the order the DP's figures were made with (base first).
  double accel_after(double base, int k) const;
  // Whether accelerator k holds the run's weights (once not, no longer run fits either).
  bool fits(int k) const;
  // Receive + compute on accelerator k so far: a lower bound of accel(k) for this run and every
  // longer one (as cpu() is for the CPU), which lets a scan stop early.
  double accel_floor(int k) const { return recv_[k] + work_[k]; }
  // Per unit i, the longest host path through units i.. (size() + 1 entries, the last 0): the cost
  // of one host run from i to the end, which no cut of that stretch into host runs beats. O(V + E).
  std::vector<double> host_suffix() const;

 private:
  const Problem& p_;
  std::vector<std::vector<int>> unit_ops_;
  std::vector<int> acc_, unit_of_, last_unit_;
  std::vector<std::vector<int>> closes_;  // per unit: tensors whose last reader is in it
  int begin_ = 0, end_ = 0;
  std::int64_t bytes_ = 0;
  double cpu_ = 0;
  std::vector<double> work_, recv_, send_, lp_;
  std::vector<std::int64_t> stamp_;  // per tensor: the run (epoch_) that received it
  std::int64_t epoch_ = 0;
};

// The least serial cost of cutting the units from i on into runs, by the first run's device.
struct SegmentCostToGo {
  int units = 0, accelerators = 0;
  // With k accelerators already used (the next run on an accelerator takes acc()[k]):
  // [(units + 1) x (accelerators + 1)]; kInfeasibleTime where no cut is feasible.
  std::vector<double> rest;
  // The same when the first run (starting at unit i) is on the host, [units x (accelerators + 1)],
  // or on accelerator a with k others used before, [units x accelerators x accelerators] (k <
  // accelerators; not made above kMaxAccelFirst entries, where a caller scans instead). Both
  // assume that the runs after the first go to acc()[k], acc()[k + 1], ...: exact where the
  // accelerators are alike.
  std::vector<double> host_first, accel_first;
  bool per_accel = false;  // whether accel_first was made
  static constexpr std::size_t kMaxAccelFirst = std::size_t{1} << 22;
  double at(int i, int k) const { return rest[static_cast<std::size_t>(i) * (accelerators + 1) + k]; }
  double host(int i, int k) const { return host_first[static_cast<std::size_t>(i) * (accelerators + 1) + k]; }
  double accel(int i, int k, int a) const {
    return accel_first[(static_cast<std::size_t>(i) * accelerators + k) * accelerators + a];
  }
};
// O(units x (scan of the rest) x accelerators^2) at worst; a scan from i stops once no longer run
// can lower any entry of row i.
SegmentCostToGo segment_cost_to_go(SegmentScan& scan);

}  // namespace devplace
