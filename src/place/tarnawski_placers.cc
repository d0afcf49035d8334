// Placers for the latency model of Tarnawski et al. (docs/design/tarnawski.md):
//  - "tarnawski-greedy": their published greedy baseline (latency-greedy/greedy.cpp).
//  - "tarnawski-dp": ours. Blocks (colour classes fused with class cycles) in a topological
//    order are cut into contiguous segments, each on the CPU or on its own accelerator; a
//    segment of a topological order is a contiguous set, so every accelerator set is
//    contiguous by construction. A DP over the cut points minimises a serial upper bound of the
//    latency (each segment starts when the whole prefix before it has finished: an
//    accelerator segment costs receive + compute + send, a CPU segment its longest CPU path),
//    for three topological orders. The best of those, the greedy and CPU-only under the exact
//    model seeds a local search that moves one block at a time (to the CPU, to a device of a
//    neighbouring block, or to an unused accelerator) and keeps a move only when the exact
//    latency falls; an infeasible placement scores +inf and is never kept. Random topological
//    orders give further starts. The result is therefore never worse than the greedy or
//    CPU-only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <random>

#include "place/tarnawski_placers.h"

#include "graph/scc.h"
#include "place/reward.h"
#include "place/tarnawski_segments.h"
#include "util/error.h"

