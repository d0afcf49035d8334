// The executor's contract: a placed run computes what a single-worker run computes, on every
// bundled model; unsupported ops are named; measurement and profiling produce sane numbers.
#include "exec/executor.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "exec/measure.h"
#include "exec/profiler.h"
#include "graph/op_costs.h"
#include "io/model.h"
#include "learn/hsdag/hsdag.h"
#include "util/error.h"

namespace devplace {
namespace {

Graph load(const std::string& name) {
  ImportOptions io;
  if (name == "bert_base") io.input_shapes["input_ids"] = {1, 32};  // seq 32 keeps the test short
  return load_model(name, io).graph;
}

std::vector<WorkerSpec> two_cpus() { return {parse_worker("cpu:0"), parse_worker("cpu:1")}; }

// Max |a - b| relative to max |a| over all outputs.
double relative_error(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0, scale = 1e-12;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    EXPECT_EQ(a[k].shape, b[k].shape);
    EXPECT_EQ(a[k].values.size(), b[k].values.size());
    for (std::size_t i = 0; i < a[k].values.size() && i < b[k].values.size(); ++i) {
      EXPECT_TRUE(std::isfinite(a[k].values[i]));
      diff = std::max(diff, std::abs(a[k].values[i] - b[k].values[i]));
      scale = std::max(scale, std::abs(a[k].values[i]));
    }
  }
  return diff / scale;
}

class PlacedRunMatchesSingleWorker : public ::testing::TestWithParam<std::string> {};

TEST_P(PlacedRunMatchesSingleWorker, OnRandomPlacements) {
  Graph g = load(GetParam());
  Executor ex(g, two_cpus());
  ex.run(Placement(g.num_ops(), 0));
  const auto reference = ex.outputs();
  ASSERT_FALSE(reference.empty());
  ASSERT_FALSE(reference[0].values.empty());
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2; ++trial) {
    Placement p(g.num_ops());
    for (int& d : p) d = static_cast<int>(rng() % 2);
    RunStats s = ex.run(p);
    EXPECT_GT(s.copies, 0);
    EXPECT_GT(s.latency, 0);
    EXPECT_LT(relative_error(reference, ex.outputs()), 1e-4) << GetParam() << " trial " << trial;
  }
  // All on the second worker, too.
  ex.run(Placement(g.num_ops(), 1));
  EXPECT_LT(relative_error(reference, ex.outputs()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Bundled, PlacedRunMatchesSingleWorker,
                         ::testing::Values("resnet50", "inception_v3", "bert_base"));

// A two-node model whose second node has an op type the executor does not know.
std::string write_model_with(const std::string& op_type) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("tiny");
  auto add_vi = [](onnx::ValueInfoProto* vi, const std::string& name) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_value(4);
  };
  add_vi(g->add_input(), "x");
  add_vi(g->add_output(), "z");
  auto* n1 = g->add_node();
  n1->set_name("relu"), n1->set_op_type("Relu"), n1->add_input("x"), n1->add_output("y");
  auto* n2 = g->add_node();
  n2->set_name("odd"), n2->set_op_type(op_type), n2->add_input("y"), n2->add_output("z");
  // Named after the running test too: ctest runs tests in parallel, and a test reading the file
  // while another rewrites it sees half a model.
  const std::string path = ::testing::TempDir() + "/tiny_" + op_type + "_" +
                           ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(Executor, RunsATinyModel) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Executor ex(g, two_cpus());
  ex.run({0, 1});
  auto out = ex.outputs();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].values.size(), 4u);
  for (double v : out[0].values) EXPECT_TRUE(v >= 0.5 && v < 1.0);
}

// A worker must not hand work to a BLAS pool sized to every core, beside its own OpenMP team
// (util/blas_threads.h); the pool is put back when the executor goes.
TEST(Executor, OwnsTheBlasThreadCountWhileItLives) {
  auto get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  auto set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!get || !set) GTEST_SKIP() << "LibTorch here does not use OpenBLAS";
  set(3);
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  {
    Executor ex(g, two_cpus());
    EXPECT_EQ(get(), 1);
  }
  EXPECT_EQ(get(), 3);
  {
    ExecOptions two;
    two.intra_op_threads = 2;
    Executor ex(g, two_cpus(), two);
    EXPECT_EQ(get(), 1);  // the worker's team is OpenMP's; the BLAS gets no second pool
  }
  EXPECT_EQ(get(), 3);
}

TEST(Executor, UnsupportedOpIsANamedError) {
  Graph g = load_model(write_model_with("HannWindow")).graph;
  try {
    Executor ex(g, two_cpus());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.node(), "odd");
    EXPECT_NE(std::string(e.what()).find("HannWindow"), std::string::npos) << e.what();
  }
}

TEST(Executor, BadPlacementIsAnError) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Executor ex(g, two_cpus());
  EXPECT_THROW(ex.run({0, 2}), Error);
  EXPECT_THROW(ex.run({0}), Error);
}

