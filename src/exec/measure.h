// Measuring placements for real: latency statistics over repeated runs, and MeasuredReward, the
// Reward a learned placer trains on when it learns from measurements instead of the simulator.
// Torch-free; single-threaded use (the Executor runs one inference at a time).
#pragma once

#include <functional>
#include <vector>

#include "exec/executor.h"
#include "learn/reward.h"

namespace devplace {

struct Measurement {
  std::vector<double> samples;  // seconds, in run order (warm-up runs excluded)
  double median = 0, mean = 0, min = 0, max = 0, p25 = 0, p75 = 0;
  double mean_last5 = 0;  // mean of the last min(5, runs) runs (the paper's statistic)
  RunStats last;          // copies of the last run
};

// Runs `placement` warmup + runs times and summarises the timed runs. REQUIRES runs >= 1.
Measurement measure(Executor& executor, const Placement& placement, int warmup, int runs);

// Re-measures `candidates` in rounds (warmup, runs each) and returns the index of the one with
// the lowest median, with every measurement. REQUIRES: candidates not empty, runs >= 1.
struct Confirmation {
  std::size_t best = 0;
  std::vector<Measurement> measurements;  // per candidate
};
Confirmation confirm_best(Executor& executor, const std::vector<Placement>& candidates, int warmup, int runs);

// The same for several placements, in rounds (one run of each placement per round), so that a
// drift of the machine's speed over minutes touches every placement alike and comparisons
// between them stay fair. Result i belongs to placements[i]. `on_round` (optional) is called
// after each round with the rounds done and the total (warm-up included), e.g. for progress.
// REQUIRES runs >= 1.
std::vector<Measurement> measure_interleaved(Executor& executor, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round = {});

struct MeasureOptions {
  int warmup = 1;  // untimed runs before each evaluation (caches, allocator)
  int runs = 3;    // timed runs; the reward is their median
  int keep = 5;    // best distinct placements remembered for confirm_best
};

// Reward = measured median latency of the placement. Placement device i runs on executor
// worker i. REQUIRES: executor outlives the reward. Placements are always feasible (memory is
// not checked: a real overflow fails the run with an Error).
class MeasuredReward : public Reward {
 public:
  MeasuredReward(Executor& executor, MeasureOptions options) : ex_(executor), opt_(options) {}
  std::string name() const override { return "measured"; }
  Evaluation evaluate(const Placement& placement) override;
  long long evaluations() const { return evaluations_; }
  double seconds_measuring() const { return seconds_; }  // wall time spent in runs
  // The `keep` distinct placements with the lowest reward so far, lowest first. The lowest of
  // many noisy measurements is biased low (a lucky run): confirm_best re-measures them.
  const std::vector<std::pair<Placement, double>>& best_seen() const { return best_; }

 private:
  Executor& ex_;
  MeasureOptions opt_;
  std::vector<std::pair<Placement, double>> best_;
  long long evaluations_ = 0;
  double seconds_ = 0;
};

}  // namespace devplace
