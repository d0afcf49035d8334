// Operator fusion (cost/fusion.h) end to end: which ops fuse, their costs, and what the simulator
// charges when a placement cuts a chain.
#include "cost/fusion.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cost/cost_model.h"
#include "graph/op_costs.h"
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

// x -> Conv -> c -> Add(bias) -> a -> Relu -> r -> {Sigmoid -> s, Mul(r, s) -> m (output)}
// On a device that fuses everything: Add joins Conv (conv epilogue), Relu joins Add; r has two
// readers, so neither Sigmoid nor Mul can take Relu's kernel; Mul joins Sigmoid (eltwise chain).
struct ConvChain {
  Graph g{"chain", "chain.onnx"};
  ConvChain() {
    tensor("x", {1, 64, 56, 56}, false);
    tensor("w", {64, 64, 3, 3}, true);
    tensor("bias", {1, 64, 1, 1}, true);
    for (const char* t : {"c", "a", "r", "s", "m"}) tensor(t, {1, 64, 56, 56}, false).is_graph_input = false;
    g.tensor(g.tensor_id("m")).is_graph_output = true;
    op("Conv", {"x", "w"}, "c", {{"pads", std::vector<std::int64_t>{1, 1, 1, 1}}});
    op("Add", {"c", "bias"}, "a");
    op("Relu", {"a"}, "r");
    op("Sigmoid", {"r"}, "s");
    op("Mul", {"r", "s"}, "m");
    g.finalize();
    annotate_costs(g);
  }
  Tensor& tensor(const std::string& name, Shape shape, bool constant) {
    Tensor& t = g.tensor(g.tensor_id(name));
    t.shape = std::move(shape);
    t.is_constant = constant;
    t.is_graph_input = !constant;
    return t;
  }
  void op(const std::string& type, std::vector<std::string> ins, const std::string& out,
          std::map<std::string, AttrValue> attrs = {}) {
    Op o;
    o.name = type;
    o.type = type;
    o.attrs = std::move(attrs);
    for (auto& i : ins) o.inputs.push_back(g.tensor_id(i));
    o.outputs = {g.tensor_id(out)};
    g.add_op(std::move(o));
  }
  int at(const std::string& name) const { return g.find_op(name); }
};

// cpu fuses nothing; gpu fuses by every rule.
Cluster cpu_and_fusing_gpu() {
  Cluster c;
  c.name = "test";
  Device cpu;
  cpu.name = "cpu";
  cpu.launch_overhead = 5e-6;
  Device gpu;
  gpu.name = "gpu";
  gpu.kind = "gpu";
  gpu.peak_flops = 10e12;
  gpu.mem_bandwidth = 500e9;
  gpu.launch_overhead = 20e-6;
  gpu.fusion = default_fusion_rules("gpu");
  c.devices = {cpu, gpu};
  c.set_link({0, 1, 10e9, 10e-6});
  c.set_link({1, 0, 10e9, 10e-6});
  return c;
}

TEST(Fusion, ChainsFollowSoleReadersAndTheRulesOfTheHead) {
  ConvChain m;
  Problem p(m.g, cpu_and_fusing_gpu());
  const int cpu = 0, gpu = 1;
  EXPECT_EQ(p.fusion_parent(m.at("Conv"), gpu), -1);
  EXPECT_EQ(p.fusion_parent(m.at("Add"), gpu), m.at("Conv"));
  EXPECT_EQ(p.fusion_parent(m.at("Relu"), gpu), m.at("Add"));
  EXPECT_EQ(p.fusion_parent(m.at("Sigmoid"), gpu), -1);  // r is also read by Mul
  EXPECT_EQ(p.fusion_parent(m.at("Mul"), gpu), m.at("Sigmoid"));
  for (const char* op : {"Conv", "Add", "Relu", "Sigmoid", "Mul"}) EXPECT_EQ(p.fusion_parent(m.at(op), cpu), -1);
  EXPECT_EQ(p.fused_pairs(), 3);

  // Only an epilogue on conv: Add and Relu still join Conv, Mul no longer joins Sigmoid.
  Cluster epilogue = cpu_and_fusing_gpu();
  epilogue.devices[1].fusion = {"conv_epilogue"};
  Problem q(m.g, epilogue);
  EXPECT_EQ(q.fusion_parent(m.at("Relu"), gpu), m.at("Add"));
  EXPECT_EQ(q.fusion_parent(m.at("Mul"), gpu), -1);
}

