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

void chained_log_probs(const float* row, int devices, double stay, int parent_device, double* out, double sibling,
                       const int* siblings_on, double join, const int* inputs_on) {
  double top = -INFINITY;
  for (int d = 0; d < devices; ++d) {
    out[d] = row[d] + (d == parent_device ? stay : 0.0) + (siblings_on ? sibling * siblings_on[d] : 0.0) +
             (inputs_on ? join * inputs_on[d] : 0.0);
    top = std::max(top, out[d]);
  }
  double total = 0;
  for (int d = 0; d < devices; ++d) total += std::exp(out[d] - top);
  const double log_total = top + std::log(total);
  for (int d = 0; d < devices; ++d) out[d] -= log_total;
}

namespace {

// Decides the coarse nodes in index order: node v takes pick(v, its log-probabilities).
// Keeps, per parent, how many children are on each device, so each node sees its earlier siblings,
// and counts where each node's other inputs went.
template <class Pick>
std::vector<int> decide_in_order(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                                 int devices, const ChainTerms& terms, Pick pick) {
  const int n = static_cast<int>(row_of.size()), D = devices;
  const bool siblings = !terms.sibling.empty(), joins = !terms.join.empty();
  std::vector<int> device(n), children_on(siblings ? static_cast<std::size_t>(n) * D : 0, 0), inputs_on(D);
  std::vector<double> logp(D);
  for (int v = 0; v < n; ++v) {
    const int p = parent[v];
    const int* on = siblings && p >= 0 ? &children_on[static_cast<std::size_t>(p) * D] : nullptr;
    const bool joined = joins && !terms.other_inputs[v].empty();
    if (joined) {
      std::fill(inputs_on.begin(), inputs_on.end(), 0);
      for (int u : terms.other_inputs[v]) ++inputs_on[device[u]];
    }
    chained_log_probs(logits + static_cast<std::size_t>(row_of[v]) * D, D, terms.stay[v], p < 0 ? -1 : device[p],
                      logp.data(), on ? terms.sibling[v] : 0.0, on, joined ? terms.join[v] : 0.0,
                      joined ? inputs_on.data() : nullptr);
    device[v] = pick(v, logp);
    if (on) ++children_on[static_cast<std::size_t>(p) * D + device[v]];
  }
  return device;
}

}  // namespace

std::vector<int> earlier_siblings_on(const std::vector<int>& device, const std::vector<int>& parent, int devices) {
  const std::size_t n = device.size();
  std::vector<int> children_on(n * devices, 0), out(n * devices, 0);
  for (std::size_t v = 0; v < n; ++v) {
    if (parent[v] < 0) continue;
    int* on = &children_on[static_cast<std::size_t>(parent[v]) * devices];
    std::copy(on, on + devices, &out[v * devices]);
    ++on[device[v]];
  }
  return out;
}

std::vector<int> other_inputs_on(const std::vector<int>& device, const std::vector<std::vector<int>>& other_inputs,
                                 int devices) {
  std::vector<int> out(device.size() * devices, 0);
  for (std::size_t v = 0; v < device.size(); ++v)
    for (int u : other_inputs[v]) ++out[v * devices + device[u]];
  return out;
}

std::vector<std::vector<int>> other_inputs_of(const Coarsening& coarse, const std::vector<int>& parent) {
  std::vector<std::vector<int>> out(coarse.num_groups());
  for (int v = 0; v < coarse.num_groups(); ++v)
    for (int u : coarse.preds[v])
      if (u != parent[v]) out[v].push_back(u);
  return out;
}

std::vector<double> conditional_log_probs(const float* logits, const std::vector<int>& row_of,
                                          const std::vector<int>& parent, int devices, const ChainTerms& terms,
                                          const std::vector<int>& device) {
  std::vector<double> out(device.size() * devices);
  decide_in_order(logits, row_of, parent, devices, terms, [&](int v, const std::vector<double>& logp) {
    std::copy(logp.begin(), logp.end(), out.begin() + static_cast<std::ptrdiff_t>(v) * devices);
    return device[v];
  });
  return out;
}

double chained_log_prob(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                        int devices, const ChainTerms& terms, const std::vector<int>& device) {
  const std::vector<double> logp = conditional_log_probs(logits, row_of, parent, devices, terms, device);
  double total = 0;
  for (std::size_t v = 0; v < device.size(); ++v) total += logp[v * devices + device[v]];
  return total;
}

std::vector<int> sample_chained(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                                int devices, const ChainTerms& terms, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  return decide_in_order(logits, row_of, parent, devices, terms, [&](int, const std::vector<double>& logp) {
    const double x = unif(rng);
    double acc = 0;
    for (int j = 0; j < devices; ++j)
      if ((acc += std::exp(logp[j])) >= x) return j;
    return devices - 1;
  });
}

std::vector<int> most_likely_chained(const float* logits, const std::vector<int>& row_of,
                                     const std::vector<int>& parent, int devices, const ChainTerms& terms) {
  const int n = static_cast<int>(row_of.size()), D = devices;
  // below[v * D + d]: the best log-probability of v's descendants given v on d (sibling and join
  // terms aside).
  std::vector<double> below(static_cast<std::size_t>(n) * D, 0.0), logp(D);
  for (int v = n - 1; v >= 0; --v) {  // children (higher indices) before their parents
    if (parent[v] < 0) continue;
    const float* row = logits + static_cast<std::size_t>(row_of[v]) * D;
    for (int e = 0; e < D; ++e) {  // the parent's device
      chained_log_probs(row, D, terms.stay[v], e, logp.data());
      double best = -INFINITY;
      for (int d = 0; d < D; ++d) best = std::max(best, logp[d] + below[static_cast<std::size_t>(v) * D + d]);
      below[static_cast<std::size_t>(parent[v]) * D + e] += best;
    }
  }
  // Parents (lower indices) before their children.
  auto decide = [&](bool look_below) {
    return decide_in_order(logits, row_of, parent, devices, terms, [&](int v, const std::vector<double>& lp) {
      const double* b = &below[static_cast<std::size_t>(v) * D];
      auto value = [&](int d) { return lp[d] + (look_below ? b[d] : 0.0); };
      int best = 0;
      for (int d = 1; d < D; ++d)
        if (value(d) > value(best)) best = d;
      return best;
    });
  };
  std::vector<int> device = decide(true);
  if (terms.sibling.empty() && terms.join.empty()) return device;  // exact
  std::vector<int> stepwise = decide(false);
  return chained_log_prob(logits, row_of, parent, devices, terms, stepwise) >
                 chained_log_prob(logits, row_of, parent, devices, terms, device)
             ? stepwise
             : device;
}

}  // namespace devplace
