#include "place/placer.h"
#include "place/tarnawski_objective.h"
#include "sim/simulator.h"

namespace devplace {

Verdict judge(const Problem& problem, const Placement& placement, Objective objective) {
  if (objective == Objective::tarnawski) return tarnawski_latency(problem, placement);
  return Simulator(problem).run(placement).verdict();
}

}  // namespace devplace
