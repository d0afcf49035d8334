// Static folding: what a runtime's graph optimiser evaluates once, before the first inference
// (ONNX Runtime's and OpenVINO's constant folding), marked as such so that it costs no time per
// inference and no placement decision. A tensor is static when it is an initializer, the output
// of a Constant, the output of Shape/Size (ShapeOf in OpenVINO IR) of a tensor whose shape is
// fully known, or the output of a deterministic op whose inputs are all static. Ops whose
// outputs are all static are then folded (is_folded in graph/op_costs.h).
#pragma once

#include <map>
#include <string>

#include "graph/graph.h"

namespace devplace {

struct FoldReport {
  int ops = 0;                         // ops newly folded by this pass
  std::map<std::string, int> by_type;  // of those, per op type
};

// Marks static tensors constant (Tensor::is_constant) in topological order and reports the ops
// that became folded. REQUIRES: g.finalized(). Idempotent.
FoldReport fold_static_values(Graph& g);

}  // namespace devplace
