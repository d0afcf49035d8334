#include "learn/representation/coarsen.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "graph/op_costs.h"
#include "graph/scc.h"
#include "util/error.h"

namespace devplace {
namespace {

// Union-find with path halving; the representative is the smallest member, so results do not
// depend on the order of unions.
class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // Returns true when a and b were in different sets.
  bool unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    return true;
  }

 private:
  std::vector<int> parent_;
};

void sort_unique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The ops that produce op's inputs, in port order, each once.
std::vector<int> producers(const Graph& g, const Op& op) {
  std::vector<int> out;
  for (int t : op.inputs)
    if (int p = g.tensor(t).producer; p >= 0 && std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

// The sets of a union-find over a graph's ops (ops in topological order), with what the
// acyclicity check of a merge needs: each set's members and its last op.
class Sets {
 public:
  Sets(const Graph& g, UnionFind& uf) : g_(g), uf_(uf), members_(g.num_ops()), last_(g.num_ops()) {
    for (int i = 0; i < g.num_ops(); ++i) members_[uf.find(i)].push_back(i);
    for (int i = 0; i < g.num_ops(); ++i) last_[uf.find(i)] = std::max(last_[uf.find(i)], i);
  }
  // Merges the sets of a and b unless that would close a cycle in the quotient graph (a path
  // from one to the other through a third set). Returns true when it merged.
  bool unite_if_acyclic(int a, int b) {
    a = uf_.find(a), b = uf_.find(b);
    if (a == b || reaches(a, b) || reaches(b, a)) return false;
    uf_.unite(a, b);
    const int root = uf_.find(a), other = root == a ? b : a;
    members_[root].insert(members_[root].end(), members_[other].begin(), members_[other].end());
    members_[other].clear();
    last_[root] = std::max(last_[root], last_[other]);
    return true;
  }

 private:
  // True when some set other than `from` and `to` lies on a path from `from` to `to`. Edges go
  // forward in op order, so nothing after `to`'s last op can lead to it.
  bool reaches(int from, int to) {
    std::vector<int> stack;
    seen_.clear();
    auto visit_set_of = [&](int op) {
      const int s = uf_.find(op);
      if (s == from || s == to || !seen_.insert(s).second) return;
      for (int m : members_[s]) stack.push_back(m);
    };
    for (int m : members_[from])
      for (int v : g_.succs(m))
        if (v <= last_[to]) visit_set_of(v);
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      if (u > last_[to]) continue;
      for (int v : g_.succs(u)) {
        if (uf_.find(v) == to) return true;
        if (v <= last_[to]) visit_set_of(v);
      }
    }
    return false;
  }

  const Graph& g_;
  UnionFind& uf_;
  std::vector<std::vector<int>> members_;  // per root
  std::vector<int> last_;                  // per root: its highest op index
  std::unordered_set<int> seen_;
};

}  // namespace

