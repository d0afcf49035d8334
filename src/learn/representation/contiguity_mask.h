// Feasibility as a learner samples: under the latency model of Tarnawski et al. every
// accelerator's op set runs as one serial task, so the graph with each accelerator's set
// contracted to one node must stay acyclic (which includes contiguity: no path leaves a set and
// comes back), every set must fit its memory and hold only ops it can run. Deciding units one
// at a time in topological order, this says which devices each unit may still take so that the
// placement stays feasible; a policy that samples only those devices never produces an
// infeasible placement. Torch-free.
//
// How: up(v) = the accelerators whose set reaches unit v; reach(a) = the accelerators a's set
// reaches (transitively closed). Unit u may join accelerator x unless x reaches u through a
// unit off x, i.e. x is in up(v) for a predecessor v, or reach(x) meets up(v) or the device of
// a predecessor. Joining x makes everything that reaches u reach x and all x reaches.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "learn/representation/coarsen.h"

namespace devplace {

class ContiguityMask {
 public:
  // REQUIRES: c was computed from p.graph(), at most 64 devices, p has a host (cpu) device.
  ContiguityMask(const Problem& p, const Coarsening& c);
  // Starts a new placement.
  void reset();
  // Bit d set: unit u may take device d. REQUIRES: units 0..u-1 chosen, in order. Never 0:
  // when nothing is feasible (a unit no device can run) every device is allowed.
  std::uint64_t allowed(int u) const;
  // Records unit u's device. REQUIRES: u is the next unit in order.
  void choose(int u, int d);

 private:
  std::vector<std::vector<int>> preds_;  // per unit (a copy: the mask may outlive c)
  int host_ = 0, devices_ = 0;
  std::vector<std::int64_t> unit_bytes_, capacity_;  // per unit / per device (0 = unlimited)
  std::vector<std::uint64_t> runnable_;              // per unit: devices that run every member
  std::vector<std::uint64_t> up_;                    // per unit, as chosen
  std::vector<std::uint64_t> reach_;                 // per device (0 for the host)
  std::vector<int> device_;                          // per unit, as chosen
  std::vector<std::int64_t> used_;                   // per device
};

}  // namespace devplace
