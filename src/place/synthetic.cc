#include "place/synthetic.h"

#include <algorithm>
#include <array>
#include <random>
#include <string>

#include "util/error.h"

namespace devplace {

Cluster synthetic_cluster(int gpus) {
  if (gpus < 0) throw Error("", "", "synthetic_cluster: gpus must be >= 0");
  Cluster c;
  c.name = "synthetic-" + std::to_string(gpus) + "gpu";
  c.description = "host cpu + " + std::to_string(gpus) + " GPUs over PCIe 4.0 (synthetic, in code)";
  Device cpu;
  cpu.name = "cpu", cpu.kind = "cpu", cpu.peak_flops = 1.8e12, cpu.mem_bandwidth = 76.8e9;
  cpu.memory_bytes = 64LL << 30, cpu.launch_overhead = 4e-6, cpu.default_efficiency = 0.5;
  cpu.efficiency = {{"conv", 0.55},       {"matmul", 0.6},        {"pool", 0.3},
                    {"elementwise", 0.3}, {"normalization", 0.3}, {"softmax", 0.3}};
  c.devices.push_back(cpu);
  for (int g = 0; g < gpus; ++g) {
    Device d;
    d.name = "gpu" + std::to_string(g), d.kind = "gpu", d.peak_flops = 16e12, d.mem_bandwidth = 576e9;
    d.memory_bytes = 16LL << 30, d.launch_overhead = 22e-6, d.default_efficiency = 0.3;
    d.efficiency = {{"conv", 0.35},       {"matmul", 0.4},        {"pool", 0.2},
                    {"elementwise", 0.2}, {"normalization", 0.2}, {"softmax", 0.2}};
    c.devices.push_back(d);
  }
  for (int s = 0; s < c.num_devices(); ++s)
    for (int d = 0; d < c.num_devices(); ++d)
      if (s != d) c.set_link({s, d, 25e9, 10e-6});
  return c;
}

std::unique_ptr<SyntheticProblem> make_synthetic_problem(const SyntheticOptions& o) {
  if (o.family == SyntheticFamily::branchy) return make_branchy_cnn(o);
  if (o.family == SyntheticFamily::transformer) return make_transformer_encoder(o);
  if (o.family == SyntheticFamily::decoder) return make_transformer_decoder(o);
  if (o.ops < 1 || o.width < 1 || o.tokens < 1 || o.skip_span < 1)
    throw Error("", "", "make_synthetic_problem: ops, width, tokens and skip_span must be positive");
  std::mt19937_64 rng(o.seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };

  auto sp = std::make_unique<SyntheticProblem>();
  Graph& g = sp->graph;
  g.set_name("synthetic-" + std::to_string(o.ops));
  static constexpr std::array<const char*, 5> kTypes = {"MatMul", "Add", "Relu", "LayerNormalization", "Softmax"};
  static constexpr std::array<int, 3> kHidden = {128, 256, 512};
  const std::int64_t tokens = o.tokens;

  const int in = g.tensor_id("input");
  g.tensor(in).shape = {tokens, 256};
  g.tensor(in).is_graph_input = true;

  std::vector<int> hidden(o.ops);  // output width of each op
  std::vector<int> layer_start;    // first op index of each layer
  int made = 0;
  while (made < o.ops) {
    const int width = std::min(o.width, o.ops - made);
    const int layer = static_cast<int>(layer_start.size());
    layer_start.push_back(made);
    for (int k = 0; k < width; ++k, ++made) {
      Op op;
      op.name = "op" + std::to_string(made);
      op.type = kTypes[static_cast<std::size_t>(pick(static_cast<int>(kTypes.size())))];
      std::vector<int> srcs;  // producer op indices; empty = the graph input
      std::int64_t in_width = 256;
      if (layer > 0) {
        const int prev = layer_start[layer - 1];
        srcs.push_back(prev + pick(layer_start[layer] - prev));
        in_width = hidden[srcs[0]];
        if (layer >= 2 && chance(o.skip_prob)) {
          const int back = 2 + pick(std::min(o.skip_span, layer - 1));
          const int l = std::max(0, layer - back);
          const int end = layer_start[l + 1];
          srcs.push_back(layer_start[l] + pick(end - layer_start[l]));
        }
      }
      std::int64_t in_bytes = 0;
      if (srcs.empty()) {
        op.inputs.push_back(in);
        in_bytes = tokens * 256 * 4;
      }
      for (int s : srcs) {
        op.inputs.push_back(g.tensor_id("op" + std::to_string(s) + ":0"));
        in_bytes += tokens * hidden[s] * 4;
      }
      const bool matmul = std::string(op.type) == "MatMul";
      hidden[made] = matmul ? kHidden[static_cast<std::size_t>(pick(3))] : static_cast<int>(in_width);
      const std::int64_t out_elems = tokens * hidden[made];
      const int out = g.tensor_id(op.name + ":0");
      g.tensor(out).shape = {tokens, hidden[made]};
      op.outputs = {out};
      if (matmul) {
        op.weight_bytes = in_width * hidden[made] * 4;
        op.macs = static_cast<double>(tokens * in_width * hidden[made]);
        op.flops = 2 * op.macs;
      } else {
        op.flops =
            static_cast<double>(out_elems) * (op.type == std::string("Add") || op.type == std::string("Relu") ? 1 : 5);
      }
      op.bytes_accessed = in_bytes + out_elems * 4 + op.weight_bytes;
      g.add_op(std::move(op));
    }
  }
  // Ops nobody reads are the graph's outputs.
  std::vector<char> read(o.ops, 0);
  for (const auto& op : g.ops())
    for (int t : op.inputs)
      if (g.tensor(t).name != "input") read[std::stoi(g.tensor(t).name.substr(2))] = 1;
  for (int i = 0; i < o.ops; ++i)
    if (!read[i]) g.tensor(g.tensor_id("op" + std::to_string(i) + ":0")).is_graph_output = true;
  g.finalize();
  sp->problem = std::make_unique<Problem>(g, synthetic_cluster(o.gpus));
  return sp;
}

}  // namespace devplace
