#include "place/synthetic.h"

#include <gtest/gtest.h>

#include <cmath>
#include "sim/simulator.h"
#include "util/error.h"

namespace devplace {
namespace {

TEST(Synthetic, SizesSeedsAndCosts) {
  auto a = make_synthetic_problem({.ops = 1000, .seed = 3});
  auto b = make_synthetic_problem({.ops = 1000, .seed = 3});
  auto c = make_synthetic_problem({.ops = 1000, .seed = 4});
  ASSERT_EQ(a->graph.num_ops(), 1000);
  EXPECT_EQ(a->problem->num_devices(), 3);
  EXPECT_EQ(a->graph.num_edges(), b->graph.num_edges());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a->graph.op(i).name, b->graph.op(i).name);
  EXPECT_NE(a->graph.num_edges() + a->graph.op(500).flops, c->graph.num_edges() + c->graph.op(500).flops);
  // Every op past the first layer has a predecessor; times are positive and finite.
  int sources = 0;
  for (int i = 0; i < 1000; ++i) {
    sources += a->graph.preds(i).empty();
    for (int d = 0; d < 3; ++d) {
      EXPECT_GT(a->problem->op_time(i, d), 0);
      EXPECT_TRUE(std::isfinite(a->problem->op_time(i, d)));
    }
  }
  EXPECT_EQ(sources, 4);
  Simulator sim(*a->problem);
  EXPECT_TRUE(std::isfinite(sim.makespan(Placement(1000, 1))));
  EXPECT_LT(sim.makespan(Placement(1000, 1)), sim.makespan(Placement(1000, 0)));
}

// A BERT-base-size encoder: 12 layers of 29 ops after the 3-op embedding, and the published
// MAC count of BERT-base at 128 tokens (Q, K, V, output: 4 S H^2; attention: 2 S^2 H; FFN:
// 2 S H 4H per layer; about 11.2 G in all).
TEST(Synthetic, TransformerHasBertBaseCosts) {
  auto t = make_synthetic_problem({.family = SyntheticFamily::transformer, .ops = 12 * 29, .tokens = 128,
                                   .hidden = 768});
  ASSERT_EQ(t->graph.num_ops(), 3 + 12 * 29);
  double macs = 0;
  std::int64_t weights = 0;
  int softmax = 0;
  for (const auto& op : t->graph.ops()) macs += op.macs, weights += op.weight_bytes, softmax += op.type == "Softmax";
  const double S = 128, H = 768;
  EXPECT_DOUBLE_EQ(macs, 12 * (4 * S * H * H + 2 * S * S * H + 2 * S * H * 4 * H));
  EXPECT_NEAR(macs / 1e9, 11.2, 0.1);
  EXPECT_EQ(softmax, 12);
  // 85 M encoder parameters + 24 M embeddings (+ biases and norms), f32.
  EXPECT_NEAR(static_cast<double>(weights) / 4e6, 109.0, 1.5);
  // Q, K and V read the same op: a fork of three in every layer.
  const int first_norm = 2;
  EXPECT_EQ(t->graph.op(first_norm).type, "LayerNormalization");
  EXPECT_EQ(t->graph.succs(first_norm).size(), 4u);  // Q, K, V and the residual Add
}

// A LLaMA-like decoder of TinyLlama's size (22 layers, width 2048, 128 tokens): the MACs of its
// projections (grouped-query: 8 key/value heads of 64 for 32 query heads), attention, SwiGLU
// feed-forward and head, computed by hand; about 1.1 G parameters; a key/value cache per layer.
TEST(Synthetic, DecoderHasTinyLlamaSizeCosts) {
  auto t = make_synthetic_problem({.family = SyntheticFamily::decoder, .ops = 22 * 81, .tokens = 128,
                                   .hidden = 2048});
  ASSERT_EQ(t->graph.num_ops(), 9 + 22 * 81 + 7);
  double macs = 0;
  std::int64_t weights = 0;
  int softmax = 0, cache_reads = 0, shape_ops = 0;
  for (const auto& op : t->graph.ops()) {
    macs += op.macs, weights += op.weight_bytes;
    softmax += op.type == "Softmax", cache_reads += op.type == "ReadValue", shape_ops += op.type == "ShapeOf";
  }
  const double S = 128, H = 2048, KV = 8 * 64, F = 5504, V = 32000;
  EXPECT_DOUBLE_EQ(macs, S * 64 + 22 * (2 * S * H * H + 2 * S * H * KV + 2 * S * S * H + 3 * S * H * F) + S * H * V);
  EXPECT_NEAR(static_cast<double>(weights) / 4e9, 1.1, 0.05);
  EXPECT_EQ(softmax, 22);
  EXPECT_EQ(cache_reads, 2 * 22);
  EXPECT_EQ(shape_ops, 22 * 6);  // before the Reshapes of Q, K, V, the widened K and V and the output
}

// Inception/ResNet-like CNNs: seeded, about the requested size, forks of 2..width towers that
// join in a Concat, every op timed on every device, the GPU faster than the CPU on the whole.
TEST(Synthetic, BranchyCnnHasForksAndJoins) {
  const SyntheticOptions o{.family = SyntheticFamily::branchy, .ops = 300, .width = 4, .skip_prob = 0.3,
                           .hidden = 192, .side = 35, .seed = 5};
  auto a = make_synthetic_problem(o);
  auto b = make_synthetic_problem(o);
  SyntheticOptions other = o;
  other.seed = 6;
  auto c = make_synthetic_problem(other);
  const Graph& g = a->graph;
  ASSERT_GE(g.num_ops(), 300);
  ASSERT_LT(g.num_ops(), 360);
  ASSERT_EQ(g.num_ops(), b->graph.num_ops());
  for (int i = 0; i < g.num_ops(); ++i) ASSERT_EQ(g.op(i).type, b->graph.op(i).type);
  EXPECT_NE(g.num_ops() * 1000 + g.num_edges(), c->graph.num_ops() * 1000 + c->graph.num_edges());
  int concats = 0, adds = 0, sources = 0;
  for (int i = 0; i < g.num_ops(); ++i) {
    const Op& op = g.op(i);
    if (op.type == "Concat") {
      ++concats;
      EXPECT_GE(g.preds(i).size(), 2u);
      EXPECT_LE(g.preds(i).size(), 4u);
    }
    adds += op.type == "Add";
    sources += g.preds(i).empty();
    for (int d = 0; d < a->problem->num_devices(); ++d) EXPECT_TRUE(std::isfinite(a->problem->op_time(i, d)));
  }
  EXPECT_GT(concats, 5);
  EXPECT_GT(adds, 0);
  EXPECT_EQ(sources, 1);
  Simulator sim(*a->problem);
  const Placement gpu(g.num_ops(), 1), cpu(g.num_ops(), 0);
  EXPECT_LT(sim.makespan(gpu), sim.makespan(cpu));
}

TEST(Synthetic, RejectsBadSizes) {
  EXPECT_THROW(make_synthetic_problem({.ops = 0}), Error);
  EXPECT_THROW(make_synthetic_problem({.family = SyntheticFamily::transformer, .hidden = 0}), Error);
  EXPECT_THROW(make_synthetic_problem({.family = SyntheticFamily::branchy, .side = 0}), Error);
}

}  // namespace
}  // namespace devplace
