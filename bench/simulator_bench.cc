// Google Benchmark: one simulated evaluation of a random placement of BERT-base on the `paper`
// cluster (the inner loop of every search and training method). Reports time per op.
#include <benchmark/benchmark.h>

#include <random>

#include "io/model.h"
#include "sim/simulator.h"

namespace devplace {

static void BM_SimulateBertPaper(benchmark::State& state) {
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("paper"));
  Simulator sim(pb);
  std::mt19937 rng(1);
  std::vector<Placement> placements(64, Placement(m.graph.num_ops()));
  for (auto& p : placements)
    for (auto& d : p) d = static_cast<int>(rng() % pb.num_devices());
  std::size_t k = 0;
  double sum = 0;
  for (auto _ : state) {
    sum += sim.makespan(placements[k++ % placements.size()]);
    benchmark::DoNotOptimize(sum);
  }
  state.counters["ops"] = m.graph.num_ops();
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * m.graph.num_ops(),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SimulateBertPaper)->Unit(benchmark::kMicrosecond);

static void BM_ScheduleBertPaper(benchmark::State& state) {
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("paper"));
  Simulator sim(pb);
  std::mt19937 rng(1);
  Placement p(m.graph.num_ops());
  for (auto& d : p) d = static_cast<int>(rng() % pb.num_devices());
  for (auto _ : state) benchmark::DoNotOptimize(sim.run(p));
}
BENCHMARK(BM_ScheduleBertPaper)->Unit(benchmark::kMicrosecond);

}  // namespace devplace

BENCHMARK_MAIN();
