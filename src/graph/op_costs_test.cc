#include "graph/op_costs.h"

#include <gtest/gtest.h>

#include "util/log.h"

namespace devplace {
namespace {

// A tiny graph builder: tensors by name with shapes; inputs without producer are graph inputs
// unless marked constant.
struct Builder {
  Graph g{"test", "test.onnx"};
  void tensor(const std::string& name, Shape shape, bool constant = false, DType dtype = DType::f32) {
    Tensor& t = g.tensor(g.tensor_id(name));
    t.shape = std::move(shape);
    t.is_constant = constant;
    t.is_graph_input = !constant;
    t.dtype = dtype;
  }
  Op& op(const std::string& type, std::vector<std::string> ins, std::vector<std::string> outs,
         std::map<std::string, AttrValue> attrs = {}) {
    Op o;
    o.name = type + "_" + std::to_string(g.num_ops());
    o.type = type;
    o.attrs = std::move(attrs);
    for (auto& i : ins) o.inputs.push_back(g.tensor_id(i));
    for (auto& t : outs) {
      o.outputs.push_back(g.tensor_id(t));
      g.tensor(o.outputs.back()).is_graph_input = false;
    }
    return g.mutable_ops()[g.add_op(std::move(o))];
  }
  const Op& annotated(const std::string& type) {
    g.finalize();
    annotate_costs(g);
    for (const Op& o : g.ops())
      if (o.type == type) return o;
    throw std::runtime_error("no op of type " + type);
  }
};

using Ints = std::vector<std::int64_t>;

TEST(OpCosts, GroupedStridedDilatedConv) {
  // x [1,8,32,32], groups 2, 16 filters of 4x3x3, stride 2, dilation 2, pad 2 -> [1,16,16,16]
  // ((32 + 4 - 2*(3-1) - 1) / 2 + 1 = 16). MACs = 16*16*16 outputs * (4*3*3) = 147456.
  Builder b;
  b.tensor("x", {1, 8, 32, 32});
  b.tensor("w", {16, 4, 3, 3}, true);
  b.tensor("bias", {16}, true);
  b.tensor("y", {1, 16, 16, 16});
  b.op("Conv", {"x", "w", "bias"}, {"y"},
       {{"group", std::int64_t{2}}, {"strides", Ints{2, 2}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}});
  const Op& conv = b.annotated("Conv");
  EXPECT_DOUBLE_EQ(conv.macs, 147456);
  EXPECT_DOUBLE_EQ(conv.flops, 2 * 147456 + 16 * 16 * 16);  // + one bias add per output
  EXPECT_EQ(conv.weight_bytes, (16 * 4 * 9 + 16) * 4);
  EXPECT_EQ(conv.bytes_accessed, 8 * 32 * 32 * 4 + 16 * 16 * 16 * 4 + conv.weight_bytes);
  EXPECT_EQ(classify("Conv"), OpClass::conv);
}

TEST(OpCosts, OpenVinoGroupConvolutionMatchesOnnxConv) {
  // The same convolution in OpenVINO's layout: weight [G=2, Cout/G=8, Cin/G=4, 3, 3].
  Builder b;
  b.tensor("x", {1, 8, 32, 32});
  b.tensor("w", {2, 8, 4, 3, 3}, true);
  b.tensor("y", {1, 16, 16, 16});
  b.op("GroupConvolution", {"x", "w"}, {"y"}, {{"strides", std::string("2,2")}, {"dilations", std::string("2,2")}});
  EXPECT_DOUBLE_EQ(b.annotated("GroupConvolution").macs, 147456);
}

TEST(OpCosts, BatchedMatMul) {
  // [2,12,128,64] x [2,12,64,128] -> [2,12,128,128]: K = 64.
  Builder b;
  b.tensor("q", {2, 12, 128, 64});
  b.tensor("k", {2, 12, 64, 128});
  b.tensor("s", {2, 12, 128, 128});
  b.op("MatMul", {"q", "k"}, {"s"});
  const Op& mm = b.annotated("MatMul");
  EXPECT_DOUBLE_EQ(mm.macs, 2.0 * 12 * 128 * 128 * 64);
  EXPECT_DOUBLE_EQ(mm.flops, 2 * mm.macs);
  EXPECT_EQ(mm.weight_bytes, 0);
}

TEST(OpCosts, OpenVinoMatMulTransposeA) {
  // transpose_a: A [64, 128] holds K=64 rows; out [128, 32].
  Builder b;
  b.tensor("a", {64, 128});
  b.tensor("b", {64, 32}, true);
  b.tensor("c", {128, 32});
  b.op("MatMul", {"a", "b"}, {"c"}, {{"transpose_a", std::string("true")}});
  EXPECT_DOUBLE_EQ(b.annotated("MatMul").macs, 128.0 * 32 * 64);
}

TEST(OpCosts, GemmWithTransB) {
  // A [4,256] x B^T where B [512,256], + C [512] -> [4,512]; K = 256 (not 512).
  Builder b;
  b.tensor("a", {4, 256});
  b.tensor("w", {512, 256}, true);
  b.tensor("c", {512}, true);
  b.tensor("y", {4, 512});
  b.op("Gemm", {"a", "w", "c"}, {"y"}, {{"transB", std::int64_t{1}}});
  const Op& gemm = b.annotated("Gemm");
  EXPECT_DOUBLE_EQ(gemm.macs, 4.0 * 512 * 256);
  EXPECT_DOUBLE_EQ(gemm.flops, 2 * gemm.macs + 4 * 512);
  EXPECT_EQ(gemm.weight_bytes, (512 * 256 + 512) * 4);
}

TEST(OpCosts, UnknownTypeWarnsAndCostsOneFlopPerOutput) {
  Builder b;
  b.tensor("x", {3, 5});
  b.tensor("y", {3, 7});
  b.op("FrobnicateV9", {"x"}, {"y"});
  log::flush_warnings();
  testing::internal::CaptureStderr();
  const Op& op = b.annotated("FrobnicateV9");
  std::string err = testing::internal::GetCapturedStderr();
  log::flush_warnings();
  EXPECT_NE(err.find("FrobnicateV9"), std::string::npos) << err;
  EXPECT_EQ(classify("FrobnicateV9"), OpClass::other);
  EXPECT_DOUBLE_EQ(op.flops, 21);
  EXPECT_DOUBLE_EQ(op.macs, 0);
}

TEST(OpCosts, PoolsNormsFreeOpsAndConst) {
  Builder b;
  b.tensor("x", {1, 4, 8, 8});
  b.tensor("p", {1, 4, 4, 4});
  b.tensor("gp", {1, 4, 1, 1});
  b.tensor("r", {1, 4});
  b.tensor("shape", {2}, false, DType::i64);
  b.tensor("e", {1, 4});
  b.tensor("n", {1, 4});
  b.op("MaxPool", {"x"}, {"p"}, {{"kernel_shape", Ints{3, 3}}});
  b.op("GlobalAveragePool", {"p"}, {"gp"});
  b.op("Const", {}, {"shape"});
  b.op("Reshape", {"gp", "shape"}, {"r"});
  b.op("Erf", {"r"}, {"e"});
  b.op("LayerNormalization", {"e"}, {"n"});
  b.g.finalize();
  annotate_costs(b.g);
  auto get = [&](const std::string& type) -> const Op& {
    for (const Op& o : b.g.ops())
      if (o.type == type) return o;
    throw std::runtime_error("no op of type " + type);
  };
  EXPECT_DOUBLE_EQ(get("MaxPool").flops, 64 * 9);
  EXPECT_DOUBLE_EQ(get("GlobalAveragePool").flops, 64);  // every input element once
  EXPECT_DOUBLE_EQ(get("Reshape").flops, 0);
  EXPECT_EQ(get("Reshape").bytes_accessed, 0);
  EXPECT_EQ(get("Const").weight_bytes, 16);   // OpenVINO Const: its output bytes
  EXPECT_DOUBLE_EQ(get("Erf").flops, 4 * 4);  // a transcendental: 4 FLOPs per element
  EXPECT_GE(get("LayerNormalization").flops, 5 * 4);
  EXPECT_LE(get("LayerNormalization").flops, 8 * 4);
}

TEST(OpCosts, ImporterFlopsAreKept) {
  Builder b;
  b.tensor("x", {10});
  b.tensor("y", {10});
  b.op("Relu", {"x"}, {"y"}).flops = 1234;
  EXPECT_DOUBLE_EQ(b.annotated("Relu").flops, 1234);
}

TEST(OpCosts, ClassNamesRoundTrip) {
  for (OpClass c : {OpClass::conv, OpClass::matmul, OpClass::pool, OpClass::elementwise, OpClass::normalization,
                    OpClass::softmax, OpClass::reduce, OpClass::data_movement, OpClass::free, OpClass::other}) {
    OpClass parsed;
    ASSERT_TRUE(parse_op_class(op_class_name(c), parsed));
    EXPECT_EQ(parsed, c);
  }
  OpClass unused;
  EXPECT_FALSE(parse_op_class("bogus", unused));
  EXPECT_EQ(classify("Convolution"), OpClass::conv);
  EXPECT_EQ(classify("SoftMax"), OpClass::softmax);
  EXPECT_EQ(classify("ShapeOf"), OpClass::free);
  EXPECT_EQ(classify("StridedSlice"), OpClass::data_movement);
  EXPECT_EQ(classify("MVN"), OpClass::normalization);
  EXPECT_EQ(classify("Convert"), OpClass::elementwise);
}

}  // namespace
}  // namespace devplace
