#include "learn/learned/move_features.h"

#include <algorithm>
#include <cmath>

#include "graph/op_costs.h"

namespace devplace {

namespace {

float slog(double x) { return static_cast<float>(x >= 0 ? std::log1p(x) : -std::log1p(-x)); }
float clip(double x, double lo, double hi) { return static_cast<float>(std::clamp(x, lo, hi)); }

// The longest chain a move takes.
constexpr int kMaxChain = 64;

// One device's estimated timeline: its ops' intervals in order (they never overlap: the list
// scheduler runs a device's ops one after another) and the running sum of their lengths.
struct Timeline {
  std::vector<double> start, end, before;  // before[k]: busy time of intervals 0..k-1
  // Busy time within [a, b].
  double busy(double a, double b) const {
    if (b <= a || start.empty()) return 0;
    const auto lo = static_cast<std::size_t>(std::upper_bound(end.begin(), end.end(), a) - end.begin());
    const auto hi = static_cast<std::size_t>(std::lower_bound(start.begin(), start.end(), b) - start.begin());
    if (lo >= hi) return 0;
    double sum = before[hi] - before[lo];
    sum -= std::max(0.0, a - start[lo]);
    sum -= std::max(0.0, end[hi - 1] - b);
    return std::max(0.0, sum);
  }
};

}  // namespace

MoveFeatures::MoveFeatures(const Problem& p) : p_(p), env_(p), position_(p.num_ops(), -1) {
  const std::vector<int>& order = env_.decision_ops();
  for (std::size_t k = 0; k < order.size(); ++k) position_[order[k]] = static_cast<int>(k);
}

void MoveFeatures::compute(const Placement& placement, std::vector<Move>& moves, std::vector<float>& rows,
                           const Schedule* trace) {
  moves.clear();
  rows.clear();
  const int n = p_.num_ops(), D = p_.num_devices();
  env_.reset();
  while (!env_.done()) env_.step(placement[env_.current_op()]);
  const std::vector<int>& order = env_.decision_ops();  // this placement's: it follows the choices
  for (std::size_t k = 0; k < order.size(); ++k) position_[order[k]] = static_cast<int>(k);
  const EdgeCosts& edges = env_.edges();
  const Placement& dev = env_.placement();  // constants on device 0, the rest as given
  std::vector<double> start(n, 0), finish(n, 0), latest_finish(n, 0), latest_start(n, 0);
  makespan_ = 0;
  for (int v : order) {
    finish[v] = env_.finish_time(v);
    const double t = env_.kernel_time(v, dev[v]);
    start[v] = t < kInfeasibleTime ? finish[v] - t : finish[v];
  }
  if (trace)  // the reward's own timeline of this placement, when it keeps one
    for (int v : order) start[v] = trace->ops[v].start, finish[v] = trace->ops[v].end;
  // The ops by start time (ties: decision order): each device's sequence, and an order in which
  // every op comes after its producers.
  std::vector<int> by_time = order;
  std::stable_sort(by_time.begin(), by_time.end(), [&](int a, int b) { return start[a] < start[b]; });
  std::vector<Timeline> lines(D);
  for (auto& l : lines) l.before.push_back(0);
  std::vector<int> next_on_device(n, -1), last_on(D, -1);
  std::vector<double> busy(D, 0);
  for (int v : by_time) {
    if (last_on[dev[v]] >= 0) next_on_device[last_on[dev[v]]] = v;
    last_on[dev[v]] = v;
    makespan_ = std::max(makespan_, finish[v]);
    Timeline& l = lines[dev[v]];
    l.start.push_back(start[v]), l.end.push_back(finish[v]);
    l.before.push_back(l.before.back() + (finish[v] - start[v]));
    busy[dev[v]] += finish[v] - start[v];
  }
  const double M = std::max(makespan_, 1e-12), u = env_.time_unit();
  // Latest finish without delaying the end, backwards in time: before every consumer's latest
  // start (less the transfer) and before the next op on the same device.
  std::vector<double> next_start(D, M);
  for (auto it = by_time.rbegin(); it != by_time.rend(); ++it) {
    const int v = *it;
    double lf = std::min(M, next_start[dev[v]]);
    for (int k = edges.out_begin(v); k < edges.out_end(v); ++k) {
      const int e = edges.out_edge(k), s = edges.dst(e);
      if (position_[s] < 0) continue;
      lf = std::min(lf, latest_start[s] - edges.cost(e, dev[v], dev[s]));
    }
    latest_finish[v] = std::max(lf, finish[v]);
    latest_start[v] = latest_finish[v] - (finish[v] - start[v]);
    next_start[dev[v]] = latest_start[v];
  }
  std::vector<std::int64_t> weights(D, 0);
  for (int v : order) weights[dev[v]] += p_.weight_bytes(v);
  const int T = std::max<int>(1, static_cast<int>(order.size()));
  std::vector<char> member(n, 0);
  // Rows for moving `unit` (its head first: one op, a kernel, a chain, a path or an island; see
  // MoveUnit) from its device to every other one.
  auto add_rows = [&](const std::vector<int>& unit, MoveUnit kind) {
    const int h = unit.front(), c = dev[h];
    for (int m : unit) member[m] = 1;
    double tc = 0, slack = kInfeasibleTime, last_finish = 0;
    int last = h;
    std::int64_t unit_weights = 0;
    for (int m : unit) {
      tc += finish[m] - start[m];
      slack = std::min(slack, latest_finish[m] - finish[m]);
      unit_weights += p_.weight_bytes(m);
      if (finish[m] >= last_finish) last_finish = finish[m], last = m;
    }
    int producers = 0, consumers = 0;
    std::vector<int> producers_on(D, 0), consumers_on(D, 0);
    for (int m : unit) {
      for (int e = edges.in_begin(m); e < edges.in_end(m); ++e)
        if (!member[edges.src(e)]) ++producers, ++producers_on[dev[edges.src(e)]];
      for (int k = edges.out_begin(m); k < edges.out_end(m); ++k) {
        const int s = edges.dst(edges.out_edge(k));
        if (position_[s] >= 0 && !member[s]) ++consumers, ++consumers_on[dev[s]];
      }
    }
    const int parent = p_.fusion_parent(h, c);
    const bool fused = parent >= 0 && dev[parent] == c;
    // What leaving c releases: how much earlier the next op there could start (it waited for the
    // unit, not for its data), and whether that op is critical.
    double release = 0;
    bool next_critical = false;
    if (const int w = next_on_device[last]; w >= 0) {
      const double data = edges.data_ready(w, c, dev, finish);
      release = std::clamp(start[w] - std::max(data, start[h]), 0.0, tc);
      next_critical = latest_finish[w] - finish[w] <= 1e-9 * M;
    }
    for (int d = 0; d < D; ++d) {
      if (d == c) continue;
      double td = 0;
      for (int m : unit) {
        const int fp = p_.fusion_parent(m, d);
        td += m == h ? env_.kernel_time(h, d)
                     : fp >= 0 && (member[fp] || dev[fp] == d) ? p_.op_time(m, d) : p_.standalone_time(m, d);
      }
      if (!(td < kInfeasibleTime)) continue;
      const std::int64_t cap = p_.cluster().devices[d].memory_bytes;
      if (cap > 0 && weights[d] + unit_weights > cap) continue;
      double ready = 0, in_change = 0;
      for (int m : unit)
        for (int e = edges.in_begin(m); e < edges.in_end(m); ++e) {
          const int w = edges.src(e);
          if (member[w]) continue;
          ready = std::max(ready, finish[w] + edges.cost(e, dev[w], d));
          in_change += edges.cost(e, dev[w], d) - edges.cost(e, dev[w], c);
        }
      const double new_finish = std::max(ready, start[h]) + td;
      // How late the unit's outputs would reach its consumers from d (or the end, for outputs).
      double late = consumers ? -kInfeasibleTime : new_finish - M;
      double out_change = 0, broken = 0, earlier = -kInfeasibleTime;
      for (int m : unit)
        for (int k = edges.out_begin(m); k < edges.out_end(m); ++k) {
          const int e = edges.out_edge(k), s = edges.dst(e);
          if (position_[s] < 0 || member[s]) continue;
          late = std::max(late, new_finish + edges.cost(e, d, dev[s]) - latest_start[s]);
          // How much earlier the output would reach a critical consumer.
          if (latest_finish[s] - finish[s] <= 1e-9 * M)
            earlier = std::max(earlier, finish[m] + edges.cost(e, c, dev[s]) - new_finish - edges.cost(e, d, dev[s]));
          out_change += edges.cost(e, d, dev[s]) - edges.cost(e, c, dev[s]);
          if (dev[s] == c && p_.fusion_parent(s, c) == m) broken += p_.standalone_time(s, c) - p_.op_time(s, c);
        }
      const double window_end = std::max(latest_finish[last], ready + td);
      const double idle = std::max(0.0, (window_end - ready) - lines[d].busy(ready, window_end));
      moves.push_back({h, d, kind});
      const std::size_t at = rows.size();
      rows.resize(at + kFeatures);
      float* r = &rows[at];
      r[0] = slog((td - tc) / u);
      r[1] = slog(tc / u);
      r[2] = slog(td / u);
      r[3] = clip(tc / M, 0, 1);
      r[4] = clip(td / M, 0, 1);
      r[5] = clip(slack / M, 0, 1);
      r[6] = slack <= 1e-9 * M ? 1.f : 0.f;
      r[7] = clip(late / M, -1, 1);
      r[8] = slog(late / u);
      r[9] = clip(idle / std::max(td, 1e-12), 0, 4) / 4;
      r[10] = clip(busy[c] / M, 0, 1);
      r[11] = clip(busy[d] / M, 0, 1);
      r[12] = clip(in_change / M, -1, 1);
      r[13] = clip(out_change / M, -1, 1);
      r[14] = producers ? static_cast<float>(producers_on[d]) / producers : 0.f;
      r[15] = consumers ? static_cast<float>(consumers_on[d]) / consumers : 0.f;
      r[16] = fused ? 1.f : 0.f;
      r[17] = slog(broken / u);
      r[18] = p_.cluster().devices[d].kind == "cpu";
      r[19] = p_.cluster().devices[d].kind == "gpu";
      r[20] = p_.cluster().devices[c].kind == "cpu";
      r[21] = p_.cluster().devices[c].kind == "gpu";
      r[22] = cap > 0 ? clip(static_cast<double>(weights[d] + unit_weights) / static_cast<double>(cap), 0, 1) : 0.f;
      r[23] = static_cast<float>(position_[h]) / T;
      r[24] = clip(release / M, 0, 1);
      r[25] = next_critical ? 1.f : 0.f;
      r[26] = earlier > -kInfeasibleTime ? clip(earlier / M, -1, 1) : 0.f;
      r[27] = slog(static_cast<double>(unit.size()) - 1);
    }
    for (int m : unit) member[m] = 0;
  };
  const Graph& g = p_.graph();
  std::vector<char> in_island(n, 0);
  for (int v : order) {
    add_rows({v}, MoveUnit::op);
    // A kernel's head also moves with every op fused into it (a move of one of them alone breaks
    // the kernel and pays for a transfer inside it).
    const int parent = p_.fusion_parent(v, dev[v]);
    std::size_t kernel_size = 1;
    if (parent < 0 || dev[parent] != dev[v]) {
      const std::vector<int> kernel = fused_group(p_, placement, v);
      kernel_size = kernel.size();
      if (kernel.size() > 1) add_rows(kernel, MoveUnit::kernel);
    }
    // A chain's head moves with the whole chain, when that is more than its kernel. v heads a
    // chain unless it continues the chain of its only producer.
    const bool head = std::none_of(g.preds(v).begin(), g.preds(v).end(), [&](int u) {
      return position_[u] >= 0 && chain_successor(p_, placement, u) == v;
    });
    std::size_t chain_size = kernel_size;
    if (head) {
      const std::vector<int> chain = chain_group(p_, placement, v);
      if (chain.size() > kernel_size) add_rows(chain, MoveUnit::chain), chain_size = chain.size();
    }
    // The main path of its data, 4 and 8 ops long (when it is that long).
    for (const auto& [unit, length] : {std::pair{MoveUnit::path4, 4}, std::pair{MoveUnit::path8, 8}}) {
      const std::vector<int> path = path_group(p_, placement, v, length);
      if (static_cast<int>(path.size()) == length) add_rows(path, unit);
    }
    // An island moves whole from its first op in the decision order, when it is more than that
    // op's chain and kernel.
    if (in_island[v]) continue;
    const std::vector<int> island = island_group(p_, placement, v);
    for (int m : island) in_island[m] = 1;
    if (island.size() > std::max(chain_size, kernel_size)) add_rows(island, MoveUnit::island);
  }
}

std::vector<int> fused_group(const Problem& p, const Placement& placement, int head) {
  const Graph& g = p.graph();
  const int d = placement[head];
  std::vector<int> group = {head};
  for (std::size_t k = 0; k < group.size(); ++k)
    for (int s : g.succs(group[k]))
      if (placement[s] == d && p.fusion_parent(s, d) == group[k]) group.push_back(s);
  return group;
}

int chain_successor(const Problem& p, const Placement& placement, int op) {
  const Graph& g = p.graph();
  int next = -1, consumers = 0;
  for (int s : g.succs(op))
    if (!is_folded(g, g.op(s))) next = s, ++consumers;
  if (consumers != 1 || placement[next] != placement[op]) return -1;
  int producers = 0;
  for (int u : g.preds(next)) producers += !is_folded(g, g.op(u));
  return producers == 1 ? next : -1;
}

std::vector<int> chain_group(const Problem& p, const Placement& placement, int head) {
  std::vector<int> chain = {head};
  for (int v = head; static_cast<int>(chain.size()) < kMaxChain;) {
    v = chain_successor(p, placement, v);
    if (v < 0) break;
    chain.push_back(v);
  }
  return chain;
}

std::vector<int> island_group(const Problem& p, const Placement& placement, int head) {
  const Graph& g = p.graph();
  const int d = placement[head];
  std::vector<int> island = {head};
  std::vector<char> seen(static_cast<std::size_t>(g.num_ops()), 0);
  seen[head] = 1;
  auto visit = [&](int u) {
    if (!seen[u] && placement[u] == d && !is_folded(g, g.op(u))) seen[u] = 1, island.push_back(u);
  };
  for (std::size_t k = 0; k < island.size(); ++k) {
    for (int u : g.preds(island[k])) visit(u);
    for (int s : g.succs(island[k])) visit(s);
  }
  // By name after the head, so that the ops' numbering does not change what the features sum.
  std::sort(island.begin() + 1, island.end(), [&](int a, int b) { return g.op(a).name < g.op(b).name; });
  return island;
}

std::vector<int> path_group(const Problem& p, const Placement& placement, int head, int length) {
  const Graph& g = p.graph();
  const int d = placement[head];
  std::vector<int> path = {head};
  while (static_cast<int>(path.size()) < length) {
    // The consumers on d and the bytes each reads from the op (its largest tensor from it).
    std::vector<std::pair<int, std::int64_t>> reads;
    for (int t : g.op(path.back()).outputs)
      for (int s : g.tensor(t).consumers) {
        if (placement[s] != d || is_folded(g, g.op(s))) continue;
        auto it = std::find_if(reads.begin(), reads.end(), [&](const auto& r) { return r.first == s; });
        if (it == reads.end()) reads.emplace_back(s, p.tensor_bytes(t));
        else it->second = std::max(it->second, p.tensor_bytes(t));
      }
    if (reads.empty()) break;
    const auto next = std::min_element(reads.begin(), reads.end(), [&](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : g.op(a.first).name < g.op(b.first).name;
    });
    path.push_back(next->first);
  }
  return path;
}

std::vector<int> moved_ops(const Problem& p, const Placement& placement, const Move& move) {
  switch (move.unit) {
    case MoveUnit::kernel: return fused_group(p, placement, move.op);
    case MoveUnit::chain: return chain_group(p, placement, move.op);
    case MoveUnit::island: return island_group(p, placement, move.op);
    case MoveUnit::path4: return path_group(p, placement, move.op, 4);
    case MoveUnit::path8: return path_group(p, placement, move.op, 8);
    case MoveUnit::op: break;
  }
  return {move.op};
}

Placement apply_moves(const Problem& p, const Placement& placement, const std::vector<Move>& moves) {
  Placement out = placement;
  for (const Move& m : moves)
    for (int v : moved_ops(p, placement, m)) out[v] = m.device;
  return out;
}

}  // namespace devplace
