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

namespace {

class ObjectiveReward : public Reward {
 public:
  ObjectiveReward(const Problem& p, Objective o) : fn_(make_objective(p, o)) {}
  std::string name() const override { return "objective"; }
  Evaluation evaluate(const Placement& p) override {
    double l = fn_(p);
    return {l, std::isfinite(l), 0};
  }

 private:
  ObjectiveFn fn_;
};

}  // namespace

std::unique_ptr<Reward> make_reward(const Problem& problem, Objective objective) {
  if (objective == Objective::simulator) return std::make_unique<SimulatedReward>(problem);
  return std::make_unique<ObjectiveReward>(problem, objective);
}

}  // namespace devplace