namespace devplace {

namespace {

constexpr std::int64_t kDefaultEvalBudget = 200000;
constexpr int kMaxDpUnits = 2000;  // above this, cut points are restricted to a coarser grid

bool accel_can_hold(const Problem& p, int d, std::int64_t bytes) {
  const std::int64_t cap = p.cluster().devices[d].memory_bytes;
  return cap <= 0 || bytes <= cap;
}

}  // namespace

std::vector<int> tarnawski_accelerators(const Problem& p) {
  std::vector<int> acc;
  for (int d = 0; d < p.num_devices(); ++d)
    if (d != p.host()) acc.push_back(d);
  return acc;
}

TarnawskiBlocks tarnawski_blocks(const Problem& p) {
  const Graph& g = p.graph();
  const int n = p.num_ops();
  // Classes: ops sharing colorClass; ops without one are their own class.
  std::vector<int> cls(n);
  std::map<std::int64_t, int> ids;
  int C = 0;
  for (int i = 0; i < n; ++i) {
    if (g.op(i).attrs.count("colorClass")) {
      auto [it, fresh] = ids.emplace(g.op(i).attr_int("colorClass", 0), C);
      if (fresh) ++C;
      cls[i] = it->second;
    } else {
      cls[i] = C++;
    }
  }
  std::vector<std::vector<int>> cadj(C);
  for (int v = 0; v < n; ++v)
    for (int u : g.preds(v))
      if (cls[u] != cls[v]) cadj[cls[u]].push_back(cls[v]);
  int ncomp = 0;
  const std::vector<int> comp = strongly_connected_components(cadj, ncomp);
  // Renumber components by their smallest op.
  std::vector<int> rename(ncomp, -1);
  TarnawskiBlocks b;
  b.block_of.resize(n);
  int nb = 0;
  for (int i = 0; i < n; ++i) {
    int& r = rename[comp[cls[i]]];
    if (r < 0) r = nb++;
    b.block_of[i] = r;
  }
  b.members.assign(nb, {});
  b.succs.assign(nb, {});
  b.preds.assign(nb, {});
  for (int i = 0; i < n; ++i) b.members[b.block_of[i]].push_back(i);
  for (int v = 0; v < n; ++v)
    for (int u : g.preds(v))
      if (b.block_of[u] != b.block_of[v]) b.succs[b.block_of[u]].push_back(b.block_of[v]);
  for (int x = 0; x < nb; ++x) {
    auto& s = b.succs[x];
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (int y : s) b.preds[y].push_back(x);
  }
  return b;
}

std::vector<int> tarnawski_block_order(const TarnawskiBlocks& b, BlockOrder order) {
  const int nb = b.size();
  std::vector<int> indeg(nb), out;
  out.reserve(nb);
  for (int x = 0; x < nb; ++x) indeg[x] = static_cast<int>(b.preds[x].size());
  if (order == BlockOrder::kStack) {
    std::vector<int> st;
    for (int x = nb - 1; x >= 0; --x)
      if (indeg[x] == 0) st.push_back(x);  // smallest id on top
    while (!st.empty()) {
      const int x = st.back();
      st.pop_back();
      out.push_back(x);
      for (int y : b.succs[x])
        if (--indeg[y] == 0) st.push_back(y);
    }
    return out;
  }
  std::vector<int> key(nb, 0);
  if (order == BlockOrder::kDepth) {  // longest-path depth, by a Kahn pass (ids are not topological)
    std::vector<int> deg = indeg, q;
    for (int x = 0; x < nb; ++x)
      if (deg[x] == 0) q.push_back(x);
    for (std::size_t h = 0; h < q.size(); ++h)
      for (int y : b.succs[q[h]]) {
        key[y] = std::max(key[y], key[q[h]] + 1);
        if (--deg[y] == 0) q.push_back(y);
      }
  }
  using Item = std::pair<int, int>;  // (key, id), smallest first
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  for (int x = 0; x < nb; ++x)
    if (indeg[x] == 0) pq.push({key[x], x});
  while (!pq.empty()) {
    const int x = pq.top().second;
    pq.pop();
    out.push_back(x);
    for (int y : b.succs[x])
      if (--indeg[y] == 0) pq.push({key[y], y});
  }
  return out;
}

Placement tarnawski_greedy_placement(const Problem& p) {
  const int host = p.host();
  if (host < 0) throw Error(p.graph().source(), "", "tarnawski-greedy: the cluster has no cpu (host) device", ErrorKind::unsupported);
  const TarnawskiBlocks b = tarnawski_blocks(p);
  const std::vector<int> order = tarnawski_block_order(b, BlockOrder::kStack);
  const std::vector<int> acc = tarnawski_accelerators(p);
  Placement pl(p.num_ops(), host);
  auto block_bytes = [&](int x) {
    std::int64_t s = 0;
    for (int v : b.members[x]) s += p.weight_bytes(v);
    return s;
  };
  // Our addition: a block an accelerator cannot run goes to the CPU like an oversized one.
  auto fits_alone = [&](int x, int d) {
    if (!accel_can_hold(p, d, block_bytes(x))) return false;
    for (int v : b.members[x])
      if (!(p.op_time(v, d) < kInfeasibleTime)) return false;
    return true;
  };
  std::size_t next = 0, opened = 0;
  while (next < order.size()) {
    const int x = order[next];
    if (opened == acc.size() || !fits_alone(x, acc[opened])) {
      ++next;  // stays on the CPU
      continue;
    }
    const int d = acc[opened++];
    std::int64_t used = 0;
    while (next < order.size() && fits_alone(order[next], d) && accel_can_hold(p, d, used + block_bytes(order[next]))) {
      used += block_bytes(order[next]);
      for (int v : b.members[order[next]]) pl[v] = d;
      ++next;
    }
  }
  return pl;
}

namespace {

class TarnawskiGreedy : public Placer {
 public:
  std::string name() const override { return "tarnawski-greedy"; }
  Placement place(const Problem& p, const PlaceOptions&) override { return tarnawski_greedy_placement(p); }
};

// Segment DP over one order of blocks, scored by the serial upper bound (see the top).
Placement segment_dp(const Problem& p, const TarnawskiBlocks& b, const std::vector<int>& order) {
  const int n = p.num_ops(), host = p.host();
  // Units: runs of consecutive blocks of the order; cut points lie between units.
  const int nb = static_cast<int>(order.size());
  const int per_unit = std::max(1, (nb + kMaxDpUnits - 1) / kMaxDpUnits);
  const int U = (nb + per_unit - 1) / per_unit;
  std::vector<std::vector<int>> unit_ops(U);  // ops of a unit, in topological order
  for (int pos = 0; pos < nb; ++pos)
    for (int v : b.members[order[pos]]) unit_ops[pos / per_unit].push_back(v);
  SegmentScan scan(p, unit_ops);
  const std::vector<int>& acc = scan.acc();
  const int K = static_cast<int>(acc.size());

  const double inf = kInfeasibleTime;
  std::vector<double> F(static_cast<std::size_t>(U + 1) * (K + 1), inf);
  std::vector<int> from(F.size(), -1), dev(F.size(), -1);
  auto at = [&](int pos, int j) { return static_cast<std::size_t>(pos) * (K + 1) + j; };
  F[at(0, 0)] = 0;
  for (int i = 0; i < U; ++i) {
    bool any = false;
    for (int j = 0; j <= K; ++j) any |= F[at(i, j)] < inf;
    if (!any) continue;
    scan.start(i);
    for (int l = i; l < U; ++l) {
      scan.extend();
      const double cpu = scan.cpu();
      for (int j = 0; j <= K; ++j) {
        const double base = F[at(i, j)];
        if (!(base < inf)) continue;
        if (cpu < inf && base + cpu < F[at(l + 1, j)]) {
          F[at(l + 1, j)] = base + cpu;
          from[at(l + 1, j)] = i;
          dev[at(l + 1, j)] = host;
        }
        const double run = j < K ? scan.accel_after(base, j) : inf;
        if (run < inf && run < F[at(l + 1, j + 1)]) {
          F[at(l + 1, j + 1)] = run;
          from[at(l + 1, j + 1)] = i;
          dev[at(l + 1, j + 1)] = acc[j];
        }
      }
    }
  }
  int best_j = -1;
  for (int j = 0; j <= K; ++j)
    if (F[at(U, j)] < inf && (best_j < 0 || F[at(U, j)] < F[at(U, best_j)])) best_j = j;
  Placement pl(n, host);
  if (best_j < 0) return pl;
  for (int pos = U, j = best_j; pos > 0;) {
    const int i = from[at(pos, j)], d = dev[at(pos, j)];
    for (int u = i; u < pos; ++u)
      for (int v : unit_ops[u]) pl[v] = d;
    if (d != host) --j;
    pos = i;
  }
  return pl;
}

// A random topological order of the blocks: Kahn's algorithm taking a random ready block
// (heap with random keys) or, when `dfs`, the most recently readied one with random ties.
std::vector<int> random_block_order(const TarnawskiBlocks& b, std::mt19937_64& rng, bool dfs) {
  const int nb = b.size();
  std::vector<int> indeg(nb), out, ready;
  for (int x = 0; x < nb; ++x) indeg[x] = static_cast<int>(b.preds[x].size());
  for (int x = 0; x < nb; ++x)
    if (indeg[x] == 0) ready.push_back(x);
  std::vector<int> fresh;
  while (!ready.empty()) {
    std::size_t k = dfs ? ready.size() - 1 : rng() % ready.size();
    const int x = ready[k];
    ready[k] = ready.back();
    ready.pop_back();
    out.push_back(x);
    fresh.clear();
    for (int y : b.succs[x])
      if (--indeg[y] == 0) fresh.push_back(y);
    std::shuffle(fresh.begin(), fresh.end(), rng);
    ready.insert(ready.end(), fresh.begin(), fresh.end());
  }
  return out;
}

class TarnawskiDp : public Placer {
 public:
  std::string name() const override { return "tarnawski-dp"; }

