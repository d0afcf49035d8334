#include "place/list_schedule.h"

#include <algorithm>
#include <limits>

namespace devplace {

EdgeCosts::EdgeCosts(const Problem& p) : D_(p.num_devices()) {
  const Graph& g = p.graph();
  const int n = p.num_ops();
  in_off_.assign(n + 1, 0);
  tensor_off_.push_back(0);
  std::vector<int> ins;
  for (int v = 0; v < n; ++v) {
    ins.clear();
    // Constants: no edge. An op folded at load time reads nothing at run time: no in-edges.
    if (!p.folded(v))
      for (int t : g.op(v).inputs)
        if (g.tensor(t).producer >= 0 && !p.tensor_resident(t)) ins.push_back(t);
    // Group the distinct input tensors by producer (ascending producer, then tensor).
    std::sort(ins.begin(), ins.end(), [&](int a, int b) {
      const int pa = g.tensor(a).producer, pb = g.tensor(b).producer;
      return pa != pb ? pa < pb : a < b;
    });
    ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
    for (std::size_t k = 0; k < ins.size(); ++k) {
      const int u = g.tensor(ins[k]).producer;
      if (k == 0 || g.tensor(ins[k - 1]).producer != u) {
        if (k > 0) tensor_off_.push_back(static_cast<int>(tensor_.size()));
        src_.push_back(u);
        dst_.push_back(v);
      }
      tensor_.push_back(ins[k]);
    }
    if (!ins.empty()) tensor_off_.push_back(static_cast<int>(tensor_.size()));
    in_off_[v + 1] = static_cast<int>(src_.size());
  }
  const int E = num_edges();
  out_off_.assign(n + 1, 0);
  for (int e = 0; e < E; ++e) ++out_off_[src_[e] + 1];
  for (int u = 0; u < n; ++u) out_off_[u + 1] += out_off_[u];
  out_edge_.resize(E);
  std::vector<int> fill(out_off_.begin(), out_off_.end() - 1);
  for (int e = 0; e < E; ++e) out_edge_[fill[src_[e]]++] = e;  // ascending e, i.e. ascending dst

  cost_.assign(static_cast<std::size_t>(E) * D_ * D_, 0.0);
  mean_.assign(E, 0.0);
  for (int e = 0; e < E; ++e) {
    double sum = 0;
    for (int s = 0; s < D_; ++s)
      for (int d = 0; d < D_; ++d) {
        if (s == d) continue;
        double c = 0;
        for (int k = tensor_off_[e]; k < tensor_off_[e + 1]; ++k) c += p.transfer_time(tensor_[k], s, d);
        cost_[(static_cast<std::size_t>(e) * D_ + s) * D_ + d] = c;
        sum += c;
      }
    if (D_ > 1) mean_[e] = sum / (static_cast<double>(D_) * (D_ - 1));
  }
}

double EdgeCosts::data_ready(int v, int d, const Placement& device, const std::vector<double>& finish) const {
  double ready = 0;
  for (int e = in_off_[v]; e < in_off_[v + 1]; ++e) {
    const int u = src_[e];
    ready = std::max(ready, finish[u] + cost(e, device[u], d));
  }
  return ready;
}

MemoryLedger::MemoryLedger(const Problem& p, const EdgeCosts& edges) : problem_(p), edges_(edges), D_(p.num_devices()) {
  const Graph& g = p.graph();
  used_.assign(D_, 0);
  own_bytes_.assign(p.num_ops(), 0);
  for (int v = 0; v < p.num_ops(); ++v) {
    std::int64_t b = p.weight_bytes(v);
    for (int t : g.op(v).outputs)
      if (!p.tensor_resident(t)) b += p.tensor_bytes(t);
    own_bytes_[v] = b;
  }
  present_.assign(static_cast<std::size_t>(g.num_tensors()) * D_, 0);
}

std::int64_t MemoryLedger::need(int v, int d, const Placement& device) const {
  std::int64_t b = own_bytes_[v];
  for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) {
    if (device[edges_.src(e)] == d) continue;
    for (int k = edges_.tensor_begin(e); k < edges_.tensor_end(e); ++k) {
      const int t = edges_.tensor(k);
      if (!present_[static_cast<std::size_t>(t) * D_ + d]) b += problem_.tensor_bytes(t);
    }
  }
  return b;
}