Coarsening coarsen(const Graph& g, const CoarsenOptions& options) {
  if (!g.finalized()) throw Error(g.source(), "", "coarsen: graph is not finalized");
  const int n = g.num_ops();
  Coarsening c;
  c.stats.ops = n;
  UnionFind uf(n);

  std::vector<char> folded(n);
  for (int i = 0; i < n; ++i) folded[i] = is_folded(g, g.op(i));

  // Pass 1: single-predecessor merge.
  if (options.merge_single_predecessor) {
    for (int i = 0; i < n; ++i) {
      int only = -1, count = 0;
      for (int p : g.preds(i)) {
        if (options.ignore_constant_predecessors && folded[p]) continue;
        only = p;
        ++count;
      }
      if (count != 1 || (options.chains_only && g.succs(only).size() != 1)) continue;
      if (uf.unite(i, only)) ++c.stats.single_pred_merges;
    }
  }

  // Pass 2: co-location.
  if (options.colocate) {
    Sets sets(g, uf);
    for (int i = 0; i < n; ++i) {
      const Op& op = g.op(i);
      if (!folded[i] && classify(op.type) != OpClass::free) continue;
      const std::vector<int> made_by = producers(g, op);
      // Where it may go, best first: a constant (or an op without a producer) goes with its
      // first consumer, else with what made it; any other zero-cost op with the producer of
      // its first produced input, else of a later one.
      std::vector<int> targets;
      if (folded[i] || made_by.empty()) {
        if (!g.succs(i).empty()) targets.push_back(g.succs(i).front());
        targets.insert(targets.end(), made_by.begin(), made_by.end());
      } else {
        targets = made_by;
      }
      if (targets.empty() || uf.find(i) == uf.find(targets.front())) continue;
      bool merged = false;
      for (int t : targets)
        if ((merged = sets.unite_if_acyclic(i, t))) break;
      ++(merged ? c.stats.free_op_merges : c.stats.cycle_skips);
    }
    std::unordered_map<std::int64_t, int> first_of_color;
    for (int i = 0; i < n; ++i) {
      auto it = g.op(i).attrs.find("colorClass");
      if (it == g.op(i).attrs.end()) continue;
      const auto* color = std::get_if<std::int64_t>(&it->second);
      if (!color) continue;
      auto [pos, inserted] = first_of_color.emplace(*color, i);
      if (!inserted && uf.unite(i, pos->second)) ++c.stats.color_merges;
    }
  }

  // Quotient graph over union-find sets; set ids numbered by their smallest op (= the root).
  std::vector<int> set_of(n), root_to_set(n, -1);
  int num_sets = 0;
  for (int i = 0; i < n; ++i) {
    const int r = uf.find(i);
    if (root_to_set[r] == -1) root_to_set[r] = num_sets++;
    set_of[i] = root_to_set[r];
  }
  std::vector<std::vector<int>> set_succs(num_sets);
  for (int i = 0; i < n; ++i)
    for (int s : g.succs(i))
      if (set_of[i] != set_of[s]) set_succs[set_of[i]].push_back(set_of[s]);
  for (auto& v : set_succs) sort_unique(v);

  // Pass 3: merge strongly connected components.
  int num_sccs = 0;
  const std::vector<int> scc = strongly_connected_components(set_succs, num_sccs);
  std::vector<int> scc_size(num_sccs, 0), scc_first(num_sccs, num_sets);
  for (int s = 0; s < num_sets; ++s) {
    ++scc_size[scc[s]];
    scc_first[scc[s]] = std::min(scc_first[scc[s]], s);
  }
  for (int k = 0; k < num_sccs; ++k)
    if (scc_size[k] > 1) ++c.stats.cycles_merged;

  // Condensation DAG, then Kahn's algorithm, smallest first op first.
  std::vector<std::vector<int>> dag(num_sccs);
  std::vector<int> indegree(num_sccs, 0);
  for (int s = 0; s < num_sets; ++s)
    for (int t : set_succs[s])
      if (scc[s] != scc[t]) dag[scc[s]].push_back(scc[t]);
  for (auto& v : dag) {
    sort_unique(v);
    for (int t : v) ++indegree[t];
  }
  using Item = std::pair<int, int>;  // (smallest set id == smallest op order, scc)
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  for (int k = 0; k < num_sccs; ++k)
    if (indegree[k] == 0) ready.push({scc_first[k], k});
  std::vector<int> group_of_scc(num_sccs, -1);
  int next_group = 0;
  while (!ready.empty()) {
    const int k = ready.top().second;
    ready.pop();
    group_of_scc[k] = next_group++;
    for (int t : dag[k])
      if (--indegree[t] == 0) ready.push({scc_first[t], t});
  }

  c.group_of_op.resize(n);
  c.members.assign(next_group, {});
  for (int i = 0; i < n; ++i) {
    c.group_of_op[i] = group_of_scc[scc[set_of[i]]];
    c.members[c.group_of_op[i]].push_back(i);  // ascending: i grows
  }
  c.preds.assign(next_group, {});
  c.succs.assign(next_group, {});
  for (int i = 0; i < n; ++i)
    for (int s : g.succs(i)) {
      const int a = c.group_of_op[i], b = c.group_of_op[s];
      if (a != b) {
        c.succs[a].push_back(b);
        c.preds[b].push_back(a);
      }
    }
  for (auto& v : c.preds) sort_unique(v);
  for (auto& v : c.succs) sort_unique(v);
  c.stats.groups = next_group;
  for (const auto& m : c.members) c.stats.largest_group = std::max<int>(c.stats.largest_group, m.size());
  return c;
}

