// What every learner's training produces, whatever the method: the log of its episodes and its
// placements, each under its own name and with what it cost (HSDAG, the peers, the fine-tuned
// learned placer). Torch-free.
#pragma once

#include <vector>

#include "devplace/types.h"

namespace devplace {

struct EpisodeLog {
  int episode = 0;
  double mean_latency = 0, best_latency = 0, mean_reward = 0, entropy = 0, seconds = 0;
  double feasible_share = 1;  // of this episode's samples
  int groups = 0;
  // HSDAG with chained decisions: the mean stay bonus over coarse nodes the batch was drawn
  // with (HsdagConfig::stay, plus what the network learned); 0 for independent decisions.
  double stay = 0;
  // And the mean sibling term (HsdagConfig::learn_siblings); 0 where off.
  double sibling = 0;
  // And the mean join term over the nodes with other inputs (HsdagConfig::learn_joins); 0 where off.
  double join = 0;
};

// What a learner produced, each placement under its own name and with what it cost: latencies
// are seconds as the reward measured them (+inf when none / infeasible).
struct TrainResult {
  // The trained policy's own answer: the most likely device of every decision unit.
  Placement greedy;
  double greedy_latency = 0;
  // The best feasible placement the policy sampled during training (empty / +inf if none).
  Placement sampled;
  double sampled_latency = 0;
  // Beyond the method: the better of the two above polished by annealing (refine_evals > 0);
  // empty / +inf when the polish is off.
  Placement polished;
  double polished_latency = 0;
  long long evaluations = 0;         // reward evaluations of training (references, samples, greedy)
  long long polish_evaluations = 0;  // more for the polish
  // The best of the three (what `train -o` writes), never reported under the policy's name.
  Placement best;
  double best_latency = 0;
  int episodes = 0;  // episodes completed in total (including resumed ones)
  int coarse_nodes = 0;
  int groups = 0;      // groups of the final policy
  double seconds = 0;  // wall time of this run
  std::vector<EpisodeLog> log;
};

// Which placement of a TrainResult a placer returns: each is its own row in a comparison.
enum class TrainedPick {
  policy,   // the trained policy's greedy placement (TrainResult::greedy)
  sampled,  // the best placement sampled in training (TrainResult::sampled; greedy if none)
  polished  // the polish of the better of the two (TrainResult::polished)
};

}  // namespace devplace
