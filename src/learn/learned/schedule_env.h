// The decision process of devplace's own learned placer (learn/learned/list_policy.h): a list scheduler
// whose device choices a policy makes. Ops are visited in HEFT's order (the highest upward rank
// among the ops whose producers are placed; ties by name, so renumbering a graph's ops changes
// nothing); for the op at hand the environment builds one feature row per
// device from the partial schedule, the policy scores every row with one shared network, and
// the op goes to the chosen device. Nothing in a row names the op or the device, so a policy
// trained on some graphs and clusters applies to any other (any size, any number of devices).
//
// The partial schedule is the scheduler's own estimate (HEFT's model without insertion: each
// device runs its ops one after another in decision order, a transfer costs its link time and,
// under the simulator objective, waits for the copies queued on its link before it, as the
// simulator's links do: with many crossings the estimate otherwise runs well ahead of the
// simulated schedule);
// the reward comes from the simulator afterwards. Constants (folded ops) take no decision: they
// are on every device. Torch-free, so other front ends (Python) can drive it as well.
//
// Under the latency model of Tarnawski et al. (Objective::tarnawski) a decision places a unit:
// ops that must share a device (a colour class, and what joins them in a cycle; coarsen.h
// with only co-location) go together, units are visited in a topological order of their DAG
// (highest rank first), and a device is allowed only when the placement can still be completed
// feasibly (learn/representation/contiguity_mask.h: contiguous, acyclic accelerator sets within memory). Every
// placement the environment produces is then feasible by construction.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cost/cost_model.h"
#include "learn/representation/contiguity_mask.h"
#include "place/list_schedule.h"
#include "sim/schedule.h"

namespace devplace {

class ScheduleEnv {
 public:
  // Per device: time ratio to the fastest device, finish / ready / queue gaps to the best
  // device, transfer delay, share of producers there, fusion with the producer there, busy and
  // memory shares, best-finish and fastest flags, progress, upward rank, op time, device kind
  // (cpu, gpu, accel), how much slower the op's consumers run there than on their fastest
  // device, and whether a consumer would join its kernel there (fusion).
  static constexpr int kFeatures = 19;

  // REQUIRES: problem outlives the environment; under tarnawski, problem has a host (cpu) device
  // and at most 64 devices.
  explicit ScheduleEnv(const Problem& problem, Objective objective = Objective::simulator);

  // Starts a new episode; ops not yet placed.
  void reset();
  bool done() const { return step_ >= static_cast<int>(decisions_.size()); }
  // Decisions per episode (ops that are not constants; under tarnawski, units).
  int num_decisions() const { return static_cast<int>(decisions_.size()); }
  int num_devices() const { return D_; }
  // The op to place now (under tarnawski: its unit's op of highest rank). REQUIRES !done().
  int current_op() const { return decisions_[step_]; }
  // Every decision's op, in decision order (fixed for a problem: it does not depend on the choices).
  const std::vector<int>& decision_ops() const { return decisions_; }
  // Features of the current op on every device, [num_devices() x kFeatures] row-major, and
  // which devices are allowed (the op runs there and, where memory is limited, fits; when no
  // device fits, those that can run it; when none can, device 0).
  void observe(float* features, std::uint8_t* allowed) const;
  // Static features of every op, [num_ops x kOpFeatures] row-major, for a network that reads the
  // graph around the op at hand (ListPolicy's context): its fastest time, how much slower its
  // slowest device is, its upward rank, the mean cost of moving its outputs, its numbers of
  // producers and consumers (log scale, time in the environment's unit), and whether it takes a
  // decision (constants do not).
  static constexpr int kOpFeatures = 7;
  std::vector<float> op_features() const;
  // The allowed device with the earliest estimated finish (ties: lower index): HEFT's choice
  // without insertion, the teacher of the imitation stage.
  int earliest_finish_device() const;
  // Places the current op (its unit) on `device` and advances. REQUIRES !done(), 0 <= device < D.
  void step(int device);
  // The placement so far (complete once done(); constants sit on device 0).
  const Placement& placement() const { return device_; }
  // The estimated schedule so far: when op v finishes (seconds; 0 for constants and ops not yet
  // placed) and v's kernel time on d given the placement so far (with fusion). What the learned
  // move policy reads of a complete placement (learn/learned/move_features.h).
  double finish_time(int v) const { return finish_[v]; }
  // Under an execution model, the task's time as the executor spends it (Problem::task_time).
  double kernel_time(int v, int d) const;
  const EdgeCosts& edges() const { return edges_; }
  // The scale of time features: the mean over ops of their fastest time (seconds).
  double time_unit() const { return unit_; }

 private:
  struct Candidate {
    double time, ready, start, finish;
    bool runs, fits;
  };
  void evaluate_current() const;  // fills cand_ for the current op
  bool is_allowed(int d) const;   // REQUIRES evaluate_current()
  void commit(int v, int d, double start, double time);
  // Under the simulator objective: when op v's inputs are all on device d, the copies from
  // other devices queued on their links behind earlier copies (first come, first served, in
  // the order their producers finish), each producer's data sent to a device once. With
  // `book`, books the copies (links busy, data present on d).
  double linked_ready(int v, int d, bool book) const;
  double start_time(int d, double ready) const;  // when a task ready at `ready` starts on d
  bool decides_first(int a, int b) const;   // the decision order: rank, then name
  void order_units(const Graph& g);  // tarnawski: units_, decisions_ and contiguity_

  const Problem& p_;
  int n_, D_;
  EdgeCosts edges_;
  std::vector<int> decisions_;  // ops in decision order
  // Tarnawski only: per decision, the unit's index and its ops (leader first, then in op order),
  // and the feasibility mask over units.
  std::vector<int> unit_of_decision_;
  std::vector<std::vector<int>> unit_ops_;
  std::optional<ContiguityMask> contiguity_;
  std::vector<double> rank_;    // upward rank, seconds
  double unit_ = 1;             // seconds: mean fastest op time, the scale of time features
  std::vector<char> kind_cpu_, kind_gpu_;
  // Episode state.
  int step_ = 0;
  Placement device_;
  std::vector<double> finish_, avail_, busy_;
  // Simulator objective: per directed link (source x destination) when it is free, and per
  // (producer, device) when the producer's data arrived there (-1: not sent).
  bool links_ = false;
  mutable std::vector<double> link_free_, arrival_;
  mutable std::vector<int> sends_;       // linked_ready's scratch: in-edges whose data must cross
  mutable std::vector<double> free_;     // linked_ready's scratch: per source, when its link to d is free
  std::optional<MemoryLedger> ledger_;  // rebuilt by reset()
  mutable std::vector<Candidate> cand_;
  mutable int cand_for_ = -1;
};

}  // namespace devplace
