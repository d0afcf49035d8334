// Hand-computed schedules on small DAGs, with op and transfer times fixed by a cost table so
// every start and end below can be checked with pencil and paper.
#include "sim/simulator.h"
#include "sim/test_graphs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "util/error.h"

namespace devplace {
namespace {

using test::Builder;
using test::two_devices;

Placement place(const Graph& g, const std::map<std::string, int>& where) {
  Placement p(g.num_ops(), 0);
  for (auto& [n, d] : where) p[g.find_op(n)] = d;
  return p;
}

TEST(Simulator, ChainWithTransfersBothWays) {
  Builder b;
  b.op("A", {}, 1, 2);
  b.op("B", {"A"}, 3, 1);
  b.op("C", {"B"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  Schedule s = sim.run(place(b.g, {{"B", 1}}));
  ASSERT_TRUE(s.feasible);
  // A on cpu [0,1]; A's output crosses [1,1.5]; B on gpu [1.5,2.5]; back [2.5,3]; C [3,4].
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("B")].start, 1.5);
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("C")].start, 3.0);
  EXPECT_DOUBLE_EQ(s.makespan, 4.0);
  ASSERT_EQ(s.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(s.transfers[1].start, 2.5);
  EXPECT_DOUBLE_EQ(s.busy[0], 2.0);
  EXPECT_DOUBLE_EQ(s.busy[1], 1.0);
  EXPECT_DOUBLE_EQ(sim.makespan(place(b.g, {{"B", 1}})), 4.0);
  // All on cpu: 1 + 3 + 1, no transfers.
  EXPECT_DOUBLE_EQ(sim.makespan(place(b.g, {})), 5.0);
}

// A measured link in the cost table (profile --world-size) replaces the cluster's link one way
// and, across it, a tensor costs latency + bytes / bandwidth instead of its table transfer time.
TEST(Simulator, MeasuredLinksOfTheCostTableReplaceTransferTimes) {
  Builder b;
  b.op("A", {}, 1, 2, 0.5, 0, 1000);
  b.op("B", {"A"}, 3, 1, 0.5, 0, 1000);
  b.op("C", {"B"}, 1, 1);
  b.g.finalize();
  b.table.links.push_back({"cpu", "gpu", 0.25, 4000.0});  // 0.25 s + 1000 B / 4000 B/s = 0.5 s
  const std::string json = cost_table_to_json(b.table).dump();
  const CostTable table = cost_table_from_json(nlohmann::json::parse(json), "costs.json");
  ASSERT_EQ(table.links.size(), 1u);
  EXPECT_DOUBLE_EQ(table.links[0].latency, 0.25);
  Problem pb(b.g, two_devices(), &table);
  const int a = b.g.tensor_id("A:0"), bt = b.g.tensor_id("B:0");
  EXPECT_DOUBLE_EQ(pb.transfer_time(a, 0, 1), 0.25 + 1000.0 / 4000.0);
  EXPECT_DOUBLE_EQ(pb.transfer_time(bt, 1, 0), 0.5);  // the other way: the table's transfer time
  // A on cpu [0,1]; A crosses the measured link [1,1.5]; B on gpu [1.5,2.5]; back [2.5,3]; C [3,4].
  EXPECT_DOUBLE_EQ(Simulator(pb).makespan(place(b.g, {{"B", 1}})), 4.0);
  b.table.links[0].latency = 1.25;  // 1.5 s across: B starts at 2.5, ends 3.5; back 4; C ends 5
  const Problem slower(b.g, two_devices(), &b.table);
  EXPECT_DOUBLE_EQ(Simulator(slower).makespan(place(b.g, {{"B", 1}})), 5.0);

  CostTable unknown = b.table;
  unknown.links[0].to = "tpu";
  unknown.file = "costs.json";
  try {
    Problem bad(b.g, two_devices(), &unknown);
    ADD_FAILURE() << "a link to an unknown device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "costs.json");
    EXPECT_EQ(e.node(), "link cpu -> tpu");
  }
  auto no_bandwidth = nlohmann::json::parse(json);
  no_bandwidth["links"][0]["bandwidth_gbs"] = 0;
  EXPECT_THROW(cost_table_from_json(no_bandwidth, "costs.json"), Error);
}

TEST(Simulator, DiamondRunsBranchesInParallel) {
  Builder b;
  b.op("A", {}, 1, 1);
  b.op("B", {"A"}, 2, 2);
  b.op("C", {"A"}, 2, 2);
  b.op("D", {"B", "C"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  // One device: 1 + 2 + 2 + 1.
  EXPECT_DOUBLE_EQ(sim.makespan(place(b.g, {})), 6.0);
  // C on gpu: A [0,1]; B cpu [1,3]; A->gpu [1,1.5], C [1.5,3.5]; C->cpu [3.5,4]; D [4,5].
  Schedule s = sim.run(place(b.g, {{"C", 1}}));
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("C")].end, 3.5);
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("D")].start, 4.0);
  EXPECT_DOUBLE_EQ(s.makespan, 5.0);
}

