#include "learn/peers/peers_net.h"

namespace devplace {

namespace nn = torch::nn;

Seq2SeqImpl::Seq2SeqImpl(int features, int hidden, int devices) : devices_(devices) {
  embed_ = register_module("embed", nn::Linear(features, hidden));
  encoder_ = register_module("encoder", nn::LSTM(nn::LSTMOptions(hidden, hidden)));
  decoder_ = register_module("decoder", nn::LSTMCell(nn::LSTMCellOptions(2 * hidden, hidden)));
  device_embed_ = register_module("device_embed", nn::Embedding(devices + 1, hidden));  // + start token
  att_enc_ = register_module("att_enc", nn::Linear(hidden, hidden));
  att_dec_ = register_module("att_dec", nn::Linear(hidden, hidden));
  att_v_ = register_module("att_v", nn::Linear(hidden, 1));
  out1_ = register_module("out1", nn::Linear(2 * hidden, hidden));
  out2_ = register_module("out2", nn::Linear(hidden, devices));
}

DecodeOutput Seq2SeqImpl::forward(const torch::Tensor& x, bool greedy) {
  const int64_t T = x.size(0), K = x.size(1);
  auto e = torch::tanh(embed_->forward(x));
  auto [enc, state] = encoder_->forward(e);  // enc [T, K, H]
  torch::Tensor h = std::get<0>(state)[0], c = std::get<1>(state)[0];
  auto keys = att_enc_->forward(enc);
  auto prev = torch::full({K}, devices_, torch::kLong);
  std::vector<torch::Tensor> actions;
  torch::Tensor logp = torch::zeros({K}), entropy = torch::zeros({});
  for (int64_t t = 0; t < T; ++t) {
    auto in = torch::cat({device_embed_->forward(prev), enc[t]}, 1);
    std::tie(h, c) = decoder_->forward(in, std::make_tuple(h, c));
    auto score = att_v_->forward(torch::tanh(keys + att_dec_->forward(h).unsqueeze(0))).squeeze(2);  // [T, K]
    auto context = (torch::softmax(score, 0).unsqueeze(2) * enc).sum(0);                             // [K, H]
    auto lp = torch::log_softmax(out2_->forward(torch::tanh(out1_->forward(torch::cat({h, context}, 1)))), 1);
    torch::Tensor a = greedy ? lp.argmax(1) : torch::multinomial(lp.exp().detach(), 1).squeeze(1);
    logp = logp + lp.gather(1, a.unsqueeze(1)).squeeze(1);
    entropy = entropy - (lp.exp() * lp).sum(1).mean();
    actions.push_back(a);
    prev = a;
  }
  return {torch::stack(actions, 0), logp, entropy / std::max<int64_t>(T, 1)};
}

DagTensors DagTensors::build(int nodes, const std::vector<std::pair<int, int>>& edges) {
  DagTensors d;
  d.nodes = nodes;
  std::vector<int64_t> s, t;
  std::vector<float> in(nodes, 0), out(nodes, 0);
  for (auto [u, v] : edges) s.push_back(u), t.push_back(v), in[v] += 1, out[u] += 1;
  for (auto& x : in) x = std::max(x, 1.0f);
  for (auto& x : out) x = std::max(x, 1.0f);
  d.src = torch::tensor(s, torch::kLong);
  d.dst = torch::tensor(t, torch::kLong);
  d.indeg = torch::tensor(in).unsqueeze(1);
  d.outdeg = torch::tensor(out).unsqueeze(1);
  return d;
}

PlacetoNetImpl::PlacetoNetImpl(int features, int hidden, int devices, int rounds) : devices_(devices) {
  in_x_ = register_module("in_x", nn::Linear(features, hidden));
  in_state_ = register_module("in_state", nn::Linear(devices + 2, hidden));
  up_self_ = register_module("up_self", nn::ModuleList());
  up_msg_ = register_module("up_msg", nn::ModuleList());
  down_self_ = register_module("down_self", nn::ModuleList());
  down_msg_ = register_module("down_msg", nn::ModuleList());
  for (int r = 0; r < rounds; ++r) {
    up_self_->push_back(nn::Linear(hidden, hidden));
    up_msg_->push_back(nn::Linear(hidden, hidden));
    down_self_->push_back(nn::Linear(hidden, hidden));
    down_msg_->push_back(nn::Linear(hidden, hidden));
  }
  pol1_ = register_module("pol1", nn::Linear(4 * hidden, hidden));
  pol2_ = register_module("pol2", nn::Linear(hidden, devices));
}

torch::Tensor PlacetoNetImpl::forward(const torch::Tensor& x, const torch::Tensor& placement, const torch::Tensor& step,
                                      const DagTensors& dag) {
  const int64_t B = placement.size(0), G = placement.size(1);
  auto order = torch::arange(G, torch::kLong).unsqueeze(0);  // [1, G]
  auto st = step.unsqueeze(1);                               // [B, 1]
  auto state = torch::cat({torch::one_hot(placement, devices_).to(torch::kFloat),
                           (order < st).to(torch::kFloat).unsqueeze(2), (order == st).to(torch::kFloat).unsqueeze(2)},
                          2);                                                         // [B, G, D + 2]
  auto h0 = torch::relu(in_x_->forward(x).unsqueeze(0) + in_state_->forward(state));  // [B, G, H]
  auto pass = [&](nn::ModuleList& self, nn::ModuleList& msg, const torch::Tensor& from, const torch::Tensor& to,
                  const torch::Tensor& deg) {
    torch::Tensor h = h0;
    for (std::size_t r = 0; r < self->size(); ++r) {
      auto m = torch::zeros_like(h).index_add(1, to, h.index_select(1, from)) / deg;
      h = torch::relu(self[r]->as<nn::Linear>()->forward(h) + msg[r]->as<nn::Linear>()->forward(m));
    }
    return h;
  };
  auto up = pass(up_self_, up_msg_, dag.src, dag.dst, dag.indeg);         // from producers
  auto down = pass(down_self_, down_msg_, dag.dst, dag.src, dag.outdeg);  // from consumers
  auto z = torch::cat({up, down}, 2);                                     // [B, G, 2H]
  auto idx = step.view({B, 1, 1}).expand({B, 1, z.size(2)});
  auto node = z.gather(1, idx).squeeze(1);  // [B, 2H]
  return pol2_->forward(torch::relu(pol1_->forward(torch::cat({node, z.mean(1)}, 1))));
}

}  // namespace devplace
