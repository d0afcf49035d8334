// Google Benchmark: how the simulator's cost grows with graph size, on the synthetic layered
// DAGs of place/synthetic.h (1k, 10k, 100k ops; cluster synthetic-2gpu). One iteration = one
// makespan() of a random placement; `ns_per_op` should stay roughly flat if it scales linearly.
#include <benchmark/benchmark.h>

#include "place/synthetic.h"
#include "random_placements.h"

namespace devplace {

static void BM_SimulateSynthetic(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto sp = make_synthetic_problem({.ops = n, .seed = 1});
  const Problem& pb = *sp->problem;
  time_makespans(state, pb, random_placements(pb, 8, 1));
}
BENCHMARK(BM_SimulateSynthetic)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

static void BM_GenerateSynthetic(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(make_synthetic_problem({.ops = static_cast<int>(state.range(0))}));
}
BENCHMARK(BM_GenerateSynthetic)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace devplace

BENCHMARK_MAIN();
