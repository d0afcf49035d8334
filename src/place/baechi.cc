// Baechi's memory-constrained placers (Jeon et al., "Baechi: Fast Device Placement of Machine
// Learning Graphs", SoCC 2020): m-TOPO, m-ETF and m-SCT. What is implemented here, precisely:
//
// Memory (all three). Placing op v on device d charges d with weight_bytes(v) + the bytes of
// v's non-resident output tensors + the bytes of each input tensor produced on another device
// that d does not already hold (one copy per tensor and device); nothing is ever released
// (MemoryLedger in list_schedule.h). This equals the simulator's memory upper bound, so a
// placement that never needed a fallback is memory-feasible in the simulator. A device whose
// capacity (memory_bytes, 0 = unlimited) the charge would exceed is skipped; if no device that
// can run v has room, v goes to the device with the most free memory (preferring devices that
// can run it) and placement continues; the simulator then reports the overflow.
// Devices where op_time is +inf are never chosen unless no device can run the op (then the
// fallback above picks one and the simulator reports it).
//
// m-TOPO. Per-device compute share: with S_d = total time of all ops on d (an op d cannot run
// counts its fastest time), every device gets the same amount of its own time,
// T = 1 / sum_d (1 / S_d), i.e. a speed-proportional split (T = S / D for identical devices).
// Ops are walked in topological order and go to the current device c (cluster order) until c
// has received T seconds of work, then c moves to the next device (the last one takes the
// rest). An op c cannot run goes to the next device after c (cyclically) that can and has
// room, without moving c; an op c can run but has no memory room for moves c on (c is full;
// the last device is never left, later ops then search the others cyclically from it).
//
// m-ETF. Earliest-task-first list scheduling: among all ready ops (every producer placed) and
// every device that can run the op and has memory room, pick the pair with the earliest start,
// then the earliest finish, then the lower op index; for one op, equal pairs go to the device
// its successors run fastest on, then the lower index. start = max(device free time, data
// arrival), data arrival = max over producers of finish + edge transfer time (non-insertion;
// no link contention in this model).
//
// m-SCT. Small-communication-time favourite children without an LP: for each data edge u -> v,
// c(u, v) = mean transfer time over ordered device pairs; the edge qualifies when c(u, v) > 0
// and c(u, v) >= v's fastest op time (communication dominates the child's computation, the
// regime in which Baechi's SCT co-locates). Edges are taken greedily in decreasing c (ties:
// lower edge index) so that every op has at most one favourite child and is the favourite of
// at most one parent. Then m-ETF runs with one change: when a favourite child v of parent u
// would go to a device d* other than u's device du, and du can run v and has room, v takes du
// instead if start(v, du) - start(v, d*) <= transfer time of the u -> v edge from du to d*
// (the delay is paid for by the transfer it saves).
//
// All three are deterministic; m-ETF and m-SCT cost O(n * R * D) for R ready ops on average.
#include <algorithm>
#include <limits>

#include "place/list_schedule.h"
#include "place/placer.h"

namespace devplace {

namespace {

// ---------------------------------------------------------------------------- m-TOPO

class MTopo : public Placer {
 public:
  std::string name() const override { return "m-topo"; }