TEST(Simulator, ForkTransfersQueueOnOneLink) {
  Builder b;
  b.op("A", {}, 1, 1, 1.0);
  b.op("X", {}, 1, 1, 1.0);
  b.op("B", {"A"}, 1, 1);
  b.op("C", {"X"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  // A [0,1] and X [1,2] on cpu; A's tensor crosses [1,2], X's waits for the link until 2: [2,3].
  // B on gpu [2,3]; C on gpu [3,4].
  Schedule s = sim.run(place(b.g, {{"B", 1}, {"C", 1}}));
  ASSERT_EQ(s.transfers.size(), 2u);
  EXPECT_DOUBLE_EQ(s.transfers[0].start, 1.0);
  EXPECT_DOUBLE_EQ(s.transfers[1].start, 2.0);
  EXPECT_DOUBLE_EQ(s.transfers[1].end, 3.0);
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("C")].start, 3.0);
  EXPECT_DOUBLE_EQ(s.makespan, 4.0);
}

TEST(Simulator, TensorIsSentOncePerDestinationDevice) {
  Builder b;
  b.op("A", {}, 1, 1, 1.0);
  b.op("B", {"A"}, 1, 1);
  b.op("C", {"A"}, 1, 1);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  Schedule s = sim.run(place(b.g, {{"B", 1}, {"C", 1}}));
  EXPECT_EQ(s.transfers.size(), 1u);
  // Both consumers wait for the single copy at 2, then share the gpu: 2..3, 3..4.
  EXPECT_DOUBLE_EQ(s.makespan, 4.0);
}

// A Constant's output (weights, or anything the runtime folds) is on every device before the
// first inference: no transfer, no wait for its producer's device, and its bytes count on the
// device of the kernel that reads it, wherever the Constant op itself was placed.
TEST(Simulator, ConstantsAreEverywhereAndChargedToTheirReader) {
  Builder b;
  Op w;
  w.name = "w", w.type = "Constant", w.weight_bytes = 1000;
  const int out = b.g.tensor_id("w:0");
  b.g.tensor(out).fixed_bytes = 1000;
  w.outputs = {out};
  b.g.add_op(w);
  b.table.transfer_time["w:0"] = 5.0;
  b.op("a", {}, 4.0, 1.0);
  b.op("mm", {"w", "a"}, 2.0, 2.0);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  ASSERT_TRUE(pb.tensor_resident(out));
  Simulator sim(pb);
  Placement p(3);
  p[b.g.find_op("w")] = 0, p[b.g.find_op("a")] = 1, p[b.g.find_op("mm")] = 1;
  Schedule s = sim.run(p);
  EXPECT_TRUE(s.transfers.empty());
  EXPECT_DOUBLE_EQ(s.ops[b.g.find_op("mm")].start, 1.0);  // after a; not after a 5 s copy of w
  EXPECT_DOUBLE_EQ(s.makespan, 3.0);
  EXPECT_GE(s.peak_memory[1], 1000);  // the weights are where mm reads them
  EXPECT_LT(s.peak_memory[0], 1000);
  EXPECT_EQ(pb.transfer_time(out, 0, 1), 0.0);
}

