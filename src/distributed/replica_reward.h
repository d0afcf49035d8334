// Measured rewards farmed out to replicas of the execution cluster in other processes (issue 15).
// Rank 0 of a process group trains; every other rank is a replica: a `devplace worker` that
// hosts all the cluster's devices on an executor of its own. A batch of placements is spread
// over the replicas, each placement to whichever replica is free next, and their measured
// medians gathered. A replica that dies or stays silent past the group's timeout is dropped and
// its placement handed to another, so nothing measured is lost; with no replica left, the batch
// throws PeerLost (training stops; HSDAG resumes from its last checkpoint). Torch-free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "distributed/process_group.h"
#include "place/reward.h"

namespace devplace {

class ReplicaReward : public Reward {
 public:
  // `setup`: the JSON object every measurement job shares (model, cluster, seed, warm-up and
  // timed runs ...: what the workers' job runner reads); each job adds "placement". `on_lost` is
  // told, in a line, about every replica dropped. REQUIRES: group outlives the reward; rank 0.
  ReplicaReward(ProcessGroup& group, std::string setup, std::function<void(const std::string&)> on_lost = {});
  std::string name() const override { return "measured"; }
  Evaluation evaluate(const Placement& placement) override { return evaluate_batch({placement}).front(); }
  std::vector<Evaluation> evaluate_batch(const std::vector<Placement>& placements) override;

  long long evaluations() const { return evaluations_; }
  double seconds_measuring() const { return seconds_; }  // wall time inside evaluate_batch
  int replicas_alive() const { return static_cast<int>(alive_.size()); }
  const std::vector<std::string>& lost() const { return lost_; }  // why each dropped replica was
  // Tells the replicas still alive to stop (errors ignored: a replica may be gone by now).
  void stop();

 private:
  ProcessGroup& group_;
  std::string setup_;
  std::function<void(const std::string&)> on_lost_;
  std::vector<int> alive_;  // ranks
  std::vector<std::string> lost_;
  long long evaluations_ = 0;
  double seconds_ = 0;
};

}  // namespace devplace
