// Measuring placements for real: latency statistics over repeated runs, and MeasuredReward, the
// Reward a learned placer trains on when it learns from measurements instead of the simulator.
// Torch-free; single-threaded use (the Executor runs one inference at a time).
#pragma once

#include <functional>
#include <vector>

#include "exec/executor.h"
#include "place/reward.h"
#include "util/stats.h"

namespace devplace {

// One timed run of a placement, in seconds: the executor's, or a fake machine's in tests.
using RunOnce = std::function<double(const Placement&)>;

struct Measurement {
  std::vector<double> samples;  // seconds, in round order (warm-up runs excluded)
  double median = 0, mean = 0, min = 0, max = 0, p25 = 0, p75 = 0;
  double mean_last5 = 0;  // mean of the last min(5, runs) runs (the paper's statistic)
  Interval ci;            // 95% confidence interval of the median (util/stats.h)
  int warmup_rounds = 0;  // untimed rounds run before the samples, settling included
  RunStats last;          // copies of the last run (executor measurements only)
};

// Several placements measured in rounds, one run of each per round in an order shuffled per
// round (seeded), so that the machine's drift and a placement's position in the round touch all
// alike and comparisons between them stay fair; result i belongs to placements[i]. Warm-up: at
// least `warmup` untimed rounds, and more (up to 4 x warmup + 4) until two consecutive rounds take
// within 5% of each other (caches, allocators, clocks settled); none when warmup is 0. `on_round`
// (optional) is called after each round with the rounds done and the planned total. `run` is
// given the element placements[k] itself, so its address tells which placement it is.
// REQUIRES runs >= 1.
std::vector<Measurement> measure_interleaved(const RunOnce& run, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round = {});
std::vector<Measurement> measure_interleaved(Executor& executor, const std::vector<Placement>& placements, int warmup,
                                             int runs, const std::function<void(int, int)>& on_round = {});

// Runs `placement` warmup + runs times (warm-up settling as above) and summarises the timed runs.
Measurement measure(Executor& executor, const Placement& placement, int warmup, int runs);

// A placement against a reference measured in the same rounds: the median of the per-round
// ratios a / reference with its confidence interval; `faster` only when the whole interval is
// below 1 - min_gain (pairing by round cancels the drift the two runs of a round share; a gain
// under 2% is not worth the crossings of a mixed placement, nor told apart from noise reliably).
struct Versus {
  double ratio = 1;
  Interval ci{1, 1};
  bool faster = false;
};
Versus versus(const Measurement& a, const Measurement& reference, double confidence = 0.95, double min_gain = 0.02);

// Re-measures `candidates` beside every single-device placement, in fresh interleaved rounds, and
// takes the candidate with the lowest median. It counts as faster than the best single device
// only when `versus` says so at 95% confidence corrected for the number of candidates
// (Bonferroni), so picking the luckiest of several equal placements does not crown a winner.
struct Confirmation {
  std::size_t best = 0;                   // the candidate with the lowest median
  std::vector<Measurement> measurements;  // per candidate
  int reference_device = -1;              // the single device with the lowest median
  Measurement reference;                  // its measurement, in the same rounds
  Versus versus_reference;                // candidates[best] against it
  bool faster_than_single() const { return versus_reference.faster; }
  // What to use: candidates[best] when it is faster, else every op on the reference device.
  Placement chosen(const std::vector<Placement>& candidates) const;
};
// REQUIRES: candidates not empty (all of one size), runs >= 1, num_devices >= 1.
Confirmation confirm_best(const RunOnce& run, const std::vector<Placement>& candidates, int num_devices, int warmup,
                          int runs);
Confirmation confirm_best(Executor& executor, const std::vector<Placement>& candidates, int warmup, int runs);

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