std::int64_t MemoryLedger::free_bytes(int d) const {
  const std::int64_t cap = problem_.cluster().devices[d].memory_bytes;
  if (cap <= 0) return std::numeric_limits<std::int64_t>::max();
  return cap - used_[d];
}

bool MemoryLedger::fits(int v, int d, const Placement& device) const {
  const std::int64_t cap = problem_.cluster().devices[d].memory_bytes;
  return cap <= 0 || used_[d] + need(v, d, device) <= cap;
}

void MemoryLedger::commit(int v, int d, const Placement& device) {
  used_[d] += need(v, d, device);
  for (int e = edges_.in_begin(v); e < edges_.in_end(v); ++e) {
    if (device[edges_.src(e)] == d) continue;
    for (int k = edges_.tensor_begin(e); k < edges_.tensor_end(e); ++k)
      present_[static_cast<std::size_t>(edges_.tensor(k)) * D_ + d] = 1;
  }
}

int MemoryLedger::fallback(int v) const {
  int best = -1;
  for (int pass = 0; pass < 2 && best < 0; ++pass)
    for (int d = 0; d < D_; ++d) {
      if (pass == 0 && problem_.op_time(v, d) == kInfeasibleTime) continue;
      if (best < 0 || free_bytes(d) > free_bytes(best)) best = d;
    }
  return best < 0 ? 0 : best;
}

double successor_affinity(const Problem& p, const EdgeCosts& edges, int v, int d) {
  constexpr double kLarge = 1e9;  // seconds; stands in for "cannot run here"
  double s = 0;
  for (int k = edges.out_begin(v); k < edges.out_end(v); ++k) {
    const double t = p.op_time(edges.dst(edges.out_edge(k)), d);
    s += t == kInfeasibleTime ? kLarge : t;
  }
  return s;
}

std::vector<double> upward_ranks(const Problem& p, const EdgeCosts& edges) {
  const int n = p.num_ops(), D = p.num_devices();
  std::vector<double> rank(n, 0.0);
  for (int v = n - 1; v >= 0; --v) {
    double w = 0;
    int feasible = 0;
    for (int d = 0; d < D; ++d)
      if (p.op_time(v, d) < kInfeasibleTime) {
        w += p.op_time(v, d);
        ++feasible;
      }
    if (feasible > 0) w /= feasible;
    double tail = 0;
    for (int k = edges.out_begin(v); k < edges.out_end(v); ++k) {
      const int e = edges.out_edge(k);
      tail = std::max(tail, edges.mean_cost(e) + rank[edges.dst(e)]);
    }
    rank[v] = w + tail;
  }
  return rank;
}

std::vector<double> optimistic_costs(const Problem& p, const EdgeCosts& edges) {
  const int n = p.num_ops(), D = p.num_devices();
  std::vector<double> oct(static_cast<std::size_t>(n) * D, 0.0);
  for (int v = n - 1; v >= 0; --v)  // ops are numbered in a topological order
    for (int k = edges.out_begin(v); k < edges.out_end(v); ++k) {
      const int e = edges.out_edge(k), s = edges.dst(e);
      for (int d = 0; d < D; ++d) {
        double best = kInfeasibleTime;
        for (int x = 0; x < D; ++x) {
          const double t = p.task_time(s, x, p.op_time(s, x));
          if (t < kInfeasibleTime) best = std::min(best, oct[static_cast<std::size_t>(s) * D + x] + t + edges.cost(e, d, x));
        }
        double& here = oct[static_cast<std::size_t>(v) * D + d];
        if (best < kInfeasibleTime) here = std::max(here, best);
      }
    }
  return oct;
}

int first_feasible_device(const Problem& p, int v) {
  for (int d = 0; d < p.num_devices(); ++d)
    if (p.op_time(v, d) < kInfeasibleTime) return d;
  return 0;
}

}  // namespace devplace
