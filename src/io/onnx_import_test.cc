#include "io/onnx_import.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

#include <onnx/onnx_pb.h>

#include "graph/op_costs.h"
#include "io/model.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

std::string bundled(const std::string& name) { return home_dir() + "/models/" + name + ".onnx"; }

// Convention of these checks: published "GMACs" figures count the multiply-accumulates of
// Conv / MatMul / Gemm only (1 MAC = 2 FLOPs); Op::macs holds exactly those.
double total_gmacs(const Graph& g) {
  double macs = 0;
  for (const Op& op : g.ops()) macs += op.macs;
  return macs / 1e9;
}

void expect_well_formed(const Graph& g) {
  ASSERT_TRUE(g.finalized());
  for (const Op& op : g.ops()) EXPECT_NE(op.type, "Identity") << op.name;
  for (const Tensor& t : g.tensors()) EXPECT_TRUE(t.shape_known()) << t.name << " " << shape_to_string(t.shape);
}

TEST(OnnxImport, ResNet50) {
  Graph g = import_onnx(bundled("resnet50"));
  expect_well_formed(g);
  EXPECT_EQ(g.name(), "resnet50");
  EXPECT_NEAR(total_gmacs(g), 4.1, 4.1 * 0.03);
  int convs = 0;
  for (const Op& op : g.ops()) convs += op.type == "Conv";
  EXPECT_EQ(convs, 53);
  const Tensor& in = g.tensor(g.find_tensor("input"));
  EXPECT_TRUE(in.is_graph_input);
  EXPECT_EQ(in.shape, (Shape{1, 3, 224, 224}));
}

TEST(OnnxImport, InceptionV3) {
  Graph g = import_onnx(bundled("inception_v3"));
  expect_well_formed(g);
  EXPECT_NEAR(total_gmacs(g), 5.7, 5.7 * 0.03);
}

TEST(OnnxImport, BertBase) {
  Graph g = import_onnx(bundled("bert_base"));
  expect_well_formed(g);
  EXPECT_NEAR(total_gmacs(g), 11.2, 11.2 * 0.03);
  const Tensor& ids = g.tensor(g.find_tensor("input_ids"));
  EXPECT_EQ(ids.dtype, DType::i64);
  EXPECT_EQ(ids.shape, (Shape{1, 128}));
  int outputs = 0, weights = 0;
  for (const Tensor& t : g.tensors()) {
    outputs += t.is_graph_output;
    weights += t.is_constant;
  }
  EXPECT_EQ(outputs, 1);
  EXPECT_GT(weights, 190);  // stripped initializers keep their dims
  const Tensor& word = g.tensor(g.find_tensor("word.weight"));
  EXPECT_TRUE(word.is_constant);
  EXPECT_EQ(word.shape, (Shape{30522, 768}));
}

TEST(OnnxImport, InputBindingChangesSequenceLength) {
  ImportOptions opts;
  opts.input_shapes["input_ids"] = {1, 256};
  Graph g = import_onnx(bundled("bert_base"), opts);
  expect_well_formed(g);
  // Per layer at S=256: Q,K,V,O projections 4*S*768*768, FFN 2*S*768*3072, attention 2*S*S*768.
  const double s = 256;
  const double expected = 12 * (4 * s * 768 * 768 + 2 * s * 768 * 3072 + 2 * s * s * 768);
  EXPECT_NEAR(total_gmacs(g) * 1e9, expected, expected * 1e-9);
  for (const Tensor& t : g.tensors()) {
    if (t.is_graph_output) {
      EXPECT_EQ(t.shape, (Shape{1, 256, 768}));
    }
  }
}

TEST(OnnxImport, BadBindingNamesTheInput) {
  ImportOptions opts;
  opts.input_shapes["no_such_input"] = {1, 8};
  try {
    import_onnx(bundled("bert_base"), opts);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_input"), std::string::npos) << e.what();
  }
}

TEST(OnnxImport, TruncatedFileIsAnErrorNamingTheFile) {
  const std::string bytes = read_file(bundled("resnet50")).substr(0, 100);
  const std::string path = (std::filesystem::temp_directory_path() / "devplace_truncated_test.onnx").string();
  write_file_atomic(path, bytes);
  try {
    import_onnx(path);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(e.reason().find("not a valid ONNX model"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::corrupt);
  }
  std::remove(path.c_str());
}

// Each failure says what kind it is: a missing file or name is not found, an unknown format is
// unsupported, a bad binding an invalid argument.
TEST(OnnxImport, ErrorsSayTheirKind) {
  auto kind_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind();
    }
    ADD_FAILURE() << "expected an Error";
    return ErrorKind::io;
  };
  EXPECT_EQ(kind_of([] { load_model("/nonexistent/model.onnx"); }), ErrorKind::not_found);
  EXPECT_EQ(kind_of([] { load_model("no_such_bundled_model"); }), ErrorKind::not_found);
  EXPECT_EQ(kind_of([] { load_cluster("no-such-preset"); }), ErrorKind::not_found);
  EXPECT_EQ(kind_of([] { load_model("bert_base", import_options({"input_ids=1,x"})); }),
            ErrorKind::invalid_argument);
  const std::string path = (std::filesystem::temp_directory_path() / "devplace_kind_test.txt").string();
  write_file_atomic(path, "x");
  EXPECT_EQ(kind_of([&] { load_model(path); }), ErrorKind::unsupported);
  EXPECT_EQ(kind_of([&] { write_file_atomic(path + "/inside-a-file.json", "{}"); }), ErrorKind::io);
  std::remove(path.c_str());
  EXPECT_STREQ(error_kind_name(ErrorKind::not_found), "not found");
}

