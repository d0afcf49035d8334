// Google Benchmark: HSDAG training on the `paper` cluster. One iteration trains
// `episodes` episodes x 32 samples from scratch (default preset, no refinement) on the
// simulated reward; the counter `s_per_episode` is the cost of one training step
// (sample 32 placements, simulate them, up to 8 clipped update steps). Includes the one-time setup
// (coarsening, features, network), which is amortised over the episodes.
#include <benchmark/benchmark.h>

#include "io/model.h"
#include "learn/hsdag/hsdag.h"

namespace devplace {

static void BM_HsdagTrain(benchmark::State& state, const char* model) {
  Model m = load_model(model);
  Problem pb(m.graph, load_cluster("paper"));
  HsdagConfig c = hsdag_preset("default");
  c.episodes = static_cast<int>(state.range(0));
  c.refine_evals = 0;
  int groups = 0;
  for (auto _ : state) {
    SimulatedReward reward(pb);
    TrainResult r = train_hsdag(pb, reward, c);
    groups = r.groups;
    benchmark::DoNotOptimize(r.greedy_latency);
  }
  state.counters["ops"] = pb.num_ops();
  state.counters["groups"] = groups;
  state.counters["s_per_episode"] = benchmark::Counter(static_cast<double>(state.iterations()) * c.episodes,
                                                       benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK_CAPTURE(BM_HsdagTrain, resnet50, "resnet50")->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HsdagTrain, bert_base, "bert_base")->Arg(10)->Unit(benchmark::kMillisecond);

}  // namespace devplace

BENCHMARK_MAIN();
