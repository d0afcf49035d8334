// Shared pieces of the list-scheduling placers (heft.cc, baechi.cc): the op-to-op data edges
// with their transfer time for every device pair, and a memory ledger that mirrors the
// simulator's memory upper bound. Both are built once per place() call from a Problem and are
// read-only afterwards except for the ledger's commit(); neither is thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "cost/cost_model.h"
#include "sim/schedule.h"

namespace devplace {

// A data edge u -> v carries every distinct tensor that u produces and v consumes (as the
// simulator does: tensors of graph inputs and initializers, producer -1, are never edges).
// The cost of an edge between devices s and d is the sum of the transfer times of its tensors
// (the simulator sends them one after another on the s -> d link).
class EdgeCosts {
 public:
  explicit EdgeCosts(const Problem& problem);

  int num_edges() const { return static_cast<int>(src_.size()); }
  // Edges into op v are [in_begin(v), in_end(v)); an edge index e names producer src(e).
  int in_begin(int v) const { return in_off_[v]; }
  int in_end(int v) const { return in_off_[v + 1]; }
  int src(int e) const { return src_[e]; }
  int dst(int e) const { return dst_[e]; }
  // Edges out of op u, as edge indices: out_edges()[out_begin(u) .. out_begin(u + 1)).
  int out_begin(int u) const { return out_off_[u]; }
  int out_end(int u) const { return out_off_[u + 1]; }
  int out_edge(int k) const { return out_edge_[k]; }
  // Tensors of edge e: tensor(k) for k in [tensor_begin(e), tensor_end(e)).
  int tensor_begin(int e) const { return tensor_off_[e]; }
  int tensor_end(int e) const { return tensor_off_[e + 1]; }
  int tensor(int k) const { return tensor_[k]; }
  // Seconds to move the tensors of edge e from device s to device d (0 when s == d).
  double cost(int e, int s, int d) const { return cost_[(static_cast<std::size_t>(e) * D_ + s) * D_ + d]; }
  // Mean of cost(e, s, d) over ordered pairs of distinct devices (0 with one device).
  double mean_cost(int e) const { return mean_[e]; }
  // Largest arrival time of op v's inputs on device d, given where and when its producers
  // finished. REQUIRES every producer of v placed (device[u] valid, finish[u] set).
  double data_ready(int v, int d, const Placement& device, const std::vector<double>& finish) const;

 private:
  int D_;
  std::vector<int> in_off_, src_, dst_, out_off_, out_edge_, tensor_off_, tensor_;
  std::vector<double> cost_, mean_;
};

// Memory bookkeeping for memory-aware placers. Placing op v on device d charges d with
//   weight_bytes(v) + bytes of v's non-resident output tensors
//   + bytes of every input tensor produced on another device that d does not hold yet
// and nothing is ever released. This is exactly the simulator's "upper" bound (weights + every
// activation + every received copy, see Simulator::memory), so a placement made without a
// fallback() is always memory-feasible in the simulator.
class MemoryLedger {
 public:
  MemoryLedger(const Problem& problem, const EdgeCosts& edges);

  // Bytes placing op v on d would add, given the devices of v's (already placed) producers.
  std::int64_t need(int v, int d, const Placement& device) const;
  // True if d has no capacity limit or the need fits in what is left.
  bool fits(int v, int d, const Placement& device) const;
  // Charges d for v. REQUIRES v's producers placed.
  void commit(int v, int d, const Placement& device);
  // Bytes left on d; INT64_MAX for an unlimited device (may be negative after a fallback).
  std::int64_t free_bytes(int d) const;
  // When no device has room for v: the device with the most free memory among those that can
  // run v (among all devices if none can); ties to the lower index.
  int fallback(int v) const;

 private:
  const Problem& problem_;
  const EdgeCosts& edges_;
  int D_;
  std::vector<std::int64_t> used_, own_bytes_;
  std::vector<char> present_;  // tensor * D + device: a copy of the tensor is charged there
};

// Tie-break between devices that give an op the same start and finish: the summed time of the
// op's successors on d (an infeasible successor counts as a large constant), so a zero-time
// op such as a Reshape follows the device its consumers prefer. Lower is better.
double successor_affinity(const Problem& problem, const EdgeCosts& edges, int v, int d);

// HEFT's upward rank of every op (seconds), in reverse topological order:
//   rank(v) = w(v) + max over data edges v -> s of (c(v, s) + rank(s))
// w(v) = mean of op_time(v, d) over the devices that can run v (0 if none can); c = the edge's
// mean transfer cost over ordered pairs of distinct devices (EdgeCosts::mean_cost).
std::vector<double> upward_ranks(const Problem& problem, const EdgeCosts& edges);

// The optimistic cost table of PEFT (Arabnejad and Barbosa, IEEE TPDS 2014), [n x D] row-major:
//   oct(v, d) = max over data edges v -> s of min over devices d' that run s of
//               oct(s, d') + op_time(s, d') + (edge cost from d to d'),   0 at the exits:
// how long the longest path after v still takes at best when v runs on d, every later op on its
// best device and no device ever busy. Under an execution model op_time is what the worker
// spends on the op (Problem::task_time), so that the table stays a lower bound of every schedule. A list scheduler that minimises finish + oct looks past
// the op at hand (e.g. a tail op that is quick on the CPU but leaves its consumers there).
std::vector<double> optimistic_costs(const Problem& problem, const EdgeCosts& edges);

// Index of the first device that can run op v, or 0 if none can.
int first_feasible_device(const Problem& problem, int v);

}  // namespace devplace
