#include "graph/static_folding.h"

#include <gtest/gtest.h>

#include "graph/op_costs.h"

namespace devplace {
namespace {

struct Builder {
  Graph g{"test", "test.onnx"};
  void input(const std::string& name, Shape shape) {
    Tensor& t = g.tensor(g.tensor_id(name));
    t.shape = std::move(shape);
    t.is_graph_input = true;
  }
  void op(const std::string& type, std::vector<std::string> ins, std::vector<std::string> outs, Shape out_shape = {1}) {
    Op o;
    o.name = type + "_" + std::to_string(g.num_ops());
    o.type = type;
    for (auto& i : ins) o.inputs.push_back(g.tensor_id(i));
    for (auto& t : outs) {
      o.outputs.push_back(g.tensor_id(t));
      g.tensor(o.outputs.back()).shape = out_shape;
    }
    g.add_op(std::move(o));
  }
  bool folded(const std::string& op_name) {
    for (const Op& o : g.ops())
      if (o.name == op_name) return is_folded(g, o);
    throw std::runtime_error("no op " + op_name);
  }
};

// x.view(x.size(0), -1) as torch.onnx exports it: Shape -> Gather -> Unsqueeze -> Concat with
// a Constant -> Reshape. With x's shape static the shape arithmetic folds; the Reshape and the
// Relu after it run per inference.
TEST(StaticFolding, ShapeArithmeticOnAStaticShapeFoldsAndTheDataPathDoesNot) {
  Builder b;
  b.input("x", {2, 3, 4, 4});
  b.op("Shape", {"x"}, {"s"}, {4});
  b.op("Constant", {}, {"zero"});
  b.op("Gather", {"s", "zero"}, {"n"});
  b.op("Unsqueeze", {"n"}, {"n1"});
  b.op("Constant", {}, {"minus_one"});
  b.op("Concat", {"n1", "minus_one"}, {"shape"}, {2});
  b.op("Reshape", {"x", "shape"}, {"flat"}, {2, 48});
  b.op("Relu", {"flat"}, {"y"}, {2, 48});
  b.g.finalize();
  const FoldReport r = fold_static_values(b.g);
  EXPECT_EQ(r.ops, 4);  // Shape, Gather, Unsqueeze, Concat (the Constants were folded already)
  EXPECT_EQ(r.by_type.at("Shape"), 1);
  EXPECT_EQ(r.by_type.at("Concat"), 1);
  EXPECT_TRUE(b.folded("Shape_0"));
  EXPECT_TRUE(b.folded("Concat_5"));
  EXPECT_FALSE(b.folded("Reshape_6"));
  EXPECT_FALSE(b.folded("Relu_7"));
  EXPECT_EQ(fold_static_values(b.g).ops, 0);  // idempotent
  annotate_costs(b.g);
  EXPECT_EQ(b.g.op(b.g.find_op("Concat_5")).flops, 0);
}

TEST(StaticFolding, UnknownShapesAndRandomOpsStayPerInference) {
  Builder b;
  b.input("x", {kUnknownDim, 8});
  b.op("Shape", {"x"}, {"s"}, {2});
  b.op("Constant", {}, {"c"}, {4});
  b.op("RandomNormalLike", {"c"}, {"noise"}, {4});
  b.op("Add", {"noise", "c"}, {"y"}, {4});
  b.g.finalize();
  EXPECT_EQ(fold_static_values(b.g).ops, 0);
  EXPECT_FALSE(b.folded("Shape_0"));
  EXPECT_FALSE(b.folded("RandomNormalLike_2"));
  EXPECT_FALSE(b.folded("Add_3"));
}

}  // namespace
}  // namespace devplace
