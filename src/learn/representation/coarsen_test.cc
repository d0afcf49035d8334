// Coarsening on hand-built graphs whose groups follow from the rules by hand, and on the bundled
// models (validity, and how much each shrinks).
#include "learn/representation/coarsen.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "io/model.h"
#include "util/error.h"
#include "util/files.h"

namespace devplace {
namespace {

// Op `name` of `type` reading the outputs of `inputs` (op names); an op without inputs reads a
// graph input of its own, so it is a source that is not a constant.
struct Builder {
  Graph g{"test", "test.onnx"};
  void op(const std::string& name, std::vector<std::string> inputs, const std::string& type = "Relu",
          std::int64_t color = -1) {
    Op o;
    o.name = name;
    o.type = type;
    if (inputs.empty() && type != "Const" && type != "Parameter") {
      int in = g.tensor_id(name + ":in");
      g.tensor(in).is_graph_input = true;
      o.inputs.push_back(in);
    }
    for (auto& i : inputs) o.inputs.push_back(g.tensor_id(i + ":0"));
    int out = g.tensor_id(name + ":0");
    if (type == "Const") g.tensor(out).is_constant = true;
    o.outputs = {out};
    if (color >= 0) o.attrs["colorClass"] = color;
    g.add_op(o);
  }
  int group(const Coarsening& c, const std::string& op) const { return c.group_of_op[g.find_op(op)]; }
  // The names of the ops of group k, in topological order.
  std::vector<std::string> names(const Coarsening& c, int k) const {
    std::vector<std::string> out;
    for (int op : c.members[k]) out.push_back(g.op(op).name);
    return out;
  }
};

using Names = std::vector<std::string>;

TEST(Coarsen, ChainCollapsesToOneGroup) {
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"B"});
  b.op("D", {"C"});
  b.g.finalize();
  Coarsening c = coarsen(b.g);
  ASSERT_EQ(c.num_groups(), 1);
  EXPECT_EQ(b.names(c, 0), (Names{"A", "B", "C", "D"}));
  EXPECT_TRUE(c.preds[0].empty());
  EXPECT_TRUE(c.succs[0].empty());
  EXPECT_EQ(c.stats.ops, 4);
  EXPECT_EQ(c.stats.groups, 1);
  EXPECT_EQ(c.stats.single_pred_merges, 3);
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, DiamondKeepsTheJoinApart) {
  // A -> B -> D, A -> C -> D: B and C have one predecessor (A) and join it; D has two, so it
  // roots a group of its own.
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"A"});
  b.op("D", {"B", "C"});
  b.g.finalize();
  Coarsening c = coarsen(b.g);
  ASSERT_EQ(c.num_groups(), 2);
  EXPECT_EQ(b.names(c, 0), (Names{"A", "B", "C"}));
  EXPECT_EQ(b.names(c, 1), (Names{"D"}));
  EXPECT_EQ(c.succs[0], (std::vector<int>{1}));
  EXPECT_EQ(c.preds[1], (std::vector<int>{0}));
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, GroupsAreInTreesRootedAtJoins) {
  // Two diamonds in a row: the second diamond's fork hangs off the first join.
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"A"});
  b.op("D", {"B", "C"});
  b.op("E", {"D"});
  b.op("F", {"D"});
  b.op("G", {"E", "F"});
  b.op("H", {"G"});
  b.g.finalize();
  Coarsening c = coarsen(b.g);
  ASSERT_EQ(c.num_groups(), 3);
  EXPECT_EQ(b.names(c, 0), (Names{"A", "B", "C"}));
  EXPECT_EQ(b.names(c, 1), (Names{"D", "E", "F"}));
  EXPECT_EQ(b.names(c, 2), (Names{"G", "H"}));
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, ChainsOnlyKeepsForkBranchesApart) {
  // A forks to B -> C and D; E joins. Chains: {A}, {B, C}, {D}, {E}.
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"B"});
  b.op("D", {"A"});
  b.op("E", {"C", "D"});
  b.g.finalize();
  CoarsenOptions o;
  o.chains_only = true;
  Coarsening c = coarsen(b.g, o);
  ASSERT_EQ(c.num_groups(), 4);
  EXPECT_EQ(b.group(c, "B"), b.group(c, "C"));
  EXPECT_NE(b.group(c, "A"), b.group(c, "B"));
  EXPECT_NE(b.group(c, "D"), b.group(c, "B"));
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, BothPassesOffKeepsEveryOp) {
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"A"});
  b.op("D", {"B", "C"}, "Reshape");
  b.g.finalize();
  CoarsenOptions o;
  o.merge_single_predecessor = false;
  o.colocate = false;
  Coarsening c = coarsen(b.g, o);
  ASSERT_EQ(c.num_groups(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c.group_of_op[i], i);
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, ColorClassForcesAMerge) {
  // X and Y are independent sources joined by Z; the same colorClass puts them together.
  Builder b;
  b.op("X", {}, "Relu", 7);
  b.op("Y", {}, "Relu", 7);
  b.op("Z", {"X", "Y"});
  b.g.finalize();
  CoarsenOptions off;
  off.colocate = false;
  EXPECT_EQ(coarsen(b.g, off).num_groups(), 3);
  Coarsening c = coarsen(b.g);
  ASSERT_EQ(c.num_groups(), 2);
  EXPECT_EQ(b.names(c, 0), (Names{"X", "Y"}));
  EXPECT_EQ(b.names(c, 1), (Names{"Z"}));
  EXPECT_EQ(c.stats.color_merges, 1);
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, CycleFromColocationIsMergedAway) {
  // A -> B <- D, B -> C <- E; A and C share a colorClass. After pass 2 the quotient has
  // {A,C} -> {B} -> {A,C}: a cycle, so B joins them. D and E stay alone and come first.
  Builder b;
  b.op("A", {}, "Relu", 1);
  b.op("D", {});
  b.op("E", {});
  b.op("B", {"A", "D"});
  b.op("C", {"B", "E"}, "Relu", 1);
  b.g.finalize();
  Coarsening c = coarsen(b.g);
  ASSERT_EQ(c.num_groups(), 3);
  EXPECT_EQ(c.stats.cycles_merged, 1);
  const int abc = b.group(c, "A");
  EXPECT_EQ(b.group(c, "B"), abc);
  EXPECT_EQ(b.group(c, "C"), abc);
  EXPECT_EQ(abc, 2);  // after both of its predecessors
  EXPECT_EQ(b.names(c, abc), (Names{"A", "B", "C"}));
  EXPECT_NE(b.group(c, "D"), b.group(c, "E"));
  EXPECT_EQ(c.preds[abc], (std::vector<int>{0, 1}));
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

TEST(Coarsen, AZeroCostJoinThatWouldCloseACycleIsNotMade) {
  // A -> X -> R and A -> R: the Reshape R reads its data from A and its shape from X (a shape
  // computation on A's output). Joining A would close {A,R} -> X -> {A,R}, whose merge would
  // swallow X too; R joins X (the producer of its next input) instead, and A and X stay apart.
  Builder b;
  b.op("A", {});
  b.op("X", {"A"});
  b.op("R", {"A", "X"}, "Reshape");
  b.op("Y", {"R"});
  b.g.finalize();
  CoarsenOptions o;
  o.merge_single_predecessor = false;
  Coarsening c = coarsen(b.g, o);
  EXPECT_EQ(c.stats.cycles_merged, 0);
  EXPECT_EQ(c.stats.free_op_merges, 1);
  EXPECT_EQ(c.stats.cycle_skips, 0);
  EXPECT_NE(b.group(c, "A"), b.group(c, "X"));
  EXPECT_EQ(b.group(c, "R"), b.group(c, "X"));
  EXPECT_TRUE(is_valid_coarsening(b.g, c));
}

// DistilBERT's OpenVINO IR computes a shape per attention layer from the layer's input; joining
// each Reshape to its data producer once chained every layer into one group of 378 ops.
TEST(Coarsen, ShapeComputationsDoNotChainTransformerLayersIntoOneGroup) {
  const std::string ir = shared_dir() + "/data/openvino/distilbert_base_sst2.xml";
  if (!file_exists(ir)) GTEST_SKIP() << "no ../shared/data/openvino here (a fresh clone has no shared data)";
  const Model m = load_model(ir);
  const Coarsening c = coarsen(m.graph, CoarsenOptions{.merge_single_predecessor = false, .chains_only = true});
  EXPECT_EQ(c.stats.cycles_merged, 0);
  EXPECT_LE(c.stats.largest_group, 8);
  EXPECT_GT(c.num_groups(), 200);  // of 540 ops
  EXPECT_TRUE(is_valid_coarsening(m.graph, c));
}

TEST(Coarsen, ZeroCostOpsJoinTheirNeighbours) {
  // An OpenVINO-like graph: Parameter -> Convolution <- Const (weights), then Reshape, Result.
  Builder b;
  b.op("x", {}, "Parameter");
  b.op("w", {}, "Const");
  b.op("conv", {"x", "w"}, "Convolution");
  b.op("reshape", {"conv"}, "Reshape");
  b.op("out", {"reshape"}, "Result");
  b.g.finalize();

  // Default: the Const predecessor is not counted, so conv joins x; w joins its consumer.
  Coarsening c = coarsen(b.g);
  EXPECT_EQ(c.num_groups(), 1);
  EXPECT_TRUE(is_valid_coarsening(b.g, c));

  // Counting every predecessor (the released code) and no co-location: x, w, {conv, ...}.
  CoarsenOptions raw;
  raw.colocate = false;
  raw.ignore_constant_predecessors = false;
  Coarsening r = coarsen(b.g, raw);
  ASSERT_EQ(r.num_groups(), 3);
  EXPECT_EQ(b.names(r, b.group(r, "conv")), (Names{"conv", "reshape", "out"}));

  // Co-location alone: Parameter and Const (sources) join their consumer, Reshape and Result
  // join their producer.
  CoarsenOptions coloc;
  coloc.merge_single_predecessor = false;
  Coarsening k = coarsen(b.g, coloc);
  EXPECT_EQ(k.num_groups(), 1);
  EXPECT_EQ(k.stats.free_op_merges, 4);
}

TEST(Coarsen, FreeOpJoinsItsDataProducer) {
  // R = Reshape(X, Y): its data input (port 0) comes from X, so it joins X, not Y.
  Builder b;
  b.op("X", {});
  b.op("Y", {});
  b.op("R", {"X", "Y"}, "Reshape");
  b.g.finalize();
  CoarsenOptions o;
  o.merge_single_predecessor = false;
  Coarsening c = coarsen(b.g, o);
  ASSERT_EQ(c.num_groups(), 2);
  EXPECT_EQ(b.group(c, "R"), b.group(c, "X"));
  EXPECT_NE(b.group(c, "R"), b.group(c, "Y"));
}

TEST(Coarsen, ExpandIsExact) {
  Builder b;
  b.op("A", {});
  b.op("B", {"A"});
  b.op("C", {"A"});
  b.op("D", {"B", "C"});
  b.op("E", {"D"});
  b.op("F", {"D", "A"});
  b.g.finalize();
  Coarsening c = coarsen(b.g);
  std::vector<int> group_device(c.num_groups());
  for (int k = 0; k < c.num_groups(); ++k) group_device[k] = (k * 7 + 3) % 4;
  Placement p = expand(c, group_device);
  ASSERT_EQ(static_cast<int>(p.size()), b.g.num_ops());
  for (int op = 0; op < b.g.num_ops(); ++op) EXPECT_EQ(p[op], group_device[c.group_of_op[op]]);
  EXPECT_THROW(expand(c, std::vector<int>(c.num_groups() + 1, 0)), Error);
}

TEST(Coarsen, IsDeterministic) {
  Model m = load_model("inception_v3");
  Coarsening a = coarsen(m.graph), b = coarsen(m.graph);
  EXPECT_EQ(a.group_of_op, b.group_of_op);
  EXPECT_EQ(a.succs, b.succs);
}

class BundledModel : public testing::TestWithParam<const char*> {};

TEST_P(BundledModel, CoarseGraphIsAValidDag) {
  Model m = load_model(GetParam());
  const Graph& g = m.graph;
  struct Variant {
    const char* name;
    CoarsenOptions o;
  };
  CoarsenOptions single_only;
  single_only.colocate = false;
  CoarsenOptions none;
  none.merge_single_predecessor = false;
  none.colocate = false;
  CoarsenOptions chains;
  chains.chains_only = true;
  for (const auto& [name, o] : {Variant{"default", {}}, Variant{"single-pred only", single_only},
                                Variant{"chains only", chains}, Variant{"none", none}}) {
    Coarsening c = coarsen(g, o);
    EXPECT_TRUE(is_valid_coarsening(g, c)) << name;
    std::printf(
        "[ coarsen  ] %-13s %-17s %5d ops -> %5d groups (largest %d; merges: single-pred %d, "
        "free %d, color %d; cycles merged %d)\n",
        GetParam(), name, c.stats.ops, c.stats.groups, c.stats.largest_group, c.stats.single_pred_merges,
        c.stats.free_op_merges, c.stats.color_merges, c.stats.cycles_merged);
    if (o.merge_single_predecessor) {
      EXPECT_LT(c.num_groups(), g.num_ops()) << name;
      EXPECT_GT(c.num_groups(), 1) << name;  // a real model keeps several placement decisions
    } else if (!o.colocate) {
      EXPECT_EQ(c.num_groups(), g.num_ops());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, BundledModel, testing::Values("resnet50", "inception_v3", "bert_base"));

}  // namespace
}  // namespace devplace

namespace devplace {
namespace {

TEST(CapGroups, MergesConsecutiveGroupsIntoAValidDagOfAtMostMaxGroups) {
  Model m = load_model("bert_base");
  CoarsenOptions none;
  none.merge_single_predecessor = false;
  none.colocate = false;
  Coarsening every_op = coarsen(m.graph, none);
  ASSERT_EQ(every_op.num_groups(), m.graph.num_ops());
  for (int cap : {1, 7, 64, 256}) {
    Coarsening c = cap_groups(m.graph, every_op, cap);
    EXPECT_LE(c.num_groups(), cap);
    EXPECT_GE(c.num_groups(), cap / 2) << "runs should be balanced by op count";
    EXPECT_TRUE(is_valid_coarsening(m.graph, c)) << cap;
  }
  // Small enough already: unchanged.
  EXPECT_EQ(cap_groups(m.graph, every_op, 100000).num_groups(), m.graph.num_ops());
}

}  // namespace
}  // namespace devplace
