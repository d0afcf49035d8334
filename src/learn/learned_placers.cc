#include "learn/learned_placers.h"

#include <algorithm>

#include "learn/hsdag.h"
#include "learn/list_policy.h"
#include "learn/move_policy.h"
#include "learn/peers.h"
#include "place/segment_search.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {

namespace {

std::unique_ptr<Placer> make_hsdag_row(const std::string& name, const PlaceOptions& options) {
  HsdagConfig c = hsdag_preset(name == "hsdag-paper" ? "paper" : "default");
  if (name == "hsdag-paper") return make_hsdag_placer(c, name);
  if (!options.policy_file.empty()) {
    // The policy's own answer, as Placeto's, never clamped to a single device.
    c.episodes = options.fine_tune_episodes, c.init_policy = options.policy_file, c.refine_evals = 0;
    return make_hsdag_placer(c, options.fine_tune_episodes > 0
                                    ? "hsdag (fine-tuned " + std::to_string(options.fine_tune_episodes) + " episodes)"
                                    : "hsdag (zero-shot policy)");
  }
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  // Each row trains on its own, so each row's time is its whole cost.
  if (name != "hsdag+polish")
    c.refine_evals = 0;
  else if (options.polish_evals >= 0)
    c.refine_evals = static_cast<int>(options.polish_evals);
  const TrainedPick pick = name == "hsdag"           ? TrainedPick::policy
                           : name == "hsdag-sampled" ? TrainedPick::sampled
                                                     : TrainedPick::polished;
  return make_hsdag_placer(c, name, pick);
}

std::unique_ptr<Placer> make_peer_row(const std::string& name, const PlaceOptions& options) {
  PeerConfig c;
  c.algo = name;
  if (options.episodes > 0) c.episodes = options.episodes;
  if (options.samples > 0) c.samples = options.samples;
  if (name == "placeto" && !options.policy_file.empty())
    c.episodes = options.fine_tune_episodes, c.init_policy = options.policy_file;
  return make_peer_placer(c);
}

// devplace's own learned placer (learn/list_policy.h), each row what the method itself produced:
//   learned               the pretrained policy's own placement, zero-shot (one rollout, no evaluation)
//   learned-sampled       the best of its own placement and samples, zero-shot (eval_budget, default 64)
//   learned-discrepancy   the best of its own placement and its limited-discrepancy rollouts (list_policy.h),
//                         zero-shot (eval_budget, default 64)
//   learned-tuned         its own placement after fine-tuning on this graph (eval_budget, default 2000)
//   learned-tuned-sampled the best placement evaluated while fine-tuning
//   learned-tuned-discrepancy  half the budget fine-tunes, the rest decodes with discrepancies
//   learned-moves         its own placement, then the learned move policy's search (move_policy.h),
//                         zero-shot (eval_budget, default 64)
//   learned-discrepancy-moves  half the budget decodes with discrepancies, the move search the rest
//   learned-discrepancy-segments  under --objective tarnawski: half the budget decodes with
//                         discrepancies, segment search (place/segment_search.h; not learned) the rest
class LearnedListPlacer : public Placer {
 public:
  explicit LearnedListPlacer(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Placement place(const Problem& p, const PlaceOptions& o) override {
    ListPolicy policy = ListPolicy::load(o.policy_file.empty() ? default_list_policy_path(o.objective) : o.policy_file);
    if (name_ == "learned") return policy.greedy(p, o.objective);
    const std::unique_ptr<Reward> reward = make_reward(p, o.objective);
    if (name_ == "learned-sampled") {
      const int count = o.eval_budget > 0 ? static_cast<int>(o.eval_budget) : 64;
      Placement best;
      double best_latency = kInfeasibleTime;
      for (auto& pl : policy.sample(p, count, o.seed, o.objective)) {
        const Evaluation e = reward->evaluate(pl);
        const double l = e.feasible ? e.latency : kInfeasibleTime;
        if (best.empty() || l < best_latency) best_latency = l, best = std::move(pl);
      }
      return best;
    }
    if (name_ == "learned-discrepancy") {
      const int budget = o.eval_budget > 0 ? static_cast<int>(o.eval_budget) : 64;
      return policy.decode_with_discrepancies(p, *reward, budget, 0, o.objective);
    }
    if (name_ == "learned-discrepancy-segments") {
      if (o.objective != Objective::tarnawski)
        throw Error(p.graph().source(), "", name_ + ": for --objective tarnawski only (the simulator's rows: learned-discrepancy-moves)", ErrorKind::unsupported);
      const int budget = o.eval_budget > 0 ? static_cast<int>(o.eval_budget) : 64;
      CountingReward counted(*reward);
      // Half the budget decodes, half searches segments: chosen among 1/4, 1/2 and 3/4 of 2,000
      // on random cost graphs (docs/results/2026-12-04-learned-placer.md); from 1,000 the decoding is then its portfolio.
      const Placement start = policy.decode_with_discrepancies(p, counted, std::max(1, budget / 2), 0, o.objective);
      const std::int64_t left = budget - counted.count();
      if (left < 2) return start;  // the search's first evaluation is its start's
      ObjectiveFn score = [&](const Placement& pl) {
        const Evaluation e = counted.evaluate(pl);
        return e.feasible ? e.latency : kInfeasibleTime;
      };
      return segment_search(p, segment_units(p), score, start, left);
    }
    if (name_ == "learned-moves" || name_ == "learned-discrepancy-moves") {
      if (o.objective != Objective::simulator)
        throw Error(p.graph().source(), "", name_ + ": the move policy places under the simulator's objective only", ErrorKind::unsupported);
      const MovePolicy moves =
          MovePolicy::load(o.move_policy_file.empty() ? default_move_policy_path() : o.move_policy_file);
      const int budget = o.eval_budget > 0 ? static_cast<int>(o.eval_budget) : 64;
      CountingReward counted(*reward);
      // learned-discrepancy-moves: an eighth of the budget decodes, the rest moves; chosen on
      // held-out synthetic graphs once the search corrected its scorer, among 4, 8, 16 and 32 of
      // 64 (before, 32; docs/results/2026-12-04-learned-placer.md, which also says why not 8 at any budget).
      const Placement start = name_ == "learned-moves"
                                  ? policy.greedy(p, o.objective)
                                  : policy.decode_with_discrepancies(p, counted, discrepancy_moves_decoding(budget), 0,
                                                                     o.objective);
      return moves.improve(p, counted, start, budget - static_cast<int>(counted.count()));
    }
    ListPolicyConfig c;
    // Expert iteration in searches of 32 evaluations, 16 imitation steps each at 3e-3: chosen
    // among searches of 16, 32, 64 and 4-16 steps at 3e-3 and 1e-2 (docs/results/2026-12-04-learned-placer.md says on what).
    c.samples = o.samples > 0 ? o.samples : 32;
    c.lr = 3e-3;
    const long long budget = o.eval_budget > 0 ? o.eval_budget : 2000;
    if (name_ == "learned-tuned-discrepancy") {
      // Half the budget fine-tunes the policy, the rest decodes it with discrepancies.
      CountingReward counted(*reward);
      fine_tune_list_policy(policy, p, counted, budget / 2, c, o.seed);
      return policy.decode_with_discrepancies(p, counted, static_cast<int>(budget - counted.count()), 0, o.objective);
    }
    const ListTuneResult r = fine_tune_list_policy(policy, p, *reward, budget, c, o.seed);
    return name_ == "learned-tuned" ? r.policy : r.best;
  }

 private:
  std::string name_;
};

}  // namespace

void add_learned_placers(PlacerRegistry& registry) {
  for (const std::string name :
       {"learned", "learned-sampled", "learned-discrepancy", "learned-tuned", "learned-tuned-sampled",
        "learned-tuned-discrepancy", "learned-moves", "learned-discrepancy-moves", "learned-discrepancy-segments"})
    registry.add(name,
                 [name](const Problem&, const PlaceOptions&) { return std::make_unique<LearnedListPlacer>(name); });
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