// x [2,3] -> Relu (unnamed) -> MatMul "mm" with initializer w [3,4] (data stripped) -> y.
onnx::ModelProto tiny_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto add_value = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<std::int64_t> dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  add_value(g->add_input(), "x", {2, 3});
  add_value(g->add_output(), "y", {2, 4});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(4);
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("r");
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("r");
  mm->add_input("w");
  mm->add_output("y");
  auto* attr = mm->add_attribute();  // not a real MatMul attribute; only checks the copy
  attr->set_name("note");
  attr->set_type(onnx::AttributeProto::INTS);
  attr->add_ints(7);
  return m;
}

TEST(OnnxImport, TinyModelMapping) {
  Graph g = import_onnx_bytes(tiny_model().SerializeAsString(), "tiny.onnx");
  ASSERT_EQ(g.num_ops(), 2);
  EXPECT_EQ(g.op(0).name, "Relu_0");  // generated from type and node index
  const Op& mm = g.op(g.find_op("mm"));
  EXPECT_EQ(mm.attr_ints("note"), (std::vector<std::int64_t>{7}));
  EXPECT_DOUBLE_EQ(mm.macs, 2 * 4 * 3);
  EXPECT_EQ(mm.weight_bytes, 3 * 4 * 4);
  EXPECT_EQ(g.tensor(g.find_tensor("r")).shape, (Shape{2, 3}));  // inferred
  EXPECT_TRUE(g.tensor(g.find_tensor("w")).is_constant);
  EXPECT_FALSE(g.tensor(g.find_tensor("w")).is_graph_input);
  EXPECT_TRUE(g.tensor(g.find_tensor("y")).is_graph_output);
  EXPECT_EQ(g.num_edges(), 1u);
}

TEST(OnnxImport, DanglingInputNamesFileAndNode) {
  onnx::ModelProto m = tiny_model();
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  try {
    import_onnx_bytes(m.SerializeAsString(), "tiny.onnx");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "tiny.onnx");
    EXPECT_EQ(e.node(), "mm");
  }
}

// x.view(x.size(0), -1) @ w as torch.onnx exports it (opset 17): Shape -> Gather(Constant 0) ->
// Unsqueeze(Constant axes) -> Concat with Constant [-1] -> Reshape -> MatMul. With x bound to a
// static shape the shape arithmetic folds (no cost per inference) and ONNX's data propagation
// gives the Reshape a static shape, so the MatMul's MACs are exact.
TEST(OnnxImport, ShapeArithmeticOnStaticInputsFoldsAndLeavesNoUnknownDims) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* x = g->add_input();
  x->set_name("x");
  auto* xt = x->mutable_type()->mutable_tensor_type();
  xt->set_elem_type(onnx::TensorProto::FLOAT);
  xt->mutable_shape()->add_dim()->set_dim_param("batch");
  for (int d : {3, 4, 4}) xt->mutable_shape()->add_dim()->set_dim_value(d);
  g->add_output()->set_name("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(48);
  w->add_dims(10);
  auto constant = [&](const std::string& out, std::vector<std::int64_t> values) {
    auto* n = g->add_node();
    n->set_op_type("Constant");
    n->add_output(out);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    if (values.size() != 1 || out == "axes" || out == "minus_one")
      t->add_dims(static_cast<std::int64_t>(values.size()));
    for (auto v : values) t->add_int64_data(v);
  };
  auto node = [&](const std::string& type, std::vector<std::string> ins, const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(type);
    for (auto& i : ins) n->add_input(i);
    n->add_output(out);
  };
  node("Shape", {"x"}, "s");
  constant("zero", {0});
  node("Gather", {"s", "zero"}, "n");
  constant("axes", {0});
  node("Unsqueeze", {"n", "axes"}, "n1");
  constant("minus_one", {-1});
  auto* cat = g->add_node();
  cat->set_op_type("Concat");
  cat->add_input("n1");
  cat->add_input("minus_one");
  cat->add_output("shape");
  auto* axis = cat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  node("Reshape", {"x", "shape"}, "flat");
  node("MatMul", {"flat", "w"}, "y");

  ImportOptions opts;
  opts.input_shapes["x"] = {2, 3, 4, 4};
  Graph gr = import_onnx_bytes(m.SerializeAsString(), "view.onnx", opts);
  int folded = 0, unknown = 0;
  for (const Op& op : gr.ops()) folded += is_folded(gr, op) && op.type != "Constant";
  for (const Tensor& t : gr.tensors()) unknown += !t.shape_known();
  EXPECT_EQ(folded, 4);  // Shape, Gather, Unsqueeze, Concat
  EXPECT_EQ(unknown, 0);
  EXPECT_EQ(gr.tensor(gr.find_tensor("flat")).shape, (Shape{2, 48}));
  EXPECT_DOUBLE_EQ(gr.op(gr.find_op("MatMul_8")).macs, 2 * 48 * 10);
  EXPECT_FALSE(is_folded(gr, gr.op(gr.find_op("Reshape_7"))));
  EXPECT_EQ(gr.op(gr.find_op("Shape_0")).flops, 0);
}

