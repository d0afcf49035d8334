#include "graph/graph.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace devplace {
namespace {

void add(Graph& g, const std::string& name, std::vector<std::string> ins, std::vector<std::string> outs) {
  Op op;
  op.name = name;
  op.type = "Relu";
  for (auto& i : ins) op.inputs.push_back(g.tensor_id(i));
  for (auto& o : outs) op.outputs.push_back(g.tensor_id(o));
  g.add_op(op);
}

std::string error_of(Graph& g) {
  try {
    g.finalize();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Graph, FinalizeOrdersOpsTopologically) {
  Graph g("t", "t.onnx");
  g.tensor(g.tensor_id("x")).is_graph_input = true;
  add(g, "c", {"b_out", "a_out"}, {"c_out"});
  add(g, "b", {"a_out"}, {"b_out"});
  add(g, "a", {"x"}, {"a_out"});
  g.finalize();
  EXPECT_EQ(g.op(0).name, "a");
  EXPECT_EQ(g.op(1).name, "b");
  EXPECT_EQ(g.op(2).name, "c");
  EXPECT_EQ(g.find_op("c"), 2);
  EXPECT_EQ(g.preds(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(g.succs(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(g.num_edges(), 3u);
  EXPECT_EQ(g.tensor(g.find_tensor("a_out")).consumers, (std::vector<int>{1, 2}));
}

TEST(Graph, RejectsCycleNamingAnOp) {
  Graph g("t", "loop.onnx");
  add(g, "a", {"b_out"}, {"a_out"});
  add(g, "b", {"a_out"}, {"b_out"});
  std::string e = error_of(g);
  EXPECT_NE(e.find("loop.onnx"), std::string::npos);
  EXPECT_NE(e.find("cycle"), std::string::npos);
  EXPECT_NE(e.find("node 'a'"), std::string::npos);
}

TEST(Graph, RejectsDanglingInput) {
  Graph g("t", "d.onnx");
  add(g, "a", {"nowhere"}, {"a_out"});
  std::string e = error_of(g);
  EXPECT_NE(e.find("node 'a'"), std::string::npos);
  EXPECT_NE(e.find("'nowhere' is produced by no op"), std::string::npos);
}

TEST(Graph, RejectsDuplicateOpNamesAndTwoProducers) {
  Graph g("t", "dup.onnx");
  add(g, "a", {}, {"x"});
  add(g, "a", {}, {"y"});
  EXPECT_NE(error_of(g).find("duplicate op name"), std::string::npos);
  Graph h("t", "dup.onnx");
  add(h, "a", {}, {"x"});
  add(h, "b", {}, {"x"});
  EXPECT_NE(error_of(h).find("also produced by op 'a'"), std::string::npos);
}

TEST(Graph, TensorSizesUseDtypeAndFallbackForUnknownDims) {
  Tensor t;
  t.shape = {1, 128, 768};
  t.dtype = DType::f16;
  EXPECT_EQ(t.bytes(), 128 * 768 * 2);
  t.shape = {kUnknownDim, 4};
  EXPECT_FALSE(t.shape_known());
  EXPECT_EQ(t.elements(), 4);  // documented fallback: an unknown dim counts as 1
  EXPECT_EQ(parse_dtype("FP32"), DType::f32);
  EXPECT_EQ(parse_dtype("int64"), DType::i64);
  EXPECT_EQ(parse_dtype("what"), DType::unknown);
}

}  // namespace
}  // namespace devplace
