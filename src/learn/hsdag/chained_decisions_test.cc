// Chained decisions: the main parent is the heaviest predecessor; the most likely assignment is
// the brute-force maximum of the joint probability; samples stay on the parent's device as
// often as the model says.
#include "learn/hsdag/chained_decisions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace devplace {
namespace {

// Chained terms with the given stay bonuses and sibling terms (none: empty), no join terms.
ChainTerms terms_of(std::vector<double> stay, std::vector<double> sibling = {}) {
  ChainTerms t;
  t.stay = std::move(stay);
  t.sibling = std::move(sibling);
  return t;
}

// Op `name` reading the outputs of `inputs`, its output `elements` floats long.
void add_op(Graph& g, const std::string& name, std::vector<std::string> inputs, std::int64_t elements) {
  Op o;
  o.name = name;
  o.type = "Relu";
  if (inputs.empty()) {
    const int in = g.tensor_id(name + ":in");
    g.tensor(in).is_graph_input = true;
    g.tensor(in).shape = {1};
    o.inputs.push_back(in);
  }
  for (const auto& i : inputs) o.inputs.push_back(g.tensor_id(i + ":0"));
  const int out = g.tensor_id(name + ":0");
  g.tensor(out).shape = {elements};
  o.outputs = {out};
  g.add_op(o);
}

TEST(ChainedDecisions, TheMainParentIsThePredecessorThatSendsTheMostBytes) {
  Graph g("test", "test.onnx");
  add_op(g, "A", {}, 1000);         // a wide activation
  add_op(g, "B", {"A"}, 4);         // a squeeze-excitation-like side branch: tiny output
  add_op(g, "C", {"A", "B"}, 1000);  // reads both: A's tensor is the heavy one
  add_op(g, "D", {"C"}, 1000);
  add_op(g, "E", {"B", "D"}, 1000);  // D sends 4,000 bytes, B 16
  g.finalize();
  CoarsenOptions none{.merge_single_predecessor = false, .colocate = false};
  const Coarsening c = coarsen(g, none);
  const std::vector<int> parent = main_parents(g, c);
  auto group = [&](const char* op) { return c.group_of_op[g.find_op(op)]; };
  EXPECT_EQ(parent[group("A")], -1);
  EXPECT_EQ(parent[group("B")], group("A"));
  EXPECT_EQ(parent[group("C")], group("A"));
  EXPECT_EQ(parent[group("D")], group("C"));
  EXPECT_EQ(parent[group("E")], group("D"));
  for (int v = 0; v < c.num_groups(); ++v) EXPECT_LT(parent[v], v);
}

// The joint log-probability of an assignment under the chained model.
double joint(const std::vector<float>& logits, const std::vector<int>& parent, int D, const std::vector<double>& stay,
             const std::vector<int>& device) {
  double total = 0;
  std::vector<double> lp(D);
  for (std::size_t v = 0; v < device.size(); ++v) {
    chained_log_probs(&logits[v * D], D, stay[v], parent[v] < 0 ? -1 : device[parent[v]], lp.data());
    total += lp[device[v]];
  }
  return total;
}

TEST(ChainedDecisions, TheMostLikelyAssignmentIsTheJointMaximum) {
  // A forest of 7 nodes (two roots), 3 devices: enumerate all 3^7 assignments.
  const std::vector<int> parent{-1, 0, 0, -1, 1, 3, 5};
  const int N = 7, D = 3;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> noise(0.0f, 1.5f);
  std::vector<int> row_of(N);
  for (int v = 0; v < N; ++v) row_of[v] = v;
  for (const double s : {0.0, 0.7, 2.0, 5.0}) {
    // Each node its own bonus (as a learned stay gives them): s, 1.5 s, 0.5 s in turn.
    const double factor[3] = {1.0, 1.5, 0.5};
    std::vector<double> stay(N);
    for (int v = 0; v < N; ++v) stay[v] = s * factor[v % 3];
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> logits(N * D);
      for (float& l : logits) l = noise(rng);
      const std::vector<int> got = most_likely_chained(logits.data(), row_of, parent, D, terms_of(stay));
      double best = -INFINITY;
      std::vector<int> a(N, 0);
      for (int code = 0; code < 2187; ++code) {
        for (int v = 0, c = code; v < N; ++v, c /= D) a[v] = c % D;
        best = std::max(best, joint(logits, parent, D, stay, a));
      }
      EXPECT_NEAR(joint(logits, parent, D, stay, got), best, 1e-9) << "stay " << s << " trial " << trial;
    }
  }
}

