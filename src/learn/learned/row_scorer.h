// The scorer both of devplace's own learned placers share (learn/learned/list_policy.h scores (op,
// device) rows, learn/learned/move_policy.h scores moves): two ReLU layers and a linear output, one score
// per feature row. Its parameter names (l1, l2, out) are those of the shipped policy files.
#pragma once

#include <torch/torch.h>

namespace devplace {

struct RowScorerImpl : torch::nn::Module {
  torch::nn::Linear l1{nullptr}, l2{nullptr}, out{nullptr};
  RowScorerImpl(int features, int hidden) {
    l1 = register_module("l1", torch::nn::Linear(features, hidden));
    l2 = register_module("l2", torch::nn::Linear(hidden, hidden));
    out = register_module("out", torch::nn::Linear(hidden, 1));
  }
  // rows [..., features] -> scores [...]
  torch::Tensor forward(const torch::Tensor& rows) { return out(torch::relu(l2(torch::relu(l1(rows))))).squeeze(-1); }
};
TORCH_MODULE(RowScorer);

}  // namespace devplace
