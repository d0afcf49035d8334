// Google Benchmark: one simulated evaluation of a random placement of BERT-base on the `paper`
// cluster (the inner loop of every search and training method). Reports time per op.
#include <benchmark/benchmark.h>

#include "io/model.h"
#include "random_placements.h"
#include "sim/simulator.h"

namespace devplace {

static void BM_SimulateBertPaper(benchmark::State& state) {
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("paper"));
  time_makespans(state, pb, random_placements(pb, 64, 1));
  state.counters["ops"] = m.graph.num_ops();
}
BENCHMARK(BM_SimulateBertPaper)->Unit(benchmark::kMicrosecond);

static void BM_ScheduleBertPaper(benchmark::State& state) {
  Model m = load_model("bert_base");
  Problem pb(m.graph, load_cluster("paper"));
  Simulator sim(pb);
  const Placement p = random_placements(pb, 1, 1)[0];
  for (auto _ : state) benchmark::DoNotOptimize(sim.run(p));
}
BENCHMARK(BM_ScheduleBertPaper)->Unit(benchmark::kMicrosecond);

}  // namespace devplace

BENCHMARK_MAIN();
