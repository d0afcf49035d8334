#include "learn/hsdag/chained_decisions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

namespace devplace {

std::vector<int> main_parents(const Graph& graph, const Coarsening& coarse) {
  const int n = coarse.num_groups();
  std::vector<std::map<int, std::int64_t>> bytes_in(n);  // group -> (predecessor group -> bytes)
  for (int u = 0; u < graph.num_ops(); ++u) {
    const int gu = coarse.group_of_op[u];
    for (int t : graph.op(u).outputs) {
      const Tensor& tensor = graph.tensor(t);
      if (tensor.is_constant) continue;
      for (int v : tensor.consumers)
        if (const int gv = coarse.group_of_op[v]; gv != gu) bytes_in[gv][gu] += tensor.bytes();
    }
  }
  std::vector<int> parent(n, -1);
  for (int v = 0; v < n; ++v) {
    std::int64_t most = -1;
    for (int p : coarse.preds[v]) {  // ascending: a later group wins a tie
      const auto it = bytes_in[v].find(p);
      const std::int64_t b = it == bytes_in[v].end() ? 0 : it->second;
      if (b >= most) most = b, parent[v] = p;
    }
  }
  return parent;
}

void chained_log_probs(const float* row, int devices, double stay, int parent_device, double* out) {
  double top = -INFINITY;
  for (int d = 0; d < devices; ++d) {
    out[d] = row[d] + (d == parent_device ? stay : 0.0);
    top = std::max(top, out[d]);
  }
  double total = 0;
  for (int d = 0; d < devices; ++d) total += std::exp(out[d] - top);
  const double log_total = top + std::log(total);
  for (int d = 0; d < devices; ++d) out[d] -= log_total;
}

std::vector<int> sample_chained(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                                int devices, const std::vector<double>& stay, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  const int n = static_cast<int>(row_of.size());
  std::vector<int> device(n);
  std::vector<double> logp(devices);
  for (int v = 0; v < n; ++v) {
    chained_log_probs(logits + static_cast<std::size_t>(row_of[v]) * devices, devices, stay[v],
                      parent[v] < 0 ? -1 : device[parent[v]], logp.data());
    const double x = unif(rng);
    double acc = 0;
    int d = devices - 1;
    for (int j = 0; j < devices; ++j)
      if ((acc += std::exp(logp[j])) >= x) {
        d = j;
        break;
      }
    device[v] = d;
  }
  return device;
}

std::vector<int> most_likely_chained(const float* logits, const std::vector<int>& row_of,
                                     const std::vector<int>& parent, int devices, const std::vector<double>& stay) {
  const int n = static_cast<int>(row_of.size()), D = devices;
  // below[v * D + d]: the best log-probability of v's descendants given v on d.
  std::vector<double> below(static_cast<std::size_t>(n) * D, 0.0), logp(D);
  for (int v = n - 1; v >= 0; --v) {  // children (higher indices) before their parents
    if (parent[v] < 0) continue;
    const float* row = logits + static_cast<std::size_t>(row_of[v]) * D;
    for (int e = 0; e < D; ++e) {  // the parent's device
      chained_log_probs(row, D, stay[v], e, logp.data());
      double best = -INFINITY;
      for (int d = 0; d < D; ++d) best = std::max(best, logp[d] + below[static_cast<std::size_t>(v) * D + d]);
      below[static_cast<std::size_t>(parent[v]) * D + e] += best;
    }
  }
  std::vector<int> device(n);
  for (int v = 0; v < n; ++v) {  // parents (lower indices) before their children
    chained_log_probs(logits + static_cast<std::size_t>(row_of[v]) * D, D, stay[v],
                      parent[v] < 0 ? -1 : device[parent[v]], logp.data());
    int best = 0;
    for (int d = 1; d < D; ++d)
      if (logp[d] + below[static_cast<std::size_t>(v) * D + d] > logp[best] + below[static_cast<std::size_t>(v) * D + best])
        best = d;
    device[v] = best;
  }
  return device;
}

}  // namespace devplace
