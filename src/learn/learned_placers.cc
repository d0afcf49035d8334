#include "learn/learned_placers.h"

#include <algorithm>

#include "learn/hsdag/hsdag.h"
#include "learn/learned/learned_compositions.h"
#include "learn/learned/list_policy.h"
#include "learn/learned/move_policy.h"
#include "learn/learned/schedule_env.h"
#include "learn/peers/peers.h"
#include "place/segment_search.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {

const std::vector<LearnedComposition>& learned_compositions() {
  using S = LearnedStart;
  using I = LearnedImprovement;
  using B = BudgetSplit;
  static const std::vector<LearnedComposition> rows = {
      {"learned", S::greedy},
      {"learned-sampled", S::sampled},
      {"learned-discrepancy", S::discrepancy},
      {"learned-tuned", S::tuned},
      {"learned-tuned-sampled", S::tuned_best},
      {"learned-tuned-discrepancy", S::tuned, I::discrepancy, B::half},
      {"learned-moves", S::greedy, I::moves},
      // An eighth of the budget decodes (a better start than the policy's own placement); the move
      // search, which gains more from each further evaluation, spends the rest.
      {"learned-discrepancy-moves", S::discrepancy, I::moves, B::an_eighth},
      // Half decodes, half searches segments from the decoding's best: segment search moves whole
      // stretches of blocks at once, which the decoding's single decisions cannot.
      {"learned-discrepancy-segments", S::discrepancy, I::segments, B::half},
  };
  return rows;
}

namespace {

std::unique_ptr<Placer> make_hsdag_row(const std::string& name, const PlaceOptions& options) {
  HsdagConfig c = hsdag_preset(name == "hsdag-paper" ? "paper" : "default");
  if (name == "hsdag-paper") return make_hsdag_placer(c, name);
  if (!options.learned.policy_file.empty()) {
    // The policy's own answer, as Placeto's, never clamped to a single device.
    c.episodes = options.learned.fine_tune_episodes, c.init_policy = options.learned.policy_file, c.refine_evals = 0;
    return make_hsdag_placer(c, options.learned.fine_tune_episodes > 0
                                    ? "hsdag (fine-tuned " + std::to_string(options.learned.fine_tune_episodes) + " episodes)"
                                    : "hsdag (zero-shot policy)");
  }
  if (options.learned.episodes > 0) c.episodes = options.learned.episodes;
  if (options.learned.samples > 0) c.samples = options.learned.samples;
  // Each row trains on its own, so each row's time is its whole cost.
  if (name != "hsdag+polish")
    c.refine_evals = 0;
  else if (options.learned.polish_evals >= 0)
    c.refine_evals = static_cast<int>(options.learned.polish_evals);
  const TrainedPick pick = name == "hsdag"           ? TrainedPick::policy
                           : name == "hsdag-sampled" ? TrainedPick::sampled
                                                     : TrainedPick::polished;
  return make_hsdag_placer(c, name, pick);
}

std::unique_ptr<Placer> make_peer_row(const std::string& name, const PlaceOptions& options) {
  PeerConfig c;
  c.algo = peer_method(name);
  if (options.learned.episodes > 0) c.episodes = options.learned.episodes;
  if (options.learned.samples > 0) c.samples = options.learned.samples;
  if (c.algo == PeerMethod::placeto && !options.learned.policy_file.empty())
    c.episodes = options.learned.fine_tune_episodes, c.init_policy = options.learned.policy_file;
  return make_peer_placer(c);
}

// Runs one composition of learned_compositions() (learned_compositions.h).
class LearnedListPlacer : public Placer {
 public:
  explicit LearnedListPlacer(LearnedComposition c) : c_(std::move(c)) {}
  std::string name() const override { return c_.name; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    const LearnedOptions defaults;
    if (c_.improvement == LearnedImprovement::segments && o.objective != Objective::tarnawski)
      throw Error(p.graph().source(), "", c_.name + ": for --objective tarnawski only (the simulator's rows: learned-discrepancy-moves)",
                  ErrorKind::unsupported);
    if (c_.improvement == LearnedImprovement::moves && o.objective != Objective::simulator)
      throw Error(p.graph().source(), "", c_.name + ": the move policy places under the simulator's objective only",
                  ErrorKind::unsupported);
    ListPolicy policy = ListPolicy::load(o.learned.policy_file.empty() ? default_list_policy_path(o.objective) : o.learned.policy_file);
    if (c_.start == LearnedStart::greedy && c_.improvement == LearnedImprovement::none)
      return policy.greedy(p, o.objective);
    const long long budget =
        o.eval_budget > 0 ? o.eval_budget : c_.fine_tunes() ? defaults.tuning_budget : defaults.search_budget;
    SearchReward search(p, o);
    CountingReward counted(search.reward());
    const long long for_start = c_.split == BudgetSplit::half      ? std::max(1LL, budget / 2)
                                : c_.split == BudgetSplit::an_eighth ? discrepancy_moves_decoding(static_cast<int>(budget))
                                                                     : budget;
    const Placement start = start_placement(policy, p, o, counted, for_start);
    const long long left = budget - counted.count();
    switch (c_.improvement) {
      case LearnedImprovement::none:
        return start;
      case LearnedImprovement::discrepancy:
        return policy.decode_with_discrepancies(p, counted, static_cast<int>(left), 0, o.objective);
      case LearnedImprovement::moves: {
        const MovePolicy moves =
            MovePolicy::load(o.learned.move_policy_file.empty() ? default_move_policy_path() : o.learned.move_policy_file);
        return moves.improve(p, counted, start, static_cast<int>(left));
      }
      case LearnedImprovement::segments: {
        if (left < 2) return start;  // the search's first evaluation is its start's
        ObjectiveFn score = score_with(counted);
        return segment_search(p, segment_units(p), score, start, left);
      }
    }
    return start;
  }

