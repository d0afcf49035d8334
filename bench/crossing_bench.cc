// The cost of one crossing as the executor makes it (docs/design/execution.md, "Crossings on a GPU"):
// a model of two Relus over one float tensor of 4 KiB to 16 MiB, the first on the CPU worker and
// the second on the other worker, against both on one worker. The other worker is cuda:0 where
// LibTorch has CUDA and sees a GPU, else cpu:1. Each benchmark's time is one run of the placed
// model; a crossing costs the difference to `Crossing/none`. Run:
//   build/crossing_bench --benchmark_min_time=0.2 --benchmark_repetitions=5 --benchmark_report_aggregates_only
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "exec/executor.h"
#include "io/model.h"

namespace devplace {
namespace {

// x -> Relu (first) -> Relu (second) -> z, over `floats` floats.
const Graph& two_relus(std::int64_t floats) {
  static std::map<std::int64_t, std::unique_ptr<Model>> cache;
  auto& slot = cache[floats];
  if (slot) return slot->graph;
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("crossing");
  auto add_vi = [&](onnx::ValueInfoProto* vi, const std::string& name) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(floats);
  };
  add_vi(g->add_input(), "x");
  add_vi(g->add_output(), "z");
  auto* a = g->add_node();
  a->set_name("first"), a->set_op_type("Relu"), a->add_input("x"), a->add_output("y");
  auto* b = g->add_node();
  b->set_name("second"), b->set_op_type("Relu"), b->add_input("y"), b->add_output("z");
  const std::string path =
      (std::filesystem::temp_directory_path() / ("devplace_crossing_" + std::to_string(floats) + ".onnx")).string();
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  slot = std::make_unique<Model>(load_model(path));
  return slot->graph;
}

WorkerSpec other_worker() { return parse_worker(cuda_available() ? "cuda:0" : "cpu:1"); }

// placement: 0 = both on cpu:0, 1 = cpu:0 -> other, 2 = other -> cpu:0.
void Crossing(benchmark::State& state, int placement) {
  const std::int64_t bytes = state.range(0);
  const Graph& g = two_relus(bytes / 4);
  ExecOptions o;
  o.keep_freed_memory = true;  // as the CLI: large activations are not page-faulted in every run
  Executor ex(g, {parse_worker("cpu:0"), other_worker()}, o);
  const Placement p = placement == 0 ? Placement{0, 0} : placement == 1 ? Placement{0, 1} : Placement{1, 0};
  for (int k = 0; k < 3; ++k) ex.run(p);
  for (auto _ : state) {
    const RunStats s = ex.run(p);
    state.SetIterationTime(s.latency);
  }
  state.SetLabel(std::string(placement == 0 ? "no crossing" : placement == 1 ? "cpu:0 -> " : "to cpu:0 from ") +
                 (placement == 0 ? "" : other_worker().str()) + " (" + Executor::gpu_copies() + " gpu copies)");
  state.SetBytesProcessed(placement == 0 ? 0 : state.iterations() * bytes);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t bytes = 4 << 10; bytes <= 16 << 20; bytes *= 4) b->Arg(bytes);
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(Crossing, none, 0)->Apply(sizes);
BENCHMARK_CAPTURE(Crossing, to_other, 1)->Apply(sizes);
BENCHMARK_CAPTURE(Crossing, from_other, 2)->Apply(sizes);

}  // namespace
}  // namespace devplace

BENCHMARK_MAIN();
