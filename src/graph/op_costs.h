// Op semantics the cost model needs: how many FLOPs and bytes an op moves, derived from its
// tensor shapes and its type's class (graph/op_types.h; both vocabularies devplace reads).
// Unknown op types get the documented default (one FLOP per output element, class `other`) and
// one warning per type. Conventions: 1 MAC = 2 FLOPs; see docs/design/cost-model.md.
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/op_types.h"

namespace devplace {

// True for ops that produce only constants (Const, Constant, or ops whose outputs the importer
// marked constant because all their inputs are): runtimes fold them at load time, so they cost
// no time per inference and hold the constants they produce as weights.
bool is_folded(const Graph& g, const Op& op);

// Fills flops, macs, weight_bytes and bytes_accessed of every op from shapes.
// REQUIRES: g.finalized(). Ops whose importer already set flops > 0 keep their value.
void annotate_costs(Graph& g);

}  // namespace devplace