// A Shape of a tensor whose shape is known is evaluated at load time, as the executor folds it:
// wherever it is placed, its input is never copied to it and no worker runs it.
TEST(Simulator, AnOpFoldedAtLoadTimeReadsNoInputAtRunTime) {
  for (const bool execution : {false, true}) {
    Builder b;
    b.op("a", {}, 4.0, 1.0);
    b.op("shape", {"a"}, 1.0, 1.0);
    b.op("reshape", {"a", "shape"}, 3.0, 2.0);
    b.g.tensor(b.g.find_tensor("shape:0")).is_constant = true;  // what static folding marks
    b.g.finalize();
    if (execution) b.table.execution = test::two_devices_execution();
    Problem pb(b.g, two_devices(), &b.table);
    ASSERT_EQ(pb.op_time(b.g.find_op("shape"), 0), 0.0);
    Simulator sim(pb);
    const Placement p = place(b.g, {{"a", 1}, {"shape", 0}, {"reshape", 1}});
    const Schedule s = sim.run(p);
    ASSERT_TRUE(s.feasible);
    // a [0,1] and reshape [1,3] on the gpu; no copy of a's output to the cpu, and the cpu's
    // worker (0.1 s per task, 2 s to wake under the execution model) is never woken.
    EXPECT_TRUE(s.transfers.empty()) << "execution model: " << execution;
    EXPECT_DOUBLE_EQ(s.makespan, 3.0) << "execution model: " << execution;
    EXPECT_DOUBLE_EQ(s.makespan, sim.makespan(place(b.g, {{"a", 1}, {"shape", 1}, {"reshape", 1}})));
  }
}

TEST(Simulator, MemoryOverflowNamesDeviceAndAmount) {
  Builder b;
  b.op("A", {}, 1, 1, 0.5, 600);
  b.op("B", {"A"}, 1, 1, 0.5, 600);
  b.g.finalize();
  Problem pb(b.g, two_devices(1000), &b.table);
  Simulator sim(pb);
  Schedule s = sim.run(place(b.g, {{"A", 1}, {"B", 1}}));
  EXPECT_FALSE(s.feasible);
  EXPECT_NE(s.infeasible_reason.find("'gpu'"), std::string::npos);
  // 1200 of weights; while B runs, its input (100) and its output (100) are both live.
  EXPECT_EQ(s.peak_memory[1], 1400);
  EXPECT_EQ(s.overflow[1], 400);
  EXPECT_TRUE(std::isinf(sim.makespan(place(b.g, {{"A", 1}, {"B", 1}}))));
  // Split: 600 + activations fit.
  EXPECT_TRUE(sim.run(place(b.g, {{"B", 1}})).feasible);
}

TEST(Simulator, ActivationsAreFreedAfterTheirLastConsumer) {
  Builder b;
  b.op("A", {}, 1, 1, 0.5, 0, 400);
  b.op("B", {"A"}, 1, 1, 0.5, 0, 400);
  b.op("C", {"B"}, 1, 1, 0.5, 0, 400);
  b.g.finalize();
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  Schedule s = sim.run(place(b.g, {}));
  // At most two 400-byte tensors live at once (input and output of the running op).
  EXPECT_EQ(s.peak_memory[0], 800);
}

TEST(Simulator, UnsupportedOpIsInfeasibleNotACrash) {
  Builder b;
  b.op("A", {}, 1, 1);
  b.g.finalize();
  b.table.op_time["A"].erase("gpu");
  Problem pb(b.g, two_devices(), &b.table);
  Simulator sim(pb);
  Schedule s = sim.run(Placement{1});
  EXPECT_FALSE(s.feasible);
  EXPECT_NE(s.infeasible_reason.find("cannot run on device 'gpu'"), std::string::npos);
  EXPECT_THROW(sim.run(Placement{2}), Error);
  EXPECT_THROW(sim.run(Placement{}), Error);
}

}  // namespace
}  // namespace devplace
