#include "learn/representation/features.h"

#include <algorithm>
#include <cmath>

#include "graph/op_types.h"
#include "util/error.h"

namespace devplace {
namespace {

int vocab_index(std::string_view name) {
  for (std::size_t i = 0; i < kOpTypeVocabulary.size(); ++i)
    if (kOpTypeVocabulary[i] == name) return static_cast<int>(i);
  return static_cast<int>(kOpTypeVocabulary.size()) - 1;  // "other"
}

void sinusoid(int index, int dims, float* out) {
  for (int j = 0; j < dims; ++j) {
    const double freq = std::pow(10000.0, -2.0 * (j / 2) / dims);
    const double a = index * freq;
    out[j] = static_cast<float>(j % 2 == 0 ? std::sin(a) : std::cos(a));
  }
}

float log1p_dim(std::int64_t d) { return d > 0 ? static_cast<float>(std::log1p(static_cast<double>(d))) : 0.f; }

}  // namespace

int canonical_op_type(const std::string& op_type) { return vocab_index(op_type_info(op_type).feature_name); }

int FeatureMatrix::offset(const std::string& name) const {
  int col = 0;
  for (const auto& [n, w] : groups) {
    if (n == name) return col;
    col += w;
  }
  return -1;
}

int FeatureMatrix::width(const std::string& name) const {
  for (const auto& [n, w] : groups)
    if (n == name) return w;
  return 0;
}

std::vector<double> fractal_dimensions(const std::vector<std::vector<int>>& adj, int max_radius) {
  const int n = static_cast<int>(adj.size());
  std::vector<double> dim(n, 0.0);
  std::vector<int> stamp(n, -1), frontier, next;
  std::vector<double> xs, ys;
  for (int s = 0; s < n; ++s) {
    stamp[s] = s;
    frontier.assign(1, s);
    xs.clear();
    ys.clear();
    double count = 1;
    for (int r = 1; r <= max_radius; ++r) {
      next.clear();
      for (int v : frontier)
        for (int w : adj[v])
          if (stamp[w] != s) {
            stamp[w] = s;
            next.push_back(w);
          }
      if (next.empty()) break;  // the ball stopped growing: larger radii add nothing
      count += static_cast<double>(next.size());
      xs.push_back(std::log(2.0 * r + 1));
      ys.push_back(std::log(count));
      frontier.swap(next);
    }
    if (xs.empty()) continue;  // isolated
    if (xs.size() == 1) {      // one radius: the slope through (log 1, log 1) = (0, 0)
      dim[s] = ys[0] / xs[0];
      continue;
    }
    const double k = static_cast<double>(xs.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      mx += xs[i];
      my += ys[i];
    }
    mx /= k;
    my /= k;
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      sxy += (xs[i] - mx) * (ys[i] - my);
      sxx += (xs[i] - mx) * (xs[i] - mx);
    }
    dim[s] = sxy / sxx;
  }
  return dim;
}

FeatureMatrix node_features(const Problem& p, const Coarsening& c, const FeatureOptions& o) {
  const Graph& g = p.graph();
  if (static_cast<int>(c.group_of_op.size()) != g.num_ops())
    throw Error(g.source(), "",
                "node_features: coarsening has " + std::to_string(c.group_of_op.size()) + " ops, graph has " +
                    std::to_string(g.num_ops()));
  if (o.position_dims <= 0 || o.max_degree < 0 || o.fractal_max_radius < 1)
    throw Error("", "", "node_features: position_dims and fractal_max_radius must be >= 1, max_degree >= 0");

  FeatureMatrix m;
  m.rows = c.num_groups();
  const int vocab = static_cast<int>(kOpTypeVocabulary.size());
  const int devices = p.num_devices();
  if (o.op_type) m.groups.emplace_back("op_type", vocab);
  if (o.degree) m.groups.emplace_back("degree", 2 * (o.max_degree + 1));
  if (o.output_shape) m.groups.emplace_back("output_shape", 4);
  if (o.position) m.groups.emplace_back("position", o.position_dims);
  if (o.fractal) m.groups.emplace_back("fractal", 1);
  if (o.node_id) m.groups.emplace_back("node_id", 1);
  if (o.cost) m.groups.emplace_back("cost", 2 + devices);
  for (const auto& [name, w] : m.groups) m.cols += w;
  m.data.assign(static_cast<std::size_t>(m.rows) * m.cols, 0.f);

  std::vector<double> fractal;
  if (o.fractal) {
    std::vector<std::vector<int>> adj(m.rows);
    for (int v = 0; v < m.rows; ++v) {
      adj[v] = c.preds[v];
      adj[v].insert(adj[v].end(), c.succs[v].begin(), c.succs[v].end());
    }
    fractal = fractal_dimensions(adj, o.fractal_max_radius);
  }

  for (int v = 0; v < m.rows; ++v) {
    float* row = m.data.data() + static_cast<std::size_t>(v) * m.cols;
    const auto& members = c.members[v];
    if (o.op_type) {
      const float share = 1.f / static_cast<float>(members.size());
      for (int op : members) row[canonical_op_type(g.op(op).type)] += share;
      row += vocab;
    }
    if (o.degree) {
      const int in = std::min<int>(c.preds[v].size(), o.max_degree);
      const int out = std::min<int>(c.succs[v].size(), o.max_degree);
      row[in] = 1.f;
      row[o.max_degree + 1 + out] = 1.f;
      row += 2 * (o.max_degree + 1);
    }
    if (o.output_shape) {
      const Op& last = g.op(members.back());
      if (!last.outputs.empty()) {
        const Shape& s = g.tensor(last.outputs.front()).shape;
        for (std::size_t d = 0; d < s.size() && d < 3; ++d) row[d] = log1p_dim(s[d]);
        if (s.size() > 3) {
          double rest = 1;
          bool known = true;
          for (std::size_t d = 3; d < s.size(); ++d) {
            known &= s[d] != kUnknownDim;
            rest *= static_cast<double>(s[d]);
          }
          row[3] = known && rest > 0 ? static_cast<float>(std::log1p(rest)) : 0.f;
        }
      }
      row += 4;
    }
    if (o.position) {
      sinusoid(v, o.position_dims, row);
      row += o.position_dims;
    }
    if (o.fractal) *row++ = static_cast<float>(fractal[v]);
    if (o.node_id) *row++ = static_cast<float>(v) / static_cast<float>(m.rows);
    if (o.cost) {
      double flops = 0, bytes = 0;
      for (int op : members) {
        flops += g.op(op).flops;
        bytes += static_cast<double>(g.op(op).bytes_accessed);
      }
      row[0] = static_cast<float>(std::log1p(flops / 1e6));
      row[1] = static_cast<float>(std::log1p(bytes / 1e6));
      for (int d = 0; d < devices; ++d) {
        double t = 0;
        for (int op : members) t += p.op_time(op, d);
        row[2 + d] = std::isfinite(t) ? static_cast<float>(std::log1p(t * 1e6)) : -1.f;
      }
      row += 2 + devices;
    }
  }
  return m;
}

}  // namespace devplace
