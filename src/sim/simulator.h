// Simulator: a discrete-event model of one inference of a placed graph.
//
// What it models: each device runs one op at a time; an op becomes ready when every input
// tensor is on its device and waits in that device's queue (first ready, first served; ties go
// to the op with the longer path to the graph's end, then to the smaller name, so the ops'
// numbering in the file does not matter); a tensor crossing devices is sent once per destination device, over the
// directed link between the two, and transfers on one link run one after another (FIFO, the
// link's queue is contention); compute and transfers overlap. Graph inputs and constants
// (initializers, and the outputs of ops the runtime folds: Problem::tensor_resident) are on
// every device at time 0. Memory per device = weights of the ops placed there + live
// activations (an output lives from its producer's start until its last consumer on that
// device ends and its outgoing transfers are done; a copy lives from its transfer's start);
// a device over capacity makes the placement infeasible, naming the device and the amount.
//
// With an execution model in the problem (Problem::execution(), fitted by `devplace calibrate`),
// it schedules as devplace's executor runs instead: each device is a worker thread with a FIFO
// queue of ops and of the copies it performs; an asynchronous device's thread only launches
// kernels, which its stream runs later in launch order; a copy occupies the thread that makes it
// and, with blocking copies, waits for the stream to drain (simulate_executor).
//
// A Simulator keeps scratch buffers: reuse one per thread; it is not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

class Simulator {
 public:
  // REQUIRES: problem outlives the simulator.
  explicit Simulator(const Problem& problem);
  Simulator(Problem&&) = delete;  // it keeps a reference: a temporary Problem would dangle

  // Full schedule: timeline, transfers, busy time, memory. Throws Error if the placement has
  // the wrong size or an out-of-range device.
  Schedule run(const Placement& placement);
  // Makespan only (seconds; +inf if infeasible); the fast path for search and training.
  // Memory is still checked, so an overflowing placement returns +inf.
  double makespan(const Placement& placement);

 private:
  void check(const Placement& p) const;
  // Runs the event loop; fills op_start_/op_end_/transfers_. Returns false if an op cannot run.
  bool simulate(const Placement& p, int& bad_op);
  // The same under the problem's execution model (see above).
  bool simulate_executor(const Placement& p);
  struct Event;
  // Both schedulers' start: empty queues, idle devices, no transfers, each op's inputs to wait
  // for, and the ops that wait for none ready at time 0.
  void start_events();
  // The event loop's common step: pops events, queueing each ready task on its worker
  // (worker_of(task)) and letting the worker take work (dispatch(worker, now)), until a task
  // finishes: returns it with its worker, now idle. False when no event is left.
  template <class WorkerOf, class Dispatch>
  bool next_finish(Event& e, int& worker, const WorkerOf& worker_of, const Dispatch& dispatch);
  // Peak memory per device from the last simulate(); returns true if within every capacity.
  bool memory(const Placement& p, std::vector<std::int64_t>& peak, std::vector<std::int64_t>& overflow, bool exact);

  const Problem& problem_;
  int n_, D_;
  // Static structure in CSR form.
  std::vector<int> in_off_, in_tensor_;    // op -> distinct produced input tensors
  std::vector<int> out_off_, out_tensor_;  // op -> output tensors
  std::vector<int> cons_off_, cons_op_;    // tensor -> consumer ops
  std::vector<int> producer_;              // tensor -> op or -1
  std::vector<std::int64_t> act_bytes_;    // tensor -> bytes, 0 for resident tensors
  std::vector<int> tie_;                   // op -> its place among simultaneous events (lower first)
  // Scratch.
  std::vector<int> pending_;
  std::vector<double> ready_time_, op_start_, op_end_, link_free_, arrival_;
  std::vector<TransferSpan> transfers_;
  struct Event {
    double time;
    int tie;  // tie_[op]
    int op;
    bool ready;  // false: the op finished; true: the op became ready
  };
  struct QueueEntry {
    double ready;
    int tie;
    int op;
  };
  std::vector<Event> events_;
  std::vector<std::vector<QueueEntry>> queues_;
  std::vector<char> busy_;
  // Scratch of simulate_executor: copies (tensor, source, destination, when they arrive), the
  // end of each asynchronous device's stream, the copy made for each destination of a tensor.
  struct Copy {
    int tensor, src, dst;
    double arrival;
  };
  std::vector<Copy> copies_;
  std::vector<double> stream_free_, worker_free_;  // per device: its stream's end, its thread's last task end
  std::vector<int> copy_for_dst_;
  std::vector<int> inline_first_, inline_end_;  // op -> the copies_ its own thread enqueued
  std::vector<std::int64_t> mem_weights_, mem_upper_, peak_scratch_, overflow_scratch_;
};

}  // namespace devplace
