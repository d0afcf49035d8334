#include "place/small_graphs.h"

#include <algorithm>
#include <random>
#include <string>

#include "util/error.h"

namespace devplace {

std::unique_ptr<SmallProblem> make_small_problem(const SmallProblemOptions& o) {
  if (o.ops < 1 || o.devices < 1 || o.max_width < 1)
    throw Error("", "", "make_small_problem: ops, devices and max_width must be positive");
  std::mt19937_64 rng(o.seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };

  auto sp = std::make_unique<SmallProblem>();
  Cluster c;
  c.name = "small";
  for (int d = 0; d < o.devices; ++d) {
    Device dev;
    dev.name = d == 0 ? "cpu" : "gpu" + std::to_string(d - 1);
    dev.kind = (d == 0 || o.identical_devices) ? "cpu" : "gpu";
    c.devices.push_back(dev);
  }
  for (int s = 0; s < o.devices; ++s)
    for (int d = 0; d < o.devices; ++d)
      if (s != d) c.set_link({s, d, 1e9, 0});

  // Layers of 1..max_width ops; every op past the first layer reads one op of the previous
  // layer and, with probability 1/3, one more from any earlier layer.
  std::vector<std::vector<std::string>> layers;
  int made = 0;
  while (made < o.ops) {
    const int width = std::min(o.ops - made, 1 + pick(o.max_width));
    std::vector<std::string> layer;
    for (int k = 0; k < width; ++k, ++made) {
      Op op;
      op.name = "op" + std::to_string(made);
      op.type = "Test";
      if (!layers.empty()) {
        std::vector<std::string> ins = {layers.back()[pick(static_cast<int>(layers.back().size()))]};
        if (layers.size() >= 2 && pick(3) == 0) {
          const auto& l = layers[pick(static_cast<int>(layers.size()))];
          ins.push_back(l[pick(static_cast<int>(l.size()))]);
        }
        std::sort(ins.begin(), ins.end());
        ins.erase(std::unique(ins.begin(), ins.end()), ins.end());
        for (const auto& in : ins) op.inputs.push_back(sp->graph.tensor_id(in + ":0"));
      }
      const int out = sp->graph.tensor_id(op.name + ":0");
      sp->graph.tensor(out).fixed_bytes = 1024;
      op.outputs = {out};
      const double host = uniform(1e-3, 1e-2);
      auto& row = sp->costs.op_time[op.name];
      for (int d = 0; d < o.devices; ++d)
        row[c.devices[d].name] = (d == 0 || o.identical_devices) ? host : host * uniform(0.2, 2.0);
      sp->costs.transfer_time[op.name + ":0"] = uniform(0.2e-3, 4e-3);
      sp->graph.add_op(std::move(op));
      layer.push_back("op" + std::to_string(made));
    }
    layers.push_back(std::move(layer));
  }
  sp->graph.finalize();
  sp->problem = std::make_unique<Problem>(sp->graph, std::move(c), &sp->costs);
  return sp;
}

}  // namespace devplace
