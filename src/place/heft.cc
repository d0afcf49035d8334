// HEFT, Heterogeneous Earliest Finish Time (Topcuoglu, Hariri and Wu, IEEE TPDS 2002).
//
// 1. Upward rank, in reverse topological order:
//      rank(v) = w(v) + max over data edges v -> s of (c(v, s) + rank(s))
//    w(v) = mean of op_time(v, d) over the devices that can run v (0 if none can);
//    c(v, s) = mean, over ordered pairs of distinct devices, of the time to move every tensor
//    of the edge (EdgeCosts::mean_cost).
// 2. Ops in decreasing rank (ties: lower depth, the longest path from a source in ops, then
//    name; ranks never increase along an edge and depth grows along one, so this order respects
//    precedence, and it does not depend on how the ops are numbered). Each goes to the device
//    with the earliest finish time, insertion-based: its start on d is the earliest moment >= its
//    data-ready time at which an idle gap on d (between already scheduled ops, or after the last)
//    is long enough.
//    Data-ready on d = max over producers u of finish(u) + edge cost from u's device to d
//    (no link contention in HEFT's own model; the simulator judges the real schedule).
//    Ties in finish time go to the device its successors run fastest on (successor_affinity),
//    then the lower device index. Devices where the op is infeasible (+inf) are skipped; an op
//    no device can run goes to device 0 with zero duration (the simulator reports it).
// Under an execution model (a calibrated cost table) an op's time is its task's on the
// executor's worker (Problem::task_time) and a run that would find its device idle starts after
// the worker's wake-up (Problem::wake_time), the costs the simulator then charges.
// HEFT ignores memory limits, as the original does. Cost: O(n^2 D) worst case for the gap
// search, O(E D) for the rest; about a millisecond for 1000 ops.
#include <algorithm>
#include <numeric>

#include "place/list_schedule.h"
#include "place/placer.h"

namespace devplace {

namespace {

struct Slot {
  double start, end;
};

// Earliest start >= ready of a `len`-long run in the gaps of `slots` (sorted by start), `wake`
// later where the device would be idle just before it. Returns the start and, in `pos`, where
// the new slot goes to keep the list sorted.
double earliest_gap(const std::vector<Slot>& slots, double ready, double len, double wake, std::size_t& pos) {
  double prev_end = 0;
  auto start_after = [&](double free) { return ready > free ? ready + wake : free; };
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const double start = start_after(prev_end);
    if (start + len <= slots[k].start) {
      pos = k;
      return start;
    }
    prev_end = std::max(prev_end, slots[k].end);
  }
  pos = slots.size();
  return start_after(prev_end);
}

class Heft : public Placer {
 public:
  std::string name() const override { return "heft"; }

  Placement place(const Problem& p, const PlaceOptions&) override {
    const int n = p.num_ops(), D = p.num_devices();
    const EdgeCosts edges(p);

    const std::vector<double> rank = upward_ranks(p, edges);
    const Graph& g = p.graph();
    const std::vector<int> depth = g.depths();
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      if (rank[a] != rank[b]) return rank[a] > rank[b];
      if (depth[a] != depth[b]) return depth[a] < depth[b];
      return g.op(a).name < g.op(b).name;
    });

    Placement device(n, 0);
    std::vector<double> finish(n, 0.0);
    std::vector<std::vector<Slot>> slots(D);
    for (int v : order) {
      int best = -1;
      double best_start = 0, best_end = 0, best_aff = 0;
      std::size_t best_pos = 0;
      for (int d = 0; d < D; ++d) {
        const double len = p.task_time(v, d, p.op_time(v, d));
        if (len == kInfeasibleTime) continue;
        std::size_t pos = 0;
        const double start = earliest_gap(slots[d], edges.data_ready(v, d, device, finish), len, p.wake_time(d), pos);
        const double end = start + len;
        if (best >= 0 && end > best_end) continue;
        const double aff = successor_affinity(p, edges, v, d);
        if (best >= 0 && end == best_end && aff >= best_aff) continue;
        best = d;
        best_start = start;
        best_end = end;
        best_aff = aff;
        best_pos = pos;
      }
      if (best < 0) {  // no device can run v: keep it out of every timeline
        device[v] = 0;
        finish[v] = edges.data_ready(v, 0, device, finish);
        continue;
      }
      device[v] = best;
      finish[v] = best_end;
      slots[best].insert(slots[best].begin() + static_cast<std::ptrdiff_t>(best_pos), Slot{best_start, best_end});
    }
    return device;
  }
};

}  // namespace

std::unique_ptr<Placer> make_heft_placer() { return std::make_unique<Heft>(); }

}  // namespace devplace
