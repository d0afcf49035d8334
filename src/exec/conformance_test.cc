// The conformance runner on hand-made suite folders: a right answer passes, a wrong one fails
// naming the element, an unknown op type is listed as unsupported and not run; and ops whose
// outputs the suite checks (ConstantOfShape's value, MaxPool's indices) compute ONNX's values.
#include "exec/conformance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

namespace devplace {
namespace {

namespace fs = std::filesystem;

onnx::TensorProto tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                         const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

void write(const fs::path& path, const google::protobuf::MessageLite& message) {
  std::ofstream(path, std::ios::binary) << message.SerializeAsString();
}

void add_value(onnx::ValueInfoProto* vi, const std::string& name, int type, const std::vector<std::int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// The suite folder of test `name` (its data set folder made) and an empty opset-17 model for it.
fs::path test_folder(const std::string& name, onnx::ModelProto& m) {
  const fs::path dir = fs::path(::testing::TempDir()) / "suite" / name;
  fs::create_directories(dir / "test_data_set_0");
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name(name);
  return dir;
}

// A suite folder holding one test: `node` applied to x [1, 1, 2, 2] -> y.
fs::path make_test(const std::string& name, onnx::NodeProto node, const std::vector<float>& x,
                   const std::vector<onnx::TensorProto>& expected, int y_type = onnx::TensorProto::FLOAT,
                   const std::vector<std::int64_t>& y_dims = {1, 1, 2, 2}) {
  onnx::ModelProto m;
  const fs::path dir = test_folder(name, m);
  auto* g = m.mutable_graph();
  add_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, 2, 2});
  for (std::size_t k = 0; k < expected.size(); ++k)
    add_value(g->add_output(), expected[k].name(), k == 0 ? onnx::TensorProto::FLOAT : y_type, y_dims);
  *g->add_node() = std::move(node);
  write(dir / "model.onnx", m);
  write(dir / "test_data_set_0" / "input_0.pb", tensor("x", {1, 1, 2, 2}, x));
  for (std::size_t k = 0; k < expected.size(); ++k)
    write(dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb"), expected[k]);
  return dir;
}

onnx::NodeProto node(const std::string& type, std::vector<std::string> outputs = {"y"}) {
  onnx::NodeProto n;
  n.set_op_type(type), n.set_name(type), n.add_input("x");
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

TEST(Conformance, ARightAnswerPassesAndAWrongOneFailsNamingTheElement) {
  const auto right = make_test("relu_right", node("Relu"), {-1, 2, -3, 4}, {tensor("y", {1, 1, 2, 2}, {0, 2, 0, 4})});
  EXPECT_EQ(run_conformance_case(right.string(), "relu_right").status, ConformanceCase::Status::passed);
  const auto wrong = make_test("relu_wrong", node("Relu"), {-1, 2, -3, 4}, {tensor("y", {1, 1, 2, 2}, {0, 2, 0, 5})});
  const ConformanceCase c = run_conformance_case(wrong.string(), "relu_wrong");
  EXPECT_EQ(c.status, ConformanceCase::Status::failed);
  EXPECT_NE(c.detail.find("element 3 is 4, expected 5"), std::string::npos) << c.detail;
  EXPECT_EQ(c.op_types, std::vector<std::string>{"Relu"});
}

TEST(Conformance, WithinOnnxsToleranceIsAPass) {
  const auto close =
      make_test("relu_close", node("Relu"), {1, 2, 3, 4}, {tensor("y", {1, 1, 2, 2}, {1, 2, 3, 4.003f})});
  EXPECT_EQ(run_conformance_case(close.string(), "relu_close").status, ConformanceCase::Status::passed);
  const auto far = make_test("relu_far", node("Relu"), {1, 2, 3, 4}, {tensor("y", {1, 1, 2, 2}, {1, 2, 3, 4.01f})});
  EXPECT_EQ(run_conformance_case(far.string(), "relu_far").status, ConformanceCase::Status::failed);
}

TEST(Conformance, AnUnknownOpTypeIsListedAsUnsupportedAndNotRun) {
  make_test("window", node("HannWindow"), {1, 2, 3, 4}, {tensor("y", {1, 1, 2, 2}, {1, 2, 3, 4})});
  const auto root = fs::path(::testing::TempDir()) / "suite";
  ConformanceOptions o;
  o.filter = "window";
  const auto cases = run_conformance(root.string(), o);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].status, ConformanceCase::Status::unsupported);
  EXPECT_EQ(cases[0].detail, "HannWindow");
  EXPECT_THROW(run_conformance((root / "no_such_folder").string()), std::exception);
}

// Gelu (opset 20, newer than Debian's suite): 0.5 x (1 + erf(x / sqrt 2)).
TEST(Conformance, GeluMatchesItsDefinition) {
  const auto dir = make_test("gelu", node("Gelu"), {-1, 0, 1, 2},
                             {tensor("y", {1, 1, 2, 2}, {-0.158655254f, 0.0f, 0.841344746f, 1.954499736f})});
  const ConformanceCase c = run_conformance_case(dir.string(), "gelu");
  EXPECT_EQ(c.status, ConformanceCase::Status::passed) << c.detail;
}

// MaxPool's second output counts positions across the whole tensor (row-major, or column-major
// with storage_order=1); a 2x2 window over [[1, 4], [3, 2]] picks 4 at (0, 1).
TEST(Conformance, MaxPoolIndicesFollowOnnx) {
  for (int storage_order : {0, 1}) {
    onnx::NodeProto n = node("MaxPool", {"y", "i"});
    auto* k = n.add_attribute();
    k->set_name("kernel_shape"), k->set_type(onnx::AttributeProto::INTS), k->add_ints(2), k->add_ints(2);
    auto* so = n.add_attribute();
    so->set_name("storage_order"), so->set_type(onnx::AttributeProto::INT), so->set_i(storage_order);
    onnx::TensorProto index;
    index.set_name("i"), index.set_data_type(onnx::TensorProto::INT64);
    for (int d = 0; d < 4; ++d) index.add_dims(1);
    index.add_int64_data(storage_order == 0 ? 1 : 2);
    const std::string name = "maxpool_order" + std::to_string(storage_order);
    const auto dir = make_test(name, n, {1, 4, 3, 2}, {tensor("y", {1, 1, 1, 1}, {4}), index}, onnx::TensorProto::INT64,
                               {1, 1, 1, 1});
    const ConformanceCase c = run_conformance_case(dir.string(), name);
    EXPECT_EQ(c.status, ConformanceCase::Status::passed) << c.detail;
  }
}

// ConstantOfShape takes its value from a tensor attribute (the importer keeps no tensor
// attributes; the executor reads it from the file).
TEST(Conformance, ConstantOfShapeUsesItsValueAttribute) {
  onnx::NodeProto shape;
  shape.set_op_type("Shape"), shape.set_name("shape"), shape.add_input("x"), shape.add_output("s");
  onnx::NodeProto fill;
  fill.set_op_type("ConstantOfShape"), fill.set_name("fill"), fill.add_input("s"), fill.add_output("y");
  auto* value = fill.add_attribute();
  value->set_name("value"), value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = tensor("", {1}, {2.5f});
  const auto dir = make_test("fill", shape, {1, 2, 3, 4}, {tensor("y", {1, 1, 2, 2}, {2.5f, 2.5f, 2.5f, 2.5f})});
  onnx::ModelProto m;
  {
    std::ifstream in(dir / "model.onnx", std::ios::binary);
    ASSERT_TRUE(m.ParseFromIstream(&in));
  }
  *m.mutable_graph()->add_node() = fill;
  write(dir / "model.onnx", m);
  const ConformanceCase c = run_conformance_case(dir.string(), "fill");
  EXPECT_EQ(c.status, ConformanceCase::Status::passed) << c.detail;
}

// Direct convolution (NCHW, batch 1, square kernel, symmetric padding): the reference for the
// executor's kernels.
std::vector<float> naive_conv(const std::vector<float>& x, int c, int h, const std::vector<float>& w, int co, int k,
                              int stride, int pad, const std::vector<float>& bias, int* out_h) {
  const int oh = (h + 2 * pad - k) / stride + 1;
  *out_h = oh;
  std::vector<float> y(static_cast<std::size_t>(co) * oh * oh);
  for (int o = 0; o < co; ++o)
    for (int i = 0; i < oh; ++i)
      for (int j = 0; j < oh; ++j) {
        double sum = bias[o];
        for (int ci = 0; ci < c; ++ci)
          for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b) {
              const int r = i * stride - pad + a, q = j * stride - pad + b;
              if (r < 0 || q < 0 || r >= h || q >= h) continue;
              sum += static_cast<double>(x[(ci * h + r) * h + q]) * w[((o * c + ci) * k + a) * k + b];
            }
        y[(o * oh + i) * oh + j] = static_cast<float>(sum);
      }
  return y;
}