  Placement place(const Problem& p, const PlaceOptions& o) override {
    const int n = p.num_ops(), host = p.host();
    if (host < 0) throw Error(p.graph().source(), "", "tarnawski-dp: the cluster has no cpu (host) device", ErrorKind::unsupported);
    if (n == 0) return {};
    const auto t0 = std::chrono::steady_clock::now();
    auto out_of_time = [&] {
      return o.time_budget_s > 0 &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > o.time_budget_s;
    };
    // Default budgets shrink on large graphs: about 5e8 op+edge visits of exact evaluation and
    // 3e8 of DP work (neither binds on the published graphs).
    const double size = static_cast<double>(n) + static_cast<double>(p.graph().num_edges()) + 1;
    const std::int64_t budget =
        o.eval_budget > 0 ? o.eval_budget
                          : std::max<std::int64_t>(1000, std::min<std::int64_t>(kDefaultEvalBudget,
                                                                                static_cast<std::int64_t>(5e8 / size)));
    std::int64_t evals = 0;
    auto exhausted = [&] { return evals >= budget || out_of_time(); };
    SearchReward search(p, o, Objective::tarnawski);
    Reward& eval = search.reward();
    const TarnawskiBlocks b = tarnawski_blocks(p);
    const std::vector<int> acc = tarnawski_accelerators(p);

    Placement best(n, host);
    double best_cost = eval.latency(best);
    auto consider = [&](Placement pl) {
      double c = eval.latency(pl);
      ++evals;
      if (c < kInfeasibleTime) c = hill_climb(p, b, acc, eval, pl, c, evals, budget, out_of_time);
      if (c < best_cost) {
        best = std::move(pl);
        best_cost = c;
      }
    };
    consider(tarnawski_greedy_placement(p));
    for (BlockOrder ord : {BlockOrder::kIndex, BlockOrder::kStack, BlockOrder::kDepth})
      consider(segment_dp(p, b, tarnawski_block_order(b, ord)));
    // Restarts from random topological orders, until the budget or kRestarts.
    std::mt19937_64 rng(o.seed);
    const double dp_work = std::min<double>(b.size(), kMaxDpUnits) * size * std::max<std::size_t>(1, acc.size());
    const int restarts = std::clamp(static_cast<int>(3e8 / dp_work) - 3, 0, kRestarts);
    for (int r = 0; r < restarts && !exhausted(); ++r)
      consider(segment_dp(p, b, random_block_order(b, rng, r % 2 == 0)));
    return best;
  }