  Placement place(const Problem& p, const PlaceOptions&) override {
    const int n = p.num_ops(), D = p.num_devices();
    const EdgeCosts edges(p);
    MemoryLedger mem(p, edges);

    std::vector<double> total(D, 0.0);
    for (int v = 0; v < n; ++v) {
      double fastest = kInfeasibleTime;
      for (int d = 0; d < D; ++d) fastest = std::min(fastest, p.op_time(v, d));
      if (fastest == kInfeasibleTime) continue;
      for (int d = 0; d < D; ++d) total[d] += p.op_time(v, d) < kInfeasibleTime ? p.op_time(v, d) : fastest;
    }
    double inv = 0;
    bool instant = false;  // some device runs everything in zero time
    for (int d = 0; d < D; ++d) {
      if (total[d] <= 0)
        instant = true;
      else
        inv += 1.0 / total[d];
    }
    const double share = instant || inv == 0 ? 0.0 : 1.0 / inv;

    Placement device(n, 0);
    std::vector<double> given(D, 0.0);
    int cur = 0;
    for (int v = 0; v < n; ++v) {
      while (share > 0 && cur < D - 1 && given[cur] >= share) ++cur;
      int chosen = -1;
      const int first = cur;
      for (int k = 0; k < D && chosen < 0; ++k) {
        const int d = (first + k) % D;
        if (p.op_time(v, d) == kInfeasibleTime) continue;
        if (mem.fits(v, d, device)) {
          chosen = d;
        } else if (d == cur && cur < D - 1) {
          ++cur;  // the current device is full: fill the next one from here on
        }
      }
      if (chosen < 0) chosen = mem.fallback(v);
      device[v] = chosen;
      mem.commit(v, chosen, device);
      if (p.op_time(v, chosen) < kInfeasibleTime) given[chosen] += p.op_time(v, chosen);
    }
    return device;
  }
};

// ---------------------------------------------------------------------------- m-ETF / m-SCT

// The m-SCT favourite relation: for each op, the edge from the parent whose favourite it is.
struct Favourites {
  std::vector<int> parent_edge;  // op v -> that edge's index, or -1
};

Favourites pick_favourites(const Problem& p, const EdgeCosts& edges) {
  const int n = p.num_ops(), E = edges.num_edges();
  std::vector<int> cand;
  for (int e = 0; e < E; ++e) {
    const int v = edges.dst(e);
    double fastest = kInfeasibleTime;
    for (int d = 0; d < p.num_devices(); ++d) fastest = std::min(fastest, p.op_time(v, d));
    if (fastest < kInfeasibleTime && edges.mean_cost(e) > 0 && edges.mean_cost(e) >= fastest) cand.push_back(e);
  }
  std::stable_sort(cand.begin(), cand.end(), [&](int a, int b) { return edges.mean_cost(a) > edges.mean_cost(b); });
  Favourites f;
  f.parent_edge.assign(n, -1);
  std::vector<char> has_child(n, 0);
  for (int e : cand) {
    const int u = edges.src(e), v = edges.dst(e);
    if (has_child[u] || f.parent_edge[v] >= 0) continue;
    has_child[u] = 1;
    f.parent_edge[v] = e;
  }
  return f;
}

// ETF list scheduling under memory limits; with `fav`, the m-SCT favourite-child rule.
Placement etf(const Problem& p, const EdgeCosts& edges, const Favourites* fav) {
  const int n = p.num_ops(), D = p.num_devices();
  MemoryLedger mem(p, edges);

  Placement device(n, -1);
  std::vector<double> finish(n, 0.0), avail(D, 0.0), arrival(static_cast<std::size_t>(n) * D, 0.0);
  std::vector<int> pending(n), ready;
  auto make_ready = [&](int v) {
    for (int d = 0; d < D; ++d) arrival[static_cast<std::size_t>(v) * D + d] = edges.data_ready(v, d, device, finish);
    ready.push_back(v);
  };
  for (int v = 0; v < n; ++v) {
    pending[v] = edges.in_end(v) - edges.in_begin(v);
    if (pending[v] == 0) make_ready(v);
  }
  auto duration = [&](int v, int d) {
    const double t = p.op_time(v, d);
    return t == kInfeasibleTime ? 0.0 : t;  // only the no-device fallback lands here
  };

  struct Choice {
    int op = -1, device = -1;
    double start = 0, end = 0;
    std::size_t slot = 0;  // position in `ready`
  };
  while (!ready.empty()) {
    Choice best;
    for (std::size_t k = 0; k < ready.size(); ++k) {
      const int v = ready[k];
      const double* arr = &arrival[static_cast<std::size_t>(v) * D];
      int bd = -1;
      double bs = 0, be = 0, baff = 0;
      for (int d = 0; d < D; ++d) {
        if (p.op_time(v, d) == kInfeasibleTime || !mem.fits(v, d, device)) continue;
        const double s = std::max(avail[d], arr[d]), e = s + p.op_time(v, d);
        if (bd >= 0 && (s > bs || (s == bs && e > be))) continue;
        const double aff = successor_affinity(p, edges, v, d);
        if (bd >= 0 && s == bs && e == be && aff >= baff) continue;
        bd = d;
        bs = s;
        be = e;
        baff = aff;
      }
      if (bd < 0) {
        bd = mem.fallback(v);
        bs = std::max(avail[bd], arr[bd]);
        be = bs + duration(v, bd);
      } else if (fav && fav->parent_edge[v] >= 0) {
        const int e = fav->parent_edge[v];
        const int du = device[edges.src(e)];
        if (du != bd && p.op_time(v, du) < kInfeasibleTime && mem.fits(v, du, device)) {
          const double s = std::max(avail[du], arr[du]);
          if (s - bs <= edges.cost(e, du, bd)) {
            bd = du;
            bs = s;
            be = s + p.op_time(v, du);
          }
        }
      }
      if (best.op < 0 || bs < best.start || (bs == best.start && (be < best.end || (be == best.end && v < best.op))))
        best = {v, bd, bs, be, k};
    }
    const int v = best.op, d = best.device;
    ready[best.slot] = ready.back();
    ready.pop_back();
    mem.commit(v, d, device);
    device[v] = d;
    finish[v] = best.end;
    avail[d] = std::max(avail[d], best.end);
    for (int k = edges.out_begin(v); k < edges.out_end(v); ++k) {
      const int w = edges.dst(edges.out_edge(k));
      if (--pending[w] == 0) make_ready(w);
    }
  }
  return device;
}

class MEtf : public Placer {
 public:
  std::string name() const override { return "m-etf"; }
  Placement place(const Problem& p, const PlaceOptions&) override { return etf(p, EdgeCosts(p), nullptr); }
};

class MSct : public Placer {
 public:
  std::string name() const override { return "m-sct"; }
  Placement place(const Problem& p, const PlaceOptions&) override {
    const EdgeCosts edges(p);
    const Favourites fav = pick_favourites(p, edges);
    return etf(p, edges, &fav);
  }
};

}  // namespace

std::unique_ptr<Placer> make_mtopo_placer() { return std::make_unique<MTopo>(); }
std::unique_ptr<Placer> make_metf_placer() { return std::make_unique<MEtf>(); }
std::unique_ptr<Placer> make_msct_placer() { return std::make_unique<MSct>(); }

}  // namespace devplace
