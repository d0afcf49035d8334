#include "place/reward.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "place/tarnawski_objective.h"
#include "place/tarnawski_placers.h"
#include "util/error.h"

namespace devplace {

namespace {

// FNV-1a over the devices: what SimulatedReward remembers of each placement it evaluated.
std::uint64_t placement_hash(const Placement& p) {
  std::uint64_t h = 1469598103934665603ull;
  for (int d : p) h = (h ^ static_cast<std::uint64_t>(d + 1)) * 1099511628211ull;
  return h;
}

}  // namespace

SimulatedReward::SimulatedReward(const Problem& problem) : sim_(problem) {
  double w = 0;
  for (int i = 0; i < problem.num_ops(); ++i) w += static_cast<double>(problem.weight_bytes(i));
  weight_bytes_ = std::max(1.0, w);
}

Evaluation SimulatedReward::evaluate(const Placement& placement) {
  ++evaluations_;
  evaluated_.insert(placement_hash(placement));
  double m = sim_.makespan(placement);
  if (std::isfinite(m)) return {m, true, 0, 0};
  // Rare path: find out how far over memory it is, so the penalty can be proportional.
  Schedule s = sim_.run(placement);
  const std::int64_t over = s.total_overflow();
  // An infeasible placement always has a positive violation, even one that overflows nothing
  // (an op placed where it cannot run).
  return {s.makespan, false, over, std::max(1e-6, static_cast<double>(over) / weight_bytes_)};
}

double SimulatedReward::latency(const Placement& placement) {
  ++evaluations_;
  evaluated_.insert(placement_hash(placement));
  return sim_.makespan(placement);
}

std::optional<Schedule> SimulatedReward::trace(const Placement& placement) {
  if (!evaluated_.count(placement_hash(placement)))
    throw Error("", "", "SimulatedReward::trace: a placement it never evaluated (a trace costs an evaluation first)");
  return sim_.run(placement);
}

SingleDeviceReference best_single_device(const Problem& problem, Reward& reward) {
  SingleDeviceReference r;
  double best = std::numeric_limits<double>::infinity();
  std::vector<Placement> singles;
  for (int d = 0; d < problem.num_devices(); ++d) singles.emplace_back(problem.num_ops(), d);
  const std::vector<Evaluation> evaluations = reward.evaluate_batch(singles);
  for (int d = 0; d < problem.num_devices(); ++d) {
    const Evaluation& e = evaluations[d];
    if (std::isfinite(e.latency) && e.latency > 0 && (e.feasible || !std::isfinite(best)) && e.latency < best)
      best = e.latency, r.device = d;
  }
  if (std::isfinite(best)) r.latency = best;
  return r;
}

namespace {

// Tarnawski et al.'s latency model as a reward; one evaluator (and its scratch) for all calls.
class TarnawskiReward : public Reward {
 public:
  explicit TarnawskiReward(const Problem& p) : problem_(p), evaluator_(p) {}
  std::string name() const override { return "tarnawski"; }
  Objective objective() const override { return Objective::tarnawski; }
  Evaluation evaluate(const Placement& p) override {
    const double l = evaluator_.latency(p);
    if (std::isfinite(l)) return {l, true, 0, 0};
    return {l, false, 0, std::max(tarnawski_violation(problem_, p), 1.0 / std::max(1, problem_.num_ops()))};
  }
  double latency(const Placement& p) override { return evaluator_.latency(p); }

 private:
  const Problem& problem_;
  TarnawskiEvaluator evaluator_;
};

}  // namespace

std::unique_ptr<Reward> make_reward(const Problem& problem, Objective objective) {
  if (objective == Objective::simulator) return std::make_unique<SimulatedReward>(problem);
  return std::make_unique<TarnawskiReward>(problem);
}

ObjectiveFn score_with(Reward& reward) {
  return [&reward](const Placement& p) { return reward.latency(p); };
}

SearchReward::SearchReward(const Problem& problem, const PlaceOptions& options, Objective objective) {
  if (options.reward) {
    if (options.reward->objective() != objective)
      throw Error(problem.graph().source(), "",
                  objective == Objective::tarnawski
                      ? "this placer evaluates under Tarnawski's latency model: run it with --objective tarnawski"
                      : "this placer evaluates under the simulator: run it with --objective sim",
                  ErrorKind::invalid_argument);
    reward_ = options.reward;
    return;
  }
  owned_ = make_reward(problem, objective);
  reward_ = owned_.get();
}

}  // namespace devplace
