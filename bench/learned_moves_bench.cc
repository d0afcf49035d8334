// Google Benchmark: the wait for a zero-shot placement by devplace's learned placer, the row
// `learned-discrepancy-moves` at 64 simulated evaluations with the shipped policies
// (policies/learned.pt, policies/learned-moves.pt): the list policy's decoding, then the move
// search, which reads every move of each incumbent with four scorers. Issue 14 asks for under
// 1 s; the BERT-large-size export on `nvlink4` (about 9,200 moves per read) is the largest
// graph of docs/design/learned.md's zero-shot table. One iteration = one placement, setup included
// (policy files loaded, features built).
#include <benchmark/benchmark.h>

#include <string>

#include "io/model.h"
#include "learn/learned_placers.h"
#include "util/files.h"

namespace devplace {

static void BM_LearnedDiscrepancyMoves(benchmark::State& state, const std::string& model, const char* cluster) {
  // A bundled name, or a file of the devplace tree.
  const Model m = load_model(model.find('/') == std::string::npos ? model : home_dir() + "/" + model);
  const Problem pb(m.graph, load_cluster(cluster));
  const PlacerRegistry placers = all_placers();
  PlaceOptions o;
  o.eval_budget = 64;
  for (auto _ : state) {
    auto placer = placers.make(pb, "learned-discrepancy-moves", o);
    Placement placement = placer->place(pb, o);
    benchmark::DoNotOptimize(placement.data());
  }
  state.counters["ops"] = pb.num_ops();
}
BENCHMARK_CAPTURE(BM_LearnedDiscrepancyMoves, inception_v3_paper, std::string("inception_v3"), "paper")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LearnedDiscrepancyMoves, bert_large_nvlink4, std::string("tests/data/exports/bert_large.onnx"),
                  "nvlink4")
    ->Unit(benchmark::kMillisecond);

}  // namespace devplace

BENCHMARK_MAIN();
