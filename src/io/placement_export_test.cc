// Placements written back onto models: the annotated ONNX copy carries every node's device and
// imports as the same graph; the OpenVINO affinity map names HETERO devices; placement files
// round-trip and reject unknown ops and devices.
#include "io/placement_export.h"

#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include "io/model.h"
#include "io/placement_io.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

Placement alternate(const Graph& g) {
  Placement p(g.num_ops());
  for (int i = 0; i < g.num_ops(); ++i) p[i] = i % 2;
  return p;
}

TEST(PlacementExport, OnnxCopyCarriesEveryNodesDevice) {
  Model m = load_model("resnet50");
  Cluster c = load_cluster("paper");
  Placement p = alternate(m.graph);
  const std::string out = ::testing::TempDir() + "/placed.onnx";
  export_onnx_with_placement(m.graph.source(), m.graph, c, p, out);
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(read_file(out)));
  ASSERT_EQ(model.graph().node_size(), m.graph.num_ops());
  for (const auto& node : model.graph().node()) {
    int op = m.graph.find_op(node.name());
    ASSERT_GE(op, 0) << node.name();
    EXPECT_EQ(node.doc_string(), "devplace:device=" + c.devices[p[op]].name);
  }
  bool found = false;
  for (const auto& prop : model.metadata_props())
    if (prop.key() == "devplace.placement") {
      auto map = nlohmann::json::parse(prop.value());
      EXPECT_EQ(map.size(), static_cast<std::size_t>(m.graph.num_ops()));
      found = true;
    }
  EXPECT_TRUE(found);
  // The annotated copy is still the same model.
  Model again = load_model(out);
  EXPECT_EQ(again.graph.num_ops(), m.graph.num_ops());
}

TEST(PlacementExport, OpenVinoAffinityNamesHeteroDevices) {
  Model m = load_model("bert_base");
  Cluster nv = load_cluster("nvlink4");
  EXPECT_EQ(openvino_device_names(nv), (std::vector<std::string>{"CPU", "GPU.0", "GPU.1", "GPU.2", "GPU.3"}));
  EXPECT_EQ(openvino_device_names(load_cluster("paper")), (std::vector<std::string>{"CPU", "GPU"}));
  Placement p(m.graph.num_ops(), 2);
  p[0] = 0;
  const std::string out = ::testing::TempDir() + "/affinity.json";
  export_openvino_affinity(m.graph, nv, p, out);
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["device"], "HETERO:CPU,GPU.1");
  EXPECT_EQ(j["affinity"][m.graph.op(0).name], "CPU");
  EXPECT_EQ(j["affinity"][m.graph.op(1).name], "GPU.1");
}

TEST(PlacementFile, RoundTripAndErrors) {
  Model m = load_model("inception_v3");
  Cluster c = load_cluster("paper");
  Placement p = alternate(m.graph);
  const std::string path = ::testing::TempDir() + "/p.json";
  write_placement(path, m.graph, c, p, {"inception_v3", "paper", "test", 42, 0.005});
  PlacementInfo info;
  EXPECT_EQ(read_placement(path, m.graph, c, &info), p);
  EXPECT_EQ(info.seed, 42u);
  EXPECT_EQ(info.algorithm, "test");
  EXPECT_DOUBLE_EQ(info.makespan, 0.005);
  // A placement made for another model names the first op it does not know.
  Model other = load_model("resnet50");
  try {
    read_placement(path, other.graph, c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(e.reason().find("no such op"), std::string::npos);
  }
}

}  // namespace
}  // namespace devplace
