// Random placements, the one place they are drawn: the `random` placer, the random-policy
// control of the equal-budget benchmark, and the random placements `run` and `profile` measure.
#pragma once

#include <cstdint>
#include <random>

#include "cost/cost_model.h"
#include "devplace/types.h"

namespace devplace {

class RandomPlacements {
 public:
  explicit RandomPlacements(std::uint64_t seed) : rng_(seed) {}
  // Each of `num_ops` entries on a device drawn uniformly from all `num_devices`, runnable or not.
  Placement any_device(int num_ops, int num_devices);
  // Each op on a device drawn uniformly from those that can run it (device 0 when none can), so
  // the placement is feasible where it can be.
  Placement runnable(const Problem& problem);

 private:
  std::mt19937_64 rng_;
};

}  // namespace devplace