// Held-out torch.onnx exports with run-time shape arithmetic (tools/export_models.py --held-out):
// Swin-T pads to a window multiple and builds its shifted-window masks from shapes; ViT-B/16
// expands its class token to the batch; a ResNet-50 flattens with x.view(x.size(0), -1) under a
// dynamic batch. With static inputs, every dim is known, the MACs match the published figures
// (torchvision's tables) within 3%, and no shape op runs per inference.
struct HeldOutExport {
  const char* file;
  std::vector<std::string> bindings;
  double published_gmacs;
  int max_ops_per_inference;
};

class HeldOut : public ::testing::TestWithParam<HeldOutExport> {};

TEST_P(HeldOut, ShapeArithmeticFoldsAwayAndMacsMatchThePublishedFigure) {
  const HeldOutExport& e = GetParam();
  Model m = load_model(home_dir() + "/tests/data/exports/" + e.file, import_options(e.bindings));
  const Graph& g = m.graph;
  int unknown = 0;
  for (const Tensor& t : g.tensors()) unknown += !t.shape_known();
  EXPECT_EQ(unknown, 0);
  EXPECT_NEAR(total_gmacs(g) / e.published_gmacs, 1.0, 0.03) << total_gmacs(g) << " GMACs";
  const std::set<std::string> shape_ops = {"Shape",  "Size", "ConstantOfShape", "Range",   "Equal", "Where",
                                           "Expand", "Cast", "Unsqueeze",       "Squeeze", "Mod",   "ScatterND"};
  int per_inference = 0;
  for (const Op& op : g.ops()) {
    if (is_folded(g, op)) {
      EXPECT_EQ(op.flops, 0) << op.name;
      continue;
    }
    ++per_inference;
    EXPECT_FALSE(shape_ops.count(op.type)) << op.name << " (" << op.type << ") still runs per inference";
  }
  EXPECT_LE(per_inference, e.max_ops_per_inference);
}

INSTANTIATE_TEST_SUITE_P(Exports, HeldOut,
                         ::testing::Values(HeldOutExport{"swin_t.onnx", {}, 4.49, 610},
                                           HeldOutExport{"vit_b_16.onnx", {}, 17.56, 420},
                                           HeldOutExport{"resnet50_view.onnx", {"input=1,3,224,224"}, 4.09, 125},
                                           HeldOutExport{"resnet50_view.onnx", {"input=4,3,224,224"}, 4 * 4.09, 125}),
                         [](const auto& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           return name +
                                  (info.param.bindings.empty() ? "" : "_batch" + info.param.bindings[0].substr(6, 1));
                         });

// A file that claims enormous dims gets an Error naming it and the tensor (the element count
// saturates instead of overflowing), and the limits are the caller's to set.
TEST(OnnxImport, EnormousDimsAreANamedErrorAndTheLimitIsConfigurable) {
  onnx::ModelProto m = tiny_model();
  auto* dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_value(std::int64_t{1} << 62);
  dims->mutable_dim(1)->set_dim_value(std::int64_t{1} << 62);
  Graph g = import_onnx_bytes(m.SerializeAsString(), "huge.onnx");
  EXPECT_EQ(g.tensor(g.find_tensor("x")).elements(), std::numeric_limits<std::int64_t>::max());
  try {
    check_limits(g, ModelLimits{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "huge.onnx");
    EXPECT_EQ(e.node(), "x");
    EXPECT_NE(e.reason().find("max_tensor_elements"), std::string::npos) << e.what();
  }
  Graph small = import_onnx_bytes(tiny_model().SerializeAsString(), "tiny.onnx");
  EXPECT_NO_THROW(check_limits(small, ModelLimits{}));
  ModelLimits tight;
  tight.max_tensor_elements = 5;  // x is 2 x 3
  EXPECT_THROW(check_limits(small, tight), Error);
}

}  // namespace
}  // namespace devplace