// With sibling terms the exact maximum is out of reach; the better of the two in-order
// decodings is exact on most small forests and close on the rest: 1,046 of 1,200 exact here, at
// most 1.1 nats below the maximum (with lookahead alone 999 and 1.9; step by step alone 967 and 2.4).
TEST(ChainedDecisions, WithSiblingTermsTheMostLikelyAssignmentIsNearTheJointMaximum) {
  const std::vector<int> parent{-1, 0, 0, 0, 1, 1, 2};  // node 0 has three children, node 1 two
  const int N = 7, D = 3;
  std::mt19937_64 rng(11);
  std::normal_distribution<float> noise(0.0f, 1.5f);
  std::vector<int> row_of(N);
  for (int v = 0; v < N; ++v) row_of[v] = v;
  int exact = 0, trials = 0;
  double worst = 0;
  for (const double s : {0.0, 2.0, 5.0})
    for (const double t : {-4.0, -1.0, 1.0, 3.0}) {
      const ChainTerms terms = terms_of(std::vector<double>(N, s), std::vector<double>(N, t));
      for (int trial = 0; trial < 100; ++trial, ++trials) {
        std::vector<float> logits(N * D);
        for (float& l : logits) l = noise(rng);
        const std::vector<int> got = most_likely_chained(logits.data(), row_of, parent, D, terms);
        double best = -INFINITY;
        std::vector<int> a(N, 0);
        for (int code = 0; code < 2187; ++code) {
          for (int v = 0, c = code; v < N; ++v, c /= D) a[v] = c % D;
          best = std::max(best, chained_log_prob(logits.data(), row_of, parent, D, terms, a));
        }
        const double gap = best - chained_log_prob(logits.data(), row_of, parent, D, terms, got);
        exact += gap < 1e-9;
        worst = std::max(worst, gap);
      }
    }
  std::printf("exact %d of %d, worst %.3f nats\n", exact, trials, worst);
  EXPECT_GE(exact, trials * 85 / 100);
  EXPECT_LT(worst, 2.0);
}

// The joint log-probability is the sum of every node's, each given the devices before it.
TEST(ChainedDecisions, TheJointLogProbabilityCountsEarlierSiblings) {
  // A root with two children on two devices, no logits of their own: the root's device has
  // probability 1/2; the first child stays (stay 1) with e / (e + 1); the second child, sibling
  // term -2, on the other device: its logits are (1 - 2, 0) for (root's, other).
  const std::vector<int> parent{-1, 0, 0}, row_of{0, 0, 0};
  const std::vector<float> logits{0.0f, 0.0f};
  const ChainTerms terms = terms_of({1.0, 1.0, 1.0}, {0.0, -2.0, -2.0});
  const double e = std::exp(1.0), want = std::log(0.5) + std::log(e / (e + 1)) +
                                           std::log(1.0 / (std::exp(-1.0) + 1.0));
  EXPECT_NEAR(chained_log_prob(logits.data(), row_of, parent, 2, terms, {1, 1, 0}), want, 1e-12);
}

TEST(ChainedDecisions, SamplesStayOnTheParentsDeviceAsOftenAsTheModelSays) {
  // A chain of 200 nodes with no preference of their own, on two devices: each stays with
  // probability e^stay / (e^stay + 1), 0.881 for stay 2.
  const int N = 200, D = 2;
  std::vector<int> parent(N), row_of(N, 0);
  for (int v = 0; v < N; ++v) parent[v] = v - 1;
  const std::vector<float> logits{0.0f, 0.0f};
  std::mt19937_64 rng(1);
  long long stays = 0, decisions = 0, first_on_one = 0;
  for (int k = 0; k < 200; ++k) {
    const std::vector<int> d = sample_chained(logits.data(), row_of, parent, D, terms_of(std::vector<double>(N, 2.0)), rng);
    first_on_one += d[0];
    for (int v = 1; v < N; ++v) stays += d[v] == d[v - 1], ++decisions;
  }
  EXPECT_NEAR(static_cast<double>(stays) / decisions, std::exp(2.0) / (std::exp(2.0) + 1), 0.01);
  EXPECT_NEAR(first_on_one / 200.0, 0.5, 0.1);  // the root has no parent: its own logits only
  // Without the bonus every node decides alone.
  stays = decisions = 0;
  for (int k = 0; k < 200; ++k) {
    const std::vector<int> d = sample_chained(logits.data(), row_of, parent, D, terms_of(std::vector<double>(N, 0.0)), rng);
    for (int v = 1; v < N; ++v) stays += d[v] == d[v - 1], ++decisions;
  }
  EXPECT_NEAR(static_cast<double>(stays) / decisions, 0.5, 0.01);
}

