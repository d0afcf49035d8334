// devplace's own learned placer (learn/learned/list_policy.h) as compositions: a start (how the
// pretrained policy gives a first placement) x an improvement (what spends the rest of the
// budget) x a budget split (how much of the budget the start may spend). The registry names the
// compositions (learned_compositions()); each row is what that composition itself produced.
// Torch-free header.
#pragma once

#include <string>
#include <vector>

namespace devplace {

enum class LearnedStart {
  greedy,      // the policy's own placement: one rollout, no evaluation
  sampled,     // the best of the policy's own placement and samples
  discrepancy, // the best of its own placement and its limited-discrepancy rollouts
  tuned,       // its own placement after fine-tuning on this graph (expert iteration)
  tuned_best,  // the best placement evaluated while fine-tuning
};

enum class LearnedImprovement {
  none,
  discrepancy,  // limited-discrepancy decoding of the (fine-tuned) policy
  moves,        // the learned move policy's search (learn/learned/move_policy.h); the simulator's objective only
  segments,     // segment search (place/segment_search.h; not learned); Tarnawski's objective only
};

enum class BudgetSplit {
  start_only,         // no improvement: the start may spend the whole budget
  half,               // the start half the budget (at least 1), the improvement the rest
  an_eighth,          // the start an eighth (at least 1; discrepancy_moves_decoding), the improvement the rest
};

// Defaults of the learned placer's rows (PlaceOptions::eval_budget and ::samples override them).
struct LearnedOptions {
  long long search_budget = 64;     // rows without fine-tuning: reward evaluations
  long long tuning_budget = 2000;   // rows that fine-tune
  int tuning_samples = 32;          // evaluations per fine-tuning update (one limited-discrepancy search)
  double tuning_lr = 3e-3;          // Adam step of the 16 imitation steps per update
};

struct LearnedComposition {
  std::string name;  // the registry's name
  LearnedStart start = LearnedStart::greedy;
  LearnedImprovement improvement = LearnedImprovement::none;
  BudgetSplit split = BudgetSplit::start_only;
  bool fine_tunes() const { return start == LearnedStart::tuned || start == LearnedStart::tuned_best; }
};

// The rows the registry offers:
//   learned                        greedy
//   learned-sampled                sampled
//   learned-discrepancy            discrepancy
//   learned-tuned                  tuned
//   learned-tuned-sampled          tuned_best
//   learned-tuned-discrepancy      tuned (half) + discrepancy
//   learned-moves                  greedy + moves
//   learned-discrepancy-moves      discrepancy (an eighth) + moves
//   learned-discrepancy-segments   discrepancy (half) + segments
const std::vector<LearnedComposition>& learned_compositions();

}  // namespace devplace
