// Google Benchmark: importer speed. The largest bundled model (bert_base.onnx, 504 ops) and the
// largest OpenVINO IR of the shared data (tinyllama_decoder.xml; skipped when ../shared is
// absent). Each iteration parses, builds, finalizes and annotates the graph; `ops_per_s` is the
// throughput.
#include <benchmark/benchmark.h>

#include "io/model.h"
#include "util/files.h"

namespace devplace {

static void BM_Import(benchmark::State& state, std::string spec) {
  if (spec.front() == '@') spec = shared_dir() + spec.substr(1);
  if (spec.find('/') != std::string::npos && !file_exists(spec)) {
    state.SkipWithError(("not found: " + spec).c_str());
    return;
  }
  int ops = 0;
  for (auto _ : state) {
    Model m = load_model(spec);
    ops = m.graph.num_ops();
    benchmark::DoNotOptimize(ops);
  }
  state.counters["ops"] = ops;
  state.counters["ops_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * ops, benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_Import, bert_base_onnx, std::string("bert_base"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Import, tinyllama_openvino, std::string("@/data/openvino/tinyllama_decoder.xml"))
    ->Unit(benchmark::kMillisecond);

}  // namespace devplace

BENCHMARK_MAIN();