 private:
  // The start's placement, spending at most `budget` evaluations of `reward`; fine-tuning
  // changes `policy` (the improvement then decodes the tuned policy).
  Placement start_placement(ListPolicy& policy, const Problem& p, const PlaceOptions& o, CountingReward& reward,
                            long long budget) const {
    switch (c_.start) {
      case LearnedStart::greedy:
        return policy.greedy(p, o.objective);
      case LearnedStart::sampled: {
        Placement best;
        double best_latency = kInfeasibleTime;
        for (auto& pl : policy.sample(p, static_cast<int>(budget), o.seed, o.objective)) {
          const Evaluation e = reward.evaluate(pl);
          const double l = e.feasible ? e.latency : kInfeasibleTime;
          if (best.empty() || l < best_latency) best_latency = l, best = std::move(pl);
        }
        return best;
      }
      case LearnedStart::discrepancy:
        return policy.decode_with_discrepancies(p, reward, static_cast<int>(budget), 0, o.objective);
      case LearnedStart::tuned:
      case LearnedStart::tuned_best: {
        const LearnedOptions defaults;
        ListPolicyConfig c;
        c.samples = o.learned.samples > 0 ? o.learned.samples : defaults.tuning_samples;
        c.lr = defaults.tuning_lr;
        const ListTuneResult r = fine_tune_list_policy(policy, p, reward, budget, c, o.seed);
        return c_.start == LearnedStart::tuned ? r.policy : r.best;
      }
    }
    return policy.greedy(p, o.objective);
  }

  LearnedComposition c_;
};

// Controls for what the learned list policy's network adds: its decision process with every op
// on the device of least estimated finish plus PEFT's optimistic cost (lookahead:
// ScheduleEnv::lookahead_device), or on the device its teacher chooses (rollout: the decisions
// played ahead in the estimate, ScheduleEnv::rollout_device). No network and no evaluation.
class RulePlacer : public Placer {
 public:
  explicit RulePlacer(bool rollout) : rollout_(rollout) {}
  std::string name() const override { return rollout_ ? "rollout" : "lookahead"; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    ScheduleEnv env(p, o.objective, /*rollout_features=*/rollout_);  // the process the policy decides in
    while (!env.done()) env.step(rollout_ ? env.rollout_device() : env.lookahead_device());
    return env.placement();
  }

 private:
  bool rollout_;
};

}  // namespace

void add_learned_placers(PlacerRegistry& registry) {
  for (const bool rollout : {false, true})
    registry.add(rollout ? "rollout" : "lookahead",
                 [rollout](const Problem&, const PlaceOptions&) { return std::make_unique<RulePlacer>(rollout); });
  for (const LearnedComposition& c : learned_compositions())
    registry.add(c.name, [c](const Problem&, const PlaceOptions&) { return std::make_unique<LearnedListPlacer>(c); });
  for (const std::string name : {"hsdag", "hsdag-sampled", "hsdag+polish", "hsdag-paper"})
    registry.add(name, [name](const Problem&, const PlaceOptions& o) { return make_hsdag_row(name, o); });
  for (const std::string name : {"rnn", "hierarchical", "placeto"})
    registry.add(name, [name](const Problem&, const PlaceOptions& o) { return make_peer_row(name, o); });
}

PlacerRegistry all_placers() {
  PlacerRegistry r = classical_placers();
  add_learned_placers(r);
  return r;
}

}  // namespace devplace