TEST(Executor, CudaWorkersNeedCuda) {
  if (cuda_available()) GTEST_SKIP() << "CUDA present: covered by the placed-run tests with cuda workers";
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  EXPECT_THROW(Executor(g, {parse_worker("cpu:0"), parse_worker("cuda:0")}), Error);
}

TEST(Executor, CudaPlacementMatchesCpu) {
  if (!cuda_available()) GTEST_SKIP() << "LibTorch here has no CUDA";
  Graph g = load("resnet50");
  Executor ex(g, {parse_worker("cpu:0"), parse_worker("cuda:0")});
  ex.run(Placement(g.num_ops(), 0));
  auto reference = ex.outputs();
  Placement p(g.num_ops());
  for (int i = 0; i < g.num_ops(); ++i) p[i] = i % 3 == 0;
  ex.run(p);
  EXPECT_LT(relative_error(reference, ex.outputs()), 1e-3);
}

TEST(WorkerSpec, Parses) {
  EXPECT_EQ(parse_worker("cpu:3").index, 3);
  EXPECT_EQ(parse_worker("cuda:1").kind, WorkerSpec::Kind::cuda);
  EXPECT_EQ(parse_worker("cuda:1").str(), "cuda:1");
  EXPECT_THROW(parse_worker("gpu:0"), Error);
  EXPECT_THROW(parse_worker("cpu:x"), Error);
  EXPECT_THROW(parse_worker("cpu"), Error);
}

TEST(WorkerSpec, ClusterMapping) {
  Cluster local = load_cluster(std::string(DEVPLACE_SOURCE_DIR) + "/clusters/local2.toml");
  auto w = workers_for_cluster(local, std::string(DEVPLACE_SOURCE_DIR) + "/clusters/local2.toml");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].str(), "cpu:0");
  EXPECT_EQ(w[1].str(), "cpu:1");
  auto paper = workers_for_cluster(load_cluster("paper"), "paper");  // cpu + gpu
  ASSERT_EQ(paper.size(), 2u);
  EXPECT_EQ(paper[0].str(), "cpu:0");
  EXPECT_EQ(paper[1].str(), "cuda:0");
}

TEST(Measure, StatisticsAndReward) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Executor ex(g, two_cpus());
  Measurement m = measure(ex, {0, 1}, 1, 6);
  ASSERT_EQ(m.samples.size(), 6u);
  EXPECT_LE(m.min, m.p25);
  EXPECT_LE(m.p25, m.median);
  EXPECT_LE(m.median, m.p75);
  EXPECT_LE(m.p75, m.max);
  EXPECT_GT(m.mean_last5, 0);
  MeasuredReward reward(ex, {0, 2});
  Evaluation e = reward.evaluate({1, 0});
  EXPECT_TRUE(e.feasible);
  EXPECT_GT(e.latency, 0);
  EXPECT_EQ(reward.evaluations(), 1);
}

TEST(Measure, RewardRemembersTheBestDistinctPlacementsAndConfirmsOne) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Executor ex(g, two_cpus());
  MeasuredReward reward(ex, {0, 1, 3});
  for (const Placement& p : {Placement{0, 0}, Placement{0, 1}, Placement{1, 0}, Placement{1, 1}, Placement{0, 1}})
    reward.evaluate(p);
  const auto& best = reward.best_seen();
  ASSERT_EQ(best.size(), 3u);
  for (std::size_t k = 1; k < best.size(); ++k) {
    EXPECT_LE(best[k - 1].second, best[k].second);
    for (std::size_t j = 0; j < k; ++j) EXPECT_NE(best[j].first, best[k].first);
  }
  std::vector<Placement> candidates;
  for (const auto& b : best) candidates.push_back(b.first);
  Confirmation c = confirm_best(ex, candidates, 0, 3);
  ASSERT_EQ(c.measurements.size(), 3u);
  for (const Measurement& m : c.measurements) EXPECT_GE(m.median, c.measurements[c.best].median);
  EXPECT_THROW(confirm_best(ex, {}, 0, 1), Error);
}

TEST(Measure, InterleavedKeepsEachPlacementsSamples) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Executor ex(g, two_cpus());
  auto ms = measure_interleaved(ex, {{0, 0}, {0, 1}, {1, 1}}, 1, 3);
  ASSERT_EQ(ms.size(), 3u);
  for (const Measurement& m : ms) EXPECT_EQ(m.samples.size(), 3u);
  EXPECT_EQ(ms[0].last.copies, 0);
  EXPECT_EQ(ms[1].last.copies, 1);  // z on cpu1 reads y from cpu0
  EXPECT_EQ(ms[2].last.copies, 0);
  EXPECT_THROW(measure_interleaved(ex, {{0, 0}}, 0, 0), Error);
}

