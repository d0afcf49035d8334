// HETERO's rules for manual affinity (io/openvino_affinity.h): a hand-built net whose placement
// breaks each rule, and every shared OpenVINO IR graph, whose maps follow the rules after
// adjust_for_openvino.
#include "io/openvino_affinity.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "cost/cluster.h"
#include "graph/static_folding.h"
#include "io/model.h"
#include "io/placement_export.h"
#include "util/files.h"

namespace devplace {
namespace {

// x (Parameter) -> a = MatMul(x, wc), b = MatMul(x, wc) where wc = Convert(w), w a Const;
// c = Add(a, b) -> Result.
struct SharedConstant {
  Graph g{"net", "net.xml"};
  SharedConstant() {
    auto op = [&](const std::string& name, const std::string& type, std::vector<std::string> ins, bool output = true) {
      Op o;
      o.name = name;
      o.type = type;
      for (auto& i : ins) o.inputs.push_back(g.tensor_id(i));
      if (output) o.outputs = {g.tensor_id(name + ":0")};
      g.add_op(std::move(o));
    };
    op("x", "Parameter", {});
    g.tensor(g.tensor_id("x:0")).is_graph_input = true;
    op("w", "Const", {});
    op("wc", "Convert", {"w:0"});
    op("a", "MatMul", {"x:0", "wc:0"});
    op("b", "MatMul", {"x:0", "wc:0"});
    op("c", "Add", {"a:0", "b:0"});
    op("out", "Result", {"c:0"}, false);
    g.finalize();
    fold_static_values(g);
  }
  int at(const std::string& name) const { return g.find_op(name); }
  std::map<std::string, std::string> map(const Placement& p) const {
    const std::vector<std::string> names = {"CPU", "GPU"};
    std::map<std::string, std::string> m;
    for (int i = 0; i < g.num_ops(); ++i) m[g.op(i).name] = names[p[i]];
    return m;
  }
};

TEST(OpenVinoAffinity, ReadersOfOneConstantShareADeviceAndResultsFollowTheirProducer) {
  SharedConstant n;
  Placement p(n.g.num_ops(), 1);
  p[n.at("x")] = 0, p[n.at("a")] = 0, p[n.at("out")] = 0;  // a on the CPU, b on the GPU
  const std::vector<std::string> devices = {"CPU", "GPU"};
  auto before = check_openvino_affinity(n.g, n.map(p), devices);
  std::map<std::string, std::string> rule_of;
  for (auto& v : before) rule_of[v.op] = v.rule;
  EXPECT_EQ(rule_of, (std::map<std::string, std::string>{
                         {"w", "constant-reader"}, {"wc", "constant-reader"}, {"out", "result"}}));

  AdjustedPlacement adj = adjust_for_openvino(n.g, p);
  ASSERT_EQ(adj.changes.size(), 1u);  // a tie: the lower device index wins, so b moves to the CPU
  EXPECT_EQ(adj.changes[0].op, "b");
  EXPECT_EQ(adj.changes[0].from, 1);
  EXPECT_EQ(adj.changes[0].to, 0);
  EXPECT_NE(adj.changes[0].reason.find("'w'"), std::string::npos) << adj.changes[0].reason;
  for (const char* op : {"x", "w", "wc", "a", "b"}) EXPECT_EQ(adj.placement[n.at(op)], 0) << op;
  EXPECT_EQ(adj.placement[n.at("c")], 1);
  EXPECT_EQ(adj.placement[n.at("out")], 1);  // with its producer
  EXPECT_TRUE(check_openvino_affinity(n.g, n.map(adj.placement), devices).empty());

  // A Parameter alone on a device, an unknown device, a missing op and an unknown op.
  auto m = n.map(adj.placement);
  m["x"] = "GPU";
  m["c"] = "NPU";
  m.erase("a");
  m["ghost"] = "CPU";
  std::map<std::string, int> count;
  for (auto& v : check_openvino_affinity(n.g, m, devices)) ++count[v.rule];
  EXPECT_EQ(count["parameter"], 1);
  EXPECT_EQ(count["unknown-device"], 1);
  EXPECT_EQ(count["missing"], 1);
  EXPECT_EQ(count["unknown-op"], 1);
}

// Every shared IR graph with every other op on the GPU: the raw map breaks the rules, the
// adjusted one does not, and only ops named in `changes` (plus constants, Parameters and
// Results, which follow) changed device.
TEST(OpenVinoAffinity, AdjustedMapsOfEverySharedIrGraphFollowTheRules) {
  const std::string dir = shared_dir() + "/data/openvino/";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "shared OpenVINO IR files not found at " << dir;
  const Cluster paper = load_cluster("paper");
  const auto devices = openvino_device_names(paper);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".xml") continue;
    ++files;
    Model m = load_model(e.path().string());
    const Graph& g = m.graph;
    Placement p(g.num_ops());
    for (int i = 0; i < g.num_ops(); ++i) p[i] = i % 2;
    auto raw = [&](const Placement& q) { return openvino_affinity_map(g, paper, q); };
    EXPECT_FALSE(check_openvino_affinity(g, raw(p), devices).empty()) << e.path();
    AdjustedPlacement adj = adjust_for_openvino(g, p);
    const auto after = check_openvino_affinity(g, raw(adj.placement), devices);
    EXPECT_TRUE(after.empty()) << e.path() << ": " << after.front().rule << " " << after.front().op << " "
                               << after.front().detail;
    std::set<std::string> changed;
    for (auto& c : adj.changes) changed.insert(c.op);
    for (int i = 0; i < g.num_ops(); ++i) {
      const Op& op = g.op(i);
      if (adj.placement[i] == p[i] || changed.count(op.name)) continue;
      EXPECT_TRUE(op.type == "Const" || op.type == "Parameter" || op.type == "Result" ||
                  g.tensor(op.outputs.at(0)).is_constant)
          << e.path() << ": " << op.name << " (" << op.type << ") moved unreported";
    }
  }
  EXPECT_EQ(files, 10);
}

}  // namespace
}  // namespace devplace
