// The decision process of devplace's own learned placer (learn/learned/list_policy.h): a list scheduler
// whose device choices a policy makes. Among the ops whose producers are placed, the next is the
// one whose inputs are made first (its producers' latest estimated finish), ties to the highest
// upward rank, then the name (so renumbering a graph's ops changes nothing): the order the
// simulator meets the ops in, which makes the estimate below follow the simulated schedule on
// multi-branch graphs. For the op at hand the environment builds one feature row per
// device from the partial schedule, the policy scores every row with one shared network, and
// the op goes to the chosen device. Nothing in a row names the op or the device, so a policy
// trained on some graphs and clusters applies to any other (any size, any number of devices).
//
// The partial schedule is the scheduler's own estimate of the simulator's: a device runs one op
// at a time and a link one copy at a time; an op or copy takes the first idle gap from when it
// is ready that holds it (insertion: the simulator's devices and links never wait while work is
// ready); a producer's data crosses to a device once. Under an execution model (a fitted cost
// table) a copy between two host devices is a task of the destination's worker, as the executor
// runs it, and a task after an idle gap starts its worker's wake-up later. The reward comes from
// the simulator afterwards. Constants (folded ops) take no decision: they
// are on every device. Torch-free, so other front ends (Python) can drive it as well.
//
// Under the latency model of Tarnawski et al. (Objective::tarnawski) the estimate is HEFT's
// model without insertion (a device runs its ops in decision order, a transfer costs its link
// time, links have no queue), and a decision places a unit:
// ops that must share a device (a colour class, and what joins them in a cycle; coarsen.h
// with only co-location) go together, units are visited in a topological order of their DAG
// (highest rank first; with the cut-point features below, the cheapest of three orders to cut),
// and a device is allowed only when the placement can still be completed
// feasibly (learn/representation/contiguity_mask.h: contiguous, acyclic accelerator sets within memory). Every
// placement the environment produces is then feasible by construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cost/cost_model.h"
#include "learn/learned/live_memory.h"
#include "learn/representation/contiguity_mask.h"
#include "place/list_schedule.h"
#include "place/tarnawski_segments.h"
#include "sim/schedule.h"

namespace devplace {

class ScheduleEnv {
 public:
  // Per device: time ratio to the fastest device, finish / ready / queue gaps to the best
  // device, transfer delay, share of producers there, fusion with the producer there, busy and
  // memory shares, best-finish and fastest flags, progress, upward rank, op time, device kind
  // (cpu, gpu, accel), how much slower the op's consumers run there than on their fastest
  // device, whether a consumer would join its kernel there (fusion), and the finish plus the
  // optimistic cost of the ops after it (PEFT's lookahead, place/list_schedule.h) to the best
  // device's, with a flag for the devices where that sum is least, and rollout_device's value of
  // each device (the makespan of its episodes; under tarnawski the cost-to-go of its cut) to the
  // best device's, with a flag for its choice (the two lookahead ones 0 under tarnawski; the last
  // two 0 unless the constructor asks for them).
  static constexpr int kFeatures = 23;

  // REQUIRES: problem outlives the environment; under tarnawski, problem has a host (cpu) device
  // and at most 64 devices. rollout_features: observe() fills the two rollout features, which
  // costs 3 D partial episodes per observation (about 100 times the rest; under tarnawski a
  // look-up per device and the current run's growth, after the cost-to-go tables of three orders,
  // made once per environment and shared by its copies); without, they are 0 (for a policy that
  // does not read them, and for fast environments).
  explicit ScheduleEnv(const Problem& problem, Objective objective = Objective::simulator,
                       bool rollout_features = false);