TEST(Fusion, AFusedOpPaysNoLaunchAndDoesNotReadItsChainInputAgain) {
  ConvChain m;
  Cluster c = cpu_and_fusing_gpu();
  Problem p(m.g, c);
  const Device& gpu = c.devices[1];
  const Op& relu = m.g.op(m.at("Relu"));
  const std::int64_t bytes = 64 * 56 * 56 * 4;
  ASSERT_EQ(relu.bytes_accessed, 2 * bytes);
  // Relu reads a and writes r, both inside the kernel: only its arithmetic is left.
  const double compute = relu.flops / (gpu.peak_flops * gpu.default_efficiency);
  EXPECT_DOUBLE_EQ(p.op_time(m.at("Relu"), 1), compute);
  EXPECT_DOUBLE_EQ(p.standalone_time(m.at("Relu"), 1), 20e-6 + 2.0 * bytes / 500e9);
  EXPECT_DOUBLE_EQ(p.standalone_time(m.at("Relu"), 1), roofline_time(relu, gpu));
  // Mul joins Sigmoid's kernel but still reads r, which Relu wrote out.
  const Op& mul = m.g.op(m.at("Mul"));
  EXPECT_DOUBLE_EQ(p.op_time(m.at("Mul"), 1),
                   std::max(mul.flops / (gpu.peak_flops * gpu.default_efficiency), double(bytes) / 500e9));
  // The cpu fuses nothing: its times are the plain roofline.
  EXPECT_DOUBLE_EQ(p.op_time(m.at("Relu"), 0), roofline_time(relu, c.devices[0]));
}

TEST(Fusion, TheSimulatorChargesALaunchWhereThePlacementCutsAChain) {
  ConvChain m;
  Problem p(m.g, cpu_and_fusing_gpu());
  Simulator sim(p);
  const int n = m.g.num_ops();
  // All on the gpu: one device, ops back to back, each at its fused time.
  Placement all_gpu(n, 1);
  Schedule s = sim.run(all_gpu);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(s.ops[i].end - s.ops[i].start, p.op_time(i, 1), 1e-15) << m.g.op(i).name;
    sum += p.op_time(i, 1);
  }
  EXPECT_NEAR(s.makespan, sum, 1e-15);
  // Add on the cpu: Relu's parent is elsewhere, so Relu runs in its own kernel on the gpu.
  Placement cut = all_gpu;
  cut[m.at("Add")] = 0;
  Schedule t = sim.run(cut);
  const int relu = m.at("Relu");
  EXPECT_NEAR(t.ops[relu].end - t.ops[relu].start, p.standalone_time(relu, 1), 1e-15);
  EXPECT_GT(p.standalone_time(relu, 1), p.op_time(relu, 1) + 19e-6);
}

TEST(Fusion, OffMeansOneKernelPerOp) {
  ConvChain m;
  Problem p(m.g, without_fusion(cpu_and_fusing_gpu()));
  EXPECT_EQ(p.fused_pairs(), 0);
  for (int i = 0; i < m.g.num_ops(); ++i) {
    EXPECT_EQ(p.fusion_parent(i, 1), -1);
    EXPECT_DOUBLE_EQ(p.op_time(i, 1), roofline_time(m.g.op(i), cpu_and_fusing_gpu().devices[1]));
  }
}

TEST(Fusion, TableCostsAndFoldedOpsDoNotFuse) {
  ConvChain m;
  CostTable table;
  table.op_time["Add"] = {{"cpu", 1e-3}, {"gpu", 2e-4}};
  Problem p(m.g, cpu_and_fusing_gpu(), &table);
  EXPECT_EQ(p.fusion_parent(m.at("Add"), 1), -1);
  EXPECT_EQ(p.fusion_parent(m.at("Relu"), 1), -1);  // its producer has a measured time
  EXPECT_DOUBLE_EQ(p.op_time(m.at("Add"), 1), 2e-4);
}

TEST(Fusion, ClusterFilesNameTheirRulesOrGetTheirKindsDefaults) {
  using nlohmann::json;
  json j = {{"devices",
             {{{"name", "cpu"}},
              {{"name", "npu"}, {"kind", "accel"}},
              {{"name", "gpu"}, {"kind", "gpu"}, {"fusion", json::array()}}}},
            {"default_link", json::object()}};
  Cluster c = cluster_from_json(j, "c.json");
  EXPECT_EQ(c.devices[0].fusion, default_fusion_rules("cpu"));
  EXPECT_EQ(c.devices[1].fusion, (std::vector<std::string>{"conv_epilogue", "matmul_epilogue"}));
  EXPECT_TRUE(c.devices[2].fusion.empty());
  EXPECT_EQ(cluster_from_json(cluster_to_json(c), "round").devices[1].fusion, c.devices[1].fusion);
  j["devices"][2]["fusion"] = {"conv_epilogue", "everything"};
  try {
    cluster_from_json(j, "c.json");
    FAIL() << "an unknown rule was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: node 'gpu': unknown fusion rule 'everything' (known: conv_epilogue, matmul_epilogue, "
              "elementwise_chain, normalization_chain)");
  }
  j["devices"][2]["fusion"] = "all";
  EXPECT_THROW(cluster_from_json(j, "c.json"), Error);
}

}  // namespace
}  // namespace devplace
