// Placements written back onto models: the annotated ONNX copy carries every node's device and
// imports as the same graph; the OpenVINO affinity map names HETERO devices; placement files
// round-trip and reject unknown ops and devices.
#include "io/placement_export.h"

#include <gtest/gtest.h>

#include <onnx/checker.h>
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

// ResNet-50's weights are initializers, not ops, so no HETERO rule moves anything here.
TEST(PlacementExport, OpenVinoAffinityNamesHeteroDevices) {
  Model m = load_model("resnet50");
  Cluster nv = load_cluster("nvlink4");
  EXPECT_EQ(openvino_device_names(nv), (std::vector<std::string>{"CPU", "GPU.0", "GPU.1", "GPU.2", "GPU.3"}));
  EXPECT_EQ(openvino_device_names(load_cluster("paper")), (std::vector<std::string>{"CPU", "GPU"}));
  Placement p(m.graph.num_ops(), 2);
  p[0] = 0;
  const std::string out = ::testing::TempDir() + "/affinity.json";
  EXPECT_TRUE(export_openvino_affinity(m.graph, nv, p, out).changes.empty());
  auto j = nlohmann::json::parse(read_file(out));
  EXPECT_EQ(j["device"], "HETERO:CPU,GPU.1");
  EXPECT_EQ(j["affinity"][m.graph.op(0).name], "CPU");
  EXPECT_EQ(j["affinity"][m.graph.op(1).name], "GPU.1");
}

// A model that keeps its weights stays a valid ONNX model once annotated: onnx.checker passes.
TEST(PlacementExport, AnnotatedOnnxWithWeightsPassesTheOnnxChecker) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  auto* g = model.mutable_graph();
  g->set_name("small");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<std::int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", {1, 3, 8, 8});
  value(g->add_output(), "y", {1, 4, 8, 8});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int d : {4, 3, 1, 1}) w->add_dims(d);
  for (int k = 0; k < 12; ++k) w->add_float_data(0.1f * static_cast<float>(k));
  auto* conv = g->add_node();
  conv->set_name("conv");
  conv->set_op_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("c");
  auto* relu = g->add_node();
  relu->set_name("relu");
  relu->set_op_type("Relu");
  relu->add_input("c");
  relu->add_output("y");
  ASSERT_NO_THROW(onnx::checker::check_model(model));
  const std::string in = ::testing::TempDir() + "/small.onnx", out = ::testing::TempDir() + "/small_placed.onnx";
  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  write_file_atomic(in, bytes);

  Model m = load_model(in);
  export_onnx_with_placement(in, m.graph, load_cluster("paper"), {0, 1}, out);
  onnx::ModelProto placed;
  ASSERT_TRUE(placed.ParseFromString(read_file(out)));
  EXPECT_NO_THROW(onnx::checker::check_model(placed));
  EXPECT_EQ(placed.graph().initializer(0).float_data_size(), 12);  // the weights are still there
  EXPECT_EQ(placed.graph().node(1).doc_string(), "devplace:device=gpu");
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