// A chain that takes every kernel the executor picks for 2-D convolutions (exec/onnx_ops.cc): a
// 3x3 conv with a large output (channels-last), a strided 1x1 on its channels-last output (one
// matrix product), a 3x3 with a small output (unfolded input times the weight), then a 1x1 on
// NCHW input; the outputs equal a direct convolution's.
TEST(Conformance, EveryConvolutionKernelMatchesADirectConvolution) {
  onnx::ModelProto m;
  const fs::path dir = test_folder("conv_chain", m);
  auto* g = m.mutable_graph();
  const int c = 8, h = 12;
  std::vector<float> x(static_cast<std::size_t>(c) * h * h);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
  add_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, c, h, h});
  struct Layer {
    int out, k, stride, pad;
  };
  const std::vector<Layer> layers = {{16, 3, 1, 1}, {8, 1, 2, 0}, {12, 3, 1, 1}, {4, 1, 1, 0}};
  std::vector<float> value = x;
  int channels = c, size = h;
  std::string input = "x";
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer& L = layers[l];
    std::vector<float> w(static_cast<std::size_t>(L.out) * channels * L.k * L.k), bias(L.out);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.11 * static_cast<double>(i + l)));
    for (int o = 0; o < L.out; ++o) bias[o] = 0.1f * static_cast<float>(o);
    const std::string name = "conv" + std::to_string(l);
    *g->add_initializer() = tensor(name + ".w", {L.out, channels, L.k, L.k}, w);
    *g->add_initializer() = tensor(name + ".b", {L.out}, bias);
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Conv"), n->set_name(name), n->add_input(input), n->add_input(name + ".w"),
        n->add_input(name + ".b"), n->add_output(name + ".y");
    auto* strides = n->add_attribute();
    strides->set_name("strides"), strides->set_type(onnx::AttributeProto::INTS);
    strides->add_ints(L.stride), strides->add_ints(L.stride);
    auto* pads = n->add_attribute();
    pads->set_name("pads"), pads->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) pads->add_ints(L.pad);
    int out_size = 0;
    value = naive_conv(value, channels, size, w, L.out, L.k, L.stride, L.pad, bias, &out_size);
    channels = L.out, size = out_size, input = name + ".y";
  }
  add_value(g->add_output(), input, onnx::TensorProto::FLOAT, {1, channels, size, size});
  write(dir / "model.onnx", m);
  write(dir / "test_data_set_0" / "input_0.pb", tensor("x", {1, c, h, h}, x));
  write(dir / "test_data_set_0" / "output_0.pb", tensor(input, {1, channels, size, size}, value));
  const ConformanceCase result = run_conformance_case(dir.string(), "conv_chain");
  EXPECT_EQ(result.status, ConformanceCase::Status::passed) << result.detail;
}

