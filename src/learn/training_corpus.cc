#include "learn/training_corpus.h"

#include <cmath>
#include <random>
#include <string>

#include "cost/fusion.h"

namespace devplace {

std::vector<std::unique_ptr<CorpusGraph>> make_training_corpus(const CorpusOptions& o) {
  std::mt19937_64 rng(o.seed);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto scale = [&] { return std::exp(uniform(std::log(0.5), std::log(2.0))); };
  std::vector<std::unique_ptr<CorpusGraph>> corpus;
  for (int k = 0; k < o.graphs; ++k) {
    SyntheticOptions s;
    s.ops = integer(o.min_ops, o.max_ops);
    s.width = std::vector<int>{1, 2, 3, 4, 6, 8}[integer(0, 5)];
    s.skip_prob = std::vector<double>{0.0, 0.1, 0.3, 0.6}[integer(0, 3)];
    s.skip_span = integer(2, 12);
    s.tokens = std::vector<int>{16, 64, 128, 256, 512, 1024}[integer(0, 5)];
    s.gpus = integer(1, 3);
    s.seed = rng();
    auto item = std::make_unique<CorpusGraph>();
    item->source = make_synthetic_problem(s);
    item->source->graph.set_name("corpus-" + std::to_string(k) + "-" + std::to_string(s.ops) + "ops");
    Cluster c = synthetic_cluster(s.gpus);
    const bool fusion = integer(0, 1) == 1;
    for (auto& d : c.devices) {
      d.peak_flops *= scale();
      d.mem_bandwidth *= scale();
      d.launch_overhead *= scale();
      if (fusion) d.fusion = default_fusion_rules(d.kind);
    }
    const double link = scale() * scale();
    for (int a = 0; a < c.num_devices(); ++a)
      for (int b = 0; b < c.num_devices(); ++b)
        if (a != b) {
          Link l = c.link(a, b);
          l.bandwidth *= link;
          c.set_link(l);
        }
    item->problem = std::make_unique<Problem>(item->source->graph, std::move(c));
    corpus.push_back(std::move(item));
  }
  return corpus;
}

}  // namespace devplace
