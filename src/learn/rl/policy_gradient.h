// The policy-gradient core shared by HSDAG and the learned peers: what a sampled placement is
// worth, the advantages one batch of samples gives, and the schedule of the entropy bonus.
// Torch-free; the clipped update itself is in ppo.h.
//
// Why it looks like this (docs/design/hsdag.md, "Why the policy used to collapse"):
//  - Advantages are centred on the batch (the batch mean is the baseline), so when every
//    sample of a nearly deterministic policy gets the same reward, every advantage is 0: no
//    shared offset pushes all samples one way (a moving-average baseline lags the batch and,
//    divided by a vanishing batch spread, pushes full-size steps in one direction).
//  - They are divided by the batch's spread only down to a floor, so a converged batch gives
//    small steps, not noise blown up to full size.
//  - Infeasible placements score below every feasible one and are ranked by how far they are
//    from feasible (Evaluation::violation), so a batch of only infeasible samples still says
//    which way feasibility lies.
#pragma once

#include <cmath>
#include <vector>

#include "place/reward.h"

namespace devplace {

enum class RewardKind {
  speedup,  // reference latency / latency: unitless, comparable across graphs
  inverse   // 1 ms / latency (the paper's released code)
};

// The reward of one evaluation. Feasible: positive (speed-up over `reference` seconds, or
// 1 ms / latency). Infeasible: -penalty * (1 + violation), below every feasible reward.
double placement_reward(const Evaluation& e, double reference, RewardKind kind, double penalty);

// (reward - batch mean) / max(batch standard deviation, floor); all zeros for a batch of equal
// rewards. REQUIRES: floor > 0.
std::vector<float> centred_advantages(const std::vector<double>& rewards, double floor);

// The settings of the update every learner shares.
struct PolicyGradientOptions {
  double advantage_floor = 0.02;  // in reward units (speed-up: 2% of the best single device)
  // Entropy bonus per decision, falling linearly from start to end over the first
  // `entropy_decay_share` of the run and held at end after, so that the policy explores first
  // and then has time to settle on its own answer.
  double entropy_start = 0.02, entropy_end = 0.0, entropy_decay_share = 1.0;
  int update_epochs = 4;  // optimiser steps per batch (PPO); 1 = plain REINFORCE
  // The learning rate falls linearly to lr * lr_end_share at the end of the run: a policy that
  // has settled gets small steps (Adam's steps grow after a quiet spell of tiny gradients).
  double lr_end_share = 1.0;
  // Training stops early once the policy has settled: the entropy bonus has reached its end
  // value and the mean entropy per decision stayed below this for `patience` episodes. A
  // settled policy only samples its own answer again: further evaluations teach it nothing.
  double settled_entropy = 0;  // 0 = never stop early
  // Or settled (the bonus at its end too) when the batch's mean latency stayed within this share
  // of the best sampled for `patience` episodes: the entropy left is on decisions that move the
  // latency by less than that (ops whose device hardly matters), which no batch resolves. 0 = off.
  double settled_gap = 0;
  int patience = 20;
  double clip = 0.2;        // PPO ratio clip, per decision
  double target_kl = 0.02;  // stop a batch's steps once the mean KL per decision exceeds it
  // Instead of the fixed schedule: the bonus weight adapts after every episode so that the
  // mean entropy per decision follows a target falling linearly from the first episode's
  // entropy to 0 over `entropy_decay_share` of the run (EntropyBonus); entropy_start is the
  // first weight, and the bonus is entropy_end once the target is 0.
  bool entropy_target = false;
  // Per episode the weight is multiplied by exp(rate x (target - entropy) / first entropy).
  double entropy_rate = 0.25;
  // And the weight used is that times exp(gain x the same error): a proportional term beside
  // the accumulated one, so that the bonus answers an entropy that collapses or overshoots at
  // once instead of after the accumulated weight has wound up. 0 = the accumulated weight alone.
  double entropy_gain = 0.0;
};

// The entropy weight for episode `episode` (0-based) of `episodes`.
double entropy_weight_at(const PolicyGradientOptions& o, int episode, int episodes);
// The share of the base learning rate for episode `episode` of `episodes`.
double lr_share_at(const PolicyGradientOptions& o, int episode, int episodes);
// True from the episode on which the entropy schedule has ended (the fixed bonus is at its end
// value; under entropy_target, the target entropy is 0).
bool entropy_decay_done(const PolicyGradientOptions& o, int episode, int episodes);

// The entropy bonus of each episode: entropy_weight_at's fixed schedule, or under
// entropy_target a weight that tracks the target entropy, as soft actor-critic tunes its
// temperature. A fixed bonus small against the unit-scaled advantages lets a policy settle long
// before its schedule ends; a large one keeps many-device policies random for too long.
// Tracking the target holds exploration to the schedule on both.
class EntropyBonus {
 public:
  explicit EntropyBonus(const PolicyGradientOptions& o);
  // The weight for episode `episode` (0-based) of `episodes`.
  double weight(int episode, int episodes) const;
  // After episode `episode`, whose mean entropy per decision was `entropy`: the next weight.
  void observe(double entropy, int episode, int episodes);
  // The target entropy per decision for episode `episode` (0 before the first observation).
  double target(int episode, int episodes) const;

 private:
  PolicyGradientOptions o_;
  double weight_;
  double error_ = 0;  // the last observed error (entropy_gain)
  double first_ = -1;  // the first episode's entropy per decision
};

// Counts the episodes in a row the policy has been settled (see settled_entropy).
class SettledWatch {
 public:
  explicit SettledWatch(const PolicyGradientOptions& o) : o_(o) {}
  // After episode `episode` of `episodes` with this mean entropy per decision, the batch's mean
  // latency and the best sampled so far (any unit; NaN: unknown): true = stop.
  bool settled(double entropy, int episode, int episodes, double mean_latency = std::nan(""),
               double best_latency = std::nan(""));

 private:
  PolicyGradientOptions o_;
  int run_ = 0;
};

}  // namespace devplace
