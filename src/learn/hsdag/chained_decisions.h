// Chained decisions (beyond the paper; HsdagConfig::stay): every coarse node picks its device
// given the device of its main parent, p(d | parent on e) proportional to
// exp(logit(d) + stay_v * [d == e]), stay_v the node's stay bonus. A sample is then made of
// regions that share a device rather than of independent choices per node, whose every early
// sample crosses between devices at about half the edges. The parents form a forest, so the joint probability factorises and its
// most likely assignment is exact. Torch-free: logits are plain row-major floats.
#pragma once

#include <random>
#include <vector>

#include "graph/graph.h"
#include "learn/representation/coarsen.h"

namespace devplace {

// The main parent of every coarse node: the predecessor group that sends it the most bytes
// (ties: the later group), or -1 for a node without predecessors. Always a lower index.
std::vector<int> main_parents(const Graph& graph, const Coarsening& coarse);

// The log-probabilities of node v's devices given its parent's device `parent_device` (-1: no
// parent): log_softmax(logits[row] + stay * onehot(parent_device)), written to `out` (devices).
void chained_log_probs(const float* row, int devices, double stay, int parent_device, double* out);

// One device per coarse node, drawn in index order (a topological order): node v from the row
// logits[row_of[v] * devices ...] with stay[v] added to its parent's device.
std::vector<int> sample_chained(const float* logits, const std::vector<int>& row_of, const std::vector<int>& parent,
                                int devices, const std::vector<double>& stay, std::mt19937_64& rng);

// The most likely joint assignment under the same model (max-product over the forest).
std::vector<int> most_likely_chained(const float* logits, const std::vector<int>& row_of,
                                     const std::vector<int>& parent, int devices, const std::vector<double>& stay);

}  // namespace devplace
