// The HSDAG network in LibTorch (internal to learn/): input MLP, GCN layers over the coarse
// graph, graph-parsing pooling levels and the device policy. Inputs are built once per graph
// (GraphTensors); forward() returns per-group device logits and the group of every node.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace devplace {

// A graph in the form message passing needs: undirected edges (u < v) and the normalised
// adjacency with self loops, D^-1/2 (A + I) D^-1/2, as (src, dst, weight) triples.
struct GraphTensors {
  int nodes = 0;
  std::vector<std::pair<int, int>> edges;  // undirected, u < v, no duplicates
  torch::Tensor src, dst, weight;          // normalised adjacency incl. self loops
  static GraphTensors build(int nodes, std::vector<std::pair<int, int>> edges);
};

// The pooling's grouping: per parsing level, the cluster of every node of that level.
using Parse = std::vector<std::vector<int>>;

struct NetOutput {
  torch::Tensor logits;           // [decision units, devices]
  std::vector<int> unit_of_node;  // coarse node -> decision unit (its group, or itself)
  int groups = 0;                 // groups the pooling made
  Parse parse;                    // how it grouped (pass back to forward to keep it)
  // [coarse nodes]: what the network adds to each node's stay bonus (HsdagConfig::learn_stay);
  // undefined where the bonus is fixed.
  torch::Tensor stay;
  // [coarse nodes]: each node's sibling term (HsdagConfig::learn_siblings); undefined where off.
  torch::Tensor sibling;
  // [coarse nodes]: each node's join term (HsdagConfig::learn_joins); undefined where off.
  torch::Tensor join;
};

// The network's sizes and switches (HsdagConfig's network fields, plus the input width and the
// device count of the problem it is built for).
struct HsdagNetSpec {
  int features = 0;
  int hidden = 64;
  int devices = 2;
  int gcn_layers = 2;
  int pool_gcn_layers = 1;
  int pool_levels = 1;
  double edge_threshold = 0.5;
  double dropout = 0.0;
  bool node_policy = true;
  bool mutual = true;
  bool learn_stay = false;
  bool learn_siblings = false;
  bool learn_joins = false;
};

class HsdagNetImpl : public torch::nn::Module {
 public:
  explicit HsdagNetImpl(const HsdagNetSpec& spec);
  // With `parse` (from an earlier forward on the same graph) the grouping is kept as it was,
  // so that several update steps on one batch score the same decision units it was sampled in.
  NetOutput forward(const torch::Tensor& x, const GraphTensors& graph, const Parse* parse = nullptr);
  // Adds `log_odds` to every unit's logit of `device` (the policy's output bias): a start that
  // leans towards one device without changing anything else.
  void lean_towards(int device, double log_odds);

 private:
  torch::Tensor propagate(const torch::Tensor& h, const GraphTensors& g);
  int pool_levels_, pool_gcn_layers_;
  double threshold_, dropout_;
  bool node_policy_, mutual_;
  torch::nn::Linear stay_{nullptr};     // a node's embedding -> its stay term (learn_stay)
  torch::nn::Linear sibling_{nullptr};  // a node's embedding -> its sibling term (learn_siblings)
  torch::nn::Linear join_{nullptr};     // a node's embedding -> its join term (learn_joins)
  torch::nn::Linear node1_{nullptr}, node2_{nullptr};
  torch::nn::Linear in1_{nullptr}, in2_{nullptr}, score1_{nullptr}, score2_{nullptr}, pol1_{nullptr}, pol2_{nullptr};
  torch::nn::ModuleList gcn_, pool_gcn_;
};
TORCH_MODULE(HsdagNet);

}  // namespace devplace
