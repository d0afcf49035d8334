#include "learn/learned/training_corpus.h"

#include <algorithm>
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

// Recasts `graph` on `roofline` (its synthetic cluster) as a cost graph in the style of
// Tarnawski et al.'s files (CorpusOptions::cost_tables): writes the cluster and the table.
void cost_table_problem(const Graph& graph, const Problem& roofline, std::mt19937_64& rng, Cluster& cluster,
                        CostTable& table) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const int accelerators = std::uniform_int_distribution<int>(2, 12)(rng);
  const double speedup = std::exp(uniform(std::log(3.0), std::log(30.0)));
  const double transfer_share = std::exp(uniform(std::log(0.1), std::log(10.0)));
  const int host = roofline.host();
  std::vector<double> host_times, bytes;
  for (int v = 0; v < graph.num_ops(); ++v) {
    const double t = roofline.op_time(v, host);
    if (t > 0 && t < kInfeasibleTime) host_times.push_back(t);
    for (int out : graph.op(v).outputs)
      if (graph.tensor(out).bytes() > 0) bytes.push_back(static_cast<double>(graph.tensor(out).bytes()));
  }
  auto median = [](std::vector<double> x) {
    if (x.empty()) return 1.0;
    std::nth_element(x.begin(), x.begin() + x.size() / 2, x.end());
    return x[x.size() / 2];
  };
  // Seconds per byte: a median tensor costs transfer_share x a median op's host time.
  const double per_byte = transfer_share * median(host_times) / median(bytes);
  std::int64_t weights = 0;
  for (const auto& op : graph.ops()) weights += op.weight_bytes;
  cluster = Cluster();
  cluster.name = "corpus-cost-table";
  Device cpu;
  cpu.name = "cpu", cpu.kind = "cpu", cpu.memory_bytes = 0;
  cluster.devices.push_back(cpu);
  const std::int64_t memory = uniform(0, 1) < 0.5 ? std::int64_t{0} : std::max<std::int64_t>(1, weights / std::uniform_int_distribution<int>(1, 4)(rng));
  for (int a = 0; a < accelerators; ++a) {
    Device d;
    d.name = "fpga" + std::to_string(a), d.kind = "accel", d.memory_bytes = memory;
    cluster.devices.push_back(d);
  }
  for (int a = 0; a < cluster.num_devices(); ++a)
    for (int b = 0; b < cluster.num_devices(); ++b)
      if (a != b) cluster.set_link({a, b, 1.0 / per_byte, 0});
  table = CostTable();
  for (int v = 0; v < graph.num_ops(); ++v) {
    const Op& op = graph.op(v);
    const double t = roofline.op_time(v, host);
    if (!(t < kInfeasibleTime)) continue;
    auto& row = table.op_time[op.name];
    row["cpu"] = t;
    for (int a = 0; a < accelerators; ++a) row["fpga" + std::to_string(a)] = t / speedup;
    for (int out : op.outputs)
      table.transfer_time[graph.tensor(out).name] = static_cast<double>(graph.tensor(out).bytes()) * per_byte;
  }
}

// An execution model for `cluster` drawn around `base` (CorpusOptions::executions).
ExecutionModel drawn_execution(const ExecutionModel& base, const Cluster& cluster, std::mt19937_64& rng) {
  auto scale = [&] { return std::exp(std::uniform_real_distribution<double>(std::log(0.5), std::log(2.0))(rng)); };
  const DeviceExecution *host = nullptr, *accel = nullptr;
  for (const auto& d : base.devices) {
    if (d.async && !accel) accel = &d;
    if (!d.async && !host) host = &d;
  }
  auto device_name = [&](bool async) {
    const DeviceExecution* d = async ? accel : host;
    return d ? d->device : std::string();
  };
  const CrossingExecution* up = base.crossing(device_name(false), device_name(true));
  const CrossingExecution* down = base.crossing(device_name(true), device_name(false));
  ExecutionModel m = default_execution_model(cluster, base.copies);
  m.staging_bandwidth = base.staging_bandwidth * scale();
  for (auto& d : m.devices) {
    const DeviceExecution* from = d.async ? accel : host;
    if (!from) continue;
    d.dispatch = from->dispatch * scale();
    d.wake = from->wake * scale();
    d.op_scale = from->op_scale * scale();
    d.kernel_min = from->kernel_min * scale();
    d.device_scale = from->device_scale * scale();
  }
  for (auto& c : m.crossings) {
    const bool from_async = m.device(c.from) && m.device(c.from)->async;
    const bool to_async = m.device(c.to) && m.device(c.to)->async;
    const CrossingExecution* like = from_async && !to_async ? down : up;
    if (!like) continue;
    c.fixed = like->fixed * scale();
    c.bandwidth = like->bandwidth * scale();
  }
  return m;
}

}  // namespace

std::vector<std::unique_ptr<CorpusGraph>> make_training_corpus(const CorpusOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::mt19937_64 slow_rng(o.seed + 0x5105);  // its own stream: the corpus otherwise stays as without it
  std::mt19937_64 table_rng(o.seed + 0x7ab1e);  // the same for cost_tables
  std::mt19937_64 execution_rng(o.seed + 0xe7ec);  // and for executions
  auto maybe_execution = [&](Problem& problem) {
    if (o.executions.empty() || o.execution_share <= 0) return;
    if (std::uniform_real_distribution<double>(0, 1)(execution_rng) >= o.execution_share) return;
    const auto& base = o.executions[std::uniform_int_distribution<std::size_t>(0, o.executions.size() - 1)(execution_rng)];
    problem.set_execution(drawn_execution(base, problem.cluster(), execution_rng), "");
  };
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
    if (s.family == SyntheticFamily::transformer || s.family == SyntheticFamily::decoder) {
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
    if (o.cost_tables > 0 && std::uniform_real_distribution<double>(0, 1)(table_rng) < o.cost_tables) {
      const Problem roofline(*graph, cluster);
      Cluster recast;
      CostTable table;
      cost_table_problem(*graph, roofline, table_rng, recast, table);
      item->problem = std::make_unique<Problem>(*graph, std::move(recast), &table);
    } else {
      item->problem = std::make_unique<Problem>(*graph, std::move(cluster));
      maybe_execution(*item->problem);
    }
    item->graph = std::move(graph);
    corpus.push_back(std::move(item));
  }
  if (!o.models.empty() && o.clusters.empty()) throw Error("", "", "training corpus: models but no cluster to draw around");
  std::vector<Cluster> bases;
  for (const auto& spec : o.clusters) bases.push_back(load_cluster(spec));
  for (const auto& [spec, bindings] : o.models) {
    auto model = std::make_shared<Model>(load_model(spec, import_options(bindings)));
    std::shared_ptr<const Graph> graph(model, &model->graph);  // keeps the model alive
    for (int c = 0; c < o.clusters_per_model; ++c) {
      auto item = std::make_unique<CorpusGraph>();
      item->problem = std::make_unique<Problem>(*graph, perturbed(bases[c % bases.size()], rng));
      maybe_execution(*item->problem);
      item->graph = graph;
      corpus.push_back(std::move(item));
    }
  }
  return corpus;
}

}  // namespace devplace
