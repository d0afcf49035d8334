// Coarsening: groups of ops that a learned placer places as one unit (step 1 of HSDAG, Duan et
// al. 2024). Placement decisions are made per group; expand() maps them back to ops exactly.
//
// Three passes, each a union-find over ops visited in topological order:
//   1. single-predecessor merge (the paper's released code): an op with exactly one
//      predecessor joins that predecessor's group, so groups are in-trees rooted at sources
//      and join points. Predecessors that only produce constants (Const layers, folded
//      Convert chains: is_folded() in graph/op_costs.h) are not counted, so an OpenVINO IR
//      (weights as Const layers) coarsens like the same ONNX model (weights as initializers).
//      Edges from counted predecessors enter a group only at its root, so the quotient of
//      this pass is acyclic.
//   2. co-location. (a) Zero-cost ops (classify(type) == OpClass::free: Reshape, Squeeze,
//      Const, Parameter, Result ..., and folded ops) join a neighbour: ops that hold constants
//      (folded) or have no producer (Parameter-like sources) join their first consumer in
//      topological order, so weights live with the kernel that reads them; the others join the
//      producer of their first produced input (the data input, in port order). A join that
//      would close a cycle in the quotient graph (a Reshape joining its data producer while its
//      shape input is computed from that producer's output by other ops) is not made: the op
//      tries its next candidate (the producer of a later input, for a constant its producer),
//      else stays alone. Without this, one shape computation per attention layer chains a
//      transformer's layers into one group. (b) Ops with the same integer attribute
//      "colorClass" must share a device and always join.
//   3. colour classes can close cycles in the quotient graph (A and C joined across B in
//      A -> B -> C); every strongly connected component of the quotient is merged into one
//      group (Tarjan), which leaves a DAG.
// Groups are numbered in a topological order of the coarse DAG (ties broken by the smallest
// op index of the group), so the numbering is deterministic.
// A Coarsening is a plain value; it refers to the Graph only by op indices.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "sim/schedule.h"

namespace devplace {

struct CoarsenOptions {
  bool merge_single_predecessor = true;  // pass 1
  bool colocate = true;                  // passes 2a and 2b
  // Pass 1 counts only predecessors that are not folded constants (see above). False counts
  // every predecessor, as the released code does on OpenVINO IR.
  bool ignore_constant_predecessors = true;
  // Beyond the paper: pass 1 merges an op into its predecessor only when that predecessor has
  // no other successor, so groups are chains and the parallel branches of a fork (the towers of
  // an Inception block) stay separate placement decisions. Still acyclic, for the same reason.
  bool chains_only = false;
};

// What coarsening did, for reports ("1009 ops -> 412 groups").
struct CoarsenStats {
  int ops = 0;                 // ops before
  int groups = 0;              // groups after
  int single_pred_merges = 0;  // unions made by pass 1 (each joins two distinct groups)
  int free_op_merges = 0;      // unions made by pass 2a
  int color_merges = 0;        // unions made by pass 2b
  int cycle_skips = 0;         // zero-cost ops left alone by pass 2a: every join closed a cycle
  int cycles_merged = 0;       // SCCs of more than one group merged by pass 3
  int largest_group = 0;       // ops in the largest group
};

struct Coarsening {
  std::vector<int> group_of_op;           // per op: its group, in [0, num_groups())
  std::vector<std::vector<int>> members;  // per group: its ops, ascending (topological)
  // The coarse DAG: distinct neighbour groups, ascending; every edge goes from a lower to a
  // higher group index.
  std::vector<std::vector<int>> preds, succs;
  CoarsenStats stats;

  int num_groups() const { return static_cast<int>(members.size()); }
};

// REQUIRES: g.finalized(). With merge_single_predecessor and colocate off, every op is its own
// group (group index == op index).
Coarsening coarsen(const Graph& g, const CoarsenOptions& options = {});

// The per-op placement of a per-group one: result[op] == group_device[c.group_of_op[op]].
// Throws Error if group_device.size() != c.num_groups().
Placement expand(const Coarsening& c, const std::vector<int>& group_device);

// Merges runs of consecutive groups (in group order, which is topological) so that at most
// `max_groups` remain, each run holding about the same number of ops. Contiguous runs of a
// topological order keep the coarse graph a DAG. Returns `c` unchanged when it is small
// enough. For learners whose cost grows with the square of the group count (attention over
// groups, per-group steps), so that they still run on graphs of 10k ops and more.
Coarsening cap_groups(const Graph& g, const Coarsening& c, int max_groups);

// True when members partition all ops of `g`, group_of_op agrees with members, and
// preds/succs are exactly the quotient of g's edges, mirrored, with every edge going from a
// lower to a higher group index (hence a DAG). For tests and assertions; O(ops + edges).
bool is_valid_coarsening(const Graph& g, const Coarsening& c);

}  // namespace devplace
