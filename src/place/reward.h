// Reward: how a learned placer learns what a placement is worth. The trainer sees a Problem
// only through this interface, so the same training runs on the simulator (SimulatedReward,
// fast, the default), the Tarnawski latency model, or real measurements (MeasuredReward,
// exec/measure.h) unchanged.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>
#include <string>
#include <vector>

#include "cost/cost_model.h"
#include "place/placer.h"
#include "sim/schedule.h"
#include "sim/simulator.h"

namespace devplace {

// Not a Verdict: a reward signal. The latency stays finite when infeasible (the simulator still
// times an overflowing placement) and the distance from feasible replaces the reason.
struct Evaluation {
  double latency = 0;  // seconds; finite even when infeasible if it could be timed
  bool feasible = true;
  std::int64_t overflow_bytes = 0;  // memory over capacity summed over devices
  // How far from feasible, unitless: 0 when feasible, > 0 otherwise, larger when further (the
  // simulator: overflow bytes / total weight bytes; Tarnawski: tarnawski_violation). Lets a
  // learner rank infeasible placements, so an all-infeasible batch still has a gradient.
  double violation = 0;
};

class Reward {
 public:
  virtual ~Reward() = default;
  virtual std::string name() const = 0;
  // Evaluates one placement. May be slow (real runs); called from one thread.
  virtual Evaluation evaluate(const Placement& placement) = 0;
  // The latency alone: seconds, +inf when infeasible; one evaluation like evaluate(). A search
  // needs no more, and a reward may skip the work of Evaluation::violation.
  virtual double latency(const Placement& placement) {
    const Evaluation e = evaluate(placement);
    return e.feasible ? e.latency : std::numeric_limits<double>::infinity();
  }
  // Evaluates several placements (result i belongs to placements[i]). The default evaluates them
  // one by one; a reward that measures on several replicas at once (dist/replica_reward.h)
  // overrides it. Trainers pass a whole batch of samples here.
  virtual std::vector<Evaluation> evaluate_batch(const std::vector<Placement>& placements) {
    std::vector<Evaluation> out;
    out.reserve(placements.size());
    for (const Placement& p : placements) out.push_back(evaluate(p));
    return out;
  }
  // The latency model behind it (a learner may sample only placements feasible under it).
  virtual Objective objective() const { return Objective::simulator; }
  // The timeline of a placement this reward has already evaluated (when each op ran where), as
  // a profiler trace of a measured run would give it; costs no evaluation. Empty when the reward
  // keeps none (the default). Throws Error for a placement it never evaluated, so that a learner
  // cannot read what it did not pay for.
  virtual std::optional<Schedule> trace(const Placement& placement) { return std::nullopt; }
};

// The event simulator as a reward. REQUIRES: problem outlives it.
class SimulatedReward : public Reward {
 public:
  explicit SimulatedReward(const Problem& problem);
  std::string name() const override { return "simulated"; }
  Evaluation evaluate(const Placement& placement) override;
  double latency(const Placement& placement) override;
  long long evaluations() const { return evaluations_; }
  // The simulator's schedule of an evaluated placement.
  std::optional<Schedule> trace(const Placement& placement) override;

 private:
  Simulator sim_;
  std::unordered_set<std::uint64_t> evaluated_;  // hashes of what trace() may show
  double weight_bytes_ = 1;  // the unit of Evaluation::violation
  long long evaluations_ = 0;
};

// Counts the evaluations of another Reward (what a learner's figures cost).
class CountingReward : public Reward {
 public:
  explicit CountingReward(Reward& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  Evaluation evaluate(const Placement& placement) override {
    ++count_;
    return inner_.evaluate(placement);
  }
  double latency(const Placement& placement) override {
    ++count_;
    return inner_.latency(placement);
  }
  std::vector<Evaluation> evaluate_batch(const std::vector<Placement>& placements) override {
    count_ += static_cast<long long>(placements.size());
    return inner_.evaluate_batch(placements);
  }
  long long count() const { return count_; }
  Objective objective() const override { return inner_.objective(); }
  std::optional<Schedule> trace(const Placement& placement) override { return inner_.trace(placement); }

 private:
  Reward& inner_;
  long long count_ = 0;
};

// One graph a learner trains on and the reward it trains with there (several of them train one
// policy: HSDAG's and Placeto's multi-graph training). REQUIRES: both outlive the training.
struct RewardTask {
  const Problem* problem = nullptr;
  Reward* reward = nullptr;
};

// A learner's unit of reward: the fastest single-device placement, found with one evaluation
// per device (these are references, not samples of a policy). Feasible devices are preferred
// once one has been timed; latency stays 1 s when no device could be timed.
struct SingleDeviceReference {
  double latency = 1;  // seconds
  int device = 0;
};
SingleDeviceReference best_single_device(const Problem& problem, Reward& reward);

// The reward a placer trains on under `objective`: the simulator, or Tarnawski's latency
// model (infeasible = +inf latency, no overflow figure).
std::unique_ptr<Reward> make_reward(const Problem& problem, Objective objective);

// A scorer for the searches' ObjectiveFn from `reward` (Reward::latency: seconds, +inf when
// infeasible; each call one evaluation). Refers to `reward`, which must outlive it.
ObjectiveFn score_with(Reward& reward);

// The reward a search or learned placer evaluates with: the caller's (PlaceOptions::reward,
// which then sees and counts every evaluation) or, when it passed none, its own for
// `objective`. Throws Error (invalid argument) when the caller's judges under another objective.
class SearchReward {
 public:
  SearchReward(const Problem& problem, const PlaceOptions& options, Objective objective);
  SearchReward(const Problem& problem, const PlaceOptions& options)
      : SearchReward(problem, options, options.objective) {}
  Reward& reward() { return *reward_; }
  // score_with(reward()): refers to this object, which must outlive it.
  ObjectiveFn score() { return score_with(*reward_); }

 private:
  std::unique_ptr<Reward> owned_;
  Reward* reward_ = nullptr;
};

}  // namespace devplace
