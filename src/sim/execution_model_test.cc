// The execution model's schedules by hand: an asynchronous device's thread launches ahead of its
// stream, and a blocking copy from it waits for every kernel launched before it (the drain that
// pinned, event-based copies avoid).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cost/cost_model.h"
#include "sim/simulator.h"
#include "sim/test_graphs.h"
#include "util/error.h"

namespace devplace {
namespace {

// Op `name` reading `inputs`; `launch` is its table time on both devices (cpu: its whole run,
// gpu: its launch); on the gpu its kernel runs `kernel` seconds (flops at 0.5 x 1 TFLOP/s).
void add(Graph& g, CostTable& t, const std::string& name, std::vector<std::string> inputs, double cpu, double launch,
         double kernel, std::int64_t out_bytes = 1000000000) {
  Op o;
  o.name = name;
  o.type = "Test";
  o.flops = kernel * 0.5e12;
  for (auto& in : inputs) o.inputs.push_back(g.tensor_id(in + ":0"));
  const int out = g.tensor_id(name + ":0");
  g.tensor(out).fixed_bytes = out_bytes;
  o.outputs = {out};
  g.add_op(o);
  t.op_time[name] = {{"cpu", cpu}, {"gpu", launch}};
}

ExecutionModel model(ExecutionModel::Copies copies) {
  ExecutionModel m;
  m.copies = copies;
  m.staging_bandwidth = 1e9;
  m.devices = {{"cpu", false, 0, 0, 1, 0, 1}, {"gpu", true, 0, 0, 1, 0, 1}};
  m.crossings = {{"cpu", "gpu", 0.5, 1e9}, {"gpu", "cpu", 0.5, 1e9}};  // 1 GB: 1 s + 0.5 s fixed
  return m;
}

TEST(ExecutionModel, AsyncDeviceLaunchesAheadOfItsStream) {
  Graph g("chain");
  CostTable t;
  add(g, t, "A", {}, 10, 0.1, 1);
  add(g, t, "B", {"A"}, 10, 0.1, 1);
  add(g, t, "C", {"B"}, 10, 0.1, 1);
  g.finalize();
  Problem links(g, test::two_devices(), &t);
  const Placement gpu(3, 1);
  EXPECT_DOUBLE_EQ(Simulator(links).makespan(gpu), 0.1 + 0.1 + 0.1);  // the link model sums the table
  t.execution = model(ExecutionModel::Copies::blocking);
  Problem pb(g, test::two_devices(), &t);
  Simulator sim(pb);
  const Schedule s = sim.run(gpu);
  // Launches [0, .1], [.1, .2], [.2, .3]; kernels [.1, 1.1], [1.1, 2.1], [2.1, 3.1].
  EXPECT_DOUBLE_EQ(s.ops[0].start, 0.1);
  EXPECT_DOUBLE_EQ(s.ops[1].start, 1.1);
  EXPECT_DOUBLE_EQ(s.ops[2].end, 3.1);
  EXPECT_DOUBLE_EQ(s.makespan, 3.1);
}

TEST(ExecutionModel, BlockingCopyDrainsTheStreamAndAsyncCopyDoesNot) {
  Graph g("drain");
  CostTable t;
  add(g, t, "A", {}, 10, 0.1, 1);   // gpu, read by B on the cpu
  add(g, t, "B", {"A"}, 1, 1, 1);   // cpu
  add(g, t, "X", {}, 10, 0.1, 2);   // gpu, independent, launched right after A
  g.finalize();
  Placement p(3, 1);
  p[g.find_op("B")] = 0;
  t.execution = model(ExecutionModel::Copies::blocking);
  Problem blocking(g, test::two_devices(), &t);
  // A's kernel [.1, 1.1], X's [1.1, 3.1]; the cpu's copy, asked for at .1, waits for X too:
  // [3.1, 4.1] + 0.5 fixed; B [4.6, 5.6].
  const Schedule s = Simulator(blocking).run(p);
  EXPECT_DOUBLE_EQ(s.ops[g.find_op("X")].end, 3.1);
  ASSERT_EQ(s.transfers.size(), 1u);
  EXPECT_DOUBLE_EQ(s.transfers[0].start, 3.1);
  EXPECT_DOUBLE_EQ(s.ops[g.find_op("B")].start, 4.6);
  EXPECT_DOUBLE_EQ(s.makespan, 5.6);
  // Async: A's thread enqueues the copy right behind A: [1.1, 2.1], B [2.6, 3.6]; X [2.1, 4.1].
  t.execution = model(ExecutionModel::Copies::async);
  Problem async(g, test::two_devices(), &t);
  const Schedule a = Simulator(async).run(p);
  ASSERT_EQ(a.transfers.size(), 1u);
  EXPECT_DOUBLE_EQ(a.transfers[0].start, 1.1);
  EXPECT_DOUBLE_EQ(a.ops[g.find_op("B")].start, 2.6);
  EXPECT_DOUBLE_EQ(a.ops[g.find_op("X")].end, 4.1);
  EXPECT_DOUBLE_EQ(a.makespan, 4.1);
}

TEST(ExecutionModel, CopyToTheDeviceOccupiesItsThread) {
  Graph g("h2d");
  CostTable t;
  add(g, t, "A", {}, 1, 10, 1);    // cpu [0, 1]
  add(g, t, "B", {"A"}, 10, 0.1, 1);  // gpu
  g.finalize();
  Placement p(2, 1);
  p[0] = 0;
  // Blocking: the gpu's thread copies [1, 2] (+0.5), launches B [2.5, 2.6]; kernel [2.6, 3.6].
  t.execution = model(ExecutionModel::Copies::blocking);
  Problem blocking(g, test::two_devices(), &t);
  EXPECT_DOUBLE_EQ(Simulator(blocking).makespan(p), 3.6);
  // Async: stages 1 GB at 1 GB/s plus 0.5 fixed on the thread [1, 2.5], the copy runs on the
  // stream [2.5, 3.5]; B launched [2.5, 2.6] runs after it [3.5, 4.5].
  t.execution = model(ExecutionModel::Copies::async);
  Problem async(g, test::two_devices(), &t);
  EXPECT_DOUBLE_EQ(Simulator(async).makespan(p), 4.5);
}

TEST(ExecutionModel, JsonRoundTripAndErrorsNameTheEntry) {
  const ExecutionModel m = model(ExecutionModel::Copies::blocking);
  CostTable t;
  t.execution = m;
  const CostTable back = cost_table_from_json(nlohmann::json::parse(cost_table_to_json(t).dump()), "c.json");
  ASSERT_TRUE(back.execution);
  EXPECT_EQ(back.execution->copies, ExecutionModel::Copies::blocking);
  ASSERT_EQ(back.execution->crossings.size(), 2u);
  EXPECT_DOUBLE_EQ(back.execution->crossings[1].fixed, 0.5);
  EXPECT_TRUE(back.execution->devices[1].async);
  nlohmann::json bad = cost_table_to_json(t);
  bad["execution"]["crossings"][0]["bandwidth_gbs"] = -1;
  try {
    cost_table_from_json(bad, "c.json");
    FAIL() << "a negative bandwidth was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "c.json");
    EXPECT_EQ(e.node(), "execution crossing cpu -> gpu");
  }
  Graph g("one");
  CostTable u;
  add(g, u, "A", {}, 1, 1, 1);
  g.finalize();
  u.execution = m;
  u.execution->devices[0].device = "tpu";
  u.file = "c.json";
  EXPECT_THROW(Problem(g, test::two_devices(), &u), Error);
}

}  // namespace
}  // namespace devplace
