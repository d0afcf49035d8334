#include "learn/reward.h"

#include <cmath>

namespace devplace {

Evaluation SimulatedReward::evaluate(const Placement& placement) {
  ++evaluations_;
  double m = sim_.makespan(placement);
  if (std::isfinite(m)) return {m, true, 0};
  // Rare path: find out how far over memory it is, so the penalty can be proportional.
  Schedule s = sim_.run(placement);
  return {s.makespan, false, s.total_overflow()};
}

}  // namespace devplace