  // Starts a new episode; ops not yet placed.
  void reset();
  bool done() const { return step_ >= static_cast<int>(decisions_.size()); }
  // Decisions per episode (ops that are not constants; under tarnawski, units).
  int num_decisions() const { return static_cast<int>(decisions_.size()); }
  int num_devices() const { return D_; }
  // The op to place now (under tarnawski: its unit's op of highest rank). REQUIRES !done().
  int current_op() const { return decisions_[step_]; }
  // Every decision's op in this episode's decision order: the ops decided so far, then the rest
  // (under the simulator objective in no particular order: the order follows the choices, so it
  // is final only once done()); under tarnawski it is fixed for a problem.
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
  // The allowed device with the earliest estimated finish (ties: lower index).
  int earliest_finish_device() const;
  // The allowed device with the least finish plus optimistic cost (PEFT's choice; ties: lower
  // index). Under tarnawski, whose sets the table does not model (it made worse choices there),
  // the earliest-finish choice.
  int lookahead_device() const;
  // The teacher of the imitation stage: the allowed device where placing the current op, then the
  // next kRolloutHorizon decisions by a base rule (the lookahead choice; staying on that device
  // where allowed; HEFT's device for the op where allowed, else the lookahead choice; the least
  // counts), gives the least estimated makespan, each placed op's finish plus its optimistic cost
  // standing for the ops beyond the horizon. Ties to the lookahead choice, then the lower index.
  // Costs 3 D copies of the episode per decision.
  // Under tarnawski the decisions so far are runs of the unit order (place/tarnawski_segments.h),
  // and each allowed device is valued by the least serial cost of the rest if the unit goes there:
  // keeping the current run going, or ending it and starting one on the host or on an accelerator
  // not used yet, then the cheapest cuts of the units after (cost-to-go tables made once per
  // environment and shared by its copies; they take later accelerators as alike). An accelerator
  // used before that the mask still allows is valued +inf. The least wins, ties to the lower
  // index. Nothing is evaluated but that bound: a choice costs a look-up per device (a scan of
  // the units left on clusters too large for the tables), and each unit is scanned once per run
  // it ends up in. docs/design/learned.md says why.
  int rollout_device() const;
  static constexpr int kRolloutHorizon = 32;
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
  void evaluate_rollouts() const;  // fills rollout_ for the current op (simulator objective)
  void evaluate_cuts() const;      // fills rollout_ for the current unit (tarnawski)
  void build_cuts() const;         // tarnawski: cuts_ and scan_
  const Placement& heft_placement() const;  // simulator objective: heft_, made on first need
  // Simulator objective: follow's device for the current op where allowed, else the lookahead choice.
  int follow_or_lookahead(const Placement& follow) const;
  bool is_allowed(int d) const;   // REQUIRES evaluate_current()
  void commit(int v, int d, double start, double time);
  // Under the simulator objective: when op v's inputs are all on device d, each copy from
  // another device taking the first gap on its link from when its producer finishes (in the
  // order the producers finish), each producer's data sent to a device once. With `book`,
  // books the copies (links busy, data present on d).
  double linked_ready(int v, int d, bool book) const;
  double start_time(int d, double ready) const;  // when a task ready at `ready` starts on d
  // Under an execution model on an asynchronous device d: the seconds of op v's kernel on d's
  // stream, which its task time includes after the launch (0 elsewhere); and when a kernel of
  // `kernel` seconds launched at `launched` ends, queued behind the stream's earlier kernels.
  double stream_part(int v, int d) const;
  double kernel_end(int d, double launched, double kernel) const;
  // Takes back the copies that linked_ready booked without `book` (after the caller has placed
  // the op among them).
  void unbook_copies() const;
  struct Interval {
    double start, end;
  };
  // The earliest start at or after `ready` of a task of `length` on a timeline of disjoint
  // intervals sorted by start, in the first idle gap that holds it, `wake` later where the
  // timeline would be idle just before it.
  static double earliest_slot(const std::vector<Interval>& timeline, double ready, double length, double wake);
  // Books [start, end) on the timeline; false (nothing booked) when it takes no time.
  static bool occupy(std::vector<Interval>& timeline, double start, double end);
  bool decides_first(int a, int b) const;   // rank, then name
  void order_units(const Graph& g);  // tarnawski: units_, decisions_ and contiguity_

