// Node features: block widths, ablation switches, values of each block on a small graph, the
// fractal dimension of graphs whose dimension is known, determinism and speed on bert_base.
#include "learn/representation/features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "graph/op_types.h"
#include "io/model.h"
#include "util/error.h"

namespace devplace {
namespace {

std::vector<std::vector<int>> path_graph(int n) {
  std::vector<std::vector<int>> adj(n);
  for (int i = 0; i + 1 < n; ++i) {
    adj[i].push_back(i + 1);
    adj[i + 1].push_back(i);
  }
  return adj;
}

std::vector<std::vector<int>> grid_graph(int side) {
  std::vector<std::vector<int>> adj(side * side);
  auto id = [side](int r, int c) { return r * side + c; };
  for (int r = 0; r < side; ++r)
    for (int c = 0; c < side; ++c) {
      if (r + 1 < side) {
        adj[id(r, c)].push_back(id(r + 1, c));
        adj[id(r + 1, c)].push_back(id(r, c));
      }
      if (c + 1 < side) {
        adj[id(r, c)].push_back(id(r, c + 1));
        adj[id(r, c + 1)].push_back(id(r, c));
      }
    }
  return adj;
}

TEST(FractalDimension, PathIsOneDimensional) {
  auto d = fractal_dimensions(path_graph(101), 6);
  std::printf("[ fractal  ] path interior %.4f, end %.4f\n", d[50], d[0]);
  for (int i = 6; i <= 94; ++i) EXPECT_LT(std::abs(d[i] - 1), 0.15) << i;
  EXPECT_GT(d[0], 0.5);  // an end sees a half-line: N = r + 1
}

TEST(FractalDimension, GridIsTwoDimensional) {
  const int side = 41;
  auto d = fractal_dimensions(grid_graph(side), 6);
  double lo = 10, hi = 0;
  for (int r = 6; r < side - 6; ++r)
    for (int c = 6; c < side - 6; ++c) {
      lo = std::min(lo, d[r * side + c]);
      hi = std::max(hi, d[r * side + c]);
      EXPECT_LT(std::abs(d[r * side + c] - 2), 0.3);
    }
  std::printf("[ fractal  ] grid interior %.4f .. %.4f, corner %.4f\n", lo, hi, d[0]);
}

TEST(FractalDimension, IsolatedAndSaturatedBalls) {
  // Node 0 isolated; nodes 1-2-3 a path of three: the centre's ball stops growing at r = 1.
  std::vector<std::vector<int>> adj = {{}, {2}, {1, 3}, {2}};
  auto d = fractal_dimensions(adj, 6);
  EXPECT_EQ(d[0], 0.0);
  EXPECT_NEAR(d[2], 1.0, 1e-12);  // log 3 / log 3: one radius, slope through the origin
  EXPECT_TRUE(std::isfinite(d[1]));
}

TEST(FractalDimension, TenThousandNodesIsFast) {
  auto adj = grid_graph(100);
  auto t0 = std::chrono::steady_clock::now();
  auto d = fractal_dimensions(adj, 6);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ fractal  ] 10000-node grid, R = 6: %.1f ms\n", s * 1e3);
  EXPECT_LT(s, 2.0);
  EXPECT_EQ(d.size(), 10000u);
}

TEST(OpTypeVocabulary, EveryRowOfTheOpTypeTableNamesAColumn) {
  // A typo in graph/op_types.cc would silently send a type to "other".
  for (const std::string& type : known_op_types()) {
    const std::string_view name = op_type_info(type).feature_name;
    EXPECT_NE(std::find(kOpTypeVocabulary.begin(), kOpTypeVocabulary.end(), name), kOpTypeVocabulary.end())
        << type << " -> " << name;
  }
  EXPECT_GT(known_op_types().size(), 200u);
}

TEST(OpTypeVocabulary, SpellingsOfBothFormatsMeetInOneColumn) {
  EXPECT_EQ(kOpTypeVocabulary.size(), 40u);
  EXPECT_EQ(kOpTypeVocabulary.back(), "other");
  auto col = [](const std::string& t) { return std::string(kOpTypeVocabulary[canonical_op_type(t)]); };
  EXPECT_EQ(col("Conv"), "conv");
  EXPECT_EQ(col("Convolution"), "conv");
  EXPECT_EQ(col("GroupConvolution"), "conv");
  EXPECT_EQ(col("Gemm"), "matmul");
  EXPECT_EQ(col("MatMul"), "matmul");
  EXPECT_EQ(col("Relu"), "relu");
  EXPECT_EQ(col("ReLU"), "relu");
  EXPECT_EQ(col("Multiply"), "mul");
  EXPECT_EQ(col("Mul"), "mul");
  EXPECT_EQ(col("Const"), "constant");
  EXPECT_EQ(col("Constant"), "constant");
  EXPECT_EQ(col("Cast"), "convert");
  EXPECT_EQ(col("Convert"), "convert");
  EXPECT_EQ(col("MVN"), "layernorm");
  EXPECT_EQ(col("Softmax"), "softmax");
  EXPECT_EQ(col("SoftMax"), "softmax");
  EXPECT_EQ(col("Swish"), "elementwise");   // by class
  EXPECT_EQ(col("Tile"), "data_movement");  // by class
  EXPECT_EQ(col("NoSuchOp"), "other");
}

// A small graph: x -> conv -> relu -> {a, b} -> add; weights as an initializer.
struct Small {
  Graph g{"small", "small.onnx"};
  Small() {
    auto op = [this](const std::string& name, const std::string& type, std::vector<std::string> ins, Shape out) {
      Op o;
      o.name = name;
      o.type = type;
      for (auto& i : ins) o.inputs.push_back(g.tensor_id(i));
      int t = g.tensor_id(name + ":0");
      g.tensor(t).shape = out;
      o.outputs = {t};
      o.flops = 1e6;
      g.add_op(o);
    };
    int x = g.tensor_id("x");
    g.tensor(x).is_graph_input = true;
    g.tensor(x).shape = {1, 3, 8, 8};
    int w = g.tensor_id("w");
    g.tensor(w).is_constant = true;
    g.tensor(w).shape = {4, 3, 3, 3};
    op("conv", "Conv", {"x", "w"}, {1, 4, 8, 8});
    op("relu", "Relu", {"conv:0"}, {1, 4, 8, 8});
    op("a", "Sigmoid", {"relu:0"}, {1, 4, 8, 8});
    op("b", "Tanh", {"relu:0"}, {1, 4, 8, 8});
    op("add", "Add", {"a:0", "b:0"}, {1, 4, 8, kUnknownDim});
    op("flat", "Flatten", {"add:0"}, {1, 4, 8, 2, 3});
    g.finalize();
  }
};

TEST(NodeFeatures, BlockWidthsAndValuesOnASmallGraph) {
  Small s;
  Problem p(s.g, load_cluster("paper"));
  CoarsenOptions none;
  none.merge_single_predecessor = none.colocate = false;
  Coarsening c = coarsen(s.g, none);  // one op per group, group == op index
  FeatureMatrix m = node_features(p, c);
  const int vocab = static_cast<int>(kOpTypeVocabulary.size());
  EXPECT_EQ(m.rows, 6);
  EXPECT_EQ(m.width("op_type"), vocab);
  EXPECT_EQ(m.width("degree"), 18);
  EXPECT_EQ(m.width("output_shape"), 4);
  EXPECT_EQ(m.width("position"), 16);
  EXPECT_EQ(m.width("fractal"), 1);
  EXPECT_EQ(m.width("node_id"), 1);
  EXPECT_EQ(m.width("cost"), 0);
  EXPECT_EQ(m.cols, vocab + 18 + 4 + 16 + 1 + 1);
  EXPECT_EQ(m.data.size(), static_cast<std::size_t>(m.rows * m.cols));

  const int relu = s.g.find_op("relu"), add = s.g.find_op("add"), flat = s.g.find_op("flat");
  EXPECT_EQ(m.at(relu, m.offset("op_type") + canonical_op_type("Relu")), 1.f);
  // relu: in-degree 1, out-degree 2.
  const int deg = m.offset("degree");
  EXPECT_EQ(m.at(relu, deg + 1), 1.f);
  EXPECT_EQ(m.at(relu, deg + 9 + 2), 1.f);
  // add: [1, 4, 8, ?] -> log1p of each, unknown -> 0; flat: rank 5 folds 2 * 3 into the last.
  const int sh = m.offset("output_shape");
  EXPECT_FLOAT_EQ(m.at(add, sh + 1), std::log1p(4.f));
  EXPECT_FLOAT_EQ(m.at(add, sh + 3), 0.f);
  EXPECT_FLOAT_EQ(m.at(flat, sh + 3), std::log1p(6.f));
  // position of group 0: sin 0, cos 0.
  EXPECT_FLOAT_EQ(m.at(0, m.offset("position")), 0.f);
  EXPECT_FLOAT_EQ(m.at(0, m.offset("position") + 1), 1.f);
  EXPECT_FLOAT_EQ(m.at(3, m.offset("node_id")), 3.f / 6.f);

  // Merged groups: op_type is the members' mean (rows sum to 1).
  Coarsening merged = coarsen(s.g);
  FeatureMatrix mm = node_features(p, merged);
  ASSERT_EQ(mm.rows, 2);  // {conv, relu, a, b}, {add, flat}
  for (int r = 0; r < mm.rows; ++r) {
    float sum = 0;
    for (int k = 0; k < vocab; ++k) sum += mm.at(r, k);
    EXPECT_NEAR(sum, 1.f, 1e-6);
  }
  EXPECT_FLOAT_EQ(mm.at(0, canonical_op_type("Conv")), 0.25f);
}

TEST(NodeFeatures, CostBlockHasOneColumnPerDevice) {
  Small s;
  Problem p(s.g, load_cluster("paper"));
  FeatureOptions o;
  o.cost = true;
  FeatureMatrix m = node_features(p, coarsen(s.g), o);
  EXPECT_EQ(m.width("cost"), 2 + p.num_devices());
  for (int r = 0; r < m.rows; ++r)
    for (int k = 0; k < m.width("cost"); ++k) {
      const float v = m.at(r, m.offset("cost") + k);
      EXPECT_TRUE(std::isfinite(v));
      EXPECT_GE(v, -1.f);
      EXPECT_LT(v, 20.f);
    }
  EXPECT_FLOAT_EQ(m.at(0, m.offset("cost")), std::log1p(4.f));  // 4 ops of 1 MFLOP
}

TEST(NodeFeatures, SwitchingABlockOffRemovesExactlyItsColumns) {
  Model model = load_model("resnet50");
  Problem p(model.graph, load_cluster("paper"));
  Coarsening c = coarsen(model.graph);
  FeatureOptions all;
  all.cost = true;
  FeatureMatrix full = node_features(p, c, all);
  bool FeatureOptions::*flags[] = {&FeatureOptions::op_type,  &FeatureOptions::degree,  &FeatureOptions::output_shape,
                                   &FeatureOptions::position, &FeatureOptions::fractal, &FeatureOptions::node_id,
                                   &FeatureOptions::cost};
  for (std::size_t k = 0; k < full.groups.size(); ++k) {
    FeatureOptions o = all;
    o.*flags[k] = false;
    FeatureMatrix m = node_features(p, c, o);
    const auto& [name, width] = full.groups[k];
    EXPECT_EQ(m.width(name), 0) << name;
    EXPECT_EQ(m.cols, full.cols - width) << name;
    // Every other block keeps its values.
    for (const auto& [other, w] : m.groups)
      for (int r = 0; r < m.rows; ++r)
        for (int j = 0; j < w; ++j)
          ASSERT_EQ(m.at(r, m.offset(other) + j), full.at(r, full.offset(other) + j)) << name << " " << other;
  }
}

TEST(NodeFeatures, RejectsACoarseningOfAnotherGraph) {
  Small s;
  Problem p(s.g, load_cluster("paper"));
  Coarsening c;
  c.group_of_op = {0};
  c.members = {{0}};
  c.preds = c.succs = {{}};
  EXPECT_THROW(node_features(p, c), Error);
}

class BundledFeatures : public testing::TestWithParam<const char*> {};

TEST_P(BundledFeatures, DeterministicFiniteAndFast) {
  Model model = load_model(GetParam());
  Problem p(model.graph, load_cluster("paper"));
  FeatureOptions o;
  o.cost = true;
  for (bool coarse : {true, false}) {
    CoarsenOptions co;
    co.merge_single_predecessor = co.colocate = coarse;
    Coarsening c = coarsen(model.graph, co);
    auto t0 = std::chrono::steady_clock::now();
    FeatureMatrix a = node_features(p, c, o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    FeatureMatrix b = node_features(p, c, o);
    EXPECT_EQ(a.data, b.data);
    for (float v : a.data) ASSERT_TRUE(std::isfinite(v));
    const int fr = a.offset("fractal");
    double fmin = 1e9, fmax = 0, fsum = 0;
    for (int r = 0; r < a.rows; ++r) {
      fmin = std::min<double>(fmin, a.at(r, fr));
      fmax = std::max<double>(fmax, a.at(r, fr));
      fsum += a.at(r, fr);
    }
    std::printf("[ features ] %-13s %-7s %5d x %3d in %7.2f ms; fractal %.2f..%.2f (mean %.2f)\n", GetParam(),
                coarse ? "coarse" : "per-op", a.rows, a.cols, s * 1e3, fmin, fmax, fsum / a.rows);
    EXPECT_LT(s, 2.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, BundledFeatures, testing::Values("resnet50", "inception_v3", "bert_base"));

}  // namespace
}  // namespace devplace
