#include "learn/training_corpus.h"

#include <cmath>
#include <random>
#include <string>

#include "cost/fusion.h"
#include "io/model.h"
#include "place/synthetic.h"
#include "util/error.h"

namespace devplace {

namespace {

// Calls change(link) on every link between two different devices and stores the result.
template <class Change>
void change_links(Cluster& c, Change change) {
  for (int a = 0; a < c.num_devices(); ++a)
    for (int b = 0; b < c.num_devices(); ++b)
      if (a != b) {
        Link l = c.link(a, b);
        change(l);
        c.set_link(l);
      }
}

// Scales every device's speed, bandwidth and launch overhead and every link's bandwidth by
// factors in [0.5, 2] (links by the product of two), and turns fusion on or off.
Cluster perturbed(Cluster c, std::mt19937_64& rng) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto scale = [&] { return std::exp(uniform(std::log(0.5), std::log(2.0))); };
  const bool fusion = uniform(0, 1) < 0.5;
  for (auto& d : c.devices) {
    d.peak_flops *= scale();
    d.mem_bandwidth *= scale();
    d.launch_overhead *= scale();
    d.fusion = fusion ? default_fusion_rules(d.kind) : std::vector<std::string>{};
  }
  const double link = scale() * scale();
  change_links(c, [&](Link& l) { l.bandwidth *= link; });
  return c;
}

}  // namespace

std::vector<std::unique_ptr<CorpusGraph>> make_training_corpus(const CorpusOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::mt19937_64 slow_rng(o.seed + 0x5105);  // its own stream: the corpus otherwise stays as without it
  auto integer = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::unique_ptr<CorpusGraph>> corpus;
  for (int k = 0; k < o.graphs; ++k) {
    SyntheticOptions s;
    if (o.families.empty()) throw Error("", "", "training corpus: no synthetic family to draw from");
    s.family = o.families[k % o.families.size()];
    s.ops = integer(o.min_ops, o.max_ops);
    s.width = std::vector<int>{1, 2, 3, 4, 6, 8}[integer(0, 5)];
    s.skip_prob = std::vector<double>{0.0, 0.1, 0.3, 0.6}[integer(0, 3)];
    s.skip_span = integer(2, 12);
    s.tokens = std::vector<int>{16, 64, 128, 256, 512, 1024}[integer(0, 5)];
    s.gpus = o.split_memory ? integer(2, 6) : integer(1, 3);
    s.seed = rng();
    if (s.family == SyntheticFamily::transformer) {
      s.hidden = std::vector<int>{256, 384, 512, 768, 1024}[integer(0, 4)];
      s.tokens = std::vector<int>{32, 64, 128, 256, 512}[integer(0, 4)];
    } else if (s.family == SyntheticFamily::branchy) {
      s.hidden = std::vector<int>{64, 128, 192, 256, 384}[integer(0, 4)];
      s.side = std::vector<int>{8, 17, 35}[integer(0, 2)];
      s.width = integer(2, 5);
    }
    auto sp = make_synthetic_problem(s);
    sp->problem.reset();  // it refers to sp->graph, which moves out
    auto graph = std::make_shared<Graph>(std::move(sp->graph));
    graph->set_name("corpus-" + std::to_string(k) + "-" + std::to_string(s.ops) + "ops");
    auto item = std::make_unique<CorpusGraph>();
    Cluster cluster = perturbed(synthetic_cluster(s.gpus), rng);
    if (o.slow_links > 0 && std::uniform_real_distribution<double>(0, 1)(slow_rng) < o.slow_links) {
      const double slower = std::exp(std::uniform_real_distribution<double>(0, std::log(100.0))(slow_rng));
      change_links(cluster, [&](Link& l) { l.bandwidth /= slower; });
    }
    if (o.split_memory) {
      std::int64_t weights = 0;
      for (const auto& op : graph->ops()) weights += op.weight_bytes;
      for (int d = 1; d < cluster.num_devices(); ++d)  // device 0 is the host
        cluster.devices[d].memory_bytes = std::max<std::int64_t>(1, weights / integer(2, 6));
    }
    item->problem = std::make_unique<Problem>(*graph, std::move(cluster));
    item->graph = std::move(graph);
    corpus.push_back(std::move(item));
  }
  const std::vector<std::string> presets = {"paper", "server", "nvlink4"};
  for (const auto& [spec, bindings] : o.models) {
    auto model = std::make_shared<Model>(load_model(spec, import_options(bindings)));
    std::shared_ptr<const Graph> graph(model, &model->graph);  // keeps the model alive
    for (int c = 0; c < o.clusters_per_model; ++c) {
      auto item = std::make_unique<CorpusGraph>();
      item->problem = std::make_unique<Problem>(*graph, perturbed(load_cluster(presets[c % presets.size()]), rng));
      item->graph = graph;
      corpus.push_back(std::move(item));
    }
  }
  return corpus;
}

}  // namespace devplace
