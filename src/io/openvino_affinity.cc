#include "io/openvino_affinity.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "graph/op_costs.h"

namespace devplace {

namespace {

bool is_parameter(const Op& op) { return op.type == "Parameter"; }
bool is_result(const Op& op) { return op.type == "Result"; }

// For every constant-only op, the ops with a kernel that read what it computes, directly or
// through other constant-only ops (Const -> Convert -> Multiply: the Multiply's readers).
// Results are not readers: they follow their producer (rule 2).
struct ConstantReaders {
  std::vector<char> constant;
  std::vector<std::vector<int>> readers;

  explicit ConstantReaders(const Graph& g) : constant(g.num_ops()), readers(g.num_ops()) {
    const int n = g.num_ops();
    for (int i = 0; i < n; ++i) constant[i] = is_folded(g, g.op(i)) && !is_result(g.op(i));
    for (int i = n - 1; i >= 0; --i) {  // consumers come later in topological order
      if (!constant[i]) continue;
      std::set<int> r;
      for (int t : g.op(i).outputs)
        for (int c : g.tensor(t).consumers) {
          if (constant[c])
            r.insert(readers[c].begin(), readers[c].end());
          else if (!is_result(g.op(c)))
            r.insert(c);
        }
      readers[i].assign(r.begin(), r.end());
    }
  }
};

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// The producer op of `op`'s first input, or -1.
int first_producer(const Graph& g, const Op& op) {
  for (int t : op.inputs)
    if (g.tensor(t).producer >= 0) return g.tensor(t).producer;
  return -1;
}

}  // namespace

AdjustedPlacement adjust_for_openvino(const Graph& g, const Placement& placement) {
  const int n = g.num_ops();
  AdjustedPlacement out{placement, {}};
  Placement& p = out.placement;
  ConstantReaders cr(g);

  // Rule 1: readers of one constant form one class; each class goes where most of it is.
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<int> shared_constant(n, -1);  // a constant that put the op in its class
  for (int f = 0; f < n; ++f) {
    if (!cr.constant[f] || cr.readers[f].size() < 2) continue;
    for (int r : cr.readers[f]) {
      if (shared_constant[r] < 0) shared_constant[r] = f;
      parent[find(parent, r)] = find(parent, cr.readers[f].front());
    }
  }
  std::map<int, std::vector<int>> classes;
  for (int i = 0; i < n; ++i)
    if (shared_constant[i] >= 0) classes[find(parent, i)].push_back(i);
  for (auto& [root, members] : classes) {
    std::map<int, int> votes;
    for (int m : members) ++votes[p[m]];
    if (votes.size() < 2) continue;
    int target = votes.begin()->first;
    for (auto& [d, v] : votes)
      if (v > votes[target]) target = d;
    for (int m : members)
      if (p[m] != target) {
        out.changes.push_back({g.op(m).name, p[m], target,
                               "reads constant '" + g.op(shared_constant[m]).name + "' with ops on another device"});
        p[m] = target;
      }
  }
  // Constants follow their readers (all on one device now); Parameters go with their first
  // reader, Results with their producer.
  for (int f = 0; f < n; ++f)
    if (cr.constant[f] && !cr.readers[f].empty()) p[f] = p[cr.readers[f].front()];
  for (int i = 0; i < n; ++i) {
    const Op& op = g.op(i);
    if (is_parameter(op)) {
      int first = -1;
      for (int t : op.outputs)
        for (int c : g.tensor(t).consumers)
          if (first < 0 || c < first) first = c;
      if (first >= 0) p[i] = p[first];
    }
  }
  for (int i = 0; i < n; ++i)
    if (is_result(g.op(i)))
      if (int src = first_producer(g, g.op(i)); src >= 0) p[i] = p[src];
  return out;
}

std::vector<AffinityViolation> check_openvino_affinity(const Graph& g,
                                                       const std::map<std::string, std::string>& affinity,
                                                       const std::vector<std::string>& devices) {
  std::vector<AffinityViolation> v;
  const std::set<std::string> known(devices.begin(), devices.end());
  for (auto& [name, dev] : affinity) {
    if (g.find_op(name) < 0) v.push_back({name, "unknown-op", "the map names an op the model does not have"});
    if (!known.count(dev)) v.push_back({name, "unknown-device", "device '" + dev + "' is not one of the cluster's"});
  }
  const int n = g.num_ops();
  std::vector<const std::string*> dev(n, nullptr);
  for (int i = 0; i < n; ++i) {
    auto it = affinity.find(g.op(i).name);
    if (it == affinity.end())
      v.push_back({g.op(i).name, "missing", "no affinity: HETERO's manual mode needs every op"});
    else
      dev[i] = &it->second;
  }
  ConstantReaders cr(g);
  for (int f = 0; f < n; ++f) {
    if (!cr.constant[f] || !dev[f]) continue;
    for (int r : cr.readers[f])
      if (dev[r] && *dev[r] != *dev[f]) {
        v.push_back({g.op(f).name, "constant-reader",
                     "constant on " + *dev[f] + " is read by '" + g.op(r).name + "' on " + *dev[r]});
        break;
      }
  }
  for (int i = 0; i < n; ++i) {
    const Op& op = g.op(i);
    if (!dev[i]) continue;
    if (is_parameter(op)) {
      bool with_reader = false, has_reader = false;
      for (int t : op.outputs)
        for (int c : g.tensor(t).consumers) {
          has_reader = true;
          with_reader |= dev[c] && *dev[c] == *dev[i];
        }
      if (has_reader && !with_reader)
        v.push_back({op.name, "parameter", "alone on " + *dev[i] + ": a Parameter -> Result subgraph"});
    }
    if (is_result(op)) {
      const int src = first_producer(g, op);
      if (src >= 0 && dev[src] && *dev[src] != *dev[i])
        v.push_back(
            {op.name, "result", "on " + *dev[i] + " but its producer '" + g.op(src).name + "' is on " + *dev[src]});
    }
  }
  return v;
}

}  // namespace devplace