  const Problem& p_;
  int n_, D_;
  bool rollout_features_;
  // Fixed per problem and shared by every copy of an environment, so that a rollout's copies do
  // not copy them (the transfer costs alone are E x D x D) and the memory ledger's reference to
  // the edges holds in every copy.
  struct Tables {
    EdgeCosts edges;
    std::vector<double> rank;  // upward rank, seconds
    std::vector<double> oct;   // PEFT's optimistic cost table [n x D], seconds; empty under tarnawski
  };
  std::shared_ptr<const Tables> tables_;
  const EdgeCosts& edges_;
  const std::vector<double>& rank_;
  const std::vector<double>& oct_;
  std::vector<int> decisions_;  // ops in decision order
  std::vector<int> rank_order_;  // simulator objective: the ops by rank, where each episode starts
  // Tarnawski only: per decision, the unit's index and its ops (leader first, then in op order),
  // and the feasibility mask over units.
  std::vector<int> unit_of_decision_;
  std::vector<std::vector<int>> unit_ops_;
  std::optional<ContiguityMask> contiguity_;
  // Op v's row of oct_, or nullptr without one.
  const double* oct_row(int v) const { return oct_.empty() ? nullptr : &oct_[static_cast<std::size_t>(v) * D_]; }
  // The allowed device of least estimated finish plus `extra` (per device; nullptr: none), ties to
  // the lower index; device 0 when none is allowed.
  int least_allowed(const double* extra) const;
  double unit_ = 1;             // seconds: mean fastest op time, the scale of time features
  std::vector<char> kind_cpu_, kind_gpu_;
  // Episode state.
  int step_ = 0;
  Placement device_;
  std::vector<double> finish_, avail_, busy_;
  // Per op, when its worker is done with it: its finish, but on an asynchronous device under an
  // execution model its launch, after which the device's later ops may be launched (their
  // kernels queue behind its kernel on the device's stream, which is free from stream_free_).
  std::vector<double> launched_, stream_free_;
  // Simulator objective with several devices: decisions in the order the inputs are made, ops
  // and copies into the first gap that holds them, copies on their links (link_busy_; under an
  // execution model, one between host devices on the destination's worker), a task after an idle
  // gap its worker's wake-up later; and per (producer, device) when the producer's data arrived
  // there (arrival_, -1: not sent).
  bool links_ = false;
  mutable std::vector<double> arrival_;
  // Per directed link (source x destination) and per device: the intervals it is busy.
  mutable std::vector<std::vector<Interval>> device_busy_;
  mutable std::vector<std::vector<Interval>> link_busy_;
  mutable std::vector<int> sends_;       // linked_ready's scratch: in-edges whose data must cross
  // linked_ready's scratch: (timeline, start) to undo; a timeline is a link, or -1 - d for device d's worker
  mutable std::vector<std::pair<int, double>> booked_;
  std::optional<MemoryLedger> ledger_;  // rebuilt by reset()
  // Where the ledger's bound (nothing released) finds no room: the bound no timing can break.
  std::optional<LiveMemoryBound> live_fresh_, live_;
  std::vector<char> decides_;  // per op: takes a decision (under tarnawski, with its unit)
  // With links_, the decision order follows the estimated schedule.
  struct Ready {
    double made;  // when the op's inputs are made: its producers' latest finish
    int op;
  };
  std::vector<int> waiting_;     // per op: producers not decided yet
  std::vector<Ready> frontier_;  // a heap of the ops whose producers are all decided (goes_after)
  std::vector<int> position_;    // per op: its index in decisions_
  void enter_frontier(int v);    // REQUIRES every producer of v decided
  bool goes_after(const Ready& a, const Ready& b) const;  // made later, else decides_first(b, a)
  // Moves to decisions_[step_] the frontier's op whose inputs are made first, ties by decides_first.
  void advance_order();
  mutable std::vector<Candidate> cand_;
  mutable int cand_for_ = -1;
  // The latest estimated finish plus optimistic cost of any op placed so far (simulator objective):
  // what a rollout's episode is worth, the table standing in for the ops not placed yet.
  double horizon_ = 0;
  // Per device: the estimated makespan of the rollout that places the current op there
  // (kInfeasibleTime where not allowed), for decision rollout_for_.
  mutable std::vector<double> rollout_;
  mutable int rollout_for_ = -1;
  // Tarnawski: the units in decision order cut into runs (place/tarnawski_segments.h). The
  // cost-to-go of cutting the units from each decision on, with k accelerators used, and each
  // device's accelerator index (-1 for the host): fixed per problem and shared by copies, built
  // by the constructor when the rollout features are asked for, else on the first need. The scan
  // is scratch, one per environment.
  struct Cuts {
    SegmentCostToGo cost;
    std::vector<int> acc_index;  // per device
  };
  // Simulator objective: HEFT's placement, the rollouts' third base (empty where HEFT fails);
  // made by the constructor when the rollout features are asked for, else on the first need,
  // and shared by copies.
  mutable std::shared_ptr<const Placement> heft_;
  mutable std::shared_ptr<const Cuts> cuts_;
  mutable std::optional<SegmentScan> scan_;
  // The run the decisions so far end with, scanned once as it grows: its first decision, device
  // and the accelerators used with it (-1: none yet), and its cost ending at each unit from its
  // first (run_cost_[l - run_start_]).
  mutable std::optional<SegmentScan> run_scan_;
  mutable int run_start_ = -1, run_device_ = -1, run_used_ = -1;
  mutable std::vector<double> run_cost_;
};

}  // namespace devplace