// Element-wise ops write into their first input when no other op reads it (executor.cc,
// overwrite_input0): a Relu on a Conv's output does, a tensor read twice or by two ops is left
// alone; the outputs equal those computed op by op.
TEST(Conformance, InPlaceElementwiseOpsLeaveSharedTensorsAlone) {
  onnx::ModelProto m;
  const fs::path dir = test_folder("in_place", m);
  auto* g = m.mutable_graph();
  const int c = 2, h = 4;
  std::vector<float> x(static_cast<std::size_t>(c) * h * h), w(static_cast<std::size_t>(c) * c), bias = {0.1f, -0.2f};
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(1.3 * static_cast<double>(i)));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i)));
  add_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, c, h, h});
  *g->add_initializer() = tensor("w", {c, c, 1, 1}, w);
  *g->add_initializer() = tensor("b", {c}, bias);
  auto add_node = [&](const std::string& type, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(type), n->set_name(out);
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
  };
  add_node("Conv", {"x", "w", "b"}, "y");  // fresh
  add_node("Relu", {"y"}, "r");            // overwrites y
  add_node("Sigmoid", {"r"}, "s");         // r is read by two ops: left alone
  add_node("Add", {"r", "s"}, "z");
  add_node("Mul", {"z", "z"}, "q");    // z read twice by one op: left alone
  add_node("Sub", {"q", "x"}, "out");  // overwrites q
  add_value(g->add_output(), "out", onnx::TensorProto::FLOAT, {1, c, h, h});
  add_value(g->add_output(), "r", onnx::TensorProto::FLOAT, {1, c, h, h});  // a graph output too
  int size = 0;
  const std::vector<float> y = naive_conv(x, c, h, w, c, 1, 1, 0, bias, &size);
  std::vector<float> out(y.size()), r(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    r[i] = std::max(0.0f, y[i]);
    const float z = r[i] + 1.0f / (1.0f + std::exp(-r[i]));
    out[i] = z * z - x[i];
  }
  write(dir / "model.onnx", m);
  write(dir / "test_data_set_0" / "input_0.pb", tensor("x", {1, c, h, h}, x));
  write(dir / "test_data_set_0" / "output_0.pb", tensor("out", {1, c, h, h}, out));
  write(dir / "test_data_set_0" / "output_1.pb", tensor("r", {1, c, h, h}, r));
  const ConformanceCase result = run_conformance_case(dir.string(), "in_place");
  EXPECT_EQ(result.status, ConformanceCase::Status::passed) << result.detail;
}

}  // namespace
}  // namespace devplace