Placement expand(const Coarsening& c, const std::vector<int>& group_device) {
  if (static_cast<int>(group_device.size()) != c.num_groups())
    throw Error("", "",
                "expand: " + std::to_string(group_device.size()) + " group devices for " +
                    std::to_string(c.num_groups()) + " groups");
  Placement p(c.group_of_op.size());
  for (std::size_t op = 0; op < p.size(); ++op) p[op] = group_device[c.group_of_op[op]];
  return p;
}

Coarsening cap_groups(const Graph& g, const Coarsening& c, int max_groups) {
  if (max_groups <= 0 || c.num_groups() <= max_groups) return c;
  const double per_bucket = static_cast<double>(g.num_ops()) / max_groups;
  std::vector<int> bucket_of_group(c.num_groups());
  int bucket = 0;
  double filled = 0;
  for (int k = 0; k < c.num_groups(); ++k) {
    if (filled >= per_bucket * (bucket + 1) && bucket + 1 < max_groups) ++bucket;
    bucket_of_group[k] = bucket;
    filled += static_cast<double>(c.members[k].size());
  }
  Coarsening out;
  out.members.assign(bucket + 1, {});
  out.group_of_op.assign(g.num_ops(), 0);
  for (int op = 0; op < g.num_ops(); ++op) {
    const int b = bucket_of_group[c.group_of_op[op]];
    out.group_of_op[op] = b;
    out.members[b].push_back(op);
  }
  out.preds.assign(out.members.size(), {});
  out.succs.assign(out.members.size(), {});
  for (int k = 0; k < c.num_groups(); ++k)
    for (int v : c.succs[k]) {
      const int a = bucket_of_group[k], b = bucket_of_group[v];
      if (a != b) out.succs[a].push_back(b), out.preds[b].push_back(a);
    }
  for (auto* lists : {&out.preds, &out.succs})
    for (auto& l : *lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
  out.stats = c.stats;
  out.stats.groups = out.num_groups();
  out.stats.largest_group = 0;
  for (const auto& m : out.members)
    out.stats.largest_group = std::max(out.stats.largest_group, static_cast<int>(m.size()));
  return out;
}

bool is_valid_coarsening(const Graph& g, const Coarsening& c) {
  const int n = g.num_ops(), k = c.num_groups();
  if (static_cast<int>(c.group_of_op.size()) != n) return false;
  if (static_cast<int>(c.preds.size()) != k || static_cast<int>(c.succs.size()) != k) return false;
  std::vector<int> seen(n, 0);
  for (int gi = 0; gi < k; ++gi) {
    if (c.members[gi].empty()) return false;
    if (!std::is_sorted(c.members[gi].begin(), c.members[gi].end())) return false;
    for (int op : c.members[gi]) {
      if (op < 0 || op >= n || seen[op]++ || c.group_of_op[op] != gi) return false;
    }
  }
  for (int op = 0; op < n; ++op)
    if (!seen[op]) return false;
  std::vector<std::vector<int>> preds(k), succs(k);
  for (int i = 0; i < n; ++i)
    for (int s : g.succs(i)) {
      const int a = c.group_of_op[i], b = c.group_of_op[s];
      if (a == b) continue;
      if (a > b) return false;  // not topologically numbered (or a cycle)
      succs[a].push_back(b);
      preds[b].push_back(a);
    }
  for (auto& v : preds) sort_unique(v);
  for (auto& v : succs) sort_unique(v);
  return preds == c.preds && succs == c.succs;
}

}  // namespace devplace
