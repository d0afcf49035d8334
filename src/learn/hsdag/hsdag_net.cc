#include "learn/hsdag/hsdag_net.h"

#include <algorithm>
#include <numeric>

namespace devplace {

GraphTensors GraphTensors::build(int nodes, std::vector<std::pair<int, int>> edges) {
  for (auto& e : edges)
    if (e.first > e.second) std::swap(e.first, e.second);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  edges.erase(std::remove_if(edges.begin(), edges.end(), [](auto& e) { return e.first == e.second; }), edges.end());
  GraphTensors g;
  g.nodes = nodes;
  g.edges = edges;
  std::vector<float> deg(nodes, 1.0f);  // self loop
  for (auto& [u, v] : edges) deg[u] += 1, deg[v] += 1;
  std::vector<int64_t> src, dst;
  std::vector<float> w;
  src.reserve(nodes + 2 * edges.size());
  for (int i = 0; i < nodes; ++i) src.push_back(i), dst.push_back(i), w.push_back(1.0f / deg[i]);
  for (auto& [u, v] : edges) {
    float x = 1.0f / std::sqrt(deg[u] * deg[v]);
    src.push_back(u), dst.push_back(v), w.push_back(x);
    src.push_back(v), dst.push_back(u), w.push_back(x);
  }
  g.src = torch::tensor(src, torch::kLong);
  g.dst = torch::tensor(dst, torch::kLong);
  g.weight = torch::tensor(w, torch::kFloat).unsqueeze(1);
  return g;
}

HsdagNetImpl::HsdagNetImpl(const HsdagNetSpec& spec)
    : pool_levels_(spec.pool_levels),
      pool_gcn_layers_(spec.pool_gcn_layers),
      threshold_(spec.edge_threshold),
      dropout_(spec.dropout),
      node_policy_(spec.node_policy),
      mutual_(spec.mutual) {
  const int features = spec.features, hidden = spec.hidden, devices = spec.devices;
  const int gcn_layers = spec.gcn_layers, pool_levels = spec.pool_levels, pool_gcn_layers = spec.pool_gcn_layers;
  in1_ = register_module("in1", torch::nn::Linear(features, hidden));
  in2_ = register_module("in2", torch::nn::Linear(hidden, hidden));
  gcn_ = register_module("gcn", torch::nn::ModuleList());
  for (int i = 0; i < gcn_layers; ++i) gcn_->push_back(torch::nn::Linear(hidden, hidden));
  pool_gcn_ = register_module("pool_gcn", torch::nn::ModuleList());
  for (int i = 0; i < pool_levels * pool_gcn_layers; ++i) pool_gcn_->push_back(torch::nn::Linear(hidden, hidden));
  score1_ = register_module("score1", torch::nn::Linear(hidden, hidden));
  score2_ = register_module("score2", torch::nn::Linear(hidden, 1));
  pol1_ = register_module("pol1", torch::nn::Linear(hidden, hidden));
  pol2_ = register_module("pol2", torch::nn::Linear(hidden, devices));
  if (node_policy_) {
    node1_ = register_module("node1", torch::nn::Linear(hidden, hidden));
    node2_ = register_module("node2", torch::nn::Linear(hidden, devices));
  }
  if (spec.learn_stay) {
    // Zero at first: the untrained policy is the fixed bonus's.
    stay_ = register_module("stay", torch::nn::Linear(hidden, 1));
    torch::NoGradGuard no_grad;
    stay_->weight.zero_();
    stay_->bias.zero_();
  }
  if (spec.learn_siblings) {
    // Zero at first: the untrained policy ignores its siblings.
    sibling_ = register_module("sibling", torch::nn::Linear(hidden, 1));
    torch::NoGradGuard no_grad;
    sibling_->weight.zero_();
    sibling_->bias.zero_();
  }
  if (spec.learn_joins) {
    // Zero at first: the untrained policy ignores its other inputs.
    join_ = register_module("join", torch::nn::Linear(hidden, 1));
    torch::NoGradGuard no_grad;
    join_->weight.zero_();
    join_->bias.zero_();
  }
}

void HsdagNetImpl::lean_towards(int device, double log_odds) {
  torch::NoGradGuard no_grad;
  pol2_->bias[device].add_(log_odds);
}

torch::Tensor HsdagNetImpl::propagate(const torch::Tensor& h, const GraphTensors& g) {
  auto msg = h.index_select(0, g.src) * g.weight;
  return torch::zeros_like(h).index_add(0, g.dst, msg);
}

namespace {

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

NetOutput HsdagNetImpl::forward(const torch::Tensor& x, const GraphTensors& graph, const Parse* parse) {
  NetOutput out;
  auto drop = [&](const torch::Tensor& t) { return torch::dropout(t, dropout_, is_training()); };
  torch::Tensor h = torch::relu(in2_->forward(torch::relu(in1_->forward(x))));
  for (auto& layer : *gcn_) h = drop(torch::relu(layer->as<torch::nn::Linear>()->forward(propagate(h, graph)))) + h;
  const torch::Tensor node_h = h;

  // Graph-parsing pooling: score each edge, keep each node's dominant edge when its score
  // clears the threshold, and merge the components of kept edges into groups.
  std::vector<int> group_of_node(graph.nodes);
  std::iota(group_of_node.begin(), group_of_node.end(), 0);
  GraphTensors level = graph;
  int pool_layer = 0;
  for (int lv = 0; lv < pool_levels_ && !level.edges.empty(); ++lv) {
    const int n = level.nodes;
    std::vector<int64_t> us, vs;
    for (auto& [u, v] : level.edges) us.push_back(u), vs.push_back(v);
    auto ut = torch::tensor(us, torch::kLong), vt = torch::tensor(vs, torch::kLong);
    auto pair = h.index_select(0, ut) * h.index_select(0, vt);
    auto score = torch::sigmoid(score2_->forward(torch::relu(score1_->forward(pair)))).squeeze(1);  // [E]
    auto sc = score.detach().contiguous();
    const float* s = sc.data_ptr<float>();
    std::vector<int> dominant(n, -1);
    for (std::size_t e = 0; e < level.edges.size(); ++e)
      for (int end : {level.edges[e].first, level.edges[e].second})
        if (dominant[end] < 0 || s[e] > s[dominant[end]]) dominant[end] = static_cast<int>(e);
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    for (int v = 0; v < n; ++v)
      if (dominant[v] >= 0 && s[dominant[v]] > threshold_) {
        auto [a, b] = level.edges[dominant[v]];
        if (mutual_ && dominant[a] != dominant[b]) continue;
        parent[find(parent, a)] = find(parent, b);
      }
    std::vector<int> cluster(n, -1);
    int clusters = 0;
    if (parse && lv < static_cast<int>(parse->size()) && static_cast<int>((*parse)[lv].size()) == n) {
      cluster = (*parse)[lv];
      for (int c : cluster) clusters = std::max(clusters, c + 1);
    } else {
      for (int v = 0; v < n; ++v) {
        int r = find(parent, v);
        if (cluster[r] < 0) cluster[r] = clusters++;
        cluster[v] = cluster[r];
      }
    }
    out.parse.push_back(cluster);
    // Pooled embedding: members weighted by their dominant edge's score (the path by which
    // the score MLP receives gradient), averaged per group.
    std::vector<int64_t> dom_index(n), cl(n);
    std::vector<float> has_edge(n);
    for (int v = 0; v < n; ++v) {
      dom_index[v] = std::max(dominant[v], 0);
      has_edge[v] = dominant[v] >= 0 ? 1.0f : 0.0f;
      cl[v] = cluster[v];
    }
    auto he = torch::tensor(has_edge).unsqueeze(1);
    auto w = score.index_select(0, torch::tensor(dom_index, torch::kLong)).unsqueeze(1) * he + (1 - he);
    auto clt = torch::tensor(cl, torch::kLong);
    auto counts = torch::zeros({clusters, 1}).index_add(0, clt, torch::ones({n, 1}));
    h = torch::zeros({clusters, h.size(1)}).index_add(0, clt, h * w) / counts;
    std::vector<std::pair<int, int>> cedges;
    for (auto& [u, v] : level.edges)
      if (cluster[u] != cluster[v]) cedges.push_back({cluster[u], cluster[v]});
    level = GraphTensors::build(clusters, std::move(cedges));
    for (int k = 0; k < pool_gcn_layers_; ++k, ++pool_layer)
      h = drop(torch::relu(pool_gcn_[pool_layer]->as<torch::nn::Linear>()->forward(propagate(h, level)))) + h;
    for (auto& gnode : group_of_node) gnode = cluster[gnode];
  }
  out.groups = level.nodes;
  out.logits = pol2_->forward(torch::relu(pol1_->forward(h)));
  if (node_policy_) {
    std::vector<int64_t> g(group_of_node.begin(), group_of_node.end());
    out.logits = out.logits.index_select(0, torch::tensor(g, torch::kLong)) +
                 node2_->forward(torch::relu(node1_->forward(node_h)));
    std::iota(group_of_node.begin(), group_of_node.end(), 0);
  }
  if (stay_) out.stay = stay_->forward(node_h).squeeze(1);
  if (sibling_) out.sibling = sibling_->forward(node_h).squeeze(1);
  if (join_) out.join = join_->forward(node_h).squeeze(1);
  out.unit_of_node = std::move(group_of_node);
  return out;
}

}  // namespace devplace
