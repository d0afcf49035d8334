#include "graph/static_folding.h"

#include <set>

#include "graph/op_costs.h"

namespace devplace {

namespace {

// Ops whose output depends on their input's shape only.
bool reads_shape_only(const std::string& type) { return type == "Shape" || type == "Size" || type == "ShapeOf"; }

// Ops that draw random numbers: never evaluated ahead of time.
bool is_random(const std::string& type) {
  static const std::set<std::string> random = {"RandomNormal",      "RandomUniform", "RandomNormalLike",
                                               "RandomUniformLike", "Multinomial",   "Bernoulli"};
  return random.count(type) > 0;
}

bool static_outputs(const Graph& g, const Op& op) {
  if (op.type == "Constant" || op.type == "Const") return true;
  if (op.inputs.empty() || is_random(op.type)) return false;
  if (reads_shape_only(op.type)) return g.tensor(op.inputs[0]).shape_known();
  for (int t : op.inputs)
    if (!g.tensor(t).is_constant) return false;
  return true;
}

}  // namespace

FoldReport fold_static_values(Graph& g) {
  FoldReport report;
  for (int i = 0; i < g.num_ops(); ++i) {  // topological order: inputs are decided first
    const Op& op = g.op(i);
    const bool was_folded = is_folded(g, op);  // Constant ops are, with outputs not yet marked
    if (!static_outputs(g, op)) continue;
    for (int t : op.outputs) g.tensor(t).is_constant = true;
    if (was_folded) continue;
    ++report.ops;
    ++report.by_type[op.type];
  }
  return report;
}

}  // namespace devplace
