// The networks of the learned peers (internal to learn/): the seq2seq LSTM placer with
// attention shared by the RNN placer and the hierarchical planner, and Placeto's two-direction
// DAG message-passing policy. Everything is batched over sampled placements (K).
#pragma once

#include <torch/torch.h>

namespace devplace {

struct DecodeOutput {
  torch::Tensor actions;  // [T, K] long: a device per input position and sample
  torch::Tensor logp;     // [K]: log-probability of each sample's actions
  torch::Tensor entropy;  // scalar: mean per-step entropy
};

// Encoder: an LSTM over the embedded inputs. Decoder: an LSTM cell fed the previous device's
// embedding and the encoder output at its position, with additive attention over all encoder
// outputs; emits one device per position. The sampling uses torch's default generator.
class Seq2SeqImpl : public torch::nn::Module {
 public:
  Seq2SeqImpl(int features, int hidden, int devices);
  // x: [T, K, features]. greedy: take the most likely device instead of sampling.
  DecodeOutput forward(const torch::Tensor& x, bool greedy);

 private:
  int devices_;
  torch::nn::Linear embed_{nullptr}, att_enc_{nullptr}, att_dec_{nullptr}, att_v_{nullptr}, out1_{nullptr},
      out2_{nullptr};
  torch::nn::LSTM encoder_{nullptr};
  torch::nn::LSTMCell decoder_{nullptr};
  torch::nn::Embedding device_embed_{nullptr};
};
TORCH_MODULE(Seq2Seq);

// A DAG as directed edge lists, with in- and out-degrees clamped at 1 for mean aggregation.
struct DagTensors {
  int nodes = 0;
  torch::Tensor src, dst;       // [E] long, edge src -> dst
  torch::Tensor indeg, outdeg;  // [nodes, 1] float, >= 1
  static DagTensors build(int nodes, const std::vector<std::pair<int, int>>& edges);
};

// Placeto's policy. Node input: static features plus the current placement (one-hot device),
// a visited flag and a current-node flag. `rounds` rounds of mean message passing along the
// edges (from producers: "up") and against them (from consumers: "down"), separate weights;
// the logits of the current node read its two embeddings and their mean over the graph.
class PlacetoNetImpl : public torch::nn::Module {
 public:
  PlacetoNetImpl(int features, int hidden, int devices, int rounds);
  // x: [G, features]; placement: [B, G] long; step: [B] long, the node each row decides (nodes
  // before it in topological order are visited). Returns logits [B, devices].
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& placement, const torch::Tensor& step,
                        const DagTensors& dag);

 private:
  int devices_;
  torch::nn::Linear in_x_{nullptr}, in_state_{nullptr}, pol1_{nullptr}, pol2_{nullptr};
  torch::nn::ModuleList up_self_, up_msg_, down_self_, down_msg_;
};
TORCH_MODULE(PlacetoNet);

}  // namespace devplace
