#include <memory>

#include "place/placer.h"
#include "place/tarnawski_objective.h"
#include "sim/simulator.h"

namespace devplace {

ObjectiveFn make_objective(const Problem& problem, Objective objective) {
  if (objective == Objective::tarnawski)
    return [&problem](const Placement& p) { return tarnawski_latency(problem, p).latency; };
  auto sim = std::make_shared<Simulator>(problem);
  return [sim](const Placement& p) { return sim->makespan(p); };
}

Verdict judge(const Problem& problem, const Placement& placement, Objective objective) {
  if (objective == Objective::tarnawski) return tarnawski_latency(problem, placement);
  return Simulator(problem).run(placement).verdict();
}

}  // namespace devplace
