// Placement under the latency model of Tarnawski et al. (NeurIPS 2020; see
// tarnawski_objective.h and docs/design/tarnawski.md): a reusable evaluator, the colour-class blocks
// both placers work on, their published greedy baseline and our segment DP + local search.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cost/cost_model.h"
#include "place/placer.h"
#include "place/tarnawski_objective.h"

namespace devplace {

// Evaluates placements under the Tarnawski latency model. The constructor does the
// per-problem precomputation (O(V + E)); each evaluate() is O((V + E) * ceil(D / 64)) with no
// allocation after the first call. tarnawski_latency() is a one-shot wrapper around it.
// REQUIRES: problem outlives the evaluator. Not thread-safe (owns scratch).
class TarnawskiEvaluator {
 public:
  explicit TarnawskiEvaluator(const Problem& problem);
  // Throws Error for a placement of the wrong size or with a device index out of range.
  Verdict evaluate(const Placement& placement);
  // The latency alone (+inf when infeasible); the same checks, no reason strings built.
  double latency(const Placement& placement);

 private:
  Verdict run(const Placement& placement, bool want_reason);

  const Problem& p_;
  int n_ = 0, D_ = 0, host_ = -1, words_ = 1;
  // CSR lists per op: distinct non-resident input tensors, output tensors, predecessor and
  // successor ops (Graph::preds / succs).
  std::vector<int> in_off_, in_t_, out_off_, out_t_, pred_off_, pred_, succ_off_, succ_;
  std::vector<int> producer_;         // per tensor: producing op or -1 (host-resident input)
  std::vector<int> cons_off_, cons_;  // per tensor: consumer ops
  std::vector<int> color_;            // per op: dense colour class id, -1 when none
  int num_colors_ = 0;
  // Scratch.
  std::vector<int> class_dev_, class_op_, stamp_, mem_off_, members_, indeg_, queue_, fill_;
  std::vector<std::int64_t> mem_used_;
  std::vector<std::uint64_t> left_;
  std::vector<double> ready_, acc_finish_;
};

// Inseparable blocks: ops sharing a colorClass are fused, then classes that reach each other
// (a cycle among classes) are fused too (as their greedy.cpp does), so every block must go to
// one device and the blocks form a DAG. Block ids are ordered by their smallest op index;
// members are ascending op indices.
struct TarnawskiBlocks {
  std::vector<int> block_of;                   // per op
  std::vector<std::vector<int>> members;       // per block
  std::vector<std::vector<int>> succs, preds;  // block DAG, distinct, ascending
  int size() const { return static_cast<int>(members.size()); }
};
TarnawskiBlocks tarnawski_blocks(const Problem& problem);

// Topological orders of the block DAG. kStack is the "DFS-ish" order of their greedy.cpp
// (Kahn's algorithm with a LIFO of ready blocks); kIndex takes the ready block of smallest id
// (the graph's own order); kDepth takes the ready block of smallest longest-path depth
// (breadth-first layers, which keeps parallel branches side by side).
enum class BlockOrder { kStack, kIndex, kDepth };
std::vector<int> tarnawski_block_order(const TarnawskiBlocks& blocks, BlockOrder order);

// The accelerators (every device but the host), in cluster order.
std::vector<int> tarnawski_accelerators(const Problem& problem);

// Their greedy baseline (latency-greedy/greedy.cpp of msr-fiddle/dnn-partitioning): blocks in
// kStack order; a block too large for an accelerator (or, our addition, one that an
// accelerator cannot run) goes to the CPU, otherwise a fresh accelerator is opened and filled
// with following blocks while they fit; once all accelerators are open, the rest goes to the
// CPU.
Placement tarnawski_greedy_placement(const Problem& problem);

std::unique_ptr<Placer> make_tarnawski_greedy_placer();
std::unique_ptr<Placer> make_tarnawski_dp_placer();

}  // namespace devplace