// The measured timeline is a valid schedule: every op on its worker, each op after its
// producers (after the copy when they ran elsewhere), nothing past the makespan.
// The filled model and the inputs written out let another runtime compute exactly what this
// executor computed: here, a second executor reading only those files.
TEST(Executor, WrittenModelAndInputsReproduceTheOutputs) {
  const Graph g = load("resnet50");  // stripped: the weights are the executor's seeded ones
  Executor ex(g, {parse_worker("cpu:0")});
  ex.run(Placement(g.num_ops(), 0));
  const std::string dir = ::testing::TempDir() + "/filled_resnet50";
  ex.write_model(dir + ".onnx");
  const std::vector<std::string> inputs = ex.write_inputs(dir);
  ASSERT_EQ(inputs.size(), 1u);
  const Graph filled = load_model(dir + ".onnx").graph;
  ExecOptions other_seed;
  other_seed.seed = 99;  // nothing random may be left
  Executor again(filled, {parse_worker("cpu:0")}, other_seed);
  again.set_input("input", inputs[0]);
  again.run(Placement(filled.num_ops(), 0));
  const auto a = ex.outputs(), b = again.outputs();
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].values, b[0].values);
}

TEST(Executor, TimelineRespectsDependencies) {
  Graph g = load("inception_v3");
  Executor ex(g, two_cpus());
  std::mt19937 rng(3);
  Placement p(g.num_ops());
  for (int& d : p) d = static_cast<int>(rng() % 2);
  RunStats stats = ex.run(p);
  Schedule s = ex.timeline();
  ASSERT_EQ(s.ops.size(), static_cast<std::size_t>(g.num_ops()));
  EXPECT_NEAR(s.makespan, stats.latency, 1e-9);
  EXPECT_EQ(static_cast<int>(s.transfers.size()), stats.copies);
  std::map<std::pair<int, int>, double> arrival;  // (tensor, worker) -> copy end
  for (const TransferSpan& t : s.transfers) {
    EXPECT_LE(t.start, t.end);
    EXPECT_NE(t.src, t.dst);
    arrival[{t.tensor, t.dst}] = t.end;
  }
  for (int op = 0; op < g.num_ops(); ++op) {
    const OpSpan& o = s.ops[op];
    if (is_folded(g, g.op(op))) continue;
    EXPECT_EQ(o.device, p[op]) << g.op(op).name;
    EXPECT_LE(o.start, o.end);
    EXPECT_LE(o.end, s.makespan + 1e-9);
    for (int t : g.op(op).inputs) {
      const int prod = g.tensor(t).producer;
      if (prod < 0 || is_folded(g, g.op(prod))) continue;
      EXPECT_GE(o.start, s.ops[prod].end) << g.op(op).name;
      if (p[prod] != p[op]) {
        ASSERT_TRUE((arrival.count({t, p[op]}))) << g.tensor(t).name;
        EXPECT_GE(o.start, (arrival[{t, p[op]}])) << g.op(op).name;
      }
    }
  }
}

TEST(Profiler, CoversEveryOpAndCrossingTensor) {
  Graph g = load_model(write_model_with("Sigmoid")).graph;
  Cluster c = load_cluster(std::string(DEVPLACE_SOURCE_DIR) + "/clusters/local2.toml");
  Executor ex(g, two_cpus());
  ProfileOptions three_runs;
  three_runs.runs = 3;
  CostTable t = profile_costs(ex, g, c, three_runs);
  ASSERT_EQ(t.op_time.size(), 2u);
  EXPECT_GT(t.op_time.at("relu").at("cpu0"), 0);
  EXPECT_GT(t.op_time.at("odd").at("cpu1"), 0);
  EXPECT_GT(t.transfer_time.at("y"), 0);
  EXPECT_EQ(t.transfer_time.count("z"), 0u);  // an output nobody reads is never copied
}

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

// The learned placer trains on measurements through the unchanged Reward interface.
TEST(MeasuredReward, TrainsHsdag) {
  ImportOptions io;
  io.input_shapes["input"] = {1, 3, 32, 32};  // low resolution keeps each measurement ~10 ms
  Graph g = load_model("resnet50", io).graph;
  Problem pb(g, load_cluster(std::string(DEVPLACE_SOURCE_DIR) + "/clusters/local2.toml"));
  Executor ex(g, two_cpus());
  MeasuredReward reward(ex, {0, 1});
  HsdagConfig cfg = hsdag_preset("default");
  cfg.episodes = 2, cfg.samples = 3, cfg.refine_evals = 0;
  TrainResult r = train_hsdag(pb, reward, cfg);
  EXPECT_EQ(static_cast<int>(r.best.size()), g.num_ops());
  EXPECT_GT(r.best_latency, 0);
  EXPECT_GE(reward.evaluations(), 6);
}

}  // namespace
}  // namespace devplace