TEST(ChainedDecisions, EarlierSiblingsAreCountedPerDevice) {
  // Node 0 has children 1, 2, 4; node 2 has child 3.
  const std::vector<int> parent{-1, 0, 0, 2, 0}, device{0, 1, 1, 0, 2};
  const std::vector<int> on = earlier_siblings_on(device, parent, 3);
  const std::vector<int> want{0, 0, 0,   // the root has no siblings
                              0, 0, 0,   // node 1 is the first child
                              0, 1, 0,   // node 2 follows node 1 (device 1)
                              0, 0, 0,   // node 3 is node 2's only child
                              0, 2, 0};  // node 4 follows nodes 1 and 2 (both on device 1)
  EXPECT_EQ(on, want);
}

TEST(ChainedDecisions, OtherInputsAreCountedPerDevice) {
  Graph g("test", "test.onnx");
  add_op(g, "A", {}, 1000);
  add_op(g, "B", {"A"}, 4);
  add_op(g, "C", {"A", "B"}, 1000);  // main parent A, other input B
  add_op(g, "D", {"C"}, 1000);
  add_op(g, "E", {"B", "D"}, 1000);  // main parent D, other input B
  g.finalize();
  const Coarsening c = coarsen(g, CoarsenOptions{.merge_single_predecessor = false, .colocate = false});
  auto group = [&](const char* op) { return c.group_of_op[g.find_op(op)]; };
  const std::vector<std::vector<int>> other = other_inputs_of(c, main_parents(g, c));
  EXPECT_TRUE(other[group("A")].empty());
  EXPECT_TRUE(other[group("B")].empty());
  EXPECT_EQ(other[group("C")], std::vector<int>{group("B")});
  EXPECT_TRUE(other[group("D")].empty());
  EXPECT_EQ(other[group("E")], std::vector<int>{group("B")});
  // Groups are ops in order here: A..E on devices 0, 1, 0, 0, 2 of 3.
  ASSERT_EQ(group("E"), 4);
  const std::vector<int> on = other_inputs_on({0, 1, 0, 0, 2}, other, 3);
  const std::vector<int> want{0, 0, 0,   // A: no inputs
                              0, 0, 0,   // B: only its main parent
                              0, 1, 0,   // C: B on device 1
                              0, 0, 0,   // D: only its main parent
                              0, 1, 0};  // E: B on device 1
  EXPECT_EQ(on, want);
}

// Each node's distribution given where the assignment puts the nodes before it, by hand: the
// same residual block with a join term, the add's other input on device 1.
TEST(ChainedDecisions, ConditionalLogProbabilitiesAreEachNodesGivenTheOthers) {
  const std::vector<int> parent{-1, 0, 0}, row_of{0, 1, 2};
  const std::vector<float> logits{5.0f, 0.0f, 0.0f, 9.0f, 0.0f, 0.0f};
  ChainTerms terms = terms_of({3.0, 3.0, 3.0});
  terms.join = {0.0, 0.0, 5.0};
  terms.other_inputs = {{}, {}, {1}};
  const std::vector<int> device{0, 1, 0};
  const std::vector<double> got = conditional_log_probs(logits.data(), row_of, parent, 2, terms, device);
  ASSERT_EQ(got.size(), 6u);
  auto log_p = [](double chosen, double other) { return chosen - std::log(std::exp(chosen) + std::exp(other)); };
  // Node 0 from (5, 0); node 1 from (0 + 3, 9) (its parent on 0); node 2 from (0 + 3, 0 + 5).
  const double want[] = {log_p(5, 0), log_p(0, 5), log_p(3, 9), log_p(9, 3), log_p(3, 5), log_p(5, 3)};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
  // Node 2's own device does not enter its distribution: moving it changes nothing above.
  EXPECT_EQ(conditional_log_probs(logits.data(), row_of, parent, 2, terms, {0, 1, 1}), got);
}