 private:
  static constexpr int kRestarts = 24;

  // First-improvement descent over single-block moves under the exact model: a block goes to
  // the CPU, to the device of a neighbouring block, or to the first unused accelerator; a
  // move is kept only when the latency falls (infeasible = +inf, never kept).
  template <class TimeUp>
  static double hill_climb(const Problem& p, const TarnawskiBlocks& b, const std::vector<int>& acc,
                           Reward& eval, Placement& cur, double cur_cost, std::int64_t& evals,
                           std::int64_t budget, TimeUp out_of_time) {
    const int host = p.host();
    std::vector<int> cand, count(p.num_devices(), 0);
    for (int d : cur) ++count[d];
    bool improved = true;
    while (improved && evals < budget && !out_of_time()) {
      improved = false;
      for (int x = 0; x < b.size() && evals < budget; ++x) {
        const int here = cur[b.members[x][0]];
        cand.clear();
        cand.push_back(host);
        for (const auto* nbrs : {&b.preds[x], &b.succs[x]})
          for (int y : *nbrs) cand.push_back(cur[b.members[y][0]]);
        for (int d : acc)
          if (count[d] == 0) {
            cand.push_back(d);
            break;
          }
        std::sort(cand.begin(), cand.end());
        cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
        int best_d = here;
        double best = cur_cost;
        for (int d : cand) {
          if (d == here) continue;
          for (int v : b.members[x]) cur[v] = d;
          const double c = eval.latency(cur);
          ++evals;
          if (c < best * (1 - 1e-12)) {
            best = c;
            best_d = d;
          }
        }
        for (int v : b.members[x]) cur[v] = best_d;
        if (best_d != here) {
          const int sz = static_cast<int>(b.members[x].size());
          count[here] -= sz;
          count[best_d] += sz;
          cur_cost = best;
          improved = true;
        }
      }
    }
    return cur_cost;
  }
};

}  // namespace

std::unique_ptr<Placer> make_tarnawski_greedy_placer() { return std::make_unique<TarnawskiGreedy>(); }
std::unique_ptr<Placer> make_tarnawski_dp_placer() { return std::make_unique<TarnawskiDp>(); }

}  // namespace devplace
