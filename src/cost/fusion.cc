#include "cost/fusion.h"

#include <algorithm>

#include "graph/op_types.h"
#include "util/error.h"

namespace devplace {

namespace {

constexpr FusionRule kRules[] = {FusionRule::conv_epilogue, FusionRule::matmul_epilogue, FusionRule::elementwise_chain,
                                 FusionRule::normalization_chain};

bool is_reduction_like(OpClass c) {
  return c == OpClass::reduce || c == OpClass::softmax || c == OpClass::normalization;
}

bool is_batch_norm(const std::string& type) { return type == "BatchNormalization" || type == "BatchNormInference"; }

// May an op of class `follower` (type `type`) join a chain headed by an op of class `head`?
bool rule_allows(FusionRule r, OpClass head, OpClass follower, const std::string& type) {
  switch (r) {
    case FusionRule::conv_epilogue:
      return head == OpClass::conv && (follower == OpClass::elementwise || is_batch_norm(type));
    case FusionRule::matmul_epilogue:
      return head == OpClass::matmul && follower == OpClass::elementwise;
    case FusionRule::elementwise_chain:
      return head == OpClass::elementwise && follower == OpClass::elementwise;
    case FusionRule::normalization_chain:
      return (is_reduction_like(follower) && (is_reduction_like(head) || head == OpClass::elementwise)) ||
             (follower == OpClass::elementwise && is_reduction_like(head));
  }
  return false;
}

// True when `t`, made by `producer`, is needed by `consumer` alone, and nothing else `producer`
// makes is needed at all: then the runtime never has to write `t` out.
bool feeds_only(const Graph& g, int producer, int t, int consumer) {
  const Tensor& ts = g.tensor(t);
  if (ts.is_graph_output || ts.consumers.size() != 1 || ts.consumers[0] != consumer) return false;
  for (int o : g.op(producer).outputs)
    if (o != t && (g.tensor(o).is_graph_output || !g.tensor(o).consumers.empty())) return false;
  return true;
}

}  // namespace

const char* fusion_rule_name(FusionRule r) {
  switch (r) {
    case FusionRule::conv_epilogue:
      return "conv_epilogue";
    case FusionRule::matmul_epilogue:
      return "matmul_epilogue";
    case FusionRule::elementwise_chain:
      return "elementwise_chain";
    case FusionRule::normalization_chain:
      return "normalization_chain";
  }
  return "?";
}

std::vector<FusionRule> parse_fusion_rules(const std::vector<std::string>& names, const std::string& file,
                                           const std::string& device) {
  std::vector<FusionRule> rules;
  for (const auto& name : names) {
    auto it =
        std::find_if(std::begin(kRules), std::end(kRules), [&](FusionRule r) { return name == fusion_rule_name(r); });
    if (it == std::end(kRules)) {
      std::string known;
      for (FusionRule k : kRules) known += std::string(known.empty() ? "" : ", ") + fusion_rule_name(k);
      throw Error(file, device, "unknown fusion rule '" + name + "' (known: " + known + ")", ErrorKind::not_found);
    }
    rules.push_back(*it);
  }
  return rules;
}

std::vector<std::string> default_fusion_rules(const std::string& device_kind) {
  if (device_kind == "accel") return {"conv_epilogue", "matmul_epilogue"};
  std::vector<std::string> names;
  for (FusionRule r : kRules) names.push_back(fusion_rule_name(r));
  return names;
}

std::vector<int> fusion_parents(const Graph& g, const std::vector<FusionRule>& rules,
                                const std::vector<char>& fusible) {
  const int n = g.num_ops();
  std::vector<int> parent(n, -1), head(n);
  const std::vector<int> depth = g.depths();  // longest path from a source
  // Of several chains that end here (a residual sum of two branches), the one computed last
  // takes this op into its kernel, as a sum post-op does: the deeper producer, then the smaller
  // name (free of the ops' numbering, so a renumbered graph fuses the same).
  auto later = [&](int a, int b) { return depth[a] != depth[b] ? depth[a] > depth[b] : g.op(a).name < g.op(b).name; };
  for (int i = 0; i < n; ++i) {
    head[i] = i;
    if (rules.empty() || !fusible[i]) continue;
    const Op& op = g.op(i);
    const OpClass cls = classify(op.type);
    for (int t : op.inputs) {
      const int p = g.tensor(t).producer;
      if (p < 0 || !fusible[p] || (parent[i] >= 0 && !later(p, parent[i])) || !feeds_only(g, p, t, i)) continue;
      const OpClass h = classify(g.op(head[p]).type);
      if (std::any_of(rules.begin(), rules.end(), [&](FusionRule r) { return rule_allows(r, h, cls, op.type); }))
        parent[i] = p;
    }
    if (parent[i] >= 0) head[i] = head[parent[i]];
  }
  return parent;
}

}  // namespace devplace