TEST(ChainedDecisions, APositiveJoinTermFollowsTheOtherInput) {
  // A residual block on two devices: node 0 prefers device 0, node 1 (its child, the branch)
  // device 1, and node 2 (the add) has main parent 0 and other input 1, no preference of its own.
  // With stay 3 it stays with its parent; a join term of 5 per other input takes it to the
  // branch's device instead.
  const std::vector<int> parent{-1, 0, 0}, row_of{0, 1, 2};
  const std::vector<float> logits{5.0f, 0.0f, 0.0f, 9.0f, 0.0f, 0.0f};
  ChainTerms terms = terms_of({3.0, 3.0, 3.0});
  EXPECT_EQ(most_likely_chained(logits.data(), row_of, parent, 2, terms), (std::vector<int>{0, 1, 0}));
  terms.join = {0.0, 0.0, 5.0};
  terms.other_inputs = {{}, {}, {1}};
  EXPECT_EQ(most_likely_chained(logits.data(), row_of, parent, 2, terms), (std::vector<int>{0, 1, 1}));
  // The joint log-probability, by hand: node 0 from (5, 0); node 1 from (0 + 3, 9); node 2 from
  // (0 + 3, 0 + 5).
  auto log_p = [](double chosen, double other) { return chosen - std::log(std::exp(chosen) + std::exp(other)); };
  const double want = log_p(5, 0) + log_p(9, 3) + log_p(5, 3);
  EXPECT_NEAR(chained_log_prob(logits.data(), row_of, parent, 2, terms, {0, 1, 1}), want, 1e-12);
  // Samples follow the same model: the add joins the branch with probability e^5 / (e^3 + e^5).
  std::mt19937_64 rng(5);
  int with_branch = 0, branch_on_1 = 0;
  for (int k = 0; k < 4000; ++k) {
    const std::vector<int> d = sample_chained(logits.data(), row_of, parent, 2, terms, rng);
    if (d[0] == 0 && d[1] == 1) ++branch_on_1, with_branch += d[2] == 1;
  }
  ASSERT_GT(branch_on_1, 3500);
  EXPECT_NEAR(static_cast<double>(with_branch) / branch_on_1, std::exp(5.0) / (std::exp(3.0) + std::exp(5.0)), 0.02);
}

TEST(ChainedDecisions, ANegativeSiblingTermSpreadsParallelBranches) {
  // A root with four children on four alike devices, each child with a long chain below it that
  // stays on its device. Without a sibling term the four branch heads stay with the root's
  // device (stay 3); with a strongly negative one each takes a device of its own.
  const int D = 4, chain = 5;
  std::vector<int> parent{-1};
  for (int b = 0; b < 4; ++b) {
    parent.push_back(0);
    for (int i = 1; i < chain; ++i) parent.push_back(static_cast<int>(parent.size()) - 1);
  }
  const int N = static_cast<int>(parent.size());
  const std::vector<int> row_of(N, 0);
  const std::vector<float> logits(D, 0.0f);
  ChainTerms terms = terms_of(std::vector<double>(N, 3.0));
  auto heads_apart = [&](const std::vector<int>& d) {
    std::vector<int> used;
    for (int v = 1; v < N; ++v) {
      if (parent[v] == 0) used.push_back(d[v]);
      else EXPECT_EQ(d[v], d[parent[v]]) << "node " << v;  // the chains stay together
    }
    std::sort(used.begin(), used.end());
    return std::unique(used.begin(), used.end()) - used.begin();
  };
  EXPECT_EQ(heads_apart(most_likely_chained(logits.data(), row_of, parent, D, terms)), 1);
  // Zero sibling terms are no sibling terms.
  terms.sibling.assign(N, 0.0);
  EXPECT_EQ(heads_apart(most_likely_chained(logits.data(), row_of, parent, D, terms)), 1);
  terms.sibling.assign(N, -10.0);
  EXPECT_EQ(heads_apart(most_likely_chained(logits.data(), row_of, parent, D, terms)), 4);
  // Sampling: the heads are spread as the model says. With stay 3 and sibling -10, the second
  // head joins the root's device with probability e^(3-10) / (e^(3-10) + 3), about 0.0003.
  std::mt19937_64 rng(3);
  terms.stay.assign(N, 3.0);
  for (int v = 0; v < N; ++v)
    if (parent[v] != 0) terms.sibling[v] = 0.0;  // the chains' nodes have no siblings anyway
  int spread = 0;
  for (int k = 0; k < 200; ++k) {
    const std::vector<int> d = sample_chained(logits.data(), row_of, parent, D, terms, rng);
    std::vector<int> heads;
    for (int v = 1; v < N; ++v)
      if (parent[v] == 0) heads.push_back(d[v]);
    std::sort(heads.begin(), heads.end());
    spread += std::unique(heads.begin(), heads.end()) - heads.begin() == 4;
  }
  EXPECT_GT(spread, 190);
}

}  // namespace
}  // namespace devplace
